package corpus_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/corpus"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/schema"
)

func TestDeterministic(t *testing.T) {
	gen := func() []byte {
		var all bytes.Buffer
		g := corpus.New(corpus.Options{Narrations: 30, Seed: 7}, schema.Vocabulary())
		for {
			_, data, ok := g.Next()
			if !ok {
				return all.Bytes()
			}
			all.Write(data)
		}
	}
	if !bytes.Equal(gen(), gen()) {
		t.Fatal("the same options gave different corpora")
	}
}

// TestImports checks that every generated document passes the real validator, in the
// order generated, and that the skew produces corroborated claims.
func TestImports(t *testing.T) {
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	im := ingest.NewLocal(st, schema.Vocabulary())
	g := corpus.New(corpus.Options{Narrations: 200}, schema.Vocabulary())
	ctx := context.Background()
	for {
		name, data, ok := g.Next()
		if !ok {
			break
		}
		d, err := narration.Parse(name, data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := im.Import(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	hubs, err := st.Mentions(ctx, []athar.ID{"person:g1"})
	if err != nil || len(hubs["person:g1"]) < 20 {
		t.Fatalf("the most frequent person is mentioned by too few narrations: %v %v", hubs["person:g1"], err)
	}
	corroborated, err := st.FindClaims(ctx, athar.ClaimFilter{MinAttestations: 2})
	if err != nil || len(corroborated) == 0 {
		t.Fatalf("no claim is attested twice in 200 narrations (%v)", err)
	}
}

func TestWriteDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	g := corpus.New(corpus.Options{Narrations: 5, Seed: 3}, schema.Vocabulary())
	n, err := g.WriteDir(context.Background(), dir)
	if err != nil || n != 5 {
		t.Fatalf("WriteDir: %d, %v", n, err)
	}
	want := corpus.New(corpus.Options{Narrations: 5, Seed: 3}, schema.Vocabulary())
	for {
		name, data, ok := want.Next()
		if !ok {
			break
		}
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != string(data) {
			t.Errorf("%s: not the generated document (%v)", name, err)
		}
	}
}
