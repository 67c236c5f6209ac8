package narration_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/schema"
)

// FuzzParse feeds arbitrary bytes to the document parser and validator: they must never
// panic, and every refusal must be a *athar.ValidationError with at least one problem.
func FuzzParse(f *testing.F) {
	valid, err := os.ReadFile("testdata/valid.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add([]byte(`{"narration": {"id": "narration:x", "title": "t", "references": [{"collection": "c", "number": "1"}], "text": "a b"}, "claims": [{"subject": "verse:8:67-68", "predicate": "revealedRegarding", "object": "concept:x", "evidence": "a"}]}`))
	f.Add([]byte("narration: &a [*a]\n"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("\xff\xfe"))
	vocab := schema.Vocabulary()
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := narration.Parse("fuzz", data)
		if err != nil {
			var ve *athar.ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("Parse refused with %T %v, want a *athar.ValidationError with problems", err, err)
			}
			return
		}
		c, err := narration.Validate(context.Background(), d, vocab, nil)
		if err != nil {
			var ve *athar.ValidationError
			if !errors.As(err, &ve) || len(ve.Problems) == 0 {
				t.Fatalf("Validate refused with %T %v", err, err)
			}
			return
		}
		for _, q := range narration.Compile(c) {
			if q.Label != c.ID.IRI() {
				t.Fatalf("a compiled quad is labelled %s, not by its narration", q.Label)
			}
		}
	})
}
