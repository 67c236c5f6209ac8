package export_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/export"
)

func TestNarrationAndGraph(t *testing.T) {
	ctx := context.Background()
	st := seeded(t)
	// The whole graph is every quad the store holds and the types they imply, stated.
	var held []athar.Quad
	if err := st.Quads(ctx, func(q athar.Quad) error { held = append(held, q); return nil }); err != nil {
		t.Fatal(err)
	}
	all := len(athar.StateImplied(held))
	if all <= len(held) {
		t.Fatalf("the seeds' %d quads imply no types", len(held))
	}
	for _, tc := range []struct {
		name  string
		write func(*bytes.Buffer) error
		quads int // of a sealed N-Quads output; -1 for another format
		label string
	}{
		{name: "one narration", write: func(b *bytes.Buffer) error { return export.Narration(ctx, b, st, "narration:ahmad-208") },
			label: athar.ID("narration:ahmad-208").IRI()},
		{name: "one narration, through Graph", write: func(b *bytes.Buffer) error {
			return export.Graph(ctx, b, st, export.NQuads, export.Options{Narration: "narration:ahmad-208"})
		}, label: athar.ID("narration:ahmad-208").IRI()},
		{name: "one narration as GEXF", write: func(b *bytes.Buffer) error {
			return export.Graph(ctx, b, st, export.GEXF, export.Options{Narration: "narration:ahmad-208"})
		}, quads: -1},
		{name: "the whole graph streams", write: func(b *bytes.Buffer) error {
			return export.Graph(ctx, b, st, export.NQuads, export.Options{})
		}, quads: all},
		{name: "a neighbourhood", write: func(b *bytes.Buffer) error {
			return export.Graph(ctx, b, st, export.GraphML, export.Options{Root: "event:badr", Depth: 1})
		}, quads: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.write(&b); err != nil {
				t.Fatal(err)
			}
			if tc.quads < 0 {
				if b.Len() == 0 {
					t.Fatal("nothing written")
				}
				return
			}
			qs, verified, err := cayleystore.ReadNQuadsVerified(&b)
			if err != nil || !verified {
				t.Fatalf("not sealed N-Quads: verified %v, %v", verified, err)
			}
			if tc.quads > 0 && len(qs) != tc.quads {
				t.Errorf("%d quads, want %d", len(qs), tc.quads)
			}
			for _, q := range qs {
				if tc.label != "" && q.Label != tc.label {
					t.Fatalf("a quad of %s in the narration's export", q.Label)
				}
			}
		})
	}
	err := export.Narration(ctx, &bytes.Buffer{}, st, "narration:nosuch")
	if athar.ErrorCode(err) != athar.NotFound || !strings.Contains(err.Error(), "narration:nosuch") {
		t.Errorf("an unknown narration: %v", err)
	}
}
