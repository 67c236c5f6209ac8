package httpserver_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/httpserver"
	"github.com/athar-hadith/athar/internal/narration"
)

// TestBodyLimitIsOwnedOnce checks that the server's body limit is the only one a GraphQL
// request meets: a body under it reaches the endpoint whole, one over it is refused with
// 413 whether it announced its length or came chunked, and the server adds no deadline of
// its own to the endpoint's (graph.Config.Timeout is the request's time limit).
func TestBodyLimitIsOwnedOnce(t *testing.T) {
	if httpserver.DefaultMaxBodyBytes < narration.MaxDocumentSize {
		t.Fatalf("DefaultMaxBodyBytes %d is under a narration document's limit %d", httpserver.DefaultMaxBodyBytes, narration.MaxDocumentSize)
	}
	var read int
	gql := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Deadline(); ok {
			t.Error("the server set a deadline on a GraphQL request: the endpoint owns its time limit")
		}
		b, err := io.ReadAll(r.Body)
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		read = len(b)
	})
	h := httpserver.New(httpserver.Config{GraphQL: gql})
	under := int(httpserver.DefaultMaxBodyBytes) - 1<<20
	over := int(httpserver.DefaultMaxBodyBytes) + 1
	cases := []struct {
		name    string
		size    int
		chunked bool
		status  int
	}{
		{"under the limit", under, false, http.StatusOK},
		{"under the limit, chunked", under, true, http.StatusOK},
		{"over the limit", over, false, http.StatusRequestEntityTooLarge},
		{"over the limit, chunked", over, true, http.StatusRequestEntityTooLarge},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			read = 0
			var body io.Reader = bytes.NewReader(make([]byte, tc.size))
			if tc.chunked {
				body = io.MultiReader(body)
			}
			req := httptest.NewRequest(http.MethodPost, "/graphql", body)
			if tc.chunked {
				req.ContentLength = -1
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d", rec.Code, tc.status)
			}
			if tc.status == http.StatusOK && read != tc.size {
				t.Errorf("the endpoint read %d bytes of %d", read, tc.size)
			}
		})
	}
}

// TestTimeoutsNest checks the order docs/limits.md promises: a GraphQL request's own limit
// (graph.DefaultTimeout) fires, with a coded answer, before the server's write timeout cuts
// the connection, even for a request whose body took the whole ReadTimeout to arrive.
func TestTimeoutsNest(t *testing.T) {
	if httpserver.WriteTimeout <= httpserver.ReadTimeout+graph.DefaultTimeout {
		t.Errorf("WriteTimeout %s is not longer than ReadTimeout %s plus graph.DefaultTimeout %s",
			httpserver.WriteTimeout, httpserver.ReadTimeout, graph.DefaultTimeout)
	}
	if httpserver.ReadHeaderTimeout >= httpserver.ReadTimeout {
		t.Errorf("ReadHeaderTimeout %s is not shorter than ReadTimeout %s", httpserver.ReadHeaderTimeout, httpserver.ReadTimeout)
	}
}
