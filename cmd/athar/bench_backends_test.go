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
	doc := filepath.Join(t.TempDir(), "BENCHMARKS.md")
	before := "# Benchmarks\n\n" + bench.BenchBegin + "\nmain bench tables\n" + bench.BenchEnd + "\n\n## Choice of embedded backend\n\nprose\n\n"
	after := "\n\nmore prose\n"
	write(t, doc, before+bench.BackendsBegin+"\nold\n"+bench.BackendsEnd+after)
	cmd := exec.Command(bin, "bench", "--backends", "bbolt,badger", "--sizes", "3", "--queries", "2", "--work", t.TempDir(), "--out", doc)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("athar bench --backends: %v\n%s", err, out)
	}
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if !strings.HasPrefix(got, before+bench.BackendsBegin+"\nCommand: `athar bench --backends bbolt,badger") || !strings.HasSuffix(got, bench.BackendsEnd+after) || strings.Contains(got, "old") {
		t.Fatalf("the backends section was not replaced, or something else was:\n%s", got)
	}
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
