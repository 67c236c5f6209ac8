package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeSearchTexts runs the real server on the embedded store: the full-text index is
// built beside the store, answers searchTexts, and is rebuilt at the next start when
// athar load changed the store while the server was stopped.
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

	// A load while the server is stopped: the index misses it, and the next start rebuilds it.
	doc := filepath.Join(t.TempDir(), "atiq.yaml")
	if err := os.WriteFile(doc, []byte(`narration:
  id: narration:atiq
  title: A report of 'Atiq
  references: [{collection: Test, number: "1"}]
  text: "'Atiq advised ransom, and said: strike his neck."
`), 0o640); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, env, "load", doc)
	base, stop = startServer(t, env)
	defer stop()
	r = postGraphQL(t, base, "", q, nil)
	if len(r.Errors) > 0 || get(r.Data, "searchTexts", "totalCount") != float64(2) {
		t.Fatalf("searchTexts after a load while stopped: %+v", r)
	}
}
