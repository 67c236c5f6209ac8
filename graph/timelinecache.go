package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/athar-hadith/athar/internal/athar"
)

// TimelineCache keeps the timeline's and the chronology's orders between writes. Ordering
// the events reads every claim of the timeline's predicates (at 100,000 generated
// narrations, some 100,000 claims); the orders change only when the graph does, so each is
// computed once after a write, by the first request that needs it, while requests that
// come meanwhile wait for that computation instead of starting their own. Subscribe
// Invalidate to the writer (ingest.Subscriber) and pass the cache in Config.Timeline;
// without one, every request orders the events again, and the complexity limit charges it
// for reading every claim.
type TimelineCache struct {
	mu    sync.Mutex
	gen   uint64 // bumped by every write
	slots map[string]*orderSlot
}

// orderSlot is one order (the timeline's or the chronology's) of one generation.
type orderSlot struct {
	gen  uint64
	done chan struct{} // closed once val and err are set
	val  any
	err  error
}

// NewTimelineCache returns an empty cache.
func NewTimelineCache() *TimelineCache { return &TimelineCache{slots: map[string]*orderSlot{}} }

// Invalidate forgets the orders when cs may change them: when it adds or removes a claim of
// the timeline's predicates or an event's type (an event defined, or no longer), which is
// all the orders are computed from (timelineInputs). Other writes -- most: a hadith's chain,
// its names and other claims -- keep them, where ordering again took 0.3 s at 100,000
// generated narrations. It is an ingest.Subscriber.
func (c *TimelineCache) Invalidate(_ context.Context, cs athar.Changeset) {
	if !changesOrder(cs) {
		return
	}
	c.mu.Lock()
	c.gen++
	c.mu.Unlock()
}

// changesOrder reports whether cs adds or removes a quad the timeline's orders read.
func changesOrder(cs athar.Changeset) bool {
	for _, qs := range [][]athar.Quad{cs.Remove, cs.Add} {
		for _, q := range qs {
			if q.Predicate == athar.RDFType && q.Object.IRI == athar.TypeEvent.IRI() {
				return true
			}
			if p, ok := strings.CutPrefix(q.Predicate, athar.VocabBase); ok && slices.Contains(timelinePredicates, p) {
				return true
			}
		}
	}
	return false
}

// get returns the order kept under key, or computes it with compute and keeps it for the
// requests that follow until the next write. Every request waits for the computation, or
// for its own context (its deadline); the computation itself runs to its end even when the
// request that started it goes away: others may be waiting, and it is done once per write.
// A failed computation is not kept: the next request tries again.
func get[T any](ctx context.Context, c *TimelineCache, key string, compute func(context.Context) (T, error)) (T, error) {
	if c == nil {
		return compute(ctx)
	}
	c.mu.Lock()
	s := c.slots[key]
	if s == nil || s.gen != c.gen {
		s = &orderSlot{gen: c.gen, done: make(chan struct{})}
		c.slots[key] = s
		go func() {
			v, err := computeSafely(context.WithoutCancel(ctx), compute)
			c.mu.Lock()
			s.val, s.err = v, err
			if err != nil && c.slots[key] == s {
				delete(c.slots, key)
			}
			c.mu.Unlock()
			close(s.done)
		}()
	}
	c.mu.Unlock()
	select {
	case <-s.done:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	if s.err != nil {
		var zero T
		return zero, s.err
	}
	return s.val.(T), nil
}

// computeSafely runs compute, turning a panic into an error: it runs on its own goroutine,
// outside the handler's recovery.
func computeSafely[T any](ctx context.Context, compute func(context.Context) (T, error)) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("ordering the events: %v", p)
		}
	}()
	return compute(ctx)
}

// cached reports whether c keeps the orders between writes: the complexity limit then
// charges a timeline request for its page only (see costed.readCost).
func (c *TimelineCache) cached() bool { return c != nil }
