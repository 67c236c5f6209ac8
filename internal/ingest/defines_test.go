package ingest_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/corpus"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

// TestDefinesIsWhatCompileDefines: a batch validates each document against the entities
// the documents before it define, taken from Checked.Defines while those still compile
// (ImportMany). Defines must name exactly what DefinedEntities finds in the compiled quads,
// for the seeds (people, events, places, verses, gradings, chains), the format's reference
// document and generated narrations -- checked in load order against the graph as it grows.
func TestDefinesIsWhatCompileDefines(t *testing.T) {
	ctx := context.Background()
	vocab := schema.Vocabulary()
	var docs []*narration.Document
	add := func(name string, data []byte) {
		d, err := narration.Parse(name, data)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	for _, f := range seeds.Files() {
		add(f.Name, f.Data)
	}
	valid, err := os.ReadFile("../narration/testdata/valid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	add("valid.yaml", valid)
	gen := corpus.New(corpus.Options{Narrations: 300, Seed: 7}, vocab)
	for {
		name, data, ok := gen.Next()
		if !ok {
			break
		}
		add(name, data)
	}
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	im := ingest.NewLocal(st, vocab)
	verses, entities := 0, 0
	for _, d := range narration.Order(docs) {
		p, err := narration.Prepare(ctx, d, vocab)
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.Check(ctx, st)
		if err != nil {
			t.Fatalf("%s: %v", d.Source, err)
		}
		got, want := c.Defines(), narration.DefinedEntities(narration.Compile(c))
		if !slices.Equal(got, want) {
			t.Fatalf("%s: Defines() = %v, the compiled quads define %v", d.Source, got, want)
		}
		verses += len(c.Verses)
		entities += len(c.Entities)
		if _, err := im.Import(ctx, d); err != nil {
			t.Fatalf("%s: %v", d.Source, err)
		}
	}
	if verses == 0 || entities == 0 {
		t.Fatalf("the documents defined %d entities and used %d verses: the test checks nothing", entities, verses)
	}
}
