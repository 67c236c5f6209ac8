//go:build bench

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/bench"
)

// TestBenchBackends runs `athar bench --backends` end to end on a tiny corpus (the binary
// is also the crash test's loader) and checks that it rewrites only its own section.
func TestBenchBackends(t *testing.T) {
	bin := buildAthar(t, "-tags", "bench")
	got := benchSection(t, bin, bench.BackendsBegin, bench.BackendsEnd, "--backends", "bbolt,badger", "--sizes", "3", "--queries", "2", "--work", t.TempDir())
	for _, want := range []string{"| 3 | bbolt |", "| 3 | badger |", "| bbolt | badger |", "| 3 | neighbourhood, depth 2 |"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if r := cli(t, nil, "", "bench", "--backends", "bbolt,nosuch", "--sizes", "1"); r.err == nil || !strings.Contains(r.err.Error(), `"nosuch" is not one of`) {
		t.Errorf("an unknown backend: %v", r.err)
	}
	// The crash loader is reached through the environment only, and no help mentions it.
	for _, args := range [][]string{{"--help"}, {"bench", "--help"}} {
		r := cli(t, nil, "", args...)
		if strings.Contains(r.stdout+r.stderr, bench.CrashChildEnv) || strings.Contains(r.stdout+r.stderr, "crash loader") {
			t.Errorf("athar %s mentions the crash loader", strings.Join(args, " "))
		}
	}
	if r := cli(t, map[string]string{bench.CrashChildEnv: "{not json"}, "", "bench"); r.err == nil || !strings.Contains(r.err.Error(), bench.CrashChildEnv) {
		t.Errorf("a bad crash loader spec: %v", r.err)
	}
}

// benchSection runs `athar bench --out DOC ARGS...` with bin on a DOC whose section between
// begin and end holds "old", checks that the run replaced that section and nothing else,
// and returns the file's text.
func benchSection(t *testing.T, bin, begin, end string, args ...string) string {
	t.Helper()
	doc := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	before, after := "# Benchmarks\n\nprose\n\n", "\n\nmore prose\n"
	write(t, doc, before+begin+"\nold\n"+end+after)
	// --out first: flags after the first file (--corpus-import's) would be files too.
	args = append([]string{"--out", doc}, args...)
	if out, err := exec.Command(bin, append([]string{"bench"}, args...)...).CombinedOutput(); err != nil {
		t.Fatalf("athar bench %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasPrefix(got, before+begin+"\nCommand: `athar bench "+strings.Join(args, " ")+"`") || !strings.HasSuffix(got, end+after) || strings.Contains(got, "old") {
		t.Fatalf("the section was not replaced, or something else was:\n%s", got)
	}
	return got
}
