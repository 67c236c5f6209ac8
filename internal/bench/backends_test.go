//go:build bench

package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

// TestMain lets the test binary be the crash test's loader, as `athar bench` is for real.
func TestMain(m *testing.M) {
	if spec := os.Getenv(CrashChildEnv); spec != "" {
		if err := CrashChild(context.Background(), spec, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testQuads are n distinct quads shaped like the corpus's: the main bench's lookups
// (person:g1, event:g3, the "precedes" predicate) all find something.
func testQuads(n int) []athar.Quad {
	preds := []string{"precedes", "advises", "participant"}
	qs := make([]athar.Quad, n)
	for i := range qs {
		qs[i] = athar.Quad{
			Subject:   athar.ID(fmt.Sprintf("person:g%d", i%37+1)).IRI(),
			Predicate: athar.VocabBase + preds[i%len(preds)],
			Object:    athar.Term{IRI: athar.ID(fmt.Sprintf("event:g%d", i%53+1)).IRI()},
			Label:     athar.ID(fmt.Sprintf("narration:n%d", i)).IRI(),
		}
	}
	return qs
}

func testConfig(backends ...string) BackendConfig {
	return BackendConfig{Backends: backends, Binary: os.Args[0], Queries: 2, Batch: 100}
}

func writeTestQuads(t *testing.T, quads []athar.Quad) string {
	file := filepath.Join(t.TempDir(), "quads.nq")
	if err := writeQuadsFile(file, quads); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestBackendCrashCheckCounts checks the arithmetic of the durability check on made-up
// store contents.
func TestBackendCrashCheckCounts(t *testing.T) {
	quads := testQuads(10) // transactions of 3: [0 1 2] [3 4 5] [6 7 8] [9]
	has := func(idx ...int) map[string]bool {
		m := map[string]bool{}
		for _, i := range idx {
			m[quads[i].Key()] = true
		}
		return m
	}
	foreign := has(0, 1, 2)
	foreign[testQuads(11)[10].Key()] = true
	for _, c := range []struct {
		name                           string
		present                        map[string]bool
		reported                       int
		kept, lost, partial, foreignly int
	}{
		{"two whole, two reported", has(0, 1, 2, 3, 4, 5), 2, 2, 0, 0, 0},
		{"two whole, one reported (the second's report was cut off)", has(0, 1, 2, 3, 4, 5), 1, 2, 0, 0, 0},
		{"everything", has(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), 4, 4, 0, 0, 0},
		{"one whole, two reported: lost", has(0, 1, 2), 2, 1, 1, 0, 0},
		{"nothing, one reported: lost", has(), 1, 0, 1, 0, 0},
		{"a third of the second, unreported: partial", has(0, 1, 2, 3), 1, 1, 0, 1, 0},
		{"a quad missing from the first, reported: partial and lost", has(0, 2, 3, 4, 5), 2, 1, 1, 1, 0},
		{"a quad from nowhere", foreign, 1, 1, 0, 0, 1},
	} {
		kept, lost, partial, foreign := checkTransactions(quads, 3, c.present, c.reported)
		if kept != c.kept || lost != c.lost || partial != c.partial || foreign != c.foreignly {
			t.Errorf("%s: kept %d lost %d partial %d foreign %d; want %d %d %d %d", c.name, kept, lost, partial, foreign, c.kept, c.lost, c.partial, c.foreignly)
		}
	}
}

// TestBackendCrash kills a real loader (this test binary, see TestMain) in the middle of a
// load on bbolt and checks the store kept whole transactions only; then makes the loader
// lie about a commit, and commit half a transaction, and checks that the durability check
// reports exactly that: it can fail.
func TestBackendCrash(t *testing.T) {
	ctx := context.Background()
	quads := testQuads(6000)
	file := writeTestQuads(t, quads)
	cfg := testConfig()
	for _, c := range []struct {
		fault         string
		lost, partial int
	}{{"", 0, 0}, {"report-early", 1, 0}, {"split", 0, 1}} {
		t.Run("fault="+c.fault, func(t *testing.T) {
			spec := crashSpec{Backend: "bbolt", Dir: filepath.Join(t.TempDir(), "store"), Quads: file, Batch: 100, KillAfter: 20, Fault: c.fault}
			res, err := crashLoad(ctx, cfg, spec, quads)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%+v", res)
			if !res.Killed {
				t.Fatalf("the loader was not killed: %+v", res)
			}
			if res.Err != "" || res.Lost != c.lost || res.Partial != c.partial || res.Foreign != 0 {
				t.Fatalf("got %+v, want lost %d, partial %d", res, c.lost, c.partial)
			}
			if res.Sound() != (c.fault == "") {
				t.Fatalf("Sound() = %v for fault %q", res.Sound(), c.fault)
			}
			if c.fault == "" && (res.Kept < res.Reported || res.Kept >= res.Transactions || res.Reported < spec.KillAfter) {
				t.Fatalf("killed after %d reported, %d kept of %d: not a kill in the middle of the load", res.Reported, res.Kept, res.Transactions)
			}
			if c.fault != "" && res.Kept != spec.KillAfter {
				t.Fatalf("kept %d transactions, want the %d before the fault", res.Kept, spec.KillAfter)
			}
		})
	}
}

// TestBackendCompare runs the whole comparison, small, on every embedded backend, and
// writes its report.
func TestBackendCompare(t *testing.T) {
	ctx := context.Background()
	quads := testQuads(1000)
	file := writeTestQuads(t, quads)
	cfg := testConfig(cayleystore.EmbeddedBackends...)
	results, err := compareBackends(ctx, cfg, 7, quads, file)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(cayleystore.EmbeddedBackends) {
		t.Fatalf("%d results for %d backends", len(results), len(cayleystore.EmbeddedBackends))
	}
	for _, r := range results {
		if r.Quads != len(quads) || r.Load <= 0 || r.DiskBytes <= 0 || len(r.Queries) != 4 {
			t.Errorf("%s: %+v", r.Backend, r)
		}
		for _, q := range r.Queries {
			if q.P50 <= 0 || q.P99 < q.P50 {
				t.Errorf("%s %s: %+v", r.Backend, q.Kind, q.Latency)
			}
		}
		if c := r.Crash; c.Transactions != 10 || !c.Sound() { // TestBackendCrash checks the kill lands mid-load
			t.Errorf("%s: crash: %+v", r.Backend, c)
		}
	}
	var b bytes.Buffer
	if err := WriteBackendsMarkdown(&b, Meta{Command: "athar bench --backends", Date: time.Unix(0, 0)}, results); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"| 7 | bbolt | 1000 |", "| 7 | entity, 50 claims |", "| bbolt | leveldb | badger |", "| 7 | badger | 10 |"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

// The lookups must find something in testQuads, or their timing means nothing.
func TestBackendTestQuadsAnswerLookups(t *testing.T) {
	ctx := context.Background()
	r, err := cayleystore.OpenRawBackend("bbolt", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.BulkLoad(testQuads(3000), 1000); err != nil {
		t.Fatal(err)
	}
	if n, err := r.OutIn(ctx, "person:g1"); err != nil || n == 0 {
		t.Errorf("OutIn: %d, %v", n, err)
	}
	if n, err := r.Neighbourhood(ctx, "event:g3", 2); err != nil || n < 3 {
		t.Errorf("Neighbourhood: %d, %v", n, err)
	}
	if n, err := r.WithPredicate(ctx, athar.VocabBase+"precedes"); err != nil || n != 1000 {
		t.Errorf("WithPredicate: %d, %v", n, err)
	}
}
