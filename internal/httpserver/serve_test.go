package httpserver_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/httpserver"
)

// TestServeStops checks that Serve answers until it is stopped, by its context or by an
// error on failed, and returns what stopped it.
func TestServeStops(t *testing.T) {
	boom := errors.New("the replica cannot follow the log")
	for _, tc := range []struct {
		name string
		fail error // sent on failed; nil: the context is cancelled instead
	}{
		{name: "context done"},
		{name: "failed", fail: boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			failed := make(chan error, 1)
			h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
			done := make(chan error, 1)
			go func() { done <- httpserver.Serve(ctx, ln, h, failed, slog.New(slog.DiscardHandler)) }()
			resp, err := http.Get("http://" + ln.Addr().String() + "/")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if tc.fail != nil {
				failed <- tc.fail
			} else {
				cancel()
			}
			select {
			case err := <-done:
				if !errors.Is(err, tc.fail) && err != tc.fail {
					t.Fatalf("Serve returned %v, want %v", err, tc.fail)
				}
			case <-time.After(httpserver.ShutdownTimeout + 5*time.Second):
				t.Fatal("Serve did not stop")
			}
		})
	}
}
