package graph_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/testsupport"
	"github.com/athar-hadith/athar/schema"
)

// lateStore is the store as a write queued behind a slow one sees it: the reads the
// importer makes to judge a document start only once the request's deadline has passed.
type lateStore struct{ athar.Store }

func (s lateStore) DefinedBy(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ID, error) {
	<-ctx.Done()
	return s.Store.DefinedBy(ctx, ids)
}

func (s lateStore) NarrationQuads(ctx context.Context, id athar.ID) ([]athar.Quad, error) {
	<-ctx.Done()
	return s.Store.NarrationQuads(ctx, id)
}

// TestWritesPastTheirDeadline checks that a mutation whose deadline passes in the middle of
// its reads gets DEADLINE_EXCEEDED, never a verdict drawn from reads its expired context cut
// short: a valid import is not refused with "not defined", the delete of an existing
// narration is not NOT_FOUND, and nothing changes.
func TestWritesPastTheirDeadline(t *testing.T) {
	var real athar.Store
	e := newEnv(t, options{
		token: testToken,
		wrap:  func(st athar.Store) athar.Store { real = st; return st },
		config: func(c *graph.Config) {
			c.Timeout = 100 * time.Millisecond
			c.Importer = ingest.NewLocal(lateStore{real}, schema.Vocabulary())
		},
	})
	before := testsupport.Quads(t, e.store)
	tests := []struct {
		name string
		req  request
	}{
		{"import of a valid document", request{Query: importMutation, Variables: map[string]any{"doc": smallDoc}, token: testToken}},
		{"delete of an existing narration", request{Query: `mutation { deleteNarration(id: "narration:ahmad-208") }`, token: testToken}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.mustFail(t, tt.req, string(athar.DeadlineExceeded))
			msg := r.Errors[0].Message
			if strings.Contains(msg, "not defined") || strings.Contains(msg, "no such") || !strings.Contains(msg, "100ms") {
				t.Errorf("message %q: want the time limit, and no verdict on the request", msg)
			}
			if r.Errors[0].Extensions["retryable"] != true {
				t.Errorf("extensions %v: want retryable: true", r.Errors[0].Extensions)
			}
		})
	}
	if after := testsupport.Quads(t, e.store); after != before {
		t.Error("a mutation stopped by its deadline changed the graph")
	}
}
