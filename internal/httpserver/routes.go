package httpserver

import (
	"context"
	"fmt"
	"io/fs"
	"net/http"
	"path"
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
		status, body := http.StatusOK, gin.H{"status": "ready"}
		if cfg.Ready != nil {
			if err := cfg.Ready(); err != nil {
				status, body = http.StatusServiceUnavailable, gin.H{"status": "not ready", "reason": err.Error()}
			}
		}
		if cfg.ReadyStatus != nil {
			for k, v := range cfg.ReadyStatus() {
				body[k] = v
			}
		}
		c.JSON(status, body)
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
	if cfg.Pages != nil {
		r.GET("/", pageHandler(cfg.Pages, "index.html"))
		r.GET("/graphiql", pageHandler(cfg.Pages, "graphiql.html"))
		r.GET("/assets/*file", assetHandler(cfg.Pages))
	}
}

// pagePolicy lets the pages load nothing but what this server serves: the bundle's scripts,
// workers, styles and fonts (some inlined as data: URIs), and the API. GraphiQL's editor
// sets inline styles.
const pagePolicy = "default-src 'self'; script-src 'self'; worker-src 'self'; " +
	"style-src 'self' 'unsafe-inline'; font-src 'self' data:; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"

// pageHandler serves one HTML page of pages. Pages name their assets by content hash, so
// the page itself must be revalidated to pick up a new build.
func pageHandler(pages fs.FS, name string) gin.HandlerFunc {
	return func(c *gin.Context) {
		b, err := fs.ReadFile(pages, name)
		if err != nil {
			writeError(c, fmt.Errorf("page %s: %w", name, err))
			return
		}
		c.Header("Cache-Control", "no-cache")
		c.Header("Content-Security-Policy", pagePolicy)
		c.Header("X-Content-Type-Options", "nosniff")
		c.Data(http.StatusOK, "text/html; charset=utf-8", b)
	}
}

// assetHandler serves pages' assets/ directory. Asset names carry a hash of their content,
// so they never change and may be cached for good; directories are not listed.
func assetHandler(pages fs.FS) gin.HandlerFunc {
	return func(c *gin.Context) {
		rel := strings.TrimPrefix(c.Param("file"), "/")
		name := "assets/" + rel
		// ValidPath refuses .. elements: nothing outside assets/ is served from here.
		if info, err := fs.Stat(pages, name); !fs.ValidPath(rel) || err != nil || info.IsDir() {
			c.JSON(http.StatusNotFound, gin.H{"error": "no such asset", "code": athar.NotFound})
			return
		}
		c.Header("Cache-Control", "public, max-age=31536000, immutable")
		c.Header("X-Content-Type-Options", "nosniff")
		if ct := assetType(path.Ext(name)); ct != "" {
			c.Header("Content-Type", ct)
		}
		c.FileFromFS(name, http.FS(pages))
	}
}

// assetType is the media type of an asset's extension, for those Go's mime package may
// not know (it falls back to the host's tables, which differ between machines).
func assetType(ext string) string {
	switch ext {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".woff2":
		return "font/woff2"
	case ".ttf":
		return "font/ttf"
	}
	return ""
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
	case athar.Unavailable:
		status = http.StatusServiceUnavailable
	case athar.TooLarge:
		status = http.StatusRequestEntityTooLarge
	case athar.UnsupportedMediaType:
		status = http.StatusUnsupportedMediaType
	}
	if status == http.StatusInternalServerError {
		_ = c.Error(err)
	}
	c.JSON(status, gin.H{"error": athar.ErrorMessage(err), "code": athar.ErrorCode(err)})
}
