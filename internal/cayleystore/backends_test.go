//go:build bench

package cayleystore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
)

// backendHubQuads is transaction tx of the concurrency test: per quads, all with the hub
// as subject and the "precedes" predicate, each to a new object.
func backendHubQuads(tx, per int) []athar.Quad {
	qs := make([]athar.Quad, per)
	for i := range qs {
		qs[i] = athar.Quad{
			Subject:   athar.ID("person:hub").IRI(),
			Predicate: athar.VocabBase + "precedes",
			Object:    athar.Term{IRI: athar.ID(fmt.Sprintf("event:t%d-%d", tx, i)).IRI()},
			Label:     athar.ID(fmt.Sprintf("narration:t%d", tx)).IRI(),
		}
	}
	return qs
}

// TestBackendConcurrentReadWrite runs, on each embedded backend, one writer committing
// transactions of 10 quads about a hub entity while readers walk the hub's quads, its
// neighbourhood and a full predicate scan, for about a second (longer if the writer or the
// readers have not got going by then). Under -race this is the check that a backend is safe
// with concurrent readers and a writer; the counts check that a reader sees whole
// transactions only (a hub count that is not a multiple of 10 is a torn read) and never goes
// back in time, and that every committed quad is there at the end.
func TestBackendConcurrentReadWrite(t *testing.T) {
	const per, readers = 10, 3
	for _, backend := range EmbeddedBackends {
		t.Run(backend, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			r, err := OpenRawBackend(backend, dir)
			if err != nil {
				t.Fatal(err)
			}
			var (
				stop      atomic.Bool
				committed atomic.Int64
				reads     atomic.Int64
				wg        sync.WaitGroup
				errs      = make(chan error, readers+1)
			)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for tx := 0; !stop.Load(); tx++ {
					if err := r.BulkLoad(backendHubQuads(tx, per), per); err != nil {
						errs <- fmt.Errorf("writer, transaction %d: %w", tx, err)
						return
					}
					committed.Add(1)
				}
			}()
			for i := 0; i < readers; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					last := 0
					for n := 0; !stop.Load(); n++ {
						floor := int(committed.Load()) * per // committed before this read began
						got, err := r.OutIn(ctx, "person:hub")
						if err != nil {
							errs <- fmt.Errorf("reader %d: OutIn: %w", i, err)
							return
						}
						if got%per != 0 || got < last || got < floor {
							errs <- fmt.Errorf("reader %d: the hub has %d quads (before: %d; committed before the read: %d): not whole transactions in order", i, got, last, floor)
							return
						}
						last = got
						switch n % 3 {
						case 1:
							_, err = r.Neighbourhood(ctx, "person:hub", 1)
						case 2:
							_, err = r.WithPredicate(ctx, athar.VocabBase+"precedes")
						}
						if err != nil {
							errs <- fmt.Errorf("reader %d: %w", i, err)
							return
						}
						reads.Add(1)
					}
				}(i)
			}
			// About a second, and at least a few transactions and reads each: under -race on a
			// loaded machine the writer's first commit alone can take a second (seen on badger).
			start := time.Now()
			for time.Since(start) < time.Second || committed.Load() < 5 || reads.Load() < 5 {
				if time.Since(start) > 20*time.Second || len(errs) > 0 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			stop.Store(true)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if t.Failed() {
				r.Close()
				return
			}
			if committed.Load() < 5 || reads.Load() < 5 {
				t.Fatalf("in %s, only %d transactions and %d reads alongside", time.Since(start).Round(time.Millisecond), committed.Load(), reads.Load())
			}
			want := int(committed.Load()) * per
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			// Reopened, the store has every committed quad: the backend is persistent.
			r, err = OpenRawBackend(backend, dir)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if got, err := r.OutIn(ctx, "person:hub"); err != nil || got != want {
				t.Fatalf("after reopening: the hub has %d quads (err %v), want %d", got, err, want)
			}
			n := 0
			if err := r.Each(ctx, func(athar.Quad) error { n++; return nil }); err != nil || n != want {
				t.Fatalf("after reopening: %d quads in all (err %v), want %d", n, err, want)
			}
			t.Logf("%s: %d transactions committed, %d reads alongside", backend, committed.Load(), reads.Load())
		})
	}
}

func TestBackendUnknown(t *testing.T) {
	if _, err := OpenRawBackend("nosuch", t.TempDir()); err == nil {
		t.Fatal("opened an unregistered backend")
	}
}

// TestBackendRawReplace: raw Cayley's Replace, which the benchmark's raw writes use, acts on
// a store loaded from N-Quads as a Cayley user's would: the quads the two versions share
// stay, the changed ones are swapped, and a delete removes every quad -- the typed integers
// too, which the N-Quads reader stores as native values.
func TestBackendRawReplace(t *testing.T) {
	ctx := context.Background()
	n := athar.ID("narration:r1").IRI()
	title := func(s string) athar.Quad {
		return athar.Quad{Subject: n, Predicate: athar.RDFSLabel, Object: athar.StringTerm(s), Label: n}
	}
	end := athar.Quad{Subject: athar.ID("attestation:a1").IRI(), Predicate: athar.VocabBase + "end", Object: athar.Term{Literal: "300", Datatype: athar.XSDInteger}, Label: n}
	kind := athar.Quad{Subject: athar.ID("attestation:a1").IRI(), Predicate: athar.VocabBase + "claim", Object: athar.Term{IRI: athar.ID("claim:c1").IRI()}, Label: n}
	v1 := []athar.Quad{title("v1"), end, kind}
	var nq strings.Builder
	for _, q := range v1 {
		nq.WriteString(q.Key() + " .\n")
	}
	raw, err := OpenRaw(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.LoadNQuads(strings.NewReader(nq.String()), 10); err != nil {
		t.Fatal(err)
	}
	held := func() []string {
		var out []string
		if err := raw.Each(ctx, func(q athar.Quad) error { out = append(out, q.Key()); return nil }); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	want := func(qs ...athar.Quad) []string {
		var out []string
		for _, q := range qs {
			out = append(out, q.Key())
		}
		slices.Sort(out)
		return out
	}
	v2 := []athar.Quad{title("v2"), end, kind}
	if err := raw.Replace(v1, v2); err != nil {
		t.Fatal(err)
	}
	if got := held(); !slices.Equal(got, want(v2...)) {
		t.Fatalf("after a new version raw Cayley holds\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want(v2...), "\n"))
	}
	if err := raw.Replace(v2, nil); err != nil {
		t.Fatal(err)
	}
	if got := held(); len(got) != 0 {
		t.Fatalf("after a delete raw Cayley holds\n%s", strings.Join(got, "\n"))
	}
}
