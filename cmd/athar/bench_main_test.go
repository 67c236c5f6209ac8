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

// TestBenchMain runs `athar bench` end to end on a tiny generated corpus: it rewrites only
// its own section, and raw Cayley loads exactly the quads athar stored (counted in both
// stores; no write kind runs, so both hold what their loads left).
func TestBenchMain(t *testing.T) {
	bin := buildAthar(t, "-tags", "bench")
	work := t.TempDir()
	doc := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	before, after := "# Benchmarks\n\nprose\n\n", "\n\nmore prose\n"
	write(t, doc, before+bench.BenchBegin+"\nold\n"+bench.BenchEnd+after)
	cmd := exec.Command(bin, "bench", "--sizes", "5", "--queries", "2", "--kinds", "entity", "--work", work, "--out", doc)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("athar bench: %v\n%s", err, out)
	}
	st, err := cayleystore.Open("bbolt:"+filepath.Join(work, "n5", "athar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	err = st.Quads(context.Background(), func(athar.Quad) error { stored++; return nil })
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := cayleystore.OpenRaw(filepath.Join(work, "n5", "raw"))
	if err != nil {
		t.Fatal(err)
	}
	loaded := 0
	err = raw.Each(context.Background(), func(athar.Quad) error { loaded++; return nil })
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	if stored < 100 || loaded != stored {
		t.Fatalf("athar holds %d quads, raw Cayley %d", stored, loaded)
	}
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasPrefix(got, before+bench.BenchBegin+"\nCommand: `athar bench --sizes 5") || !strings.HasSuffix(got, bench.BenchEnd+after) || strings.Contains(got, "old") {
		t.Fatalf("the bench section was not replaced, or something else was:\n%s", got)
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
