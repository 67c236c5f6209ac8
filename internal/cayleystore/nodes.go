package cayleystore

import (
	"context"
	"fmt"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/athar-hadith/athar/internal/athar"
)

// Reading a quad through Cayley's KV API (QuadStore.Quad) opens a read transaction and
// fetches and decodes its four terms from the log, one by one: on bbolt that is ~20 µs a
// quad, most of an entity query's time. A KV node id names one value for ever -- ids come
// from a counter that only committed transactions advance, and a deleted node's id is never
// given to another value -- so a cache from ids to values never goes stale and needs no
// invalidation. nodeCache holds the most recently used ones; the scans below read the
// index, then resolve every term they still miss in one batched read.

// nodeCacheSize bounds the cache, in values. Most values are IRIs and short literals
// (~100 bytes, ~250 with the cache's own overhead): about 16 MiB when full. It was eight
// times that; since the read model answers the queries that read most values, the larger
// cache kept few more hits and cost every request: the collector marks the whole cache
// (an element, a map entry and a string per value) on every cycle, and on the full corpus
// its ~120 MB made each cycle's marking ~120 ms instead of ~23 ms, which the requests
// caught by it paid (docs/BENCHMARKS.md, "The full corpus").
const nodeCacheSize = 1 << 16

type nodeCache = lru.Cache[uint64, quad.Value]

func newNodeCache() *nodeCache {
	c, err := lru.New[uint64, quad.Value](nodeCacheSize)
	if err != nil {
		panic(err) // only for a size < 1
	}
	return c
}

// each calls fn with every ref the iterator yields. Cayley's iterators stop early, WITHOUT
// an error, once ctx is done (iterator.Chain.Each ends its loop on ctx.Done() and returns
// the iterator's error, nil; the KV scans end the same way), so a read cut short would look
// like a complete one with fewer results -- "not defined", "no such narration". each
// returns the context's error instead (athar.DeadlineExceeded or athar.Cancelled): every
// scan in this package goes through it.
func each(ctx context.Context, it iterator.Shape, fn func(graph.Ref) error) error {
	if err := iterator.Iterate(ctx, it).Each(fn); err != nil {
		return err
	}
	return athar.Stopped(ctx, "read")
}

// kvQuads reads the quads the iterator yields. keep, when given, sees the raw primitive
// (term ids, no values) and drops quads before any of their terms is resolved. Callers
// hold the read lock.
func (s *Store) kvQuads(ctx context.Context, kqs *kv.QuadStore, it iterator.Shape, keep func(*proto.Primitive) bool) ([]quad.Quad, error) {
	var prims []*proto.Primitive
	err := each(ctx, it, func(r graph.Ref) error {
		p, ok := r.(*proto.Primitive)
		if !ok {
			return fmt.Errorf("unexpected KV quad ref %T", r)
		}
		if keep == nil || keep(p) {
			prims = append(prims, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s.resolveQuads(ctx, kqs, prims)
}

// resolveQuads turns primitives into quads, reading the values the cache misses in one
// batch.
func (s *Store) resolveQuads(ctx context.Context, kqs *kv.QuadStore, prims []*proto.Primitive) ([]quad.Quad, error) {
	var ids []uint64
	for _, p := range prims {
		ids = append(ids, p.Subject, p.Predicate, p.Object, p.Label)
	}
	return s.resolveQuadIDs(ctx, kqs, ids)
}

// resolveQuadIDs is resolveQuads of quads given as their node ids, four a quad (subject,
// predicate, object, label).
func (s *Store) resolveQuadIDs(ctx context.Context, kqs *kv.QuadStore, ids []uint64) ([]quad.Quad, error) {
	vals, err := s.values(ctx, kqs, ids)
	if err != nil {
		return nil, err
	}
	out := make([]quad.Quad, len(ids)/4)
	for i := range out {
		v := vals[4*i : 4*i+4]
		out[i] = quad.Quad{Subject: v[0], Predicate: v[1], Object: v[2], Label: v[3]}
	}
	return out, nil
}

// values resolves node ids (0 stays nil), in order, reading those the cache misses in one
// batch.
func (s *Store) values(ctx context.Context, kqs *kv.QuadStore, ids []uint64) ([]quad.Value, error) {
	out := make([]quad.Value, len(ids))
	var missing []uint64
	at := map[uint64][]int{}
	for i, id := range ids {
		if id == 0 {
			continue
		}
		if v, ok := s.nodes.Get(id); ok {
			out[i] = v
			continue
		}
		if _, ok := at[id]; !ok {
			missing = append(missing, id)
		}
		at[id] = append(at[id], i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	refs := make([]graph.Ref, len(missing))
	for i, id := range missing {
		refs[i] = kv.Int64Value(id)
	}
	got, err := kqs.ValuesOf(ctx, refs)
	if err == nil {
		err = athar.Stopped(ctx, "read values")
	}
	if err != nil {
		return nil, fmt.Errorf("read %d values: %w", len(refs), err)
	}
	keep := !athar.IsWholeScan(ctx) // a whole scan would fill the cache with values no request asks for
	for i, id := range missing {
		if got[i] == nil {
			return nil, fmt.Errorf("node %d is referenced by a quad but has no value", id)
		}
		if keep {
			s.nodes.Add(id, got[i])
		}
		for _, j := range at[id] {
			out[j] = got[i]
		}
	}
	return out, nil
}

// nodeID returns the KV id of a value, 0 when the graph has no such node.
func nodeID(kqs *kv.QuadStore, v quad.Value) (uint64, error) {
	ref, err := kqs.ValueOf(v)
	if err != nil || ref == nil {
		return 0, err
	}
	id, ok := ref.(kv.Int64Value)
	if !ok {
		return 0, fmt.Errorf("unexpected KV node ref %T", ref)
	}
	return uint64(id), nil
}
