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
// stale). Cayley's ApplyDeltas commits in its own bbolt transaction, and the new entries
// need what it wrote (the ids of new terms), so Apply writes the manifest around it:
//
//  1. mark every label the deltas touch as pending, in Cayley's own transaction (joinKV
//     hands it the marks to write first; join.go);
//  2. write those labels' new entries and clear their marks, in one transaction after.
//
// A crash before 2 commits leaves the labels marked; Open rebuilds the entries of every
// marked label from one scan of the store, and until then NarrationQuads answers a marked
// label by scanning, so a stale entry is never read. A missing manifest bucket (a store
// made before the manifest existed) or a full rebuild cut short (rebuildAllKey still
// marked) makes Open build the whole manifest in one scan.
//
// memstore keeps the same two buckets in maps, with the same protocol, the marks made just
// before Cayley's change (as in bulk mode, whose marks go to its buffer).

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/cayley/graph/refs"
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
	// scan calls fn with the keys of bucket from the first one >= from, in order, while fn
	// returns true. Values are valid only during the call.
	scan(bucket, from string, fn func(k string, v []byte) bool)
	// resetBuckets drops the buckets and creates them empty.
	resetBuckets(names ...string) error
}

// manifestKV is where the manifest is kept.
type manifestKV interface {
	view(fn func(manifestTx) error) error
	update(fn func(manifestTx) error) error
}

// boltManifest keeps the manifest in the bbolt file Cayley's store lives in.
type boltManifest struct{ db *bolt.DB }

func (m boltManifest) view(fn func(manifestTx) error) error {
	return m.db.View(func(tx *bolt.Tx) error { return fn(newBoltTx(tx)) })
}

func (m boltManifest) update(fn func(manifestTx) error) error {
	return m.db.Update(func(tx *bolt.Tx) error { return fn(newBoltTx(tx)) })
}

// boltTx is a manifest transaction on bbolt. It keeps the buckets it has opened: a write
// puts a few rows per quad into the same few buckets, and looking each up again in the
// root bucket was a tenth of a load's CPU. It keeps a cursor per bucket for get, and a
// buffer for the key: Bucket.Get makes a new cursor whose stack grows by appending at
// every call, and converting the key allocated again -- a page of fifty claims makes some
// thousand gets, and those allocations were a tenth of the entity page's. A boltTx, like
// the bbolt transaction it wraps, is used by one goroutine at a time.
type boltTx struct {
	tx      *bolt.Tx
	buckets map[string]*bolt.Bucket
	cursors map[string]*bolt.Cursor
	key     *[]byte
}

func newBoltTx(tx *bolt.Tx) boltTx {
	return boltTx{tx: tx, buckets: map[string]*bolt.Bucket{}, cursors: map[string]*bolt.Cursor{}, key: new([]byte)}
}

// bucket returns the named bucket, nil when it does not exist (create: creating it).
func (t boltTx) bucket(name string, create bool) (*bolt.Bucket, error) {
	if b := t.buckets[name]; b != nil {
		return b, nil
	}
	b := t.tx.Bucket([]byte(name))
	if b == nil && create {
		var err error
		if b, err = t.tx.CreateBucket([]byte(name)); err != nil {
			return nil, err
		}
	}
	if b != nil {
		t.buckets[name] = b
	}
	return b, nil
}

// get returns the value of key in bucket, nil when either is absent (or the key names a
// nested bucket, as with Bucket.Get). Its cursor seeks from the bucket's root every time,
// so puts and deletes between two gets are seen.
func (t boltTx) get(bucket, key string) []byte {
	c := t.cursors[bucket]
	if c == nil {
		b, _ := t.bucket(bucket, false)
		if b == nil {
			return nil
		}
		c = b.Cursor()
		t.cursors[bucket] = c
	}
	*t.key = append((*t.key)[:0], key...)
	k, v := c.Seek(*t.key)
	if k == nil || !bytes.Equal(k, *t.key) {
		return nil
	}
	return v
}

func (t boltTx) put(bucket, key string, v []byte) error {
	b, err := t.bucket(bucket, true)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), v)
}

func (t boltTx) del(bucket, key string) error {
	if b, _ := t.bucket(bucket, false); b != nil {
		return b.Delete([]byte(key))
	}
	return nil
}

func (t boltTx) keys(bucket string) []string {
	var out []string
	if b, _ := t.bucket(bucket, false); b != nil {
		_ = b.ForEach(func(k, _ []byte) error {
			out = append(out, string(k))
			return nil
		})
	}
	return out
}

func (t boltTx) exists(bucket string) bool {
	b, _ := t.bucket(bucket, false)
	return b != nil
}

func (t boltTx) reset() error { return t.resetBuckets(manifestBucket, pendingBucket) }

func (t boltTx) scan(bucket, from string, fn func(k string, v []byte) bool) {
	b, _ := t.bucket(bucket, false)
	if b == nil {
		return
	}
	c := b.Cursor()
	for k, v := c.Seek([]byte(from)); k != nil; k, v = c.Next() {
		if !fn(string(k), v) {
			return
		}
	}
}

func (t boltTx) resetBuckets(names ...string) error {
	for _, name := range names {
		delete(t.buckets, name)
		delete(t.cursors, name)
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
// scan sorts a bucket's keys when it first needs them after a key was added or removed:
// writes (which never scan) stay map operations, and reads between writes sort once.
type memManifest struct {
	buckets map[string]map[string][]byte
	mu      sync.Mutex          // guards sorted: readers sharing the store's read lock fill it
	sorted  map[string][]string // bucket -> its keys, sorted; absent when stale
}

func newMemManifest() *memManifest {
	m := &memManifest{buckets: map[string]map[string][]byte{manifestBucket: {}, pendingBucket: {}}, sorted: map[string][]string{}}
	for _, b := range rmBuckets {
		m.buckets[b] = map[string][]byte{}
	}
	return m
}

func (m *memManifest) view(fn func(manifestTx) error) error   { return fn(m) }
func (m *memManifest) update(fn func(manifestTx) error) error { return fn(m) }

func (m *memManifest) get(bucket, key string) []byte { return m.buckets[bucket][key] }

func (m *memManifest) put(bucket, key string, v []byte) error {
	b := m.buckets[bucket]
	if b == nil {
		b = map[string][]byte{}
		m.buckets[bucket] = b
	}
	if _, ok := b[key]; !ok {
		m.stale(bucket)
	}
	b[key] = append([]byte{}, v...) // never nil: get tells a present key by a non-nil value
	return nil
}

func (m *memManifest) del(bucket, key string) error {
	if _, ok := m.buckets[bucket][key]; ok {
		delete(m.buckets[bucket], key)
		m.stale(bucket)
	}
	return nil
}

func (m *memManifest) keys(bucket string) []string {
	out := make([]string, 0, len(m.buckets[bucket]))
	for k := range m.buckets[bucket] {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (m *memManifest) exists(bucket string) bool { return m.buckets[bucket] != nil }

func (m *memManifest) reset() error { return m.resetBuckets(manifestBucket, pendingBucket) }

func (m *memManifest) resetBuckets(names ...string) error {
	for _, name := range names {
		m.buckets[name] = map[string][]byte{}
		m.stale(name)
	}
	return nil
}

func (m *memManifest) stale(bucket string) {
	m.mu.Lock()
	delete(m.sorted, bucket)
	m.mu.Unlock()
}

func (m *memManifest) scan(bucket, from string, fn func(k string, v []byte) bool) {
	m.mu.Lock()
	keys, ok := m.sorted[bucket]
	if !ok {
		keys = m.keys(bucket)
		m.sorted[bucket] = keys
	}
	m.mu.Unlock()
	for i := sort.SearchStrings(keys, from); i < len(keys); i++ {
		if !fn(keys[i], m.buckets[bucket][keys[i]]) {
			return
		}
	}
}

// An entry is a label's quads without their label: a sorted run of records, each a uvarint
// length and a payload naming the quad's subject, predicate and object. On the KV backends
// the payload is the three terms' node ids (uvarints): about ten bytes a quad, read back
// through the node cache in one batch (see nodes.go), and taken straight from Cayley's
// index entries when rebuilding, with no term read at all. A node id names one value for
// as long as the node exists, so the ids of a stored quad's terms are stable. memstore's
// payload is the three values themselves (pquads). Sorted records make an entry the same
// bytes whether Apply or a rebuild wrote it.

// splitRecords splits an entry into its records.
func splitRecords(entry []byte) ([]string, error) {
	var out []string
	for len(entry) > 0 {
		l, k := binary.Uvarint(entry)
		if k <= 0 || uint64(len(entry)-k) < l {
			return nil, errors.New("corrupt manifest entry")
		}
		out = append(out, string(entry[:k+int(l)]))
		entry = entry[k+int(l):]
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

// idRecord is the record of a quad stored by the KV backends, from its terms' node ids.
func idRecord(s, p, o uint64) string {
	var buf [1 + 3*binary.MaxVarintLen64]byte
	n := binary.PutUvarint(buf[1:], s)
	n += binary.PutUvarint(buf[1+n:], p)
	n += binary.PutUvarint(buf[1+n:], o)
	buf[0] = byte(n) // < 128: a one-byte uvarint
	return string(buf[:1+n])
}

// valueRecord is the record of a quad for memstore, from its values.
func valueRecord(q quad.Quad) (string, error) {
	var payload []byte
	for _, v := range [3]quad.Value{q.Subject, q.Predicate, q.Object} {
		b, err := pquads.MarshalValue(v)
		if err != nil {
			return "", fmt.Errorf("encode %v: %w", v, err)
		}
		payload = binary.AppendUvarint(payload, uint64(len(b)))
		payload = append(payload, b...)
	}
	return string(binary.AppendUvarint(nil, uint64(len(payload)))) + string(payload), nil
}

// recordsOf returns the records of quads as the store holds them now, and whether each
// quad's terms all exist (on the KV backends: a quad with a term the store lacks is not
// stored). The terms' ids are taken from known where it has them -- what Cayley's last
// commit read and wrote, which the store holds now -- and otherwise looked up. Callers
// hold the write lock.
func (s *Store) recordsOf(ctx context.Context, qs []quad.Quad, known termIDs) ([]string, []bool, error) {
	recs := make([]string, len(qs))
	found := make([]bool, len(qs))
	kqs, ok := s.qs.(*kv.QuadStore)
	if !ok {
		for i, q := range qs {
			r, err := valueRecord(q)
			if err != nil {
				return nil, nil, err
			}
			recs[i], found[i] = r, true
		}
		return recs, found, nil
	}
	// Each distinct value once; slot holds the index in vals of each quad's three terms.
	at := make(map[quad.Value]int, len(qs))
	var vals []quad.Value
	slot := make([]int, 3*len(qs))
	for i, q := range qs {
		for j, v := range [3]quad.Value{q.Subject, q.Predicate, q.Object} {
			k, ok := at[v]
			if !ok {
				k = len(vals)
				at[v] = k
				vals = append(vals, v)
			}
			slot[3*i+j] = k
		}
	}
	ids := make([]uint64, len(vals))
	var miss []quad.Value
	var missAt []int
	for i, v := range vals {
		if known != nil {
			if id := known[refs.HashOf(v)]; id != 0 {
				ids[i] = id
				s.nodes.Add(id, v)
				continue
			}
		}
		miss = append(miss, v)
		missAt = append(missAt, i)
	}
	if len(miss) > 0 {
		s.termLookups.Add(int64(len(miss)))
		found, err := kqs.RefsOf(ctx, miss)
		if err != nil {
			return nil, nil, fmt.Errorf("look up %d terms: %w", len(miss), err)
		}
		for j, r := range found {
			if id, ok := r.(kv.Int64Value); ok && id > 0 {
				ids[missAt[j]] = uint64(id)
				s.nodes.Add(uint64(id), miss[j])
			}
		}
	}
	for i := range qs {
		si, pi, oi := ids[slot[3*i]], ids[slot[3*i+1]], ids[slot[3*i+2]]
		if si != 0 && pi != 0 && oi != 0 {
			recs[i], found[i] = idRecord(si, pi, oi), true
		}
	}
	return recs, found, nil
}

// decodeEntry returns the quads of an entry, labelled. Callers hold a lock.
func (s *Store) decodeEntry(ctx context.Context, label string, entry []byte) ([]quad.Quad, error) {
	recs, err := splitRecords(entry)
	if err != nil {
		return nil, fmt.Errorf("manifest entry of %s: %w", label, err)
	}
	kqs, isKV := s.qs.(*kv.QuadStore)
	if !isKV {
		out := make([]quad.Quad, len(recs))
		for i, r := range recs {
			var vals [3]quad.Value
			_, k := binary.Uvarint([]byte(r))
			b := []byte(r[k:])
			for j := range vals {
				l, k := binary.Uvarint(b)
				if k <= 0 || uint64(len(b)-k) < l {
					return nil, fmt.Errorf("manifest entry of %s is corrupt", label)
				}
				if vals[j], err = pquads.UnmarshalValue(b[k : k+int(l)]); err != nil {
					return nil, fmt.Errorf("manifest entry of %s: %w", label, err)
				}
				b = b[k+int(l):]
			}
			out[i] = quad.Quad{Subject: vals[0], Predicate: vals[1], Object: vals[2], Label: quad.IRI(label)}
		}
		return out, nil
	}
	ids := make([]uint64, 0, 3*len(recs))
	for _, r := range recs {
		b := []byte(r)
		_, k := binary.Uvarint(b)
		b = b[k:]
		for j := 0; j < 3; j++ {
			id, k := binary.Uvarint(b)
			if k <= 0 || id == 0 {
				return nil, fmt.Errorf("manifest entry of %s is corrupt", label)
			}
			ids = append(ids, id)
			b = b[k:]
		}
	}
	vals, err := s.values(ctx, kqs, ids)
	if err != nil {
		return nil, fmt.Errorf("manifest entry of %s: %w", label, err)
	}
	out := make([]quad.Quad, len(recs))
	for i := range out {
		out[i] = quad.Quad{Subject: vals[3*i], Predicate: vals[3*i+1], Object: vals[3*i+2], Label: quad.IRI(label)}
	}
	return out, nil
}

// labelOf is the manifest key of a quad: its label, or "" for quads the manifest does not
// keep (no label; the pins, which live inside one Apply).
func labelOf(q quad.Quad) string {
	return keptLabel(iriOf(q.Label))
}

func keptLabel(l string) string {
	if l == pinIRI {
		return ""
	}
	return l
}

// manifestChange is what one Apply does to the manifest: per label, the quads added and
// removed, then their records.
type manifestChange struct {
	labels      []string // sorted
	add, remove map[string][]quad.Quad
	// both lists the labels where one quad is both added and removed: Cayley's net effect
	// is then not worth guessing, so those entries are rebuilt from the store.
	both map[string]bool
	// The records of the quads removed (looked up before Cayley's commit, while their
	// terms still exist; a quad whose terms do not all exist was not stored) and added
	// (after it, once the new terms have ids): one a quad of add and remove, in their
	// order, "" for a quad not stored.
	addRecs, removeRecs map[string][]string
}

func newManifestChange(deltas []graph.Delta) *manifestChange {
	c := &manifestChange{add: map[string][]quad.Quad{}, remove: map[string][]quad.Quad{}, both: map[string]bool{}}
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
		if d.Action == graph.Add {
			c.add[l] = append(c.add[l], d.Quad)
		} else {
			c.remove[l] = append(c.remove[l], d.Quad)
		}
	}
	sort.Strings(c.labels)
	for _, l := range c.labels {
		if len(c.add[l]) == 0 || len(c.remove[l]) == 0 {
			continue
		}
		added := make(map[quad.Quad]bool, len(c.add[l]))
		for _, q := range c.add[l] {
			added[q] = true
		}
		for _, q := range c.remove[l] {
			if added[q] {
				c.both[l] = true
				break
			}
		}
	}
	return c
}

// records looks up the records of the quads of one side of the change (see addRecs), with
// the terms' ids in known (see recordsOf): one a quad, "" for a quad not stored.
func (s *Store) records(ctx context.Context, c *manifestChange, side map[string][]quad.Quad, known termIDs) (map[string][]string, error) {
	var all []quad.Quad
	for _, l := range c.labels {
		all = append(all, side[l]...)
	}
	recs, found, err := s.recordsOf(ctx, all, known)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	i := 0
	for _, l := range c.labels {
		if n := len(side[l]); n > 0 {
			out[l] = recs[i : i+n : i+n]
			for j := range out[l] {
				if !found[i+j] {
					out[l][j] = ""
				}
			}
			i += n
		}
	}
	return out, nil
}

// markPending marks the labels pending before Cayley's commit. It returns the labels that
// were already marked (a failed earlier update): their entries cannot be updated
// incrementally and are rebuilt after the commit.
func (s *Store) markPending(labels []string) (stale []string, err error) {
	if len(labels) == 0 {
		return nil, nil
	}
	err = s.man.update(func(tx manifestTx) error {
		stale, err = markLabels(tx, labels)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("manifest: mark %d narration(s) pending: %w", len(labels), err)
	}
	return stale, nil
}

// markTx is what marking labels pending needs of a transaction: a manifestTx, or Cayley's
// own (see join.go).
type markTx interface {
	get(bucket, key string) []byte
	put(bucket, key string, v []byte) error
}

// markLabels marks labels pending in tx, and the read model with them, returning the
// labels that were marked already.
func markLabels(tx markTx, labels []string) (stale []string, err error) {
	for _, l := range labels {
		if tx.get(pendingBucket, l) != nil {
			stale = append(stale, l)
			continue
		}
		if err := tx.put(pendingBucket, l, []byte{}); err != nil {
			return nil, err
		}
	}
	return stale, tx.put(pendingBucket, rmPendingKey, []byte{})
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
		if s.rmStale {
			return nil
		}
		return tx.del(pendingBucket, rmPendingKey)
	})
}

// commitManifest writes the entries of the labels c touched, after Cayley's commit, and
// clears their marks; labels in skip are left marked for rebuildLabels. rm, when given,
// updates the read model in the same transaction (readmodel.go). Callers hold the write
// lock.
func (s *Store) commitManifest(c *manifestChange, skip map[string]bool, rm func(manifestTx) error) error {
	if len(c.labels) == len(skip) && rm == nil {
		return nil
	}
	return s.man.update(func(tx manifestTx) error {
		if rm != nil {
			if err := rm(tx); err != nil {
				return err
			}
		}
		return writeEntries(tx, c, skip, rm != nil)
	})
}

// writeEntries writes the entries of the labels c touched, but those in skip, from their
// old entries and c's records, and clears their marks. With mentions, it also moves the
// read model's mention counts by the quads each entry gains and loses
// (readmodel_mention.go).
func writeEntries(tx manifestTx, c *manifestChange, skip map[string]bool, mentions bool) error {
	counts := mentionCounts{}
	for _, l := range c.labels {
		if skip[l] {
			continue
		}
		old, err := splitRecords(tx.get(manifestBucket, l))
		if err != nil {
			return fmt.Errorf("%s: %w", l, err)
		}
		set := make(map[string]bool, len(old)+len(c.addRecs[l]))
		for _, r := range old {
			set[r] = true
		}
		if mentions {
			if err := counts.countEntry(c, l, set); err != nil {
				return err
			}
		}
		// Cayley's KV backend applies a transaction's additions before its removals.
		for _, r := range c.addRecs[l] {
			if r != "" {
				set[r] = true
			}
		}
		for _, r := range c.removeRecs[l] {
			delete(set, r)
		}
		if err := putEntry(tx, l, set); err != nil {
			return err
		}
		if err := tx.del(pendingBucket, l); err != nil {
			return err
		}
	}
	return counts.write(tx)
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
		return s.rebuildLabels(ctx, pending, nil)
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
	err = s.scanRecords(ctx, nil, func(label, rec string) error {
		entries[label] = append(entries[label], rec)
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
// their marks. With recount (label -> entity IRIs, from mentionsTouched), it also sets
// those entities' mention counts in those labels from the rebuilt entries and clears the
// read model's mark, in the same transaction. Callers hold the write lock (or own the
// store, at Open).
func (s *Store) rebuildLabels(ctx context.Context, labels []string, recount map[string][]string) error {
	want := map[string]bool{}
	for _, l := range labels {
		if l != rebuildAllKey && l != rmPendingKey {
			want[l] = true
		}
	}
	sets := map[string]map[string]bool{}
	err := s.scanRecords(ctx, want, func(label, rec string) error {
		if sets[label] == nil {
			sets[label] = map[string]bool{}
		}
		sets[label][rec] = true
		return nil
	})
	var counts mentionCounts
	if err == nil && recount != nil {
		counts, err = s.recountMentions(ctx, sets, recount)
	}
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
			if recount == nil {
				return nil
			}
			if err := counts.set(tx); err != nil {
				return err
			}
			return tx.del(pendingBucket, rmPendingKey)
		})
	}
	if err != nil {
		return fmt.Errorf("manifest: rebuild %d narration(s): %w", len(want), err)
	}
	return nil
}

// scanRecords reads every quad of the store once and calls fn with the label and record
// of each quad the manifest keeps -- only of quads with one of the labels, when given. On
// the KV backends it reads Cayley's quad entries only, never a term but the labels. It
// counts as one full scan. Callers hold a lock (or own the store).
func (s *Store) scanRecords(ctx context.Context, labels map[string]bool, fn func(label, rec string) error) error {
	s.fullScans.Add(1)
	kqs, ok := s.qs.(*kv.QuadStore)
	if !ok {
		return each(ctx, s.qs.QuadsAllIterator(), func(r graph.Ref) error {
			q, err := s.qs.Quad(r)
			if err != nil {
				return err
			}
			l := labelOf(q)
			if l == "" || (labels != nil && !labels[l]) {
				return nil
			}
			rec, err := valueRecord(q)
			if err != nil {
				return err
			}
			return fn(l, rec)
		})
	}
	// The label of each label node id met, "" for those not wanted.
	names := map[uint64]string{}
	if labels != nil {
		for l := range labels {
			id, err := nodeID(kqs, quad.IRI(l))
			if err != nil {
				return err
			}
			if id != 0 {
				names[id] = l
			}
		}
		if len(names) == 0 {
			return nil
		}
	}
	return each(ctx, kqs.QuadsAllIterator(), func(r graph.Ref) error {
		p, ok := r.(*proto.Primitive)
		if !ok {
			return fmt.Errorf("unexpected KV quad ref %T", r)
		}
		l, known := names[p.Label]
		if !known {
			if labels != nil || p.Label == 0 {
				return nil
			}
			vals, err := s.values(ctx, kqs, []uint64{p.Label})
			if err != nil {
				return err
			}
			l = keptLabel(iriOf(vals[0]))
			names[p.Label] = l
		}
		if l == "" {
			return nil
		}
		return fn(l, idRecord(p.Subject, p.Predicate, p.Object))
	})
}

// FullScans returns how many times the store has read every quad it holds since it was
// opened: exports (Quads), manifest rebuilds, and narrations read while their manifest
// entry was pending. Re-importing or deleting a narration should not add to it.
func (s *Store) FullScans() int64 { return s.fullScans.Load() }
