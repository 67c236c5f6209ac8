//go:build bench

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/bench"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

// TestBenchMain runs `athar bench` end to end on a tiny generated corpus: it rewrites only
// its own section, and raw Cayley loads exactly the quads athar stored, with the types it
// leaves implied stated as its export states them (counted in both stores; no write kind
// runs, so both hold what their loads left). With --import-rounds it
// also times further pairs of loads into stores it removes, and gives each pair and the
// median ratio.
func TestBenchMain(t *testing.T) {
	bin := buildAthar(t, "-tags", "bench")
	work := t.TempDir()
	got := benchSection(t, bin, bench.BenchBegin, bench.BenchEnd, "--sizes", "5", "--queries", "2", "--kinds", "entity", "--import-rounds", "3", "--work", work)
	for _, want := range []string{"| 5 | 1 | ", "| 5 | 2 | ", "| 5 | 3 | ", "| 5 | median | | | **"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in the pairs of loads:\n%s", want, got)
		}
	}
	if r := cli(t, nil, "", "bench", "--import-rounds", "0", "--work", t.TempDir()); r.err == nil || !strings.Contains(r.err.Error(), "--import-rounds 0") {
		t.Errorf("--import-rounds 0: %v", r.err)
	}
	for _, dir := range []string{"athar-round2", "raw-round2", "athar-round3", "raw-round3"} {
		if _, err := os.Stat(filepath.Join(work, "n5", dir)); !os.IsNotExist(err) {
			t.Errorf("%s was left behind: %v", dir, err)
		}
	}
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

// TestBenchReuse: --reuse times the queries and writes on the stores a run before left,
// without loading (no import row), and every run -- the write kinds included, which
// re-import and delete a narration on both sides -- leaves both stores holding what was
// loaded, so that the next run can reuse them. Without an earlier run it says so.
func TestBenchReuse(t *testing.T) {
	bin := buildAthar(t, "-tags", "bench")
	work := t.TempDir()
	if out, err := exec.Command(bin, "bench", "--reuse", "--sizes", "5", "--work", work).CombinedOutput(); err == nil || !strings.Contains(string(out), "no directory of an earlier run") {
		t.Fatalf("--reuse with nothing to reuse: %v\n%s", err, out)
	}
	args := []string{"--sizes", "5", "--queries", "3", "--kinds", "entity,reimport,delete", "--work", work}
	first := benchSection(t, bin, bench.BenchBegin, bench.BenchEnd, args...)
	stored, loaded := quadCounts(t, filepath.Join(work, "n5"))
	if stored < 100 || loaded != stored {
		t.Fatalf("after the first run athar holds %d quads, raw Cayley %d", stored, loaded)
	}
	if !strings.Contains(first, fmt.Sprintf("| 5 | %d | ", stored)) || strings.Contains(first, "Not measured") {
		t.Fatalf("the first run's import row is missing:\n%s", first)
	}
	got := benchSection(t, bin, bench.BenchBegin, bench.BenchEnd, append([]string{"--reuse"}, args...)...)
	for _, want := range []string{"Not measured at 5 narrations: this run reused", "| 5 | entity, 50 claims |", "| 5 | delete one narration (mutation) |", "| 5 | re-import one narration (mutation) |"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, fmt.Sprintf("| 5 | %d | ", stored)) {
		t.Errorf("a reusing run has an import row:\n%s", got)
	}
	if s, l := quadCounts(t, filepath.Join(work, "n5")); s != stored || l != loaded {
		t.Errorf("after the reusing run athar holds %d quads, raw Cayley %d; %d and %d before", s, l, stored, loaded)
	}
	// The same quads on both sides: a title either side's re-imports changed ("(version
	// N)", "raw version N") and left would differ, counts or not.
	if a, r := quadSets(t, filepath.Join(work, "n5")); !slices.Equal(a, r) {
		t.Errorf("after the reusing run athar and raw Cayley hold different quads:\nathar only %q\nraw only %q", missing(a, r), missing(r, a))
	}
}

// quadSets returns the quads of both stores of a bench run in dir, sorted, in N-Quads form:
// the athar store's with the types and evidence it leaves implied stated, as its export (which raw
// Cayley loads) gives them.
func quadSets(t *testing.T, dir string) (stored, loaded []string) {
	t.Helper()
	st, err := cayleystore.Open("bbolt:"+filepath.Join(dir, "athar"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var held []athar.Quad
	err = st.Quads(context.Background(), func(q athar.Quad) error { held = append(held, q); return nil })
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(athar.DropImplied(slices.Clone(held))); n != len(held) {
		t.Fatalf("athar's store holds %d quads it should leave implied", len(held)-n)
	}
	for _, q := range athar.StateImplied(held) {
		stored = append(stored, q.Key())
	}
	raw, err := cayleystore.OpenRaw(filepath.Join(dir, "raw"))
	if err != nil {
		t.Fatal(err)
	}
	err = raw.Each(context.Background(), func(q athar.Quad) error { loaded = append(loaded, q.Key()); return nil })
	raw.Close()
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(stored)
	slices.Sort(loaded)
	return stored, loaded
}

// missing returns what a holds and b does not (both sorted).
func missing(a, b []string) []string {
	var out []string
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			out = append(out, x)
		}
	}
	return out
}
