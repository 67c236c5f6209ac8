package httpserver

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/export"
)

// addRoutes is the whole HTTP surface of Athar.
func addRoutes(r *gin.Engine, cfg Config) {
	r.GET("/healthz", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	r.GET("/readyz", func(c *gin.Context) {
		if cfg.Ready != nil {
			if err := cfg.Ready(); err != nil {
				c.JSON(http.StatusServiceUnavailable, gin.H{"status": "not ready", "reason": err.Error()})
				return
			}
		}
		c.JSON(http.StatusOK, gin.H{"status": "ready"})
	})
	if cfg.Metrics != nil {
		r.GET("/metrics", gin.WrapH(cfg.Metrics.Handler()))
	}
	if cfg.Store != nil {
		r.GET("/export/:format", exportHandler(cfg))
	}
	if cfg.GraphQL != nil {
		gql := gin.WrapH(withTimeout(cfg.GraphQL, cfg))
		r.POST("/graphql", gql)
		r.GET("/graphql", gql)
	}
}

func withTimeout(h http.Handler, cfg Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), cfg.RequestTimeout)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// exportHandler serves GET /export/{format}?root=ID&depth=N&predicates=a,b: the whole graph,
// or the neighbourhood of root, in one of export.Formats().
func exportHandler(cfg Config) gin.HandlerFunc {
	return func(c *gin.Context) {
		format := c.Param("format")
		if export.ContentType(format) == "" {
			c.JSON(http.StatusNotFound, gin.H{"error": fmt.Sprintf("unknown export format %q; supported: %s", format, strings.Join(export.Formats(), ", "))})
			return
		}
		depth := export.DefaultDepth
		if d := c.Query("depth"); d != "" {
			n, err := strconv.Atoi(d)
			if err != nil {
				c.JSON(http.StatusBadRequest, gin.H{"error": fmt.Sprintf("depth %q is not a number", d)})
				return
			}
			depth = n
		}
		preds, err := export.ParsePredicates(cfg.Vocab, c.Query("predicates"))
		if err != nil {
			writeError(c, err)
			return
		}
		root := c.Query("root")
		sg, err := export.Select(c.Request.Context(), cfg.Store, export.Options{Root: athar.ID(root), Depth: depth, Predicates: preds})
		if err != nil {
			writeError(c, err)
			return
		}
		name := "athar"
		if root != "" {
			name += "-" + strings.NewReplacer(":", "-", "/", "-").Replace(root)
		}
		c.Header("Content-Type", export.ContentType(format))
		c.Header("Content-Disposition", fmt.Sprintf("inline; filename=%q", name+export.Extension(format)))
		c.Status(http.StatusOK)
		if err := export.Write(c.Writer, format, sg, cfg.NQuads); err != nil {
			cfg.Logger.Error("export failed mid-stream", "request_id", c.GetString("request_id"), "err", err)
		}
	}
}

// writeError answers with the status for err's code and its user-facing message; internal
// errors are logged once and never shown.
func writeError(c *gin.Context, err error) {
	status := http.StatusInternalServerError
	switch athar.ErrorCode(err) {
	case athar.Invalid:
		status = http.StatusBadRequest
	case athar.NotFound:
		status = http.StatusNotFound
	case athar.Conflict:
		status = http.StatusConflict
	case athar.Unauthenticated:
		status = http.StatusUnauthorized
	}
	if status == http.StatusInternalServerError {
		_ = c.Error(err)
	}
	c.JSON(status, gin.H{"error": athar.ErrorMessage(err), "code": athar.ErrorCode(err)})
}
