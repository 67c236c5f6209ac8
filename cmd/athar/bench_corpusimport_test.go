//go:build bench

package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/bench"
)

// TestBenchCorpusImport runs `athar bench --corpus-import` on the repository's corpus
// fixture: it rewrites only its own section, and raw Cayley loads exactly the quads the
// import stored, with the types the store leaves implied stated as the export states them
// (counted in both stores, not taken from the table).
func TestBenchCorpusImport(t *testing.T) {
	bin := buildAthar(t, "-tags", "bench")
	files, _ := filepath.Glob("../../internal/hadithapi/testdata/corpus/*.json")
	if len(files) < 4 {
		t.Fatalf("fixture: %v", files)
	}
	work := t.TempDir()
	got := benchSection(t, bin, bench.CorpusImportBegin, bench.CorpusImportEnd, append([]string{"--corpus-import", "--work", work}, files...)...)
	stored, loaded := quadCounts(t, filepath.Join(work, "corpus-import"))
	if stored < 500 || loaded != stored {
		t.Fatalf("athar stored %d quads, raw Cayley loaded %d", stored, loaded)
	}

	if want := fmt.Sprintf("| %d | %d | ", len(files), stored); !strings.Contains(got, want) {
		t.Errorf("no %q in\n%s", want, got)
	}
	if r := cli(t, nil, "", "bench", "--corpus-import", "--work", t.TempDir()); r.err == nil || !strings.Contains(r.err.Error(), "no edition files") {
		t.Errorf("no files: %v", r.err)
	}
}

// quadCounts counts the quads of the athar store and of the raw Cayley store a bench run
// left in dir (dir/athar, dir/raw).
func quadCounts(t *testing.T, dir string) (stored, loaded int) {
	t.Helper()
	s, l := quadSets(t, dir)
	return len(s), len(l)
}
