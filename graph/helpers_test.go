package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/corpus"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/search"
	"github.com/athar-hadith/athar/internal/testsupport"
	"github.com/athar-hadith/athar/internal/textindex"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

// testToken is the bearer token the test servers accept for mutations.
const testToken = "s3cret-token"

// env is a real GraphQL server over a real store loaded with the seeds.
type env struct {
	store    athar.Store
	importer *ingest.Local
	index    *search.Index
	texts    *textindex.Index
	srv      *httptest.Server
	logs     *testsupport.Buffer
}

type options struct {
	spec   string // store spec; "memory:" when empty
	token  string
	wrap   func(athar.Store) athar.Store // decorates the store the handler reads
	config func(*graph.Config)
	// textDir is where the full-text index lives; in memory when empty.
	textDir string
}

// newEnv starts a server over the seeds, with testToken unless opt says otherwise.
func newEnv(t *testing.T, opt options) *env {
	t.Helper()
	if opt.spec == "" {
		opt.spec = "memory:"
	}
	st, err := cayleystore.Open(opt.spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	vocab := schema.Vocabulary()
	logs := &testsupport.Buffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	// The index is built from the empty store and kept current by subscribing to the
	// writer, as cmd/athar does: the seeds reach it through the subscription.
	ix := search.NewIndex()
	if err := graph.BuildIndex(context.Background(), st, ix); err != nil {
		t.Fatal(err)
	}
	texts, err := graph.OpenTextIndex(context.Background(), opt.textDir, st, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { texts.Close() })
	timeline := graph.NewTimelineCache()
	im := ingest.NewLocal(st, vocab, graph.IndexSubscriber(st, ix, logger), graph.TextIndexSubscriber(st, texts, logger), timeline.Invalidate)
	loadSeeds(t, im)
	var read athar.Store = st
	if opt.wrap != nil {
		read = opt.wrap(st)
	}
	cfg := graph.Config{
		Store: read, Importer: im, Vocab: vocab, Index: ix, Texts: texts, Timeline: timeline, Token: opt.token, Logger: logger,
	}
	if opt.config != nil {
		opt.config(&cfg)
	}
	h, err := graph.NewHandler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &env{store: st, importer: im, index: ix, texts: texts, srv: srv, logs: logs}
}

// loadSeeds imports every embedded seed, in dependency order.
func loadSeeds(t *testing.T, im *ingest.Local) {
	t.Helper()
	var docs []*narration.Document
	for _, f := range seeds.Files() {
		d, err := narration.Parse(f.Name, f.Data)
		if err != nil {
			t.Fatalf("seed %s: %v", f.Name, err)
		}
		docs = append(docs, d)
	}
	for _, d := range narration.Order(docs) {
		if _, err := im.Import(context.Background(), d); err != nil {
			t.Fatalf("seed %s: %v", d.Source, err)
		}
	}
}

// connectionJSON is a GraphQL connection as the tests decode it, nodes of type N.
type connectionJSON[N any] struct {
	TotalCount int
	PageInfo   struct {
		HasNextPage bool
		EndCursor   *string
	}
	Edges []struct {
		Cursor string
		Node   N
	}
}

// response is a GraphQL response.
type response struct {
	Data   json.RawMessage `json:"data"`
	Errors []gqlError      `json:"errors"`
	status int
	// rawErrors are the errors exactly as sent: every field, in the server's order.
	rawErrors json.RawMessage
}

type gqlError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

func (r response) code() string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// request is one GraphQL request.
type request struct {
	Query      string         `json:"query,omitempty"`
	Variables  map[string]any `json:"variables,omitempty"`
	Extensions map[string]any `json:"extensions,omitempty"`
	token      string
	get        bool
}

func (e *env) do(t *testing.T, req request) response {
	t.Helper()
	var hr *http.Request
	var err error
	if req.get {
		q := url.Values{"query": {req.Query}}
		if req.Variables != nil {
			b, _ := json.Marshal(req.Variables)
			q.Set("variables", string(b))
		}
		if req.Extensions != nil {
			b, _ := json.Marshal(req.Extensions)
			q.Set("extensions", string(b))
		}
		hr, err = http.NewRequest(http.MethodGet, e.srv.URL+"?"+q.Encode(), nil)
	} else {
		body, _ := json.Marshal(req)
		hr, err = http.NewRequest(http.MethodPost, e.srv.URL, bytes.NewReader(body))
		if err == nil {
			hr.Header.Set("Content-Type", "application/json")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if req.token != "" {
		hr.Header.Set("Authorization", "Bearer "+req.token)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out response
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("status %d, body %s: %v", resp.StatusCode, raw, err)
	}
	var raws struct {
		Errors json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(raw, &raws); err != nil {
		t.Fatal(err)
	}
	out.status, out.rawErrors = resp.StatusCode, raws.Errors
	return out
}

// query runs a query that must succeed and decodes its data into v.
func (e *env) query(t *testing.T, q string, vars map[string]any, v any) {
	t.Helper()
	r := e.do(t, request{Query: q, Variables: vars})
	if len(r.Errors) > 0 {
		t.Fatalf("query failed: %+v\n%s", r.Errors, q)
	}
	if v != nil {
		if err := json.Unmarshal(r.Data, v); err != nil {
			t.Fatalf("decode %s: %v", r.Data, err)
		}
	}
}

// mustFail runs a request that must fail with the code, and returns the response.
func (e *env) mustFail(t *testing.T, req request, code string) response {
	t.Helper()
	r := e.do(t, req)
	if r.code() != code {
		t.Fatalf("code = %q, want %q; errors %+v", r.code(), code, r.Errors)
	}
	return r
}

// generated parses the n narrations of the synthetic corpus with seed (athar gen), and
// returns them with the bytes of each document.
func generated(t *testing.T, n int, seed uint64) ([]*narration.Document, [][]byte) {
	t.Helper()
	gen := corpus.New(corpus.Options{Narrations: n, Seed: seed}, schema.Vocabulary())
	var docs []*narration.Document
	var raw [][]byte
	for {
		name, data, ok := gen.Next()
		if !ok {
			return docs, raw
		}
		d, err := narration.Parse(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs, raw = append(docs, d), append(raw, data)
	}
}
