package graph

import (
	"context"
	"sync"

	"github.com/athar-hadith/athar/internal/athar"
)

// TimelineCache keeps the timeline's order between writes. Ordering the events reads every
// claim of the timeline's predicates (at 10,000 generated narrations, 580 ms a request);
// the order changes only when the graph does, so it is computed once after each write.
// Subscribe Invalidate to the writer (ingest.Subscriber) and pass the cache in
// Config.Timeline; without one, every request orders the events again.
type TimelineCache struct {
	mu    sync.Mutex
	gen   uint64     // bumped by every write
	order []athar.ID // the order, when valid
	valid bool
}

// NewTimelineCache returns an empty cache.
func NewTimelineCache() *TimelineCache { return &TimelineCache{} }

// Invalidate forgets the order; it is an ingest.Subscriber.
func (c *TimelineCache) Invalidate(context.Context, athar.Changeset) {
	c.mu.Lock()
	c.gen++
	c.valid = false
	c.order = nil
	c.mu.Unlock()
}

// get returns the cached order, or computes it with compute and keeps it unless a write
// came meanwhile (the order then describes a graph that no longer is).
func (c *TimelineCache) get(ctx context.Context, compute func(context.Context) ([]athar.ID, error)) ([]athar.ID, error) {
	if c == nil {
		return compute(ctx)
	}
	c.mu.Lock()
	if c.valid {
		order := c.order
		c.mu.Unlock()
		return order, nil
	}
	gen := c.gen
	c.mu.Unlock()
	order, err := compute(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.gen == gen {
		c.order, c.valid = order, true
	}
	c.mu.Unlock()
	return order, nil
}
