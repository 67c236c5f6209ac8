package cayleystore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/VictoriaMetrics/fastcache"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"

	"github.com/athar-hadith/athar/internal/athar"
)

// Reading a quad through Cayley's KV API (QuadStore.Quad) opens a read transaction and
// fetches and decodes its four terms from the log, one by one: on bbolt that is ~20 µs a
// quad, most of an entity query's time. A KV node id names one value for ever -- ids come
// from a counter that only committed transactions advance, and a deleted node's id is never
// given to another value -- so a cache from ids to values never goes stale and needs no
// invalidation. nodeCache holds the most recently used ones; the scans below read the
// index, then resolve every term they still miss in one batched read.

// nodeCacheBytes bounds the cache: about 400,000 values of ~100 bytes (most are IRIs and
// short literals), encoded by encodeValue.
//
// The cache is fastcache's: its entries live in 64 KiB chunks allocated outside Go's heap
// and are found through maps of integers, so the collector has nothing in it to mark. The
// hashicorp LRU it replaces held a list element, a map entry and a boxed value per entry --
// at 65,536 values some 250,000 of the ~283,000 objects a 100,000-narration server had
// live right after building its text index (which reads every name), and each cycle's
// marking of them was the requests' p99 (docs/BENCHMARKS.md, "A node cache the collector
// does not mark"). On the full corpus an LRU eight times larger made each cycle's marking
// ~120 ms. What it costs instead is a copy and a decode on each hit (a string and its
// interface box), garbage that dies young.
const nodeCacheBytes = 64 << 20

// nodeCache maps KV node ids to their values. Eviction is fastcache's (a bucket's ring
// overwrites its oldest entries); a value too large for a chunk is not kept. The nil
// cache (the memory store's, whose reads never resolve KV ids) keeps nothing.
type nodeCache struct{ c *fastcache.Cache }

func newNodeCache() *nodeCache { return &nodeCache{c: fastcache.New(nodeCacheBytes)} }

// Get returns the value of node id, if the cache holds it.
func (n *nodeCache) Get(id uint64) (quad.Value, bool) {
	if n == nil {
		return nil, false
	}
	var key [8]byte
	binary.BigEndian.PutUint64(key[:], id)
	var buf [256]byte
	b := n.c.Get(buf[:0], key[:])
	if len(b) == 0 { // every encoding is at least its tag
		return nil, false
	}
	v, err := decodeValue(b)
	if err != nil {
		return nil, false // not written by Add; read from the store instead
	}
	return v, true
}

// Add records the value of node id.
func (n *nodeCache) Add(id uint64, v quad.Value) {
	if n == nil || v == nil {
		return
	}
	var key [8]byte
	binary.BigEndian.PutUint64(key[:], id)
	var buf [256]byte
	b, err := encodeValue(buf[:0], v)
	if err != nil {
		return // a kind the store cannot write either
	}
	n.c.Set(key[:], b)
}

// Reset empties the cache, returning its chunks to fastcache's pool.
func (n *nodeCache) Reset() {
	if n != nil {
		n.c.Reset()
	}
}

// The cache's encoding of values: a tag, then the value's strings. IRIs, strings, typed
// and language-tagged strings and blank nodes -- every value Athar writes but integers --
// take a byte or two more than their text and decode with one string allocation; the
// other kinds go through Cayley's own protobuf encoding (pquads), slower but exact.
const (
	tagIRI   = 'I'
	tagStr   = 'S'
	tagBNode = 'B'
	tagTyped = 'T' // uvarint length of the text, the text, the type IRI
	tagLang  = 'L' // uvarint length of the text, the text, the language
	tagInt   = 'N' // varint
	tagProto = 'P' // pquads.MarshalValue
)

func encodeValue(b []byte, v quad.Value) ([]byte, error) {
	switch v := v.(type) {
	case quad.IRI:
		return append(append(b, tagIRI), v...), nil
	case quad.String:
		return append(append(b, tagStr), v...), nil
	case quad.BNode:
		return append(append(b, tagBNode), v...), nil
	case quad.TypedString:
		b = binary.AppendUvarint(append(b, tagTyped), uint64(len(v.Value)))
		return append(append(b, v.Value...), v.Type...), nil
	case quad.LangString:
		b = binary.AppendUvarint(append(b, tagLang), uint64(len(v.Value)))
		return append(append(b, v.Value...), v.Lang...), nil
	case quad.Int:
		return binary.AppendVarint(append(b, tagInt), int64(v)), nil
	}
	p, err := pquads.MarshalValue(v)
	if err != nil {
		return nil, err
	}
	return append(append(b, tagProto), p...), nil
}

func decodeValue(b []byte) (quad.Value, error) {
	if len(b) == 0 {
		return nil, errors.New("empty encoding")
	}
	tag, b := b[0], b[1:]
	switch tag {
	case tagIRI:
		return quad.IRI(b), nil
	case tagStr:
		return quad.String(b), nil
	case tagBNode:
		return quad.BNode(b), nil
	case tagTyped, tagLang:
		n, w := binary.Uvarint(b)
		if w <= 0 || n > uint64(len(b)-w) {
			return nil, errors.New("bad length")
		}
		s := string(b[w:]) // one allocation for both strings
		text, rest := s[:n], s[n:]
		if tag == tagTyped {
			return quad.TypedString{Value: quad.String(text), Type: quad.IRI(rest)}, nil
		}
		return quad.LangString{Value: quad.String(text), Lang: rest}, nil
	case tagInt:
		n, w := binary.Varint(b)
		if w <= 0 || w != len(b) {
			return nil, errors.New("bad integer")
		}
		return quad.Int(n), nil
	case tagProto:
		v, err := pquads.UnmarshalValue(b)
		if err == nil && v == nil {
			err = errors.New("empty value")
		}
		return v, err
	}
	return nil, fmt.Errorf("unknown tag %q", tag)
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
	vals, err := s.values(ctx, kqs, ids)
	if err != nil {
		return nil, err
	}
	out := make([]quad.Quad, len(prims))
	for i := range prims {
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
	for i, id := range missing {
		if got[i] == nil {
			return nil, fmt.Errorf("node %d is referenced by a quad but has no value", id)
		}
		s.nodes.Add(id, got[i])
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
