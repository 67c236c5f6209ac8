package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/search"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

// FuzzVariables sends arbitrary variables to queries over the seeds. Whatever the input,
// the server must answer (no panic), never with an INTERNAL error, and stay usable.
func FuzzVariables(f *testing.F) {
	h := seedHandler(f, graph.Config{Token: "t"})
	const query = `query($id: ID!, $text: String!, $ref: String!, $first: Int, $after: String, $pred: String, $depth: Int, $max: Int) {
	  entity(id: $id) { id name claims(predicate: $pred, first: $first, after: $after) { totalCount } }
	  search(text: $text, first: $first) { id }
	  verse(ref: $ref) { id }
	  claims(subject: $id, predicate: $pred, first: $first, after: $after) { totalCount pageInfo { endCursor } }
	  neighbourhood(id: $id, depth: $depth) { nodes { id } }
	  shortestPath(from: $id, to: "verse:3:165", maxLength: $max) { nodes { id } }
	}`
	for _, v := range []string{
		`{"id": "person:abu-bakr", "text": "umar", "ref": "8:67", "first": 5, "depth": 1, "max": 4}`,
		`{"id": "verse:8:76", "text": "", "ref": "115:1", "first": -1, "after": "!!", "depth": 9, "max": 0}`,
		`{"id": "", "text": "عمر", "ref": "8:67-68", "first": 1000000, "after": "Y2xhaW06eA==", "pred": "advises"}`,
		`{"id": 7, "text": null}`,
		`[]`,
	} {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, vars []byte) {
		if !json.Valid(vars) {
			return
		}
		body, _ := json.Marshal(map[string]any{"query": query, "variables": json.RawMessage(vars)})
		fuzzPost(t, h, body, "variables "+string(vars))
	})
}

// seedHandler returns the GraphQL handler over a memory store loaded with the seeds,
// configured by cfg (its store, importer, vocabulary and index are set here).
func seedHandler(f *testing.F, cfg graph.Config) http.Handler {
	f.Helper()
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	vocab := schema.Vocabulary()
	im := ingest.NewLocal(st, vocab)
	var docs []*narration.Document
	for _, sf := range seeds.Files() {
		d, err := narration.Parse(sf.Name, sf.Data)
		if err != nil {
			f.Fatal(err)
		}
		docs = append(docs, d)
	}
	var batch []ingest.Doc
	for _, d := range narration.Order(docs) {
		batch = append(batch, ingest.Doc{Document: d})
	}
	for _, r := range im.ImportMany(context.Background(), batch) {
		if r.Err != nil {
			f.Fatal(r.Err)
		}
	}
	ix := search.NewIndex()
	if err := graph.BuildIndex(context.Background(), st, ix); err != nil {
		f.Fatal(err)
	}
	cfg.Store, cfg.Importer, cfg.Vocab, cfg.Index = st, im, vocab, ix
	h, err := graph.NewHandler(cfg)
	if err != nil {
		f.Fatal(err)
	}
	return h
}

// FuzzDocument sends arbitrary GraphQL documents (operations, fragments, aliases) to a
// server with small limits. Whatever the document, the server answers in JSON, never with
// an INTERNAL error, and never runs one whose fields, with its fragments expanded, are
// more than MaxFields: such a document gets no data.
func FuzzDocument(f *testing.F) {
	const maxFields = 200
	h := seedHandler(f, graph.Config{MaxFields: maxFields, MaxResolved: 2000, MaxResponseBytes: 64 << 10, MaxErrors: 5, Timeout: 2 * time.Second})
	for _, q := range []string{
		`{ entity(id: "person:abu-bakr") { id name narrations(first: 2) { id chain { id } } } }`,
		`query Q { ...F } fragment F on Query { timeline { id } }`,
		`{ ...F3 } fragment F0 on Query { __typename } fragment F1 on Query { ...F0 ...F0 } fragment F2 on Query { ...F1 ...F1 } fragment F3 on Query { ...F2 ...F2 }`,
		`{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }`,
		`{ a: __schema { types { name } } b: __schema { types { name } } c: __schema { queryType { name } } }`,
		`{ a: claims(first: 1) { totalCount } b: claims(first: 1) { totalCount } }`,
		`query A { timeline(first: 3) { id } } query B { predicates { name } }`,
		`{ __type(name: "Person") { fields { name type { name ofType { name } } } } }`,
		`{ claims(subject: "person:abu-bakr", first: 5) { nodes { attestations(first: 1) { narration { id } } variants { id } } } }`,
	} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, query string) {
		body, _ := json.Marshal(map[string]any{"query": query})
		data := fuzzPost(t, h, body, fmt.Sprintf("%q", query))
		if n := expandedAtLeast(query, maxFields+1); n > maxFields && len(data) > 0 && string(data) != "null" {
			t.Fatalf("%q has more than %d fields expanded, yet was run: %s", query, maxFields, data)
		}
	})
}

// fuzzPost sends body to h and fails the test if the answer is not JSON or carries an
// INTERNAL error (what names the input in the message); it returns the answer's data.
func fuzzPost(t *testing.T, h http.Handler, body []byte, what string) json.RawMessage {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	h.ServeHTTP(rec, req)
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message    string         `json:"message"`
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
		t.Fatalf("%s: status %d, body is not JSON: %q", what, rec.Code, rec.Body.String())
	}
	for _, e := range resp.Errors {
		if e.Extensions["code"] == "INTERNAL" {
			t.Fatalf("%s gave an INTERNAL error: %s", what, e.Message)
		}
	}
	return resp.Data
}

// expandedAtLeast counts the fields of query's operations and fragments with every spread
// expanded, naively, stopping at limit: an oracle for the server's linear count.
func expandedAtLeast(query string, limit int) int {
	doc, err := parser.ParseQuery(&ast.Source{Input: query})
	if err != nil {
		return 0
	}
	n := 0
	var walk func(set ast.SelectionSet, onPath map[string]bool)
	walk = func(set ast.SelectionSet, onPath map[string]bool) {
		for _, sel := range set {
			if n >= limit {
				return
			}
			switch s := sel.(type) {
			case *ast.Field:
				n++
				walk(s.SelectionSet, onPath)
			case *ast.InlineFragment:
				walk(s.SelectionSet, onPath)
			case *ast.FragmentSpread:
				def := doc.Fragments.ForName(s.Name)
				if def == nil || onPath[s.Name] {
					continue
				}
				onPath[s.Name] = true
				walk(def.SelectionSet, onPath)
				delete(onPath, s.Name)
			}
		}
	}
	for _, op := range doc.Operations {
		walk(op.SelectionSet, map[string]bool{})
	}
	for _, fr := range doc.Fragments {
		walk(fr.SelectionSet, map[string]bool{fr.Name: true})
	}
	return n
}
