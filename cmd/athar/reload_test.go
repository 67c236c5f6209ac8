package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReloadScansNothing: re-running a load over a store that already holds it (what one
// does after a crash or an interrupted load) reads each narration's quads from the store's
// manifest. Before the manifest it scanned the whole store once per stored narration. The
// store counts its full scans; the count is the assertion, not a time.
func TestReloadScansNothing(t *testing.T) {
	env := storeEnv(t)
	corpus := filepath.Join(t.TempDir(), "corpus")
	mustCLI(t, nil, "gen", "--n", "60", "--out", corpus)

	first := mustCLI(t, env, "load", "-v", corpus)
	if !strings.Contains(first.stdout, "60 imported, 0 unchanged, 0 refused") {
		t.Fatalf("first load: %s", first.stdout)
	}
	if !strings.Contains(first.stderr, "store: 0 full scan(s)") {
		t.Errorf("first load into an empty store scanned it:\n%s", first.stderr)
	}
	again := mustCLI(t, env, "load", "-v", corpus)
	if !strings.Contains(again.stdout, "0 imported, 60 unchanged, 0 refused") {
		t.Fatalf("re-run: %s", again.stdout)
	}
	if !strings.Contains(again.stderr, "store: 0 full scan(s)") {
		t.Errorf("re-running the load scanned the store:\n%s", again.stderr)
	}
}

// TestBulkModeOnlyForLargeLoads: a load of a few documents writes each narration as the
// server does; bulk mode, whose fixed cost grows with the store, is for loads of hundreds.
func TestBulkModeOnlyForLargeLoads(t *testing.T) {
	env := storeEnv(t)
	corpus := filepath.Join(t.TempDir(), "corpus")
	mustCLI(t, nil, "gen", "--n", "120", "--out", corpus)
	if r := mustCLI(t, env, "load", "-v", corpus); !strings.Contains(r.stderr, "bulk mode: on (120 source(s))") {
		t.Errorf("a load of 120 documents:\n%s", r.stderr)
	}
	seeded := storeEnv(t)
	mustCLI(t, seeded, "seed") // the ids smallDoc uses
	if r := cli(t, seeded, smallDoc, "load", "-v", "-"); r.err != nil || !strings.Contains(r.stderr, "bulk mode: off (1 source(s))") {
		t.Errorf("a load of one document: %v\n%s", r.err, r.stderr)
	}
}
