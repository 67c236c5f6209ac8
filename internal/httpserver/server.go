// Package httpserver is Athar's HTTP surface: routes, middleware and timeouts. It is the only
// package that imports gin. routes.go lists every route.
package httpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/rs/cors"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/metrics"
	"github.com/athar-hadith/athar/internal/narration"
)

// Config holds what the server serves and its limits.
type Config struct {
	GraphQL http.Handler // serves POST and GET /graphql
	// Store and Vocab serve /export/{format}; without a Store there is no export.
	Store athar.Store
	Vocab *athar.Vocabulary
	// Pages are the browser pages (package web's Explorer): index.html served at /,
	// graphiql.html at /graphiql, and assets/ at /assets/. Nil serves no pages.
	Pages  fs.FS
	Logger *slog.Logger
	// Ready reports whether the server can take traffic (nil: always ready).
	Ready func() error
	// ReadyStatus, when set, adds its fields to every /readyz answer, ready or not (a
	// replica's position, head and lag in the scale-out mode).
	ReadyStatus func() map[string]any
	// MaxBodyBytes limits request bodies, of every route (default DefaultMaxBodyBytes);
	// larger ones get 413 REQUEST_TOO_LARGE, whether they announce their length or come
	// chunked. It is the only body limit: the GraphQL endpoint reads what it is let through.
	MaxBodyBytes int64
	// Metrics, when set, records every request and is served at /metrics.
	Metrics *metrics.Metrics
	// ExportStallTimeout is how long one write of an export may wait for the client to
	// read before the export is aborted (default 30s). Exports are not bound by the
	// server's WriteTimeout: each write sets its own deadline, so a slow but steady client
	// gets the whole graph and a stalled one is dropped.
	ExportStallTimeout time.Duration
	// ExportMaxDuration bounds one export from start to end, however steadily the client
	// reads (default 1h).
	ExportMaxDuration time.Duration
	// MaxConcurrentExports is how many exports may run at once (default 4); each holds its
	// selection in memory while the client reads. More get 503 with Retry-After.
	MaxConcurrentExports int
	// CORSOrigins lists the origins allowed to call the API from a browser ("*" for any).
	// Empty means same origin only: no CORS headers are sent.
	CORSOrigins []string
}

// DefaultMaxBodyBytes is the default of Config.MaxBodyBytes: a narration document
// (narration.MaxDocumentSize) sent to importNarration as a JSON string, with room for its
// escaping.
const DefaultMaxBodyBytes = 3 * narration.MaxDocumentSize

// The http.Server's timeouts (NewServer), per connection. A GraphQL request's own time
// limit, shorter, is the GraphQL endpoint's (graph.Config.Timeout); exports set their own
// write deadlines (Config.ExportStallTimeout, Config.ExportMaxDuration).
const (
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout = 5 * time.Second
	// ReadTimeout bounds reading a whole request, body included: time for a body of
	// DefaultMaxBodyBytes at well under 1 MB/s.
	ReadTimeout = 30 * time.Second
	// WriteTimeout bounds a response from the end of its request's headers: longer than
	// ReadTimeout plus graph.DefaultTimeout, so that a GraphQL request's own limit, which
	// answers with a coded error, always fires first.
	WriteTimeout = 60 * time.Second
	// IdleTimeout bounds a kept-alive connection waiting for its next request.
	IdleTimeout = 120 * time.Second
	// MaxHeaderBytes bounds a request's headers.
	MaxHeaderBytes = 1 << 20
)

var ginMode sync.Once

// New returns the HTTP handler serving every route.
func New(cfg Config) http.Handler {
	ginMode.Do(func() { gin.SetMode(gin.ReleaseMode) }) // gin's mode is process-wide
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.ExportStallTimeout <= 0 {
		cfg.ExportStallTimeout = 30 * time.Second
	}
	if cfg.ExportMaxDuration <= 0 {
		cfg.ExportMaxDuration = time.Hour
	}
	if cfg.MaxConcurrentExports <= 0 {
		cfg.MaxConcurrentExports = 4
	}
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.Use(requestID(), recovery(cfg.Logger), accessLog(cfg.Logger, cfg.Metrics), bodyLimit(cfg.MaxBodyBytes))
	addRoutes(r, cfg)
	if len(cfg.CORSOrigins) == 0 {
		return r
	}
	return cors.New(cors.Options{
		AllowedOrigins: cfg.CORSOrigins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost},
		AllowedHeaders: []string{"Content-Type", "Authorization"},
		ExposedHeaders: []string{"X-Request-Id"},
		MaxAge:         600,
	}).Handler(r)
}

// NewServer wraps h in an http.Server with read, write and idle timeouts (ReadTimeout and
// the others above). Exports set their own write deadlines instead of WriteTimeout (see
// Config.ExportStallTimeout).
func NewServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    MaxHeaderBytes,
	}
}

type ctxKey int

const requestIDKey ctxKey = iota

// RequestID returns the id of the request being served, or "".
func RequestID(r *http.Request) string {
	id, _ := r.Context().Value(requestIDKey).(string)
	return id
}

func requestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		c.Header("X-Request-Id", id)
		c.Set("request_id", id)
		c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), requestIDKey, id))
		c.Next()
	}
}

func accessLog(l *slog.Logger, m *metrics.Metrics) gin.HandlerFunc {
	return func(c *gin.Context) {
		start := time.Now()
		c.Next()
		if m != nil {
			m.ObserveRequest(c.FullPath(), c.Request.Method, c.Writer.Status(), time.Since(start))
		}
		attrs := []slog.Attr{
			slog.String("request_id", c.GetString("request_id")),
			slog.String("method", c.Request.Method),
			slog.String("path", c.Request.URL.Path),
			slog.Int("status", c.Writer.Status()),
			slog.Duration("duration", time.Since(start)),
		}
		level := slog.LevelInfo
		if len(c.Errors) > 0 {
			// Internal errors the client was not shown are logged here, once.
			level = slog.LevelError
			attrs = append(attrs, slog.String("error", c.Errors.String()))
		}
		l.LogAttrs(c.Request.Context(), level, "request", attrs...)
	}
}

// recovery turns a panic into a 500 with no details; the details go to the log, once.
func recovery(l *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					// A response cut on purpose (see abortExport): net/http closes the
					// connection without ending the body, so the client sees an error.
					panic(v)
				}
				l.Error("panic serving request", "request_id", c.GetString("request_id"), "panic", v)
				c.AbortWithStatusJSON(http.StatusInternalServerError, gin.H{"error": "internal error"})
			}
		}()
		c.Next()
	}
}

func bodyLimit(max int64) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.ContentLength > max {
			c.AbortWithStatusJSON(http.StatusRequestEntityTooLarge, gin.H{"error": fmt.Sprintf("the request body is over the limit of %d bytes", max), "code": athar.TooLarge})
			return
		}
		if c.Request.Body != nil {
			c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, max)
		}
		c.Next()
	}
}
