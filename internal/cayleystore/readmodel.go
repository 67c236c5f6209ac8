package cayleystore

// The read model: the claims about each entity and of each predicate, kept sorted beside
// Cayley with their counts, so that a page of a hub's claims, its count, its edges and the
// claims of a predicate are read without resolving every quad that touches it.
//
// A row is one plain triple (subject, vocabulary predicate, object) under one label -- one
// quad of Cayley's -- stored under the claim's sort key (athar.ClaimRef.SortKey), so the
// rows of one entity or predicate come back in page order and a page is one cursor seek.
// Each list keeps its counts at its head and each claim's count of labels in a row just
// before its labels, so that a write touching a list dirties the pages its rows are on and
// few others:
//
//	rmAboutBucket  entity IRI \x00 \x00                     -> how many distinct claims (uvarint)
//	               entity IRI \x00 \x00 predicate           -> how many of that predicate
//	               entity IRI \x00 \x00 \x01 [predicate]    -> the same, of the claims with the
//	                                                        entity as subject
//	               entity IRI \x00 sort key \x00            -> the claim's labels in the list
//	                                                        (uvarint), then its reference
//	               entity IRI \x00 sort key \x00 label      -> 1
//	rmPredBucket   predicate \x00 \x00, predicate \x00 sort key \x00 [label]: the same
//
// (Before rmLayoutBucket, the counts were keys of a bucket of their own, athar.rm.count, and
// every label's row held the reference; each count a delete moved was on a page of that
// bucket's: at 20,000 narrations a delete wrote 914 pages, 789 with the counts beside the
// rows, docs/BENCHMARKS-100k.md.)
//
// It is derived, never a second source of truth, and kept in step with Cayley by the
// manifest's protocol (manifest.go): Apply marks rmPendingKey with the labels in step 1,
// and writes the rows of the deltas and clears the mark in step 3, in the manifest's
// transaction. A crash between the two (or a failed step 3) leaves the mark; Open then
// rebuilds the whole read model from one scan of Cayley, and meanwhile (rmStale) reads
// fall back to Cayley's indexes. A missing read model (a store made before it) is built the
// same way.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	bolt "go.etcd.io/bbolt"

	"github.com/athar-hadith/athar/internal/athar"
)

const (
	rmAboutBucket = "athar.rm.about"
	rmPredBucket  = "athar.rm.pred"
	// rmLayoutBucket is empty: its name says the read model's layout -- the lists keep their
	// counts beside their rows, and an entity's list counts its claims as subject too. A
	// store without it has its read model rebuilt at Open: one made with athar.rm.count
	// (counts in a bucket of their own), or with athar.rm.layout2 (no subject counts).
	rmLayoutBucket = "athar.rm.layout3"
	// rmPendingKey, in pendingBucket, means the read model may disagree with Cayley. No
	// label starts with byte 1.
	rmPendingKey = "\x01readmodel"
)

var rmBuckets = []string{rmAboutBucket, rmPredBucket, rmLayoutBucket, rmEntityBucket, rmClaimBucket, rmAdjBucket, rmGradingBucket, rmTypesBucket, rmNarrationBucket, rmMentionBucket}

// rmRetiredBuckets are buckets of earlier layouts of the read model, dropped by a rebuild.
var rmRetiredBuckets = []string{"athar.rm.count", "athar.rm.claim", "athar.rm.claim2", "athar.rm.claim3", "athar.rm.layout2"}

// rmRow is one plain triple under one label.
type rmRow struct {
	ref   athar.ClaimRef // without Narrations
	key   string         // ref.SortKey()
	label string
}

// rowOf returns the row of a quad, if it is a plain triple between an entity and another
// entity or a value: what Edges and ClaimsAbout read.
func rowOf(q quad.Quad) (rmRow, bool) {
	p := iriOf(q.Predicate)
	if !athar.IsRelation(p) { // before reading the object: most quads are not
		return rmRow{}, false
	}
	ref, ok := athar.TripleRef(athar.Quad{Subject: iriOf(q.Subject), Predicate: p, Object: fromValue(q.Object)})
	if !ok {
		return rmRow{}, false
	}
	return rmRow{ref: ref, key: ref.SortKey(), label: iriOf(q.Label)}, true
}

// rmTarget is one list a row belongs to, and the keys of that list's counts (in its
// bucket) the claim counts in.
type rmTarget struct {
	bucket, owner string
	counts        []string
}

func (r rmRow) targets() []rmTarget {
	p := r.ref.Predicate
	s := r.ref.Subject.IRI()
	t := []rmTarget{{rmAboutBucket, s, []string{listCountKey(s, ""), listCountKey(s, p), subjectCountKey(s, ""), subjectCountKey(s, p)}}}
	if r.ref.Object != "" && r.ref.Object != r.ref.Subject {
		o := r.ref.Object.IRI()
		t = append(t, rmTarget{rmAboutBucket, o, []string{listCountKey(o, ""), listCountKey(o, p)}})
	}
	return append(t, rmTarget{rmPredBucket, p, []string{listCountKey(p, "")}})
}

// listCountKey is the key of the count of owner's list (predicate ""), or of its claims of
// one predicate: at the list's head, before any claim's rows (a sort key never starts
// with 0).
func listCountKey(owner, predicate string) string {
	return owner + "\x00\x00" + predicate
}

// subjectCountKey is the key of the count of the claims of entity's list with the entity
// as their subject (predicate ""), or of those of one predicate (a predicate never starts
// with 1): what PageClaims' AsSubject pages give as their total.
func subjectCountKey(entity, predicate string) string {
	return listCountKey(entity, "\x01"+predicate)
}

// rowKey is the key of a claim's row in t's list for one label, or with label "" its
// group row: the count of its labels, then its reference.
func rowKey(t rmTarget, sortKey, label string) string {
	return t.owner + "\x00" + sortKey + "\x00" + label
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func encodeRef(r athar.ClaimRef) []byte {
	b := appendStr(nil, string(r.ID))
	b = appendStr(b, string(r.Subject))
	b = appendStr(b, r.Predicate)
	b = appendStr(b, string(r.Object))
	if r.Value == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	b = appendStr(b, r.Value.Literal)
	b = appendStr(b, r.Value.Lang)
	return appendStr(b, r.Value.Datatype)
}

var errCorruptRow = errors.New("corrupt read model row")

func decodeRef(b []byte) (athar.ClaimRef, error) {
	str := func() string {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			b = nil
			return ""
		}
		s := string(b[k : k+int(l)])
		b = b[k+int(l):]
		return s
	}
	var r athar.ClaimRef
	r.ID, r.Subject, r.Predicate, r.Object = athar.ID(str()), athar.ID(str()), str(), athar.ID(str())
	if len(b) == 0 {
		return r, errCorruptRow
	}
	if b[0] == 1 {
		b = b[1:]
		r.Value = &athar.Term{Literal: str(), Lang: str(), Datatype: str()}
		if b == nil {
			return r, errCorruptRow
		}
	}
	return r, nil
}

func addCounts(tx manifestTx, bucket string, keys []string, d int) error {
	for _, k := range keys {
		n, _ := binary.Uvarint(tx.get(bucket, k))
		m := int64(n) + int64(d)
		var err error
		if m <= 0 {
			err = tx.del(bucket, k)
		} else {
			err = tx.put(bucket, k, binary.AppendUvarint(nil, uint64(m)))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// labelRow is the value of a label's row: the key says everything.
var labelRow = []byte{1}

// groupCount returns the count of labels a group row holds, and where its reference starts.
func groupCount(v []byte) (int, int) {
	n, k := binary.Uvarint(v)
	if k <= 0 {
		return 0, 0
	}
	return int(n), k
}

// rmPut stores a row in each of its lists; a claim new to a list adds one to its counts.
func rmPut(tx manifestTx, r rmRow) error {
	var ref []byte
	for _, t := range r.targets() {
		k := rowKey(t, r.key, r.label)
		if tx.get(t.bucket, k) != nil {
			continue
		}
		if err := tx.put(t.bucket, k, labelRow); err != nil {
			return err
		}
		g := rowKey(t, r.key, "")
		v := tx.get(t.bucket, g)
		n, at := groupCount(v)
		if n == 0 {
			if ref == nil {
				ref = encodeRef(r.ref)
			}
			if err := tx.put(t.bucket, g, append(binary.AppendUvarint(nil, 1), ref...)); err != nil {
				return err
			}
			if err := addCounts(tx, t.bucket, t.counts, 1); err != nil {
				return err
			}
			continue
		}
		if err := tx.put(t.bucket, g, append(binary.AppendUvarint(nil, uint64(n+1)), v[at:]...)); err != nil {
			return err
		}
	}
	return nil
}

// rmDel removes a row from each of its lists; a claim gone from a list takes one from its
// counts.
func rmDel(tx manifestTx, r rmRow) error {
	for _, t := range r.targets() {
		k := rowKey(t, r.key, r.label)
		if tx.get(t.bucket, k) == nil {
			continue
		}
		if err := tx.del(t.bucket, k); err != nil {
			return err
		}
		g := rowKey(t, r.key, "")
		v := tx.get(t.bucket, g)
		n, at := groupCount(v)
		if n > 1 {
			if err := tx.put(t.bucket, g, append(binary.AppendUvarint(nil, uint64(n-1)), v[at:]...)); err != nil {
				return err
			}
			continue
		}
		if err := tx.del(t.bucket, g); err != nil {
			return err
		}
		if err := addCounts(tx, t.bucket, t.counts, -1); err != nil {
			return err
		}
	}
	return nil
}

// rmChange returns what an Apply's committed change does to the read model: the quads
// it keeps that are now present, and those now absent. Cayley's KV backend applies a
// transaction's additions before its removals; a quad both added and removed is looked up
// in the store. Callers hold the write lock, after Cayley's commit.
func (s *Store) rmChange(ctx context.Context, c *manifestChange) (put, del []quad.Quad, err error) {
	for _, l := range c.labels {
		removed := map[quad.Quad]bool{}
		for _, q := range c.remove[l] {
			removed[q] = true
		}
		for _, q := range c.add[l] {
			if !readModelKeeps(q) {
				continue
			}
			present := true
			if removed[q] {
				if present, err = s.hasQuad(ctx, q); err != nil {
					return nil, nil, err
				}
				delete(removed, q)
			}
			if present {
				put = append(put, q)
			} else {
				del = append(del, q)
			}
		}
		for _, q := range c.remove[l] {
			if removed[q] && readModelKeeps(q) { // not added too: decided above
				del = append(del, q)
			}
		}
	}
	return put, del, nil
}

// readModelKeeps reports whether the read model keeps a row for q.
func readModelKeeps(q quad.Quad) bool {
	if _, ok := rowOf(q); ok {
		return true
	}
	if _, ok := entRowOf(q); ok {
		return true
	}
	if _, ok := claimRowOf(q); ok {
		return true
	}
	return gradingKeeps(q)
}

// rmApply stores (add) or removes the rows of q.
func rmApply(tx manifestTx, q quad.Quad, add bool) error {
	return rmApplyAll(tx, []quad.Quad{q}, add)
}

// rmApplyAll stores (add) or removes the rows of qs, as rmApply of each in turn would: the
// claim records' rows, one a node (readmodel_claim.go), are read and written once each
// for the whole batch, after the batch's other rows (no other row depends on them).
func rmApplyAll(tx manifestTx, qs []quad.Quad, add bool) error {
	var claims claimBatch
	for _, q := range qs {
		if err := rmApplyTo(tx, q, add, &claims); err != nil {
			return err
		}
	}
	return claims.write(tx, add)
}

// rmApplyTo stores (add) or removes the rows of q, except its claim record's field, which
// it adds to claims.
func rmApplyTo(tx manifestTx, q quad.Quad, add bool, claims *claimBatch) error {
	if gradingKeeps(q) {
		return gradingApply(tx, q, add)
	}
	if r, ok := rowOf(q); ok {
		for _, c := range impliedClaimRows(r, fromValue(q.Object)) {
			claims.add(c)
		}
		if err := adjApply(tx, r, add); err != nil {
			return err
		}
		if add {
			return rmPut(tx, r)
		}
		return rmDel(tx, r)
	}
	if r, ok := entRowOf(q); ok {
		if add {
			return entPut(tx, r)
		}
		return entDel(tx, r)
	}
	if r, ok := claimRowOf(q); ok {
		claims.add(r)
	}
	return nil
}

// hasQuad reports whether the store holds q. Callers hold a lock.
func (s *Store) hasQuad(ctx context.Context, q quad.Quad) (bool, error) {
	qs, err := s.withPredicate(ctx, quad.Subject, q.Subject, iriOf(q.Predicate))
	if err != nil {
		return false, err
	}
	for _, x := range qs {
		if x == q {
			return true, nil
		}
	}
	return false, nil
}

// openReadModel builds the read model whole when it is missing, or a bucket of it is (a
// store made before that bucket existed), or it may disagree with Cayley (rmPendingKey
// marked by an Apply a crash cut short, or a rebuild cut short).
//
// A mark that holds the redo of a change (redo.go) is finished instead: the change's rows
// and entries written as its Apply would have, without a scan.
func (s *Store) openReadModel(ctx context.Context) error {
	var rebuild, replayable bool
	var redo []byte
	err := s.man.view(func(tx manifestTx) error {
		if v := tx.get(pendingBucket, rmPendingKey); v != nil {
			rebuild, redo = true, bytes.Clone(v)
		}
		// Only a change's redo over a read model and manifest otherwise whole can finish it.
		replayable = len(redo) > 0 && tx.exists(manifestBucket) && tx.get(pendingBucket, rebuildAllKey) == nil
		for _, b := range rmBuckets {
			if !tx.exists(b) {
				rebuild, replayable = true, false
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read model: %w", err)
	}
	if !rebuild {
		return nil
	}
	if replayable {
		if err := s.replayRedo(ctx, redo); err == nil {
			return nil
		} else if s.logger != nil {
			s.logger.Warn("the write a crash cut short cannot be finished from its redo: rebuilding the read model from the store", "err", err)
		}
	}
	return s.rebuildReadModel(ctx)
}

// replayRedo finishes the change whose redo the read model's mark holds: step 3 of its
// Apply (finishApply), which writes its labels' entries and the read model's rows and
// clears the marks. If that fails, the read model is left stale for a rebuild.
func (s *Store) replayRedo(ctx context.Context, redo []byte) error {
	change, stale, err := decodeRedo(redo)
	if err != nil {
		return err
	}
	s.finishApply(ctx, change, stale, false)
	if s.rmStale {
		return errors.New("the change's rows could not be written")
	}
	s.replayed++
	if s.logger != nil {
		s.logger.Info("finished the write a crash cut short, from its redo", "narrations", len(change.labels))
	}
	return nil
}

// rebuildReadModel builds the read model from one scan of the store, under rmPendingKey so
// that a rebuild cut short starts again at the next Open. On bbolt its rows and counts go
// through bulk mode's buffer (bulk.go), which writes them in key order whenever it passes
// its budget: the rebuild's memory is the budget and the scan's quad ids, whatever the
// store's size. (Built whole in memory and written once, the read model took some 15 GB
// at 100,000 narrations.)
func (s *Store) rebuildReadModel(ctx context.Context) error {
	err := s.man.update(func(tx manifestTx) error {
		if bt, ok := tx.(boltTx); ok { // only a store on disk can be of an earlier layout
			for _, b := range rmRetiredBuckets {
				if err := bt.tx.DeleteBucket([]byte(b)); err != nil && !errors.Is(err, bolt.ErrBucketNotFound) {
					return err
				}
			}
		}
		if err := tx.resetBuckets(rmBuckets...); err != nil {
			return err
		}
		return tx.put(pendingBucket, rmPendingKey, []byte{})
	})
	if err != nil {
		return fmt.Errorf("read model: rebuild: %w", err)
	}
	man := s.man // in memory (memstore): written directly
	var buf *bulkManifest
	if base, ok := s.man.(boltManifest); ok {
		buf = newBulkManifest(base)
		err = base.db.View(func(tx *bolt.Tx) error { buf.listDisk(tx, bulkListMax); return nil })
		man = buf
	}
	if err == nil {
		var spill func() error
		if buf != nil {
			spill = func() error {
				if buf.overBudget() {
					return buf.flush(false)
				}
				return nil
			}
		}
		err = s.buildInto(ctx, man, spill)
	}
	if err == nil && buf != nil {
		err = buf.flush(true)
	}
	if err == nil {
		err = s.man.update(func(tx manifestTx) error { return tx.del(pendingBucket, rmPendingKey) })
	}
	if err != nil {
		return fmt.Errorf("read model: rebuild: %w", err)
	}
	s.rmStale = false
	return nil
}

// CheckReadModel rebuilds the read model in memory from one scan of the store and compares
// it, row by row and count by count, with the one the store keeps: nil when they agree, else
// an error naming the first rows that differ. It is the read model's fsck: the crash tests
// run it after a kill -9, and an operator may run it on a copy of a store.
func (s *Store) CheckReadModel(ctx context.Context) error {
	if err := s.rlockFor(ctx); err != nil {
		return err
	}
	if err := s.settle(ctx); err != nil {
		return err
	}
	defer s.mu.RUnlock()
	want, err := s.buildReadModel(ctx)
	if err != nil {
		return fmt.Errorf("read model: check: %w", err)
	}
	var diffs []string
	err = s.man.view(func(tx manifestTx) error {
		if tx.get(pendingBucket, rmPendingKey) != nil {
			diffs = append(diffs, "a rebuild is pending")
		}
		for _, b := range rmBuckets {
			got := map[string]bool{}
			tx.scan(b, "", func(k string, v []byte) bool {
				got[k] = true
				if w := want.get(b, k); w == nil {
					diffs = append(diffs, fmt.Sprintf("%s %q: kept, but the store does not give it", b, k))
				} else if string(w) != string(v) {
					diffs = append(diffs, fmt.Sprintf("%s %q: %q, the store gives %q", b, k, v, w))
				}
				return len(diffs) < 10
			})
			for _, k := range want.keys(b) {
				if !got[k] && len(diffs) < 10 {
					diffs = append(diffs, fmt.Sprintf("%s %q: missing", b, k))
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("read model: check: %w", err)
	}
	if len(diffs) > 0 {
		return fmt.Errorf("read model: disagrees with the store: %s", strings.Join(diffs, "; "))
	}
	return nil
}

// buildReadModel builds the whole read model in memory from one scan of the store: what a
// check compares with the read model kept.
func (s *Store) buildReadModel(ctx context.Context) (*memManifest, error) {
	mem := newMemManifest()
	return mem, s.buildInto(ctx, mem, nil)
}

// buildInto writes the read model's rows of every quad the store holds into man, from one
// scan: the quads as the scan resolves them, scanBatch at a time, one transaction of man
// each, then spill (when given: a rebuild writing its buffer out past its budget); then
// the narrations' rows.
func (s *Store) buildInto(ctx context.Context, man manifestKV, spill func() error) error {
	var narrations []athar.ID
	var batch []quad.Quad
	apply := func() error {
		err := man.update(func(tx manifestTx) error {
			counts := mentionCounts{}
			for _, q := range batch {
				counts.count(q, 1)
			}
			if err := counts.write(tx); err != nil {
				return err
			}
			return rmApplyAll(tx, batch, true)
		})
		batch = batch[:0]
		if err == nil && spill != nil {
			err = spill()
		}
		return err
	}
	err := s.scanReadModel(ctx, func(q quad.Quad) error {
		if id, ok := narrationTyped(q); ok {
			narrations = append(narrations, id)
		}
		if batch = append(batch, q); len(batch) == scanBatch {
			return apply()
		}
		return nil
	})
	if err == nil {
		err = apply()
	}
	if err == nil {
		err = man.update(func(tx manifestTx) error { return s.routesRebuild(ctx, narrations, tx) })
	}
	return err
}

// scanReadModel reads every quad of the store once and calls fn with those the read model
// keeps rows for (plain triples, entity records, mentions), in no particular order. On the KV
// backends it resolves the terms of those quads only, scanBatch at a time, after the scan:
// fn may then write to bbolt, which it must not do while the scan's read transaction is
// open (a commit that grows the file waits for every reader to finish). It counts as one
// full scan. Callers hold a lock (or own the store).
func (s *Store) scanReadModel(ctx context.Context, fn func(quad.Quad) error) error {
	s.fullScans.Add(1)
	ctx = athar.WholeScan(ctx) // every quad: none of their values belongs in the node cache
	add := func(q quad.Quad) error {
		if labelOf(q) == "" {
			return nil
		}
		if _, n, _ := mentioned(q); n > 0 || readModelKeeps(q) {
			return fn(q)
		}
		return nil
	}
	kqs, ok := s.qs.(*kv.QuadStore)
	if !ok {
		return each(ctx, s.qs.QuadsAllIterator(), func(r graph.Ref) error {
			q, err := s.qs.Quad(r)
			if err == nil {
				err = add(q)
			}
			return err
		})
	}
	kept := map[uint64]bool{} // predicate node id -> a predicate the read model keeps
	// The quads kept, as their four node ids: 32 bytes a quad, where Cayley's primitives
	// took some 100 (1.4 GB at 100,000 narrations).
	var ids []uint64
	err := each(ctx, kqs.QuadsAllIterator(), func(r graph.Ref) error {
		p, ok := r.(*proto.Primitive)
		if !ok {
			return fmt.Errorf("unexpected KV quad ref %T", r)
		}
		keep, known := kept[p.Predicate]
		if !known {
			vals, err := s.values(ctx, kqs, []uint64{p.Predicate})
			if err != nil {
				return err
			}
			pi := iriOf(vals[0])
			// Any quad but an offset may touch an entity (readmodel_mention.go).
			keep = !mentionSkips[pi] || athar.IsRelation(pi) || entityKind[pi] != "" || claimFieldPreds[pi] || gradingPredicate(pi)
			kept[p.Predicate] = keep
		}
		if keep {
			ids = append(ids, p.Subject, p.Predicate, p.Object, p.Label)
		}
		return nil
	})
	for len(ids) > 0 && err == nil {
		n := min(len(ids), 4*scanBatch)
		var qs []quad.Quad
		if qs, err = s.resolveQuadIDs(ctx, kqs, ids[:n]); err == nil {
			for _, q := range qs {
				if err = add(q); err != nil {
					break
				}
			}
		}
		ids = ids[n:]
	}
	return err
}

// scanBatch is how many quads scanReadModel resolves, and a rebuild applies, at a time. A
// variable for the tests.
var scanBatch = 100000

// rmList calls fn with the claims of one list (an entity's or a predicate's) in order,
// from the first after the sort key after ("" from the start), each with the labels of
// its plain triple and their count, while fn returns true. keep, when given, filters the
// claims. Without labels, fn gets their count alone (the claim's group row holds it), and
// the rows that give them -- one per label, tens of thousands for a hub's claims -- are
// jumped over rather than read: a claim is its group row.
//
// within, when not empty, is a prefix of sort keys: only the claims whose key has it are
// read (the list is sorted by key, so they are one range).
func rmList(ctx context.Context, tx manifestTx, bucket, owner, within, after string, labels bool, keep func(*athar.ClaimRef) bool, fn func(r athar.ClaimRef, labels []string, count int) bool) error {
	prefix := owner + "\x00"
	from := prefix + within
	if within == "" {
		from = prefix + "\x01" // past the list's counts
	}
	if after != "" && prefix+after+"\x00\xff" > from {
		from = prefix + after + "\x00\xff"
	}
	// A row's key is the list's prefix, the claim's sort key, 0, and the label ("" for
	// the claim's group row). Keys are read as bytes and made strings only where kept:
	// a label when labels are asked for, the sort key once per claim.
	cut := len(prefix)
	rows := []byte(prefix + within)
	var (
		cur     athar.ClaimRef
		curKey  string
		ls      []string
		count   int
		same    int // label rows of curKey read
		have    bool
		err     error
		stopped bool
		n       int
	)
	emit := func() bool {
		if !have || (keep != nil && !keep(&cur)) {
			return true
		}
		return fn(cur, ls, count)
	}
	skim(tx, bucket, from, func(k, v []byte) (string, bool) {
		if !bytes.HasPrefix(k, rows) {
			return "", false
		}
		if n++; n%1024 == 0 {
			if err = ctx.Err(); err != nil {
				return "", false
			}
		}
		rest := k[cut:]
		i := bytes.LastIndexByte(rest, 0)
		if i < 0 {
			err = errCorruptRow
			return "", false
		}
		key, label := rest[:i], rest[i+1:]
		if len(label) > 0 {
			if !have || string(key) != curKey {
				err = errCorruptRow // a label's row without its claim's group row
				return "", false
			}
			if labels {
				ls = append(ls, string(label))
			} else if same++; same == skimAfter {
				// A claim stated by many narrations: seek past its labels (a label never
				// starts with 0xff) instead of stepping through them.
				return owner + "\x00" + curKey + "\x00\xff", true
			}
			return "", true
		}
		if !emit() {
			stopped = true
			return "", false
		}
		c, at := groupCount(v)
		if at == 0 {
			err = errCorruptRow
			return "", false
		}
		if cur, err = decodeRef(v[at:]); err != nil {
			return "", false
		}
		curKey, have, ls, count, same = string(key), true, nil, c, 0
		return "", true
	})
	if err != nil || stopped {
		return err
	}
	emit()
	return nil
}

// skimAfter is how many label rows of one claim rmList steps through, without its labels,
// before it seeks past the rest: a step costs a few nanoseconds, a seek a descent of the
// B-tree.
const skimAfter = 8

// skim is tx.scan where fn may jump ahead: it returns the key to go on from ("" for the
// next one) and whether to go on. k and v are valid during the call only: on bbolt they
// are the file's own bytes, no key copied (a hub's list is tens of thousands of rows).
func skim(tx manifestTx, bucket, from string, fn func(k, v []byte) (string, bool)) {
	if bt, ok := tx.(boltTx); ok {
		b, _ := bt.bucket(bucket, false)
		if b == nil {
			return
		}
		c := b.Cursor()
		for k, v := c.Seek([]byte(from)); k != nil; {
			skip, ok := fn(k, v)
			switch {
			case !ok:
				return
			case skip != "":
				k, v = c.Seek([]byte(skip))
			default:
				k, v = c.Next()
			}
		}
		return
	}
	for {
		next := ""
		tx.scan(bucket, from, func(k string, v []byte) bool {
			skip, ok := fn([]byte(k), v)
			if !ok {
				return false
			}
			if skip != "" {
				next = skip
				return false
			}
			return true
		})
		if next == "" {
			return
		}
		from = next
	}
}

// withNarrations sets the claim's narrations from the labels of its plain triple.
func withNarrations(r athar.ClaimRef, labels []string) athar.ClaimRef {
	r.Narrations = nil
	for _, l := range labels {
		if n, ok := narrationLabel(l); ok {
			r.Narrations = append(r.Narrations, n)
		}
	}
	r.Narrations = uniqueIDs(r.Narrations)
	return r
}

// rmClaimsAbout reads the claims about id from the read model. Callers hold the read lock.
func (s *Store) rmClaimsAbout(ctx context.Context, tx manifestTx, id athar.ID) ([]athar.ClaimRef, error) {
	list := []athar.ClaimRef{}
	err := rmList(ctx, tx, rmAboutBucket, id.IRI(), "", "", true, nil, func(r athar.ClaimRef, labels []string, _ int) bool {
		list = append(list, withNarrations(r, labels))
		return true
	})
	return list, err
}

// rmEdges reads the edges touching id from the read model. Callers hold the read lock.
func (s *Store) rmEdges(ctx context.Context, tx manifestTx, id athar.ID) ([]athar.Edge, error) {
	var edges []athar.Edge
	err := rmList(ctx, tx, rmAboutBucket, id.IRI(), "", "", false, nil, func(r athar.ClaimRef, _ []string, count int) bool {
		if r.Value == nil && r.Object != "" {
			edges = append(edges, athar.Edge{Source: r.Subject, Target: r.Object, Predicate: r.Predicate, Attestations: count})
		}
		return true
	})
	sortEdges(edges)
	return edges, err
}

func sortEdges(edges []athar.Edge) {
	sort.Slice(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		if a.Predicate != b.Predicate {
			return a.Predicate < b.Predicate
		}
		return a.Target < b.Target
	})
}

// PageClaims implements athar.Store: one seek into a sorted list of the read model, the
// page's rows, and one count. While the read model is stale (rmStale) it reads Cayley's
// indexes instead, and pages the whole list in memory.
func (s *Store) PageClaims(ctx context.Context, q athar.ClaimPageQuery) (athar.ClaimPage, error) {
	if q.Entity == "" && q.Predicate == "" {
		return athar.ClaimPage{}, athar.E("page claims", athar.Invalid, "give an entity or a predicate")
	}
	if err := s.rlockFor(ctx); err != nil {
		return athar.ClaimPage{}, err
	}
	defer s.mu.RUnlock()
	var keep func(*athar.ClaimRef) bool
	if q.Entity != "" && (q.Predicate != "" || q.AsSubject) {
		keep = func(r *athar.ClaimRef) bool {
			return (q.Predicate == "" || r.Predicate == q.Predicate) && (!q.AsSubject || r.Subject == q.Entity)
		}
	}
	if s.rmStale {
		return s.pageClaimsByScan(ctx, q, keep)
	}
	bucket, owner, count := rmPredBucket, q.Predicate, listCountKey(q.Predicate, "")
	if q.Entity != "" {
		bucket, owner, count = rmAboutBucket, q.Entity.IRI(), listCountKey(q.Entity.IRI(), q.Predicate)
	}
	within := ""
	if q.AsSubject && q.Entity != "" {
		// The claims with the entity as subject lead with it, then the predicate.
		within, keep = string(q.Entity)+"\x00", nil
		count = subjectCountKey(owner, q.Predicate)
		if q.Predicate != "" {
			within += q.Predicate + "\x00"
		}
	}
	page := athar.ClaimPage{Refs: []athar.ClaimRef{}}
	err := s.man.view(func(tx manifestTx) error {
		n, _ := binary.Uvarint(tx.get(bucket, count))
		page.Total = int(n)
		return rmList(ctx, tx, bucket, owner, within, q.After, !q.SkipNarrations, keep, pageInto(&page, q))
	})
	if err != nil {
		return athar.ClaimPage{}, fmt.Errorf("page claims: %w", err)
	}
	return page, nil
}

// pageInto is rmList's fn filling page with q's page of claims.
func pageInto(page *athar.ClaimPage, q athar.ClaimPageQuery) func(athar.ClaimRef, []string, int) bool {
	return func(r athar.ClaimRef, labels []string, _ int) bool {
		if q.First >= 0 && len(page.Refs) == q.First {
			page.More = true
			return false
		}
		if !q.SkipNarrations {
			r = withNarrations(r, labels)
		}
		page.Refs = append(page.Refs, r)
		return true
	}
}

// pageClaimsByScan is PageClaims from Cayley's indexes. Callers hold the read lock.
func (s *Store) pageClaimsByScan(ctx context.Context, q athar.ClaimPageQuery, keep func(*athar.ClaimRef) bool) (athar.ClaimPage, error) {
	var list []athar.ClaimRef
	if q.Entity != "" {
		all, err := s.claimsAbout(ctx, q.Entity)
		if err != nil {
			return athar.ClaimPage{}, err
		}
		for i := range all {
			if keep == nil || keep(&all[i]) {
				list = append(list, all[i])
			}
		}
	} else {
		qs, err := s.quadsWith(ctx, quad.Predicate, quad.IRI(athar.VocabBase+q.Predicate))
		if err != nil {
			return athar.ClaimPage{}, err
		}
		by := map[string]*athar.ClaimRef{}
		labels := map[string][]string{}
		for _, x := range qs {
			r, ok := rowOf(x)
			if !ok || labelOf(x) == "" {
				continue
			}
			if by[r.key] == nil {
				ref := r.ref
				by[r.key] = &ref
			}
			labels[r.key] = append(labels[r.key], r.label)
		}
		for k, r := range by {
			list = append(list, withNarrations(*r, labels[k]))
		}
		sort.Slice(list, func(i, j int) bool { return list[i].SortKey() < list[j].SortKey() })
	}
	page := athar.ClaimPage{Refs: []athar.ClaimRef{}, Total: len(list)}
	from := 0
	if q.After != "" {
		from = sort.Search(len(list), func(i int) bool { return list[i].SortKey() > q.After })
	}
	to := len(list)
	if q.First >= 0 {
		to = min(to, from+q.First)
	}
	page.Refs = append(page.Refs, list[from:to]...)
	if q.SkipNarrations {
		for i := range page.Refs {
			page.Refs[i].Narrations = nil
		}
	}
	page.More = to < len(list)
	return page, nil
}
