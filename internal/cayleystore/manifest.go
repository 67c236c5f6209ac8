package cayleystore

// The manifest: each label's quads, kept beside Cayley.
//
// Cayley's KV backend has no label index, so finding a narration's quads (re-import, delete,
// merge, restore) would scan the whole store. The manifest maps every label (a narration's
// IRI, or a reserved graph) to the quads it labels, so NarrationQuads reads one entry.
//
// It is derived, never a second source of truth: Apply updates it from the same deltas it
// gives Cayley, and it is rebuilt from Cayley whenever it may disagree. On bbolt it lives in
// the store's own file, in two buckets of its own (Cayley's are "meta", "log", its quad
// indexes -- one to four letters of s, p, o, c -- and the three-byte "v.."/"n.." value
// buckets): manifestBucket (label -> entry) and pendingBucket (labels whose entry may be
// stale). Cayley's ApplyDeltas commits in its own bbolt transaction, so Apply writes the
// manifest in two more, around it:
//
//  1. mark every label the deltas touch as pending, and commit;
//  2. Cayley's transaction;
//  3. write those labels' new entries and clear their marks, in one transaction.
//
// A crash before 3 commits leaves the labels marked; Open rebuilds the entries of every
// marked label from one scan of the store, and until then NarrationQuads answers a marked
// label by scanning, so a stale entry is never read. A missing manifest bucket (a store
// made before the manifest existed) or a full rebuild cut short (rebuildAllKey still
// marked) makes Open build the whole manifest in one scan.
//
// memstore keeps the same two buckets in maps, with the same protocol.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/iterator"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
	bolt "go.etcd.io/bbolt"
)

const (
	manifestBucket = "athar.manifest"
	pendingBucket  = "athar.manifest.pending"
	// rebuildAllKey, marked pending, means a whole rebuild was started and not finished.
	// No label is a single zero byte.
	rebuildAllKey = "\x00"
)

// manifestTx is one transaction on the manifest's buckets. Values from get are valid only
// inside the transaction.
type manifestTx interface {
	get(bucket, key string) []byte
	put(bucket, key string, v []byte) error
	del(bucket, key string) error
	keys(bucket string) []string
	exists(bucket string) bool
	// reset drops both buckets and creates them empty.
	reset() error
}

// manifestKV is where the manifest is kept.
type manifestKV interface {
	view(fn func(manifestTx) error) error
	update(fn func(manifestTx) error) error
}

// boltManifest keeps the manifest in the bbolt file Cayley's store lives in.
type boltManifest struct{ db *bolt.DB }

func (m boltManifest) view(fn func(manifestTx) error) error {
	return m.db.View(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

func (m boltManifest) update(fn func(manifestTx) error) error {
	return m.db.Update(func(tx *bolt.Tx) error { return fn(boltTx{tx}) })
}

type boltTx struct{ tx *bolt.Tx }

func (t boltTx) get(bucket, key string) []byte {
	if b := t.tx.Bucket([]byte(bucket)); b != nil {
		return b.Get([]byte(key))
	}
	return nil
}

func (t boltTx) put(bucket, key string, v []byte) error {
	b, err := t.tx.CreateBucketIfNotExists([]byte(bucket))
	if err != nil {
		return err
	}
	return b.Put([]byte(key), v)
}

func (t boltTx) del(bucket, key string) error {
	if b := t.tx.Bucket([]byte(bucket)); b != nil {
		return b.Delete([]byte(key))
	}
	return nil
}

func (t boltTx) keys(bucket string) []string {
	var out []string
	if b := t.tx.Bucket([]byte(bucket)); b != nil {
		_ = b.ForEach(func(k, _ []byte) error {
			out = append(out, string(k))
			return nil
		})
	}
	return out
}

func (t boltTx) exists(bucket string) bool { return t.tx.Bucket([]byte(bucket)) != nil }

func (t boltTx) reset() error {
	for _, name := range []string{manifestBucket, pendingBucket} {
		if err := t.tx.DeleteBucket([]byte(name)); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
			return err
		}
		if _, err := t.tx.CreateBucket([]byte(name)); err != nil {
			return err
		}
	}
	return nil
}

// memManifest keeps the manifest in maps, for memstore. Callers hold the store's lock
// (the write lock for update); no write can fail halfway, so update needs no rollback.
type memManifest map[string]map[string][]byte

func newMemManifest() memManifest {
	return memManifest{manifestBucket: {}, pendingBucket: {}}
}

func (m memManifest) view(fn func(manifestTx) error) error   { return fn(m) }
func (m memManifest) update(fn func(manifestTx) error) error { return fn(m) }

func (m memManifest) get(bucket, key string) []byte { return m[bucket][key] }

func (m memManifest) put(bucket, key string, v []byte) error {
	if m[bucket] == nil {
		m[bucket] = map[string][]byte{}
	}
	m[bucket][key] = append([]byte(nil), v...)
	return nil
}

func (m memManifest) del(bucket, key string) error {
	delete(m[bucket], key)
	return nil
}

func (m memManifest) keys(bucket string) []string {
	out := make([]string, 0, len(m[bucket]))
	for k := range m[bucket] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (m memManifest) exists(bucket string) bool { return m[bucket] != nil }

func (m memManifest) reset() error {
	m[manifestBucket], m[pendingBucket] = map[string][]byte{}, map[string][]byte{}
	return nil
}

// An entry is a label's quads without their label, each a record of three values
// (subject, predicate, object), each a uvarint length and the value in Cayley's own
// encoding (pquads, what the KV store keeps), so that an entry decodes to exactly the
// values a scan of the store returns. Records are kept sorted, so an entry does not depend
// on whether Apply or a rebuild wrote it.

// valueCodec encodes values, remembering those an Apply uses more than once.
type valueCodec map[quad.Value][]byte

func (c valueCodec) record(q quad.Quad) (string, error) {
	var buf []byte
	for _, v := range [3]quad.Value{q.Subject, q.Predicate, q.Object} {
		b, ok := c[v]
		if !ok {
			var err error
			if b, err = pquads.MarshalValue(v); err != nil {
				return "", fmt.Errorf("encode %v: %w", v, err)
			}
			c[v] = b
		}
		buf = binary.AppendUvarint(buf, uint64(len(b)))
		buf = append(buf, b...)
	}
	return string(buf), nil
}

// records splits an entry into its records.
func records(entry []byte) ([]string, error) {
	var out []string
	for len(entry) > 0 {
		start := entry
		n := 0
		for i := 0; i < 3; i++ {
			l, k := binary.Uvarint(entry)
			if k <= 0 || uint64(len(entry)-k) < l {
				return nil, errors.New("corrupt manifest entry")
			}
			entry = entry[k+int(l):]
			n += k + int(l)
		}
		out = append(out, string(start[:n]))
	}
	return out, nil
}

// decodeEntry returns the quads of an entry, labelled.
func decodeEntry(label string, entry []byte) ([]quad.Quad, error) {
	out := []quad.Quad{}
	for len(entry) > 0 {
		var vals [3]quad.Value
		for i := range vals {
			l, k := binary.Uvarint(entry)
			if k <= 0 || uint64(len(entry)-k) < l {
				return nil, fmt.Errorf("manifest entry of %s is corrupt", label)
			}
			v, err := pquads.UnmarshalValue(entry[k : k+int(l)])
			if err != nil {
				return nil, fmt.Errorf("manifest entry of %s: %w", label, err)
			}
			vals[i] = v
			entry = entry[k+int(l):]
		}
		out = append(out, quad.Quad{Subject: vals[0], Predicate: vals[1], Object: vals[2], Label: quad.IRI(label)})
	}
	return out, nil
}

func joinRecords(recs []string) []byte {
	n := 0
	for _, r := range recs {
		n += len(r)
	}
	out := make([]byte, 0, n)
	for _, r := range recs {
		out = append(out, r...)
	}
	return out
}

// labelOf is the manifest key of a quad: its label, or "" for quads the manifest does not
// keep (no label; the pins, which live inside one Apply).
func labelOf(q quad.Quad) string {
	l := iriOf(q.Label)
	if l == pinIRI {
		return ""
	}
	return l
}

// manifestChange is what one Apply does to the manifest: per label, the records added and
// removed.
type manifestChange struct {
	labels []string // sorted
	add    map[string][]string
	remove map[string][]string
	// both lists the labels where one quad is both added and removed: Cayley's net effect
	// is then not worth guessing, so those entries are rebuilt from the store.
	both map[string]bool
}

func newManifestChange(deltas []graph.Delta) (*manifestChange, error) {
	c := &manifestChange{add: map[string][]string{}, remove: map[string][]string{}, both: map[string]bool{}}
	codec := valueCodec{}
	seen := map[string]bool{}
	for _, d := range deltas {
		l := labelOf(d.Quad)
		if l == "" {
			continue
		}
		if !seen[l] {
			seen[l] = true
			c.labels = append(c.labels, l)
		}
		r, err := codec.record(d.Quad)
		if err != nil {
			return nil, err
		}
		if d.Action == graph.Add {
			c.add[l] = append(c.add[l], r)
		} else {
			c.remove[l] = append(c.remove[l], r)
		}
	}
	sort.Strings(c.labels)
	for _, l := range c.labels {
		if len(c.add[l]) == 0 || len(c.remove[l]) == 0 {
			continue
		}
		added := make(map[string]bool, len(c.add[l]))
		for _, r := range c.add[l] {
			added[r] = true
		}
		for _, r := range c.remove[l] {
			if added[r] {
				c.both[l] = true
				break
			}
		}
	}
	return c, nil
}

// markPending marks the labels pending before Cayley's commit. It returns the labels that
// were already marked (a failed earlier update): their entries cannot be updated
// incrementally and are rebuilt after the commit.
func (s *Store) markPending(labels []string) (stale []string, err error) {
	if len(labels) == 0 {
		return nil, nil
	}
	err = s.man.update(func(tx manifestTx) error {
		stale = stale[:0]
		for _, l := range labels {
			if tx.get(pendingBucket, l) != nil {
				stale = append(stale, l)
				continue
			}
			if err := tx.put(pendingBucket, l, []byte{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("manifest: mark %d narration(s) pending: %w", len(labels), err)
	}
	return stale, nil
}

// clearPending unmarks labels whose entries are right (Cayley's commit failed, so nothing
// changed). A failure leaves them marked, which is safe.
func (s *Store) clearPending(labels []string) {
	if len(labels) == 0 {
		return
	}
	_ = s.man.update(func(tx manifestTx) error {
		for _, l := range labels {
			if err := tx.del(pendingBucket, l); err != nil {
				return err
			}
		}
		return nil
	})
}

// commitManifest writes the entries of the labels c touched, after Cayley's commit, and
// clears their marks; labels in skip are left marked for rebuildLabels. Callers hold the
// write lock.
func (s *Store) commitManifest(c *manifestChange, skip map[string]bool) error {
	if len(c.labels) == len(skip) {
		return nil
	}
	return s.man.update(func(tx manifestTx) error {
		for _, l := range c.labels {
			if skip[l] {
				continue
			}
			old, err := records(tx.get(manifestBucket, l))
			if err != nil {
				return fmt.Errorf("%s: %w", l, err)
			}
			set := make(map[string]bool, len(old)+len(c.add[l]))
			for _, r := range old {
				set[r] = true
			}
			// Cayley's KV backend applies a transaction's additions before its removals.
			for _, r := range c.add[l] {
				set[r] = true
			}
			for _, r := range c.remove[l] {
				delete(set, r)
			}
			if err := putEntry(tx, l, set); err != nil {
				return err
			}
			if err := tx.del(pendingBucket, l); err != nil {
				return err
			}
		}
		return nil
	})
}

func putEntry(tx manifestTx, label string, set map[string]bool) error {
	if len(set) == 0 {
		return tx.del(manifestBucket, label)
	}
	recs := make([]string, 0, len(set))
	for r := range set {
		recs = append(recs, r)
	}
	sort.Strings(recs)
	return tx.put(manifestBucket, label, joinRecords(recs))
}

// openManifest checks the manifest when a store opens: it builds it whole when it is
// missing or a whole rebuild was cut short, and rebuilds the entries of labels left pending
// by a crash.
func (s *Store) openManifest(ctx context.Context) error {
	var whole bool
	var pending []string
	err := s.man.view(func(tx manifestTx) error {
		whole = !tx.exists(manifestBucket) || tx.get(pendingBucket, rebuildAllKey) != nil
		pending = tx.keys(pendingBucket)
		return nil
	})
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	if whole {
		return s.rebuildManifest(ctx)
	}
	if len(pending) > 0 {
		return s.rebuildLabels(ctx, pending)
	}
	return nil
}

// rebuildManifest builds the whole manifest from one scan of the store. bbolt must not
// write while a read transaction is open in the same goroutine (a write may need to remap
// the file), so the entries are gathered during the scan -- the manifest's size in memory,
// once -- and written after it, a few megabytes per transaction. Until it finishes,
// rebuildAllKey stays marked and the next Open starts again.
func (s *Store) rebuildManifest(ctx context.Context) error {
	err := s.man.update(func(tx manifestTx) error {
		if err := tx.reset(); err != nil {
			return err
		}
		return tx.put(pendingBucket, rebuildAllKey, []byte{})
	})
	if err != nil {
		return fmt.Errorf("manifest: rebuild: %w", err)
	}
	entries := map[string][]string{}
	codec := valueCodec{}
	err = s.scanLabels(ctx, nil, func(qs []quad.Quad) error {
		for _, q := range qs {
			l := labelOf(q)
			if l == "" {
				continue
			}
			r, err := codec.record(q)
			if err != nil {
				return err
			}
			entries[l] = append(entries[l], r)
		}
		if len(codec) > 1<<16 {
			clear(codec)
		}
		return nil
	})
	labels := make([]string, 0, len(entries))
	for l := range entries {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for len(labels) > 0 && err == nil {
		err = s.man.update(func(tx manifestTx) error {
			size := 0
			for len(labels) > 0 && size < 8<<20 {
				l := labels[0]
				recs := entries[l]
				sort.Strings(recs)
				entry := joinRecords(recs)
				if err := tx.put(manifestBucket, l, entry); err != nil {
					return err
				}
				size += len(entry)
				delete(entries, l)
				labels = labels[1:]
			}
			return nil
		})
	}
	if err == nil {
		err = s.man.update(func(tx manifestTx) error { return tx.del(pendingBucket, rebuildAllKey) })
	}
	if err != nil {
		return fmt.Errorf("manifest: rebuild: %w", err)
	}
	return nil
}

// rebuildLabels rebuilds the entries of the labels from one scan of the store and clears
// their marks. Callers hold the write lock (or own the store, at Open).
func (s *Store) rebuildLabels(ctx context.Context, labels []string) error {
	want := map[string]bool{}
	for _, l := range labels {
		if l != rebuildAllKey {
			want[l] = true
		}
	}
	sets := map[string]map[string]bool{}
	codec := valueCodec{}
	err := s.scanLabels(ctx, want, func(qs []quad.Quad) error {
		for _, q := range qs {
			l := labelOf(q)
			if !want[l] {
				continue
			}
			r, err := codec.record(q)
			if err != nil {
				return err
			}
			if sets[l] == nil {
				sets[l] = map[string]bool{}
			}
			sets[l][r] = true
		}
		return nil
	})
	if err == nil {
		err = s.man.update(func(tx manifestTx) error {
			for l := range want {
				if err := putEntry(tx, l, sets[l]); err != nil {
					return err
				}
				if err := tx.del(pendingBucket, l); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err != nil {
		return fmt.Errorf("manifest: rebuild %d narration(s): %w", len(want), err)
	}
	return nil
}

// scanLabels reads every quad of the store once, in chunks, and calls fn with each chunk.
// With labels given, only quads with one of those labels are resolved and passed on (on
// the KV backends the label's node id is compared before any term is read). It counts as
// one full scan. Callers hold a lock (or own the store).
func (s *Store) scanLabels(ctx context.Context, labels map[string]bool, fn func([]quad.Quad) error) error {
	s.fullScans.Add(1)
	const chunkSize = 10000
	kqs, ok := s.qs.(*kv.QuadStore)
	if !ok {
		var chunk []quad.Quad
		err := iterator.Iterate(ctx, s.qs.QuadsAllIterator()).Each(func(r graph.Ref) error {
			q, err := s.qs.Quad(r)
			if err != nil {
				return err
			}
			if labels == nil || labels[iriOf(q.Label)] {
				chunk = append(chunk, q)
			}
			if len(chunk) == chunkSize {
				err = fn(chunk)
				chunk = nil
			}
			return err
		})
		if err == nil && len(chunk) > 0 {
			err = fn(chunk)
		}
		return err
	}
	var ids map[uint64]bool
	if labels != nil {
		ids = map[uint64]bool{}
		for l := range labels {
			id, err := nodeID(kqs, quad.IRI(l))
			if err != nil {
				return err
			}
			if id != 0 {
				ids[id] = true
			}
		}
		if len(ids) == 0 {
			return nil
		}
	}
	var chunk []*proto.Primitive
	flush := func() error {
		qs, err := s.resolveQuads(ctx, kqs, chunk)
		chunk = chunk[:0]
		if err != nil {
			return err
		}
		return fn(qs)
	}
	err := iterator.Iterate(ctx, kqs.QuadsAllIterator()).Each(func(r graph.Ref) error {
		p, ok := r.(*proto.Primitive)
		if !ok {
			return fmt.Errorf("unexpected KV quad ref %T", r)
		}
		if ids != nil && !ids[p.Label] {
			return nil
		}
		if chunk = append(chunk, p); len(chunk) == chunkSize {
			return flush()
		}
		return nil
	})
	if err == nil && len(chunk) > 0 {
		err = flush()
	}
	return err
}

// FullScans returns how many times the store has read every quad it holds since it was
// opened: exports (Quads), manifest rebuilds, and narrations read while their manifest
// entry was pending. Re-importing or deleting a narration should not add to it.
func (s *Store) FullScans() int64 { return s.fullScans.Load() }
