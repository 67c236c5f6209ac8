package httpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// ShutdownTimeout is how long Serve lets in-flight requests finish once it stops.
const ShutdownTimeout = 10 * time.Second

// Serve serves h on ln, in a server made by NewServer, until ctx is done or failed
// delivers an error (nil: never), then shuts down gracefully: in-flight requests get up to
// ShutdownTimeout. It returns the error failed delivered, or the server's own, or nil when
// ctx ended it.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, failed <-chan error, logger *slog.Logger) error {
	srv := NewServer(ln.Addr().String(), h)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var stop error
	select {
	case err := <-errc:
		return err
	case stop = <-failed:
		logger.Error("stopping", "err", stop)
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return stop
}
