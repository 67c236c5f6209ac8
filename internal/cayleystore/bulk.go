package cayleystore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync/atomic"
	"unsafe"

	"github.com/bits-and-blooms/bloom/v3"
	"github.com/cayleygraph/cayley/graph"
	"github.com/google/btree"
	bolt "go.etcd.io/bbolt"
)

// Bulk writes.
//
// Every Apply writes the manifest and the read model in a bbolt transaction of their own
// after Cayley's (see Apply). One narration at a time that is what keeps them in step; in a
// load of thousands it is most of what a load adds to Cayley's own work: the read model's
// rows land at random places of large buckets, a hub's counts are read and rewritten by
// every transaction that touches the hub, and each transaction commits (and syncs) the pages
// it dirtied. A CPU profile of a 10,000-narration load put 27% of it there, against 42% in
// Cayley's ApplyDeltas.
//
// In bulk mode (BeginBulk, for a command that loads and exits) the manifest's and the read
// model's writes go to an ordered buffer in memory instead, read through by every reader,
// and reach bbolt in key order -- each page written once per flush, each count once -- when
// the buffer passes bulkBudget and at EndBulk. Cayley's transactions are unchanged: every
// narration is committed to the record as before. Consistency after a crash comes from the
// markers the store already uses: BeginBulk marks the whole manifest and the read model for
// rebuilding (rebuildAllKey, rmPendingKey) in one transaction before the first write, and
// only the last transaction of EndBulk's flush clears them. A kill -9 in between leaves them
// set, and the next Open rebuilds both from Cayley (what it does after any crash mid-write,
// but whole: one scan of the store rather than of the narrations pending); a flush cut short
// leaves the buffer, which still overrides every key it wrote, in place.

// bulkBudget is about how many bytes of keys and values the buffer holds before it is
// written out: a 10,000-narration load's read model (some 3.4 million rows) in a flush or
// two, and a load of any size holding a few hundred megabytes for it.
var bulkBudget = 256 << 20

// bulkBudgetDoublings is how often the budget doubles, once at each flush: a load's
// fourth flush and those after it hold four times bulkBudget. A flush writes its rows
// among everything flushed before, rewriting pages across the whole read model, so with a
// fixed budget a load's flushes cost as the square of its size (6-8 s of a
// 10,000-narration load, 49-51 s at 30,000); a growing budget flushes a large load less
// often, while a small one still holds 256 MB at most. At 30,000 narrations, a budget of
// 1 GiB from the start took the load from 348 to 329 s (6.1 to 6.5 GB resident).
const bulkBudgetDoublings = 2

// budget is what the buffer may hold before it is written out.
func (m *bulkManifest) budget() int {
	return bulkBudget << min(m.flushes, bulkBudgetDoublings)
}

// overBudget reports whether the buffer holds more than it may before it is written out.
func (m *bulkManifest) overBudget() bool {
	return m.bytes > m.budget() || m.arena.used > m.budget()
}

// bulkItemCost is what one buffered entry costs beyond its key and value (the item, the
// tree's slot, the value's slice header), for the budget.
const bulkItemCost = 64

// bulkItem is a buffered write: a value, or a deletion (del).
type bulkItem struct {
	key string
	val []byte
	del bool
}

func bulkLess(a, b bulkItem) bool { return a.key < b.key }

// cost is what it counts against the budget.
func (it bulkItem) cost() int { return len(it.key) + len(it.val) + bulkItemCost }

// writeTo writes it to b: its value, or its deletion.
func (it bulkItem) writeTo(b *bolt.Bucket) error {
	if it.del {
		return b.Delete([]byte(it.key))
	}
	return b.Put([]byte(it.key), it.val)
}

// bulkMarkers are the keys of pendingBucket that guard a bulk load on disk. Their logical
// state (what readers see) is in the buffer from BeginBulk on; only the final flush writes it.
var bulkMarkers = [...]string{rebuildAllKey, rmPendingKey}

// bulkManifest is the manifest and read model of a bbolt store in bulk mode: the buffer
// over the store's buckets. Writes hold the store's write lock; reads its read lock (the
// tree allows concurrent readers without a writer).
type bulkManifest struct {
	base    boltManifest
	trees   map[string]*btree.BTreeG[bulkItem]
	reset   map[string]bool // buckets dropped since the last flush: the disk's keys are hidden
	bytes   int
	flushes int // written out so far
	// onDisk holds every key on disk (bucket \x00 key), and perhaps a few more: a key it
	// has not is absent, without a seek into bbolt. Most of a load's reads are of rows and
	// counts not there yet. Nil when the disk held too many keys at BeginBulk to list. Sized
	// for onDiskCap keys; once onDiskN (keys added) passes that, flush lists the disk into
	// one twice as large. Readers share it (Test only reads); flush adds to it.
	onDisk    *bloom.BloomFilter
	onDiskCap uint
	onDiskN   uint
	// spare is the last undo log given back (recycle), emptied, for run to fill again: a
	// load's Apply logs some hundred thousand writes, and growing a new log each time was
	// 2.5% of a 2,000-narration load's CPU.
	spare []bulkUndo
	arena bulkArena // the buffered keys and values since the last flush
}

// bulkArena holds the buffer's keys and values, appended to large byte slices: a buffered
// row costs no allocation of its own, and the collector, which marks everything live on
// every cycle of a load, finds a few large objects without pointers instead of two small
// objects per row -- millions of them (3.4 million rows at 10,000 narrations). Bytes in it
// never change once written (keys are strings over them); it is dropped whole when the
// buffer is written out, and what an overwritten row held stays until then (used counts
// it, for the budget).
type bulkArena struct {
	cur  []byte
	used int
}

// bulkArenaChunk is the size of the arena's slices; a key or value larger than a quarter
// of it gets a slice of its own.
const bulkArenaChunk = 1 << 20

// alloc returns n bytes of the arena, to be written once.
func (a *bulkArena) alloc(n int) []byte {
	a.used += n
	if n > bulkArenaChunk/4 {
		return make([]byte, n)
	}
	if cap(a.cur)-len(a.cur) < n {
		a.cur = make([]byte, 0, bulkArenaChunk)
	}
	k := len(a.cur)
	a.cur = a.cur[:k+n]
	return a.cur[k : k+n : k+n]
}

// keep returns a copy of b in the arena: nil for nil, empty for empty (callers tell an
// absent value from an empty one).
func (a *bulkArena) keep(b []byte) []byte {
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		return []byte{}
	}
	buf := a.alloc(len(b))
	copy(buf, b)
	return buf
}

// keepString is keep for a key.
func (a *bulkArena) keepString(s string) string {
	if s == "" {
		return ""
	}
	buf := a.alloc(len(s))
	copy(buf, s)
	return unsafe.String(&buf[0], len(buf))
}

// bulkListMax is how many keys BeginBulk lists into onDisk at most (a second or so).
var bulkListMax = 2 << 20

// bulkFilterMin is the fewest keys onDisk is sized for (under 5 MB at 1% false positives).
var bulkFilterMin uint = 4 << 20

func newBulkManifest(base boltManifest) *bulkManifest {
	return &bulkManifest{base: base, trees: map[string]*btree.BTreeG[bulkItem]{}, reset: map[string]bool{}}
}

// listDisk fills onDisk with the keys on disk, sized for twice as many, or leaves it nil
// if there are more than limit.
func (m *bulkManifest) listDisk(tx *bolt.Tx, limit int) {
	m.onDisk = nil
	if limit <= 0 {
		return
	}
	n := 0
	err := eachOurs(tx, func(string, []byte) error {
		if n++; n > limit {
			return errTooMany
		}
		return nil
	})
	if err != nil {
		return
	}
	m.onDiskCap = max(bulkFilterMin, 2*uint(n))
	f := bloom.NewWithEstimates(m.onDiskCap, 0.01)
	_ = eachOurs(tx, func(bucket string, k []byte) error {
		f.Add(diskKey(bucket, string(k)))
		return nil
	})
	m.onDisk, m.onDiskN = f, uint(n)
}

var errTooMany = errors.New("too many keys")

// eachOurs calls fn with every key of the manifest's and the read model's buckets (not
// Cayley's), until fn fails.
func eachOurs(tx *bolt.Tx, fn func(bucket string, k []byte) error) error {
	for _, name := range append([]string{manifestBucket, pendingBucket}, rmBuckets...) {
		b := tx.Bucket([]byte(name))
		if b == nil {
			continue
		}
		if err := b.ForEach(func(k, _ []byte) error { return fn(name, k) }); err != nil {
			return err
		}
	}
	return nil
}

// absent reports whether onDisk says the disk does not hold key in bucket.
func (m *bulkManifest) absent(bucket, key string) bool {
	return m.onDisk != nil && !m.onDisk.Test(diskKey(bucket, key))
}

func diskKey(bucket, key string) []byte {
	return append(append(append(make([]byte, 0, len(bucket)+1+len(key)), bucket...), 0), key...)
}

func (m *bulkManifest) view(fn func(manifestTx) error) error {
	return m.base.db.View(func(tx *bolt.Tx) error { return fn(bulkTx{base: newBoltTx(tx), m: m}) })
}

// update runs fn over the buffer; fn's reads fall through to a read transaction of the
// disk, and nothing is written to the disk. If fn fails, what it wrote is undone, as a
// bbolt transaction would be rolled back.
func (m *bulkManifest) update(fn func(manifestTx) error) error {
	undo, err := m.run(fn)
	if err != nil {
		m.rollback(undo)
	}
	m.recycle(undo)
	return err
}

// run is update that keeps what fn wrote even if it fails, and returns the log that
// rollback undoes it with -- as long as nothing else has written to the buffer since.
// The caller gives the log back (recycle) once done with it.
func (m *bulkManifest) run(fn func(manifestTx) error) ([]bulkUndo, error) {
	undo := m.spare[:0]
	m.spare = nil
	err := m.base.db.View(func(tx *bolt.Tx) error { return fn(bulkTx{base: newBoltTx(tx), m: m, undo: &undo}) })
	return undo, err
}

// recycle keeps undo, emptied, for the next run; what it held (the buffer's old items) is
// let go.
func (m *bulkManifest) recycle(undo []bulkUndo) {
	clear(undo)
	m.spare = undo[:0]
}

// rollback undoes the writes of run's log, newest first.
func (m *bulkManifest) rollback(undo []bulkUndo) {
	for i := len(undo) - 1; i >= 0; i-- {
		u := undo[i]
		switch {
		case u.tree != nil || u.dropped:
			m.trees[u.bucket], m.reset[u.bucket] = u.tree, u.wasReset
			if u.tree == nil {
				delete(m.trees, u.bucket)
			}
		case u.had:
			m.set(u.bucket, u.old)
		default:
			if it, ok := m.tree(u.bucket).Delete(u.old); ok {
				m.bytes -= it.cost()
			}
		}
	}
	m.bytes = 0
	for _, tr := range m.trees {
		tr.Ascend(func(it bulkItem) bool {
			m.bytes += it.cost()
			return true
		})
	}
}

// bulkUndo undoes one write of a failed update: the item a key held before (had), or its
// absence (old holds the key); or, for a bucket reset, the tree and reset flag before.
type bulkUndo struct {
	bucket   string
	old      bulkItem
	had      bool
	tree     *btree.BTreeG[bulkItem] // a reset: the bucket's tree before (nil: none)
	dropped  bool                    // a reset
	wasReset bool
}

func (m *bulkManifest) tree(bucket string) *btree.BTreeG[bulkItem] {
	t := m.trees[bucket]
	if t == nil {
		t = btree.NewG(32, bulkLess)
		m.trees[bucket] = t
	}
	return t
}

func (m *bulkManifest) set(bucket string, it bulkItem) (old bulkItem, had bool) {
	old, had = m.tree(bucket).ReplaceOrInsert(it)
	if had {
		m.bytes -= old.cost()
	}
	m.bytes += it.cost()
	return old, had
}

// bulkTx is one read or update over the buffer and a read transaction of the disk.
type bulkTx struct {
	base boltTx
	m    *bulkManifest
	undo *[]bulkUndo // an update's writes, to undo if it fails
}

// set writes it to the buffer, its key and value copied to the arena, remembering for undo
// what the key held.
func (t bulkTx) set(bucket string, it bulkItem) {
	it.key, it.val = t.m.arena.keepString(it.key), t.m.arena.keep(it.val)
	if t.undo != nil && t.m.trees[bucket] == nil {
		// The bucket's first write: undone, the bucket has no tree again.
		*t.undo = append(*t.undo, bulkUndo{bucket: bucket, dropped: true, wasReset: t.m.reset[bucket]})
	}
	old, had := t.m.set(bucket, it)
	if !had {
		old = bulkItem{key: it.key}
	}
	if t.undo != nil {
		*t.undo = append(*t.undo, bulkUndo{bucket: bucket, old: old, had: had})
	}
}

func (t bulkTx) get(bucket, key string) []byte {
	if tr := t.m.trees[bucket]; tr != nil {
		if it, ok := tr.Get(bulkItem{key: key}); ok {
			if it.del {
				return nil
			}
			return it.val
		}
	}
	if t.m.reset[bucket] || t.m.absent(bucket, key) {
		return nil
	}
	return t.base.get(bucket, key)
}

func (t bulkTx) put(bucket, key string, v []byte) error {
	// The caller may pass a slice it goes on using, or one of the disk's pages: set copies it.
	t.set(bucket, bulkItem{key: key, val: v})
	return nil
}

func (t bulkTx) del(bucket, key string) error {
	t.set(bucket, bulkItem{key: key, del: true})
	return nil
}

func (t bulkTx) keys(bucket string) []string {
	var out []string
	t.scan(bucket, "", func(k string, _ []byte) bool {
		out = append(out, k)
		return true
	})
	return out
}

func (t bulkTx) exists(bucket string) bool {
	return t.m.trees[bucket] != nil || t.m.reset[bucket] || t.base.exists(bucket)
}

func (t bulkTx) reset() error { return t.resetBuckets(manifestBucket, pendingBucket) }

func (t bulkTx) resetBuckets(names ...string) error {
	for _, name := range names {
		tr := t.m.trees[name]
		if tr != nil {
			tr.Ascend(func(it bulkItem) bool {
				t.m.bytes -= it.cost()
				return true
			})
		}
		if t.undo != nil {
			*t.undo = append(*t.undo, bulkUndo{bucket: name, tree: tr, dropped: true, wasReset: t.m.reset[name]})
		}
		t.m.trees[name] = btree.NewG(32, bulkLess)
		t.m.reset[name] = true
		if name == pendingBucket {
			// The markers keep their place in the buffer: they say what is on disk.
			for _, k := range bulkMarkers {
				t.set(pendingBucket, bulkItem{key: k, del: true})
			}
		}
	}
	return nil
}

// scan merges the buffer's keys with the disk's, the buffer's winning.
func (t bulkTx) scan(bucket, from string, fn func(k string, v []byte) bool) {
	var c *bolt.Cursor
	var dk, dv []byte
	if !t.m.reset[bucket] {
		if b, _ := t.base.bucket(bucket, false); b != nil {
			c = b.Cursor()
			dk, dv = c.Seek([]byte(from))
		}
	}
	more := true
	if tr := t.m.trees[bucket]; tr != nil {
		tr.AscendGreaterOrEqual(bulkItem{key: from}, func(it bulkItem) bool {
			for dk != nil && string(dk) < it.key {
				if !fn(string(dk), dv) {
					more = false
					return false
				}
				dk, dv = c.Next()
			}
			if dk != nil && string(dk) == it.key {
				dk, dv = c.Next()
			}
			if !it.del && !fn(it.key, it.val) {
				more = false
				return false
			}
			return true
		})
	}
	for more && dk != nil {
		if !fn(string(dk), dv) {
			return
		}
		dk, dv = c.Next()
	}
}

// bulkFillPercent is how full flush leaves the pages it splits (bbolt's default: half).
const bulkFillPercent = 0.9

// bulkChunk is how many buffered entries one flush transaction writes.
const bulkChunk = 200000

// flush writes the buffer to disk in key order, bucket by bucket, in transactions of
// bulkChunk entries, and empties it. The markers stay set on disk (and in the buffer)
// unless final, when the last transaction writes their logical state. A failure leaves the
// buffer whole: it overrides whatever part of it reached the disk.
func (m *bulkManifest) flush(final bool) error {
	names := make([]string, 0, len(m.trees))
	for name := range m.trees {
		names = append(names, name)
	}
	sort.Strings(names)
	isMarker := func(bucket, key string) bool {
		if bucket != pendingBucket {
			return false
		}
		for _, k := range bulkMarkers {
			if k == key {
				return true
			}
		}
		return false
	}
	// The filter learns the keys on a second core while bbolt writes them (a tenth of a
	// flush's time otherwise). Nothing changes the trees during a flush, and nothing reads
	// the filter until it is done; a flush that fails leaves it with keys not on disk,
	// which it may have.
	filtered := make(chan struct{})
	go func() {
		defer close(filtered)
		if m.onDisk == nil || final {
			return // the last flush's keys are never asked about: bulk mode ends with it
		}
		for _, name := range names {
			m.trees[name].Ascend(func(it bulkItem) bool {
				if !it.del && !isMarker(name, it.key) {
					m.onDisk.Add(diskKey(name, it.key))
					m.onDiskN++
				}
				return true
			})
		}
	}()
	defer func() { <-filtered }()
	for _, name := range names {
		tr := m.trees[name]
		from, first := "", true
		for {
			n := 0
			err := m.base.db.Update(func(tx *bolt.Tx) error {
				if first && m.reset[name] {
					if err := tx.DeleteBucket([]byte(name)); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
						return err
					}
				}
				b, err := tx.CreateBucketIfNotExists([]byte(name))
				if err != nil {
					return err
				}
				// Keys come in order: fill the pages they make instead of splitting them
				// in half, as the read model's rebuild does (half-full pages are more pages
				// for every range a query reads).
				b.FillPercent = bulkFillPercent
				if first && m.reset[name] && name == pendingBucket {
					for _, k := range bulkMarkers { // set on disk until the final transaction
						if err := b.Put([]byte(k), []byte{}); err != nil {
							return err
						}
					}
				}
				tr.AscendGreaterOrEqual(bulkItem{key: from}, func(it bulkItem) bool {
					if n == bulkChunk {
						from = it.key
						return false
					}
					n++
					if isMarker(name, it.key) {
						return true
					}
					err = it.writeTo(b)
					return err == nil
				})
				return err
			})
			if err != nil {
				return fmt.Errorf("bulk write of %s: %w", name, err)
			}
			first = false
			if n < bulkChunk {
				break
			}
		}
	}
	// Everything but the markers is on disk.
	<-filtered
	if m.onDisk != nil && m.onDiskN > m.onDiskCap && !final {
		// Past what the filter was sized for: list the disk into one twice as large (a
		// few seconds at millions of keys, each time the keys on disk double).
		if err := m.base.db.View(func(tx *bolt.Tx) error { m.listDisk(tx, math.MaxInt); return nil }); err != nil {
			m.onDisk = nil
		}
	}
	markers := make([]bulkItem, 0, len(bulkMarkers))
	for _, k := range bulkMarkers {
		if it, ok := m.tree(pendingBucket).Get(bulkItem{key: k}); ok {
			markers = append(markers, it)
		}
	}
	if final {
		err := m.base.db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte(pendingBucket))
			if err != nil {
				return err
			}
			for _, it := range markers {
				if err := it.writeTo(b); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("bulk write: clear the markers: %w", err)
		}
		markers = nil
	}
	m.trees, m.reset, m.bytes = map[string]*btree.BTreeG[bulkItem]{}, map[string]bool{}, 0
	m.arena = bulkArena{} // the markers set again below keep the slices they use
	m.flushes++
	bulkFlushes.Add(1)
	for _, it := range markers {
		m.set(pendingBucket, it)
	}
	return nil
}

// bulkFlushes counts the flushes of every buffer in the process (for the tests).
var bulkFlushes atomic.Int64

// BeginBulk puts the store in bulk mode (see above) until EndBulk or Close: for a command
// that writes much and exits, with nothing else using the store meanwhile. It does nothing
// on a store kept in memory, or one already in bulk mode.
func (s *Store) BeginBulk() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	base, ok := s.man.(boltManifest)
	if !ok {
		return nil
	}
	// Cayley's store again, with its filter of the quads it holds (see openKV), before
	// anything is marked. Nothing else is held by the store it replaces, which is dropped
	// without closing the file they share.
	var qs graph.QuadStore
	if s.join != nil {
		var err error
		if qs, err = openKV(s.join, true); err != nil {
			return fmt.Errorf("bulk mode: %w", err)
		}
	}
	m := newBulkManifest(base)
	err := base.db.Update(func(btx *bolt.Tx) error {
		m.listDisk(btx, bulkListMax)
		tx := newBoltTx(btx)
		for _, k := range bulkMarkers {
			it := bulkItem{key: k, del: true}
			if v := tx.get(pendingBucket, k); v != nil {
				it = bulkItem{key: k, val: bytes.Clone(v)}
			}
			m.set(pendingBucket, it)
			if err := tx.put(pendingBucket, k, []byte{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bulk mode: %w", err)
	}
	if qs != nil {
		s.qs = qs
	}
	s.man = m
	return nil
}

// EndBulk writes what bulk mode buffered and leaves it. On failure the store is left out of
// bulk mode with its markers set: its readers fall back to Cayley (rmStale) until the next
// Open rebuilds the manifest and the read model.
func (s *Store) EndBulk() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endBulk()
}

// endBulk is EndBulk with the write lock held.
func (s *Store) endBulk() error {
	m, ok := s.man.(*bulkManifest)
	if !ok {
		return nil
	}
	s.settleLocked()
	err := m.flush(true)
	s.man = m.base
	if s.join != nil {
		// The filter's memory back (see openKV).
		if qs, kerr := openKV(s.join, false); kerr == nil {
			s.qs = qs
		}
	}
	if err != nil {
		s.rmStale = true
		return fmt.Errorf("bulk mode: %w", err)
	}
	return nil
}

// bulkSpill writes the buffer out, keeping bulk mode, once it has passed its budget.
// Callers hold the write lock. A failure is only the buffer staying in memory.
func (s *Store) bulkSpill() {
	if m, ok := s.man.(*bulkManifest); ok && m.overBudget() {
		_ = m.flush(false)
	}
}

// besideRows is the read model's rows of one Apply being written to the bulk buffer while
// Cayley commits the same change.
//
// The rows of an addition are a function of its quads and of the rows already buffered or
// on disk -- never of Cayley's state (rmApply reads only the manifest's transaction) -- so
// in bulk mode they need not wait for Cayley's commit: a second core writes them meanwhile,
// and a load's wall time loses most of the read model's share (its CPU time does not). The
// change's other writes (its label records, which need the terms' ids from Cayley's commit;
// the narration rows, read from Cayley; the read model's mark cleared) follow the commit,
// as for any Apply. A change that removes quads is not written beside: whether a row goes
// can depend on what Cayley still holds.
type besideRows struct {
	m    *bulkManifest
	done chan struct{}
	undo []bulkUndo
	err  error
}

// writeBeside starts writing the rows of c's additions, if the store is in bulk mode, its
// read model is in step and c only adds. Until wait returns, nothing else may touch the
// buffer. Callers hold the write lock.
func (s *Store) writeBeside(c *manifestChange) *besideRows {
	m, ok := s.man.(*bulkManifest)
	if !ok || s.rmStale || len(c.remove) > 0 {
		return nil
	}
	b := &besideRows{m: m, done: make(chan struct{})}
	if testBeside != nil {
		defer testBeside(b)
	}
	go func() {
		defer close(b.done)
		// Without removals, rmChange reads nothing from Cayley: put is the additions the
		// read model keeps, in order.
		put, _, err := s.rmChange(context.Background(), c)
		if err != nil {
			b.err = err
			return
		}
		b.undo, b.err = m.run(func(tx manifestTx) error { return rmApplyAll(tx, put, true) })
	}()
	return b
}

// testBeside, if set, sees each besideRows once started (for tests).
var testBeside func(*besideRows)

// wait waits for the rows; if Cayley did not commit the change (committed false) or they
// failed, it undoes them. It reports whether they are written.
func (b *besideRows) wait(committed bool) bool {
	<-b.done
	defer b.m.recycle(b.undo)
	if b.err != nil || !committed {
		b.m.rollback(b.undo)
		return false
	}
	return true
}

// finishing is the step 3 of a bulk-mode Apply (finishApply) whose reading half runs while
// the next Apply commits.
//
// Once Cayley has committed an addition and its read-model rows are in the buffer
// (besideRows), what is left is the manifest's records of its quads, made from the term
// ids Cayley's transaction reported, and the rows of the narrations it may have changed,
// read from Cayley (routesChange): a twentieth of a 10,000-narration load, on its only
// critical path -- Cayley's commits, one after the other. Neither reads anything but
// Cayley's committed store (finishReads), so in bulk mode they run on a goroutine of their
// own, beside the next Apply's Cayley commit, and their writes (finishWrites: the
// manifest's entries, the narration rows, the marks cleared) follow that commit, before
// the next step 3 of either: the writes land in the order of the changes. Reads a later
// commit lets them see change nothing: a term's id stays while quads use it (an addition
// removes none), and a narration's row read after a later change is the row that change's
// own step 3 writes.
//
// Until then the change's labels are marked pending in the buffer and its narration rows
// not yet written. The writers settle it first (settleLocked): an Apply that removes
// quads, or touches a label the unfinished change touched, before anything else; EndBulk
// before its flush. So do the readers that would see the difference: NarrationQuads and
// NarrationDigests of a pending label (which would otherwise scan the store for it), the
// narration rows, CheckReadModel (settle). Every other reader reads Cayley, or read-model
// rows already written beside the commit.
type finishing struct {
	change *manifestChange
	ids    termIDs // the ids Cayley's commit of change reported, owned until settled
	done   chan struct{}
	read   finishRead
}

// touches reports whether f's change touched one of labels: their pending marks and
// entries are f's until it is settled. (Only additions are left running, so the labels
// it touched are those it adds to.)
func (f *finishing) touches(labels ...string) bool {
	for _, l := range labels {
		if _, ok := f.change.add[l]; ok {
			return true
		}
	}
	return false
}

// beside reports whether c may commit while f reads: c only adds, to labels f's change
// did not touch.
func (f *finishing) beside(c *manifestChange) bool {
	return len(c.remove) == 0 && !f.touches(c.labels...)
}

// finishBeside starts step 3 of change on a goroutine of its own, if the store is in bulk
// mode and the change is a plain addition whose rows are written (see finishing). It
// reports whether it did; if not, the caller runs finishApply. Callers hold the write lock,
// with nothing left unsettled.
func (s *Store) finishBeside(change *manifestChange, stale []string) bool {
	if _, ok := s.man.(*bulkManifest); !ok || s.join == nil || s.rmStale || len(stale) > 0 || len(change.both) > 0 || len(change.remove) > 0 {
		return false
	}
	f := &finishing{change: change, ids: s.ids, done: make(chan struct{})}
	s.ids = nil // commitCayley takes spareIDs, or a new map
	s.finishing = f
	go func() {
		defer close(f.done)
		f.read = s.finishReads(context.Background(), change, f.ids, true)
	}()
	return true
}

// settleLocked finishes the step 3 left running, if any: it waits for its reads and writes
// what they found. Callers hold the write lock.
func (s *Store) settleLocked() {
	f := s.finishing
	if f == nil {
		return
	}
	s.finishing = nil
	<-f.done
	s.finishWrites(context.Background(), f.change, nil, true, f.read)
	if s.spareIDs == nil {
		s.spareIDs = f.ids
	}
}

// settleFor settles the step 3 left running if it touched one of labels (see settle),
// for a reader of their entries and pending marks.
func (s *Store) settleFor(ctx context.Context, labels ...string) error {
	if f := s.finishing; f == nil || !f.touches(labels...) {
		return nil
	}
	return s.settle(ctx)
}

// settle is settleLocked for a reader holding the read lock: it trades it for the write
// lock and back. On success it returns with the read lock held and nothing unsettled; on
// an error, without the lock.
func (s *Store) settle(ctx context.Context) error {
	for s.finishing != nil {
		s.mu.RUnlock()
		s.mu.Lock()
		if !s.closed {
			s.settleLocked()
		}
		s.mu.Unlock()
		if err := s.rlockFor(ctx); err != nil {
			return err
		}
	}
	return nil
}
