package main

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// soakDuration is how long TestReadersDuringWrites runs: ATHAR_SOAK (a Go duration; CI sets
// 20s), 3s by default so that `make test` stays quick.
func soakDuration(t *testing.T) time.Duration {
	if s := os.Getenv("ATHAR_SOAK"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("ATHAR_SOAK=%q: %v", s, err)
		}
		return d
	}
	return 3 * time.Second
}

// TestReadersDuringWrites runs eight GraphQL readers against one writer that imports and
// deletes narrations through the API, on the embedded store. Every response must be free
// of errors, and a reader must never see half a narration: the claims it attests number
// either zero or all of them.
func TestReadersDuringWrites(t *testing.T) {
	env := storeEnv(t)
	env["ATHAR_TOKEN"] = "soak"
	base, stop := startServer(t, env)
	defer stop()

	// The writer imports and deletes narrations that use the seed's entities and define
	// none, so each can be deleted again.
	const soakDoc = `
narration:
  id: narration:soak-N
  title: A soak test report
  references: [{collection: Test, number: "N"}]
  text: "Abu Bakr advised ransom. 'Umar advised execution. Badr came before Uhud."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: Abu Bakr advised ransom}
  - {subject: person:umar-ibn-al-khattab, predicate: advises, object: concept:execution, evidence: "'Umar advised execution"}
  - {subject: event:badr, predicate: precedes, object: event:uhud, evidence: Badr came before Uhud}
`
	var docs []string
	for i := 0; i < 5; i++ {
		docs = append(docs, strings.ReplaceAll(soakDoc, "soak-N", fmt.Sprintf("soak-%d", i)))
	}
	const watched = "narration:soak-0"
	const claimsOfWatched = 3
	deadline := time.Now().Add(soakDuration(t))
	var wg sync.WaitGroup
	var reads, writes atomic.Int64
	errs := make(chan string, 64)
	fail := func(format string, args ...any) {
		select {
		case errs <- fmt.Sprintf(format, args...):
		default:
		}
	}
	queries := []string{
		`{ entity(id: "person:abu-bakr") { name narrations { id } claims(first: 20) { totalCount edges { node { predicate attestations { evidence start end } } } } } }`,
		`{ search(text: "abu bakr", first: 5) { id name } }`,
		`{ neighbourhood(id: "concept:ransom", depth: 1) { nodes { id } edges { source target attestations } } }`,
		`{ timeline { id } }`,
		`{ claims(predicate: "participatedIn", first: 10) { totalCount } }`,
		`{ entity(id: "event:badr") { name claims(first: 5) { totalCount } } }`,
	}
	for r := 0; r < 8; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				q := queries[(r+i)%len(queries)]
				if res := postGraphQL(t, base, "", q, nil); len(res.Errors) > 0 {
					fail("reader %d: %s: %v", r, q, res.Errors)
					return
				}
				res := postGraphQL(t, base, "", `{ claims(narration: "`+watched+`", first: 1) { totalCount } }`, nil)
				if len(res.Errors) > 0 {
					fail("reader %d: %v", r, res.Errors)
					return
				}
				n, _ := get(res.Data, "claims", "totalCount").(float64)
				if n != 0 && n != claimsOfWatched {
					fail("reader %d saw %v claims of %s, want 0 or %d: half a narration", r, n, watched, claimsOfWatched)
					return
				}
				reads.Add(2)
			}
		}(r)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		const imp = `mutation($d: String!) { importNarration(document: $d) { narration { id } } }`
		for i := 0; time.Now().Before(deadline); i = (i + 1) % len(docs) {
			res := postGraphQL(t, base, "soak", imp, map[string]any{"d": docs[i]})
			if len(res.Errors) > 0 {
				fail("writer import %d: %v", i, res.Errors)
				return
			}
			id, _ := get(res.Data, "importNarration", "narration", "id").(string)
			if res := postGraphQL(t, base, "soak", `mutation($id: ID!) { deleteNarration(id: $id) }`, map[string]any{"id": id}); len(res.Errors) > 0 {
				fail("writer delete %s: %v", id, res.Errors)
				return
			}
			writes.Add(2)
		}
	}()
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if reads.Load() == 0 || writes.Load() == 0 {
		t.Fatalf("nothing happened: %d reads, %d writes", reads.Load(), writes.Load())
	}
	t.Logf("%d reads and %d writes in %s with no error", reads.Load(), writes.Load(), soakDuration(t))
}
