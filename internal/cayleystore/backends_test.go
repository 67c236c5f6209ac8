//go:build bench

package cayleystore

import (
	"context"
	"fmt"
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
