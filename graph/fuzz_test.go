package graph_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

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
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		f.Fatal(err)
	}
	defer st.Close()
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
	h, err := graph.NewHandler(graph.Config{Store: st, Importer: im, Vocab: vocab, Index: ix, Token: "t"})
	if err != nil {
		f.Fatal(err)
	}
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
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(rec, req)
		var resp struct {
			Errors []struct {
				Message    string         `json:"message"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil {
			t.Fatalf("status %d, body is not JSON: %q", rec.Code, rec.Body.String())
		}
		for _, e := range resp.Errors {
			if e.Extensions["code"] == "INTERNAL" {
				t.Fatalf("variables %s gave an INTERNAL error: %s", vars, e.Message)
			}
		}
	})
}
