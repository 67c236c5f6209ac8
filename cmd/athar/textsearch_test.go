package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeSearchTexts runs the real server on the embedded store: the full-text index is
// built beside the store, answers searchTexts, and is rebuilt at the next start when a
// command changed the store while the server was stopped.
func TestServeSearchTexts(t *testing.T) {
	env := storeEnv(t)
	const q = `{ searchTexts(query: "\"strike his neck\"") { totalCount edges { node { narration { id } snippet { highlights { start end } } } } } }`
	base, stop := startServer(t, env)
	r := postGraphQL(t, base, "", q, nil)
	if len(r.Errors) > 0 || get(r.Data, "searchTexts", "totalCount") != float64(1) ||
		get(r.Data, "searchTexts", "edges", 0, "node", "narration", "id") != "narration:ahmad-208" {
		t.Fatalf("searchTexts: %+v", r)
	}
	stop()
	dir := filepath.Join(strings.TrimPrefix(env["ATHAR_STORE"], "bbolt:"), "textindex")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("no text index beside the store: %v", err)
	}

	mustCLI(t, env, "delete", "narration:ahmad-208") // the server is stopped: the index misses it
	base, stop = startServer(t, env)
	defer stop()
	r = postGraphQL(t, base, "", q, nil)
	if len(r.Errors) > 0 || get(r.Data, "searchTexts", "totalCount") != float64(0) {
		t.Fatalf("searchTexts after a delete while stopped: %+v", r)
	}
}
