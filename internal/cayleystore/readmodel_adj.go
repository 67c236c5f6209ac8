package cayleystore

// The adjacency in the read model: each entity's edges (plain triples between two
// entities), once in weight order and once by the other end, so that a best-first walk
// reads a hub's strongest edges first and stops, and the edges between a hub and a few
// given entities are a seek each instead of a read of the hub's whole list:
//
//	rmAdjBucket  "w\x00" owner \x00 weight other \x00 predicate \x00 dir -> 1
//	             "n\x00" owner \x00 other \x00 predicate \x00 dir -> attestations (uvarint)
//
// owner and other are entity ids (athar.ID, not IRIs: the walk breaks ties by id, and the
// keys sort the same way); dir is "o" when owner is the subject, "i" when it is the object; a
// loop is kept once, under "o". weight is four bytes, big-endian, of the bitwise complement
// of the attestations, so the most attested edges come first, then by other end, predicate
// and direction. The attestations are the labels of the claim's plain triple (what Edges
// counts): the count of the claim's group row in its subject's list, which rmPut and rmDel
// move by one; adjApply, called before them, moves the edge's rows with it, in the same
// transaction. An attestation more or less is one "w" row deleted and one put per end, and
// the "n" row's value rewritten.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"sort"

	"github.com/athar-hadith/athar/internal/athar"
)

const rmAdjBucket = "athar.rm.adj"

// adjEnd is one end's view of an edge: the rows owner keeps for it.
type adjEnd struct {
	owner, other athar.ID
	dir          byte // 'o': owner is the subject; 'i': the object
}

func adjEnds(r athar.ClaimRef) []adjEnd {
	ends := []adjEnd{{r.Subject, r.Object, 'o'}}
	if r.Object != r.Subject {
		ends = append(ends, adjEnd{r.Object, r.Subject, 'i'})
	}
	return ends
}

// adjTail is what follows the owner's prefix in both kinds of row: other \x00 predicate
// \x00 dir.
func adjTail(e adjEnd, predicate string) string {
	return string(e.other) + "\x00" + predicate + "\x00" + string(e.dir)
}

func adjWeight(n int) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], ^uint32(n))
	return string(b[:])
}

func adjWeightPrefix(owner athar.ID) string { return "w\x00" + string(owner) + "\x00" }
func adjOtherPrefix(owner athar.ID) string  { return "n\x00" + string(owner) + "\x00" }

// adjApply moves the adjacency rows of r by the attestation its about row adds (add) or
// takes away. It must run before rmPut or rmDel of r: it reads whether the label is new to
// the claim, and the claim's count, as they stand.
func adjApply(tx manifestTx, r rmRow, add bool) error {
	if r.ref.Value != nil || r.ref.Object == "" {
		return nil
	}
	t := rmTarget{bucket: rmAboutBucket, owner: r.ref.Subject.IRI()}
	if present := tx.get(rmAboutBucket, rowKey(t, r.key, r.label)) != nil; present == add {
		return nil // the label is already there, or already gone: the count does not move
	}
	from, _ := groupCount(tx.get(rmAboutBucket, rowKey(t, r.key, "")))
	to := from - 1
	if add {
		to = from + 1
	}
	for _, e := range adjEnds(r.ref) {
		tail := adjTail(e, r.ref.Predicate)
		if from > 0 {
			if err := tx.del(rmAdjBucket, adjWeightPrefix(e.owner)+adjWeight(from)+tail); err != nil {
				return err
			}
		}
		var err error
		if to > 0 {
			if err = tx.put(rmAdjBucket, adjWeightPrefix(e.owner)+adjWeight(to)+tail, []byte{1}); err == nil {
				err = tx.put(rmAdjBucket, adjOtherPrefix(e.owner)+tail, binary.AppendUvarint(nil, uint64(to)))
			}
		} else {
			err = tx.del(rmAdjBucket, adjOtherPrefix(e.owner)+tail)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// adjEdge makes the edge of owner's row tail (other \x00 predicate \x00 dir); preds
// interns the predicates, so that a row costs one allocation (the other end's id).
func adjEdge(owner athar.ID, tail []byte, n int, preds map[string]string) (athar.Edge, error) {
	i := bytes.IndexByte(tail, 0)
	j := bytes.LastIndexByte(tail, 0)
	if i < 0 || j != len(tail)-2 || j <= i {
		return athar.Edge{}, errCorruptRow
	}
	pred, ok := preds[string(tail[i+1:j])]
	if !ok {
		pred = string(tail[i+1 : j])
		preds[pred] = pred
	}
	e := athar.Edge{Source: owner, Target: athar.ID(tail[:i]), Predicate: pred, Attestations: n}
	if tail[j+1] == 'i' {
		e.Source, e.Target = e.Target, e.Source
	}
	return e, nil
}

// adjScan calls fn with the rows of the adjacency from the key from on, in order, while fn
// returns true; k and v are valid during the call only. On bbolt it walks a cursor without
// copying the keys it passes over.
func adjScan(tx manifestTx, from []byte, fn func(k, v []byte) bool) {
	if bt, ok := tx.(boltTx); ok {
		b, _ := bt.bucket(rmAdjBucket, false)
		if b == nil {
			return
		}
		c := b.Cursor()
		for k, v := c.Seek(from); k != nil && fn(k, v); k, v = c.Next() {
		}
		return
	}
	tx.scan(rmAdjBucket, string(from), func(k string, v []byte) bool { return fn([]byte(k), v) })
}

// WeightedEdges implements athar.Store: one seek into the entity's edges in weight order,
// and the n rows after it.
func (s *Store) WeightedEdges(ctx context.Context, id athar.ID, after string, n int) ([]athar.Edge, string, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, "", err
	}
	defer s.mu.RUnlock()
	if n <= 0 {
		return nil, after, nil
	}
	if s.rmStale {
		return s.weightedEdgesByScan(ctx, id, after, n)
	}
	var (
		out  []athar.Edge
		last string
		err  error
	)
	prefix := []byte(adjWeightPrefix(id))
	from := prefix
	if after != "" {
		from = []byte(string(prefix) + after + "\x00") // the first key after prefix+after
	}
	preds := map[string]string{}
	verr := s.man.view(func(tx manifestTx) error {
		adjScan(tx, from, func(k, _ []byte) bool {
			if !bytes.HasPrefix(k, prefix) {
				return false
			}
			rest := k[len(prefix):]
			if len(rest) < 4 {
				err = errCorruptRow
				return false
			}
			var e athar.Edge
			if e, err = adjEdge(id, rest[4:], int(^binary.BigEndian.Uint32(rest[:4])), preds); err != nil {
				return false
			}
			out = append(out, e)
			if len(out) == n {
				last = string(rest)
				return false
			}
			return true
		})
		return err
	})
	if verr != nil {
		return nil, "", fmt.Errorf("weighted edges of %s: %w", id, verr)
	}
	return out, last, nil
}

// weightedEdgesByScan is WeightedEdges from Cayley's indexes: every edge of id, sorted.
// Callers hold the read lock.
func (s *Store) weightedEdgesByScan(ctx context.Context, id athar.ID, after string, n int) ([]athar.Edge, string, error) {
	m, err := s.edgesByScan(ctx, []athar.ID{id})
	if err != nil {
		return nil, "", fmt.Errorf("weighted edges of %s: %w", id, err)
	}
	type row struct {
		key string
		e   athar.Edge
	}
	var rows []row
	for _, e := range m[id] {
		end := adjEnd{id, e.Target, 'o'}
		if e.Source != id {
			end = adjEnd{id, e.Source, 'i'}
		}
		rows = append(rows, row{adjWeight(e.Attestations) + adjTail(end, e.Predicate), e})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].key < rows[j].key })
	i := sort.Search(len(rows), func(i int) bool { return rows[i].key > after })
	var out []athar.Edge
	last := ""
	for ; i < len(rows) && len(out) < n; i++ {
		out = append(out, rows[i].e)
		if len(out) == n {
			last = rows[i].key
		}
	}
	return out, last, nil
}

// EdgesBetween implements athar.Store, in one read transaction. It reads each entity's
// edges by other end either whole or by one seek per other entity, whichever reads less:
// the entity's count of claims bounds its edges.
func (s *Store) EdgesBetween(ctx context.Context, ids, others []athar.ID) ([]athar.Edge, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	if len(ids) == 0 || len(others) == 0 {
		return nil, nil
	}
	fail := func(err error) ([]athar.Edge, error) {
		return nil, fmt.Errorf("edges between %d and %d entities: %w", len(ids), len(others), err)
	}
	ids = uniqueIDs(append([]athar.ID(nil), ids...)) // in key order, once each
	in := make(map[athar.ID]bool, len(ids))
	for _, id := range ids {
		in[id] = true
	}
	want := make(map[athar.ID]bool, len(others))
	for _, o := range others {
		want[o] = true
	}
	var out []athar.Edge
	// wanted reports whether to keep the edge of id to o: an edge with both ends in both
	// lists is found from each end, and kept from the smaller.
	wanted := func(id, o athar.ID) bool { return want[o] && !(in[o] && want[id] && o < id) }
	if s.rmStale {
		m, err := s.edgesByScan(ctx, ids)
		if err != nil {
			return fail(err)
		}
		for _, id := range ids {
			for _, e := range m[id] {
				if o, _ := otherEnd(e, id); wanted(id, o) {
					out = append(out, e)
				}
			}
		}
		return out, nil
	}
	var sorted []athar.ID // others, sorted, for the seeks
	// The rows of an entity to a smaller one of ids are not kept (see wanted): a scan
	// starts at the entity itself, or at the smallest of others outside ids.
	var outside athar.ID
	for o := range want {
		if !in[o] && (outside == "" || o < outside) {
			outside = o
		}
	}
	var err error
	preds := map[string]string{}
	// read adds the wanted rows of id from the key from on, while their other end is one
	// (only, when given).
	read := func(tx manifestTx, id athar.ID, prefix, from []byte, only athar.ID) {
		adjScan(tx, from, func(k, v []byte) bool {
			if !bytes.HasPrefix(k, prefix) {
				return false
			}
			tail := k[len(prefix):]
			i := bytes.IndexByte(tail, 0)
			if i < 0 {
				err = errCorruptRow
				return false
			}
			o := tail[:i]
			if only != "" && string(o) != string(only) {
				return false
			}
			if !wanted(id, athar.ID(o)) { // no copy: the map lookups take o as it is
				return true
			}
			n, l := binary.Uvarint(v)
			if l <= 0 {
				err = errCorruptRow
				return false
			}
			var e athar.Edge
			if e, err = adjEdge(id, tail, int(n), preds); err != nil {
				return false
			}
			out = append(out, e)
			return true
		})
	}
	verr := s.man.view(func(tx manifestTx) error {
		for i, id := range ids {
			if i%64 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			prefix := []byte(adjOtherPrefix(id))
			claims, _ := binary.Uvarint(tx.get(rmAboutBucket, listCountKey(id.IRI(), "")))
			if claims <= uint64(8*len(want)) {
				from := id
				if !want[id] {
					from = ""
				} else if outside != "" && outside < id {
					from = outside
				}
				if read(tx, id, prefix, append(prefix[:len(prefix):len(prefix)], from...), ""); err != nil {
					return err
				}
				continue
			}
			if sorted == nil {
				sorted = make([]athar.ID, 0, len(want))
				for o := range want {
					sorted = append(sorted, o)
				}
				sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
			}
			for _, o := range sorted {
				if wanted(id, o) {
					if read(tx, id, prefix, append(append(prefix[:len(prefix):len(prefix)], o...), 0), o); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if verr != nil {
		return fail(verr)
	}
	return out, nil
}

// otherEnd returns the end of e that is not id (id itself for a loop).
func otherEnd(e athar.Edge, id athar.ID) (athar.ID, bool) {
	switch id {
	case e.Source:
		return e.Target, true
	case e.Target:
		return e.Source, true
	}
	return "", false
}
