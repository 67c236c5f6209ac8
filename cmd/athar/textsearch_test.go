package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// searchWhenReady posts a searchTexts query until the server's full-text index, opened in
// the background, answers it (UNAVAILABLE until then, and only that), for up to a minute.
func searchWhenReady(t *testing.T, base, q string) gqlResponse {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		r := postGraphQL(t, base, "", q, nil)
		if len(r.Errors) == 0 || code(r) != "UNAVAILABLE" {
			return r
		}
		if !strings.Contains(r.Errors[0].Message, "full-text index") {
			t.Fatalf("UNAVAILABLE for another reason: %+v", r.Errors)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the full-text index was not ready within a minute: %+v", r.Errors)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeSearchTexts runs the real server on the embedded store: the full-text index is
// built beside the store, answers searchTexts, and is rebuilt at the next start when
// athar load changed the store while the server was stopped.
func TestServeSearchTexts(t *testing.T) {
	env := storeEnv(t)
	const q = `{ searchTexts(query: "\"strike his neck\"") { totalCount edges { node { narration { id } snippet { highlights { start end } } } } } }`
	base, stop := startServer(t, env)
	r := searchWhenReady(t, base, q)
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
	// Everything else answers at once, while the index is checked and rebuilt.
	if r := postGraphQL(t, base, "", `{ narration(id: "narration:atiq") { id } }`, nil); get(r.Data, "narration", "id") != "narration:atiq" {
		t.Fatalf("narration: %+v", r)
	}
	r = searchWhenReady(t, base, q)
	if len(r.Errors) > 0 || get(r.Data, "searchTexts", "totalCount") != float64(2) {
		t.Fatalf("searchTexts after a load while stopped: %+v", r)
	}
}
