package graph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/athar-hadith/athar/internal/athar"
)

// postTypes are the media types a POST to the endpoint may carry: those of gqlgen's POST
// transport. Anything else is refused with 415 before gqlgen sees it (gqlgen would answer
// 400 "transport not supported", with no code).
var postTypes = []string{"application/json"}

// retryAfter is the Retry-After of a 503 answer, in seconds: about the replica's longest
// wait between retries of the database.
const retryAfter = "5"

// readBody checks a POST's media type and reads its body whole, so that a body over the
// HTTP server's limit (internal/httpserver's http.MaxBytesReader) is refused as such (413)
// whether or not it announced its length; gqlgen's POST transport would answer 200 with a
// decoding error. It reports whether the request may go on; if not, the answer is written.
func readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost {
		return true
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || !contains(postTypes, mt) {
		refuse(w, http.StatusUnsupportedMediaType, athar.UnsupportedMediaType,
			fmt.Sprintf("Content-Type %q is not accepted: send %s (GET takes queries in the URL)", r.Header.Get("Content-Type"), strings.Join(postTypes, " or ")))
		return false
	}
	if r.Body == nil {
		return true
	}
	b, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		refuse(w, http.StatusRequestEntityTooLarge, athar.TooLarge,
			fmt.Sprintf("the request body is over the limit of %d bytes", tooLarge.Limit))
		return false
	case err != nil:
		refuse(w, http.StatusBadRequest, athar.Invalid, "could not read the request body")
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// refuse answers a request refused as a whole, in the shape of a GraphQL response.
func refuse(w http.ResponseWriter, status int, code athar.Code, msg string) {
	body, _ := json.Marshal(map[string]any{
		"errors": []map[string]any{{"message": msg, "extensions": map[string]any{"code": code}}},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// unavailableKey marks a request's context with the flag the error presenter raises when
// it presents an UNAVAILABLE error.
type unavailableKey struct{}

func withUnavailableFlag(ctx context.Context) (context.Context, *atomic.Bool) {
	f := new(atomic.Bool)
	return context.WithValue(ctx, unavailableKey{}, f), f
}

func flagUnavailable(ctx context.Context) {
	if f, ok := ctx.Value(unavailableKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
}

// retryWriter turns the 200 of a response that holds an UNAVAILABLE error into 503 with
// Retry-After, so that HTTP clients and proxies see a retryable failure. gqlgen presents
// errors before it writes the response.
type retryWriter struct {
	http.ResponseWriter
	unavailable *atomic.Bool
	wrote       bool
}

func (w *retryWriter) WriteHeader(status int) {
	if !w.wrote {
		w.wrote = true
		if status == http.StatusOK && w.unavailable.Load() {
			w.Header().Set("Retry-After", retryAfter)
			status = http.StatusServiceUnavailable
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *retryWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *retryWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// codeWriter gives every error of a refused answer (status 400 and above) an
// extensions.code. gqlgen's transports write some answers themselves, without the error
// presenter: a mutation sent with GET (406), variables or extensions in a GET's URL that do
// not decode, a POST body that is not JSON (400). Those get INVALID_ARGUMENT; an answer
// whose errors all have codes is sent as it was written.
type codeWriter struct {
	http.ResponseWriter
	status int // 0 until a refusal's status is held back
	body   bytes.Buffer
}

func (w *codeWriter) WriteHeader(status int) {
	if status >= http.StatusBadRequest && w.status == 0 {
		w.status = status
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *codeWriter) Write(b []byte) (int, error) {
	if w.status != 0 {
		return w.body.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// finish sends a held-back refusal, with the codes it lacked.
func (w *codeWriter) finish() {
	if w.status == 0 {
		return
	}
	body := w.body.Bytes()
	if coded, ok := withCodes(body); ok {
		body = coded
	}
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = w.ResponseWriter.Write(body)
}

// withCodes returns body with INVALID_ARGUMENT added to every error lacking a code, and
// whether it changed anything.
func withCodes(body []byte) ([]byte, bool) {
	var resp map[string]json.RawMessage
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, false
	}
	var errs []map[string]any
	if err := json.Unmarshal(resp["errors"], &errs); err != nil {
		return nil, false
	}
	changed := false
	for _, e := range errs {
		ext, _ := e["extensions"].(map[string]any)
		if _, ok := ext["code"].(string); ok {
			continue
		}
		if ext == nil {
			ext = map[string]any{}
		}
		ext["code"] = string(athar.Invalid)
		e["extensions"] = ext
		changed = true
	}
	if !changed {
		return nil, false
	}
	b, err := json.Marshal(errs)
	if err != nil {
		return nil, false
	}
	resp["errors"] = b
	out, err := json.Marshal(resp)
	return out, err == nil
}
