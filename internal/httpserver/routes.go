package httpserver

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

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
		gql := gin.WrapH(cfg.GraphQL) // it bounds its requests' time itself (graph.Config.Timeout)
		r.POST("/graphql", gql)
		r.GET("/graphql", gql)
	}
	if cfg.Pages != nil {
		pages := newPageFiles(cfg.Pages)
		r.GET("/", pageHandler(pages, "index.html"))
		r.GET("/graphiql", pageHandler(pages, "graphiql.html"))
		r.GET("/assets/*file", assetHandler(pages))
	}
}

// pagePolicy lets the pages load nothing but what this server serves: the bundle's scripts,
// workers, styles and fonts (some inlined as data: URIs), and the API. GraphiQL's editor
// sets inline styles.
const pagePolicy = "default-src 'self'; script-src 'self'; worker-src 'self'; " +
	"style-src 'self' 'unsafe-inline'; font-src 'self' data:; img-src 'self' data:; " +
	"connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"

// pageHandler serves one HTML page of pages. Pages name their assets by content hash, so
// the page itself must be revalidated to pick up a new build (its ETag makes that a 304).
func pageHandler(pages *pageFiles, name string) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Header("Cache-Control", "no-cache")
		c.Header("Content-Security-Policy", pagePolicy)
		c.Header("X-Content-Type-Options", "nosniff")
		if err := pages.serve(c.Writer, c.Request, name, "text/html; charset=utf-8"); err != nil {
			c.Writer.Header().Del("Cache-Control")
			writeError(c, fmt.Errorf("page %s: %w", name, err))
		}
	}
}

// assetHandler serves pages' assets/ directory. Asset names carry a hash of their content,
// so they never change and may be cached for good; directories are not listed.
func assetHandler(pages *pageFiles) gin.HandlerFunc {
	return func(c *gin.Context) {
		rel := strings.TrimPrefix(c.Param("file"), "/")
		name := "assets/" + rel
		// ValidPath refuses .. elements: nothing outside assets/ is served from here.
		if info, err := fs.Stat(pages.fsys, name); !fs.ValidPath(rel) || err != nil || info.IsDir() {
			c.JSON(http.StatusNotFound, gin.H{"error": "no such asset", "code": athar.NotFound})
			return
		}
		c.Header("Cache-Control", "public, max-age=31536000, immutable")
		c.Header("X-Content-Type-Options", "nosniff")
		if err := pages.serve(c.Writer, c.Request, name, assetType(path.Ext(name))); err != nil {
			writeError(c, fmt.Errorf("asset %s: %w", name, err))
		}
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

// exportHandler serves GET /export/{format}?root=ID&depth=N&predicates=a,b (or
// ?narration=ID): the whole graph, the neighbourhood of root, or what one narration asserts,
// in one of export.Formats(). An unknown query parameter is a 400 naming it.
//
// The export streams under its own bounds instead of the server's WriteTimeout: each write
// must complete within cfg.ExportStallTimeout, and the whole export within
// cfg.ExportMaxDuration; at most cfg.MaxConcurrentExports run at once. An export that fails
// once its body has begun is aborted (the connection is closed without ending the chunked
// body), never ended cleanly, so a client cannot take a cut export for a whole one.
func exportHandler(cfg Config) gin.HandlerFunc {
	running := make(chan struct{}, cfg.MaxConcurrentExports)
	return func(c *gin.Context) {
		select {
		case running <- struct{}{}:
			defer func() { <-running }()
		default:
			c.Header("Retry-After", "10")
			c.JSON(http.StatusServiceUnavailable, gin.H{"error": fmt.Sprintf("%d exports are running, the most at once; retry later", cfg.MaxConcurrentExports)})
			return
		}
		start := time.Now()
		ctx, cancel := context.WithDeadline(c.Request.Context(), start.Add(cfg.ExportMaxDuration))
		defer cancel()
		format := c.Param("format")
		if export.ContentType(format) == "" {
			c.JSON(http.StatusNotFound, gin.H{"error": fmt.Sprintf("unknown export format %q; supported: %s", format, strings.Join(export.Formats(), ", "))})
			return
		}
		opts, err := exportOptions(c, cfg)
		if err != nil {
			writeError(c, err)
			return
		}
		sg, err := export.Select(ctx, cfg.Store, opts)
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded && c.Request.Context().Err() == nil {
				// The bound passed before the first byte: nothing was sent, so say so
				// plainly (retryable) rather than as an internal error.
				c.Header("Retry-After", "10")
				err = athar.E("export", athar.Unavailable, "the export did not start within its bound (%v, ExportMaxDuration): the server is busy or the selection is too large; retry later or select less (root, depth, narration)", cfg.ExportMaxDuration)
			}
			writeError(c, err)
			return
		}
		root := string(opts.Root)
		if opts.Narration != "" {
			root = string(opts.Narration)
		}
		name := "athar"
		if root != "" {
			name += "-" + strings.NewReplacer(":", "-", "/", "-").Replace(root)
		}
		c.Header("Content-Type", export.ContentType(format))
		c.Header("Content-Disposition", fmt.Sprintf("inline; filename=%q", name+export.Extension(format)))
		c.Status(http.StatusOK)
		w := &exportWriter{w: c.Writer, rc: http.NewResponseController(c.Writer), stall: cfg.ExportStallTimeout, end: start.Add(cfg.ExportMaxDuration)}
		if err := export.Write(w, format, sg); err != nil {
			cfg.Logger.Error("export failed mid-stream; aborting the response", "request_id", c.GetString("request_id"),
				"format", format, "bytes_sent", w.n, "duration", time.Since(start), "err", err)
			panic(http.ErrAbortHandler)
		}
	}
}

// exportParams are the query parameters /export/{format} takes; any other is refused, so
// that a misspelt or unsupported one is not silently ignored.
var exportParams = []string{"root", "depth", "predicates", "narration"}

// exportOptions reads the selection from the query. Errors are Invalid (a 400 with code
// INVALID_ARGUMENT): an unknown parameter (named), a depth that is not a number, an
// unknown predicate.
func exportOptions(c *gin.Context, cfg Config) (export.Options, error) {
	const op = "export"
	q := c.Request.URL.Query()
	var unknown []string
	for k := range q {
		if !slices.Contains(exportParams, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return export.Options{}, athar.E(op, athar.Invalid, "unknown query parameter(s) %s: expected %s", strings.Join(unknown, ", "), strings.Join(exportParams, ", "))
	}
	var opts export.Options
	if d := q.Get("depth"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil {
			return opts, athar.E(op, athar.Invalid, "depth %q is not a number", d)
		}
		opts.Depth = n
	} else if q.Get("narration") == "" {
		opts.Depth = export.DefaultDepth
	}
	preds, err := export.ParsePredicates(cfg.Vocab, q.Get("predicates"))
	if err != nil {
		return opts, err
	}
	opts.Predicates = preds
	opts.Root = athar.ID(q.Get("root"))
	opts.Narration = athar.ID(q.Get("narration"))
	return opts, nil
}

// exportWriter writes an export to the client, giving each write its own deadline: the
// stall timeout from now, but never past the export's end.
type exportWriter struct {
	w     io.Writer
	rc    *http.ResponseController
	stall time.Duration
	end   time.Time
	n     int64
}

func (e *exportWriter) Write(p []byte) (int, error) {
	now := time.Now()
	if !now.Before(e.end) {
		return 0, fmt.Errorf("export still unfinished after its bound (ExportMaxDuration): %w", os.ErrDeadlineExceeded)
	}
	deadline := now.Add(e.stall)
	if deadline.After(e.end) {
		deadline = e.end
	}
	if err := e.rc.SetWriteDeadline(deadline); err != nil {
		return 0, fmt.Errorf("export: set the write deadline: %w", err)
	}
	n, err := e.w.Write(p)
	e.n += int64(n)
	return n, err
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
