package graph

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
)

// TestTimelineCacheComputesOncePerWrite: requests that find the order missing wait for one
// computation instead of each starting their own; a write the order reads (a claim of the
// timeline's predicates, an event's type) makes the next request compute it again, and
// another keeps it; a failed computation is not kept; a request whose context ends stops waiting while
// the computation goes on for the others.
func TestTimelineCacheComputesOncePerWrite(t *testing.T) {
	c := NewTimelineCache()
	var calls atomic.Int32
	release := make(chan struct{})
	compute := func(context.Context) ([]athar.ID, error) {
		n := calls.Add(1)
		<-release
		return []athar.ID{athar.ID("event:" + string(rune('a'+n-1)))}, nil
	}
	ctx := context.Background()
	// A write the orders read: a claim of precedes.
	write := athar.Changeset{Narration: "narration:n", Add: []athar.Quad{{Subject: athar.ID("event:x").IRI(), Predicate: athar.VocabBase + "precedes",
		Object: athar.IRITerm(athar.ID("event:y").IRI()), Label: athar.ID("narration:n").IRI()}}}

	// A waiter whose deadline passes gives up; the computation it started goes on.
	short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	if _, err := get(short, c, "timeline", compute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a request past its deadline: %v, want DeadlineExceeded", err)
	}
	var wg sync.WaitGroup
	got := make([][]athar.ID, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = get(ctx, c, "timeline", compute)
		}()
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Fatalf("%d computations for nine requests, want 1", n)
	}
	for i, g := range got {
		if len(g) != 1 || g[0] != "event:a" {
			t.Fatalf("request %d got %v, want the one computed order [event:a]", i, g)
		}
	}
	if g, _ := get(ctx, c, "timeline", compute); calls.Load() != 1 || g[0] != "event:a" {
		t.Fatalf("a request after the computation: %v, %d computations; want the kept order", g, calls.Load())
	}
	// Another key is another order.
	if g, _ := get(ctx, c, "chronology", compute); calls.Load() != 2 || g[0] != "event:b" {
		t.Fatalf("another key: %v, %d computations", g, calls.Load())
	}

	// A write the orders do not read keeps them; one they read (a claim of the timeline's
	// predicates, an event's type) does not.
	name := athar.Quad{Subject: athar.ID("event:x").IRI(), Predicate: athar.RDFSLabel, Object: athar.StringTerm("X"), Label: athar.ID("narration:n").IRI()}
	c.Invalidate(ctx, athar.Changeset{Narration: "narration:n", Add: []athar.Quad{name}})
	if g, _ := get(ctx, c, "timeline", compute); calls.Load() != 2 || g[0] != "event:a" {
		t.Fatalf("after a write of a name: %v, %d computations; want the kept order", g, calls.Load())
	}
	typed := name
	typed.Predicate, typed.Object = athar.RDFType, athar.IRITerm(athar.TypeEvent.IRI())
	c.Invalidate(ctx, athar.Changeset{Narration: "narration:n", Remove: []athar.Quad{typed}})
	if g, _ := get(ctx, c, "timeline", compute); calls.Load() != 3 || g[0] != "event:c" {
		t.Fatalf("after an event's removal: %v, %d computations; want a new order", g, calls.Load())
	}
	c.Invalidate(ctx, write)
	if g, _ := get(ctx, c, "timeline", compute); calls.Load() != 4 || g[0] != "event:d" {
		t.Fatalf("after a claim of precedes: %v, %d computations; want a new order", g, calls.Load())
	}

	failing := func(context.Context) ([]athar.ID, error) { calls.Add(1); return nil, errors.New("disk gone") }
	c.Invalidate(ctx, write)
	if _, err := get(ctx, c, "timeline", failing); err == nil || err.Error() != "disk gone" {
		t.Fatalf("a failed computation: %v", err)
	}
	if g, err := get(ctx, c, "timeline", compute); err != nil || calls.Load() != 6 || g[0] != "event:f" {
		t.Fatalf("after a failed computation: %v, %v, %d computations; want it computed again", g, err, calls.Load())
	}
	panicking := func(context.Context) ([]athar.ID, error) { panic("bad order") }
	c.Invalidate(ctx, write)
	if _, err := get(ctx, c, "timeline", panicking); err == nil {
		t.Fatal("a computation that panics: no error")
	}
}
