package corpusload_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/hadith"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/ingest/corpusload"
	"github.com/athar-hadith/athar/schema"
)

func TestRun(t *testing.T) {
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := ingest.NewLocal(st, schema.Vocabulary())
	paths, _ := filepath.Glob("../../hadithapi/testdata/corpus/*.json")
	// An edition of a collection given alone pairs with nothing: one text each.
	bad := filepath.Join(t.TempDir(), "eng-nawawi.json")
	os.WriteFile(bad, []byte(`{"hadiths":[{"hadithnumber":1,"text":"Actions are by intentions","grades":[{"name":"","grade":"Sahih"}]},{"hadithnumber":2,"text":"Islam is"}]}`), 0o644)
	var report strings.Builder
	var progress []string
	st1, err := corpusload.Run(context.Background(), w, append(paths, bad), corpusload.Options{
		Report: &report, Batch: 5,
		Progress: func(c string, done, total int) {
			if done == total {
				progress = append(progress, c)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if st1.Files != 7 || st1.Records != 27 || st1.Imported != 27 || st1.Refused != 1 || !st1.Failed() {
		t.Fatalf("stats %+v\n%s", st1, report.String())
	}
	if !strings.Contains(report.String(), bad+": hadith 1: grades[0].name: a grade without a grader") {
		t.Errorf("report: %s", report.String())
	}
	if strings.Join(progress, " ") != "abudawud bukhari muslim nawawi" {
		t.Errorf("progress ended for %v", progress)
	}
	st2, _ := corpusload.Run(context.Background(), w, paths, corpusload.Options{})
	if st2.Unchanged != 26 || st2.Imported != 0 || st2.Failed() {
		t.Fatalf("again: %+v", st2)
	}
}

// recorder is a writer that keeps the records it is given.
type recorder struct{ recs []hadith.Record }

func (r *recorder) ImportHadiths(_ context.Context, recs []hadith.Record) []ingest.HadithResult {
	r.recs = append(r.recs, recs...)
	return make([]ingest.HadithResult, len(recs))
}

// Run streams each collection in order and gives every record its predecessor's routes
// (for a chain given by reference), across batches, and none to a collection's first.
func TestRunGivesThePreviousRoutes(t *testing.T) {
	paths, _ := filepath.Glob("../../hadithapi/testdata/corpus/*.json")
	var w recorder
	if _, err := corpusload.Run(context.Background(), &w, paths, corpusload.Options{Batch: 4}); err != nil {
		t.Fatal(err)
	}
	if len(w.recs) != 26 {
		t.Fatalf("%d records", len(w.recs))
	}
	for i, r := range w.recs {
		if i == 0 || w.recs[i-1].Collection != r.Collection {
			if r.Previous != nil {
				t.Errorf("%s, first of its collection, has previous routes", r.Key())
			}
			continue
		}
		want, _, _ := hadith.Routes(&w.recs[i-1])
		if !reflect.DeepEqual(r.Previous, want) || len(want) == 0 {
			t.Errorf("%s: previous routes %v, want %s's %v", r.Key(), r.Previous, w.recs[i-1].Key(), want)
		}
	}
}

// NoChains imports the records without their chains, narrators and mentions (the
// baseline of what extraction costs), and importing them with chains again adds them back.
func TestRunWithoutChains(t *testing.T) {
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w := ingest.NewLocal(st, schema.Vocabulary())
	paths, _ := filepath.Glob("../../hadithapi/testdata/corpus/*.json")
	ctx := context.Background()
	links := func() int {
		qs, err := st.NarrationQuads(ctx, hadith.LabelOf("muslim-4588"))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, q := range qs {
			if strings.HasSuffix(q.Predicate, "#chainLink") || strings.HasSuffix(q.Predicate, "#transmits") {
				n++
			}
		}
		return n
	}
	if s, err := corpusload.Run(ctx, w, paths, corpusload.Options{NoChains: true}); err != nil || s.Imported != 26 {
		t.Fatalf("without chains: %+v %v", s, err)
	}
	if n := links(); n != 0 {
		t.Errorf("without chains, muslim-4588 holds %d chain quads", n)
	}
	if s, err := corpusload.Run(ctx, w, paths, corpusload.Options{}); err != nil || s.Imported != 26 {
		t.Fatalf("with chains: %+v %v", s, err)
	}
	if n := links(); n == 0 {
		t.Errorf("with chains, muslim-4588 holds no chain quads")
	}
}
