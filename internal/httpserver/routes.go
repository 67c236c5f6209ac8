package httpserver

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
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
