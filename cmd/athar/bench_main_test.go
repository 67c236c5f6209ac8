//go:build bench

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/bench"
)

// TestBenchMain runs `athar bench` end to end on a tiny generated corpus: it rewrites only
// its own section, and raw Cayley loads exactly the quads athar stored (counted in both
// stores; no write kind runs, so both hold what their loads left).
func TestBenchMain(t *testing.T) {
	bin := buildAthar(t, "-tags", "bench")
	work := t.TempDir()
	got := benchSection(t, bin, bench.BenchBegin, bench.BenchEnd, "--sizes", "5", "--queries", "2", "--kinds", "entity", "--work", work)
	stored, loaded := quadCounts(t, filepath.Join(work, "n5"))
	if stored < 100 || loaded != stored {
		t.Fatalf("athar holds %d quads, raw Cayley %d", stored, loaded)
	}
	for _, want := range []string{"| 5 | entity, 50 claims |", fmt.Sprintf("| 5 | %d | ", stored)} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "n5", "export.nq")); !os.IsNotExist(err) {
		t.Errorf("the export was left behind: %v", err)
	}
}
