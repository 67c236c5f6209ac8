//go:build bench

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/bench"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

// TestBenchCorpusImport runs `athar bench --corpus-import` on the repository's corpus
// fixture: it rewrites only its own section, and raw Cayley loads exactly the quads the
// import stored (counted in both stores, not taken from the table).
func TestBenchCorpusImport(t *testing.T) {
	bin := buildAthar(t, "-tags", "bench")
	files, _ := filepath.Glob("../../internal/hadithapi/testdata/corpus/*.json")
	if len(files) < 4 {
		t.Fatalf("fixture: %v", files)
	}
	work := t.TempDir()
	doc := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	before, after := "# Benchmarks\n\nprose\n\n", "\n\nmore prose\n"
	write(t, doc, before+bench.CorpusImportBegin+"\nold\n"+bench.CorpusImportEnd+after)
	args := append([]string{"bench", "--corpus-import", "--work", work, "--out", doc}, files...)
	if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
		t.Fatalf("athar bench --corpus-import: %v\n%s", err, out)
	}

	count := func(st interface {
		Quads(context.Context, func(athar.Quad) error) error
	}) int {
		n := 0
		if err := st.Quads(context.Background(), func(athar.Quad) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	st, err := cayleystore.Open("bbolt:"+filepath.Join(work, "corpus-import", "athar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	stored := count(st)
	st.Close()
	raw, err := cayleystore.OpenRaw(filepath.Join(work, "corpus-import", "raw"))
	if err != nil {
		t.Fatal(err)
	}
	loaded := 0
	if err := raw.Each(context.Background(), func(athar.Quad) error { loaded++; return nil }); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	if stored < 500 || loaded != stored {
		t.Fatalf("athar stored %d quads, raw Cayley loaded %d", stored, loaded)
	}

	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasPrefix(got, before+bench.CorpusImportBegin+"\nCommand: `athar bench --corpus-import") || !strings.HasSuffix(got, bench.CorpusImportEnd+after) || strings.Contains(got, "old") {
		t.Fatalf("the corpus-import section was not replaced, or something else was:\n%s", got)
	}
	if want := fmt.Sprintf("| %d | %d | ", len(files), stored); !strings.Contains(got, want) {
		t.Errorf("no %q in\n%s", want, got)
	}
	if r := cli(t, nil, "", "bench", "--corpus-import", "--work", t.TempDir()); r.err == nil || !strings.Contains(r.err.Error(), "no edition files") {
		t.Errorf("no files: %v", r.err)
	}
}
