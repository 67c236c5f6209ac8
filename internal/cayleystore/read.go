package cayleystore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"

	"github.com/athar-hadith/athar/internal/athar"
)

// NarrationQuads implements athar.Store. It reads the narration's manifest entry (see
// manifest.go), not the store: one lookup, whatever the size of the graph. Only a narration
// whose entry is pending (an Apply failed to update it) is found by scanning the store.
func (s *Store) NarrationQuads(ctx context.Context, narration athar.ID) ([]athar.Quad, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	label := narration.IRI()
	if err := s.settleFor(ctx, label); err != nil { // a bulk load's last entries being made
		return nil, err
	}
	defer s.mu.RUnlock()
	qs, err := s.labelQuads(ctx, label)
	if err != nil {
		return nil, fmt.Errorf("narration quads of %s: %w", narration, err)
	}
	out := make([]athar.Quad, len(qs))
	for i, q := range qs {
		out[i] = fromQuad(q)
	}
	athar.SortQuads(out)
	return out, nil
}

// labelQuads reads the quads of label from its manifest entry, or by scanning the store when
// the entry is pending. Callers hold a lock and have settled label (settleFor).
func (s *Store) labelQuads(ctx context.Context, label string) ([]quad.Quad, error) {
	var entry []byte
	var pending bool
	err := s.man.view(func(tx manifestTx) error {
		pending = tx.get(pendingBucket, label) != nil
		entry = append(entry, tx.get(manifestBucket, label)...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if pending {
		entry = entry[:0]
		err = s.scanRecords(ctx, map[string]bool{label: true}, func(_, rec string) error {
			entry = append(entry, rec...)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return s.decodeEntry(ctx, label, entry)
}

// NarrationDigests implements athar.Store: the SHA-256 of each label's manifest entry, its
// quads' records sorted (manifest.go). A record holds the node ids of its quad's terms, and a
// node keeps its id -- and its value -- for as long as a quad uses it, so a label's entry is
// the same bytes exactly while its quads stay the same, whether Apply or a rebuild wrote
// it. One bbolt read a label, where NarrationQuads also reads every term. Labels whose entry
// is pending are read by one scan of the store.
func (s *Store) NarrationDigests(ctx context.Context, labels []athar.ID) ([]string, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	iris := make([]string, len(labels))
	for i, id := range labels {
		iris[i] = id.IRI()
	}
	if err := s.settleFor(ctx, iris...); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	out := make([]string, len(labels))
	pending := map[string]bool{}
	err := s.man.view(func(tx manifestTx) error {
		for i, l := range iris {
			if tx.get(pendingBucket, l) != nil {
				pending[l] = true
			} else if e := tx.get(manifestBucket, l); len(e) > 0 {
				out[i] = entryDigest(e)
			}
		}
		return nil
	})
	if err == nil && len(pending) > 0 {
		recs := map[string][]string{}
		err = s.scanRecords(ctx, pending, func(l, rec string) error {
			recs[l] = append(recs[l], rec)
			return nil
		})
		for i, id := range labels {
			if r := recs[id.IRI()]; len(r) > 0 {
				sort.Strings(r)
				out[i] = entryDigest(joinRecords(r))
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("narration digests: %w", err)
	}
	return out, nil
}

func entryDigest(entry []byte) string {
	h := sha256.Sum256(entry)
	return hex.EncodeToString(h[:])
}

// QuadsAbout implements athar.Store.
func (s *Store) QuadsAbout(ctx context.Context, subjects []athar.ID) ([]athar.Quad, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	var out []athar.Quad
	seen := map[athar.ID]bool{}
	for _, id := range subjects {
		if seen[id] {
			continue
		}
		seen[id] = true
		qs, err := s.out(ctx, id.IRI())
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			out = append(out, fromQuad(q))
		}
	}
	athar.SortQuads(out)
	return out, nil
}

// QuadsTo implements athar.Store.
func (s *Store) QuadsTo(ctx context.Context, predicate string, object athar.Term) ([]athar.Quad, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	qs, err := s.withPredicate(ctx, quad.Object, toValue(object), predicate)
	if err != nil {
		return nil, err
	}
	out := make([]athar.Quad, 0, len(qs))
	for _, q := range qs {
		out = append(out, fromQuad(q))
	}
	athar.SortQuads(out)
	return out, athar.Stopped(ctx, "quads to "+object.Key())
}

// Quads implements athar.Store.
func (s *Store) Quads(ctx context.Context, fn func(athar.Quad) error) error {
	if err := s.rlockFor(ctx); err != nil {
		return err
	}
	s.fullScans.Add(1)
	ctx = athar.WholeScan(ctx) // every quad: none of their values belongs in the node cache
	var all []athar.Quad
	add := func(q quad.Quad) {
		if iriOf(q.Label) != pinIRI { // a pin is left by an Apply whose clean-up failed
			all = append(all, fromQuad(q))
		}
	}
	var err error
	if kqs, ok := s.qs.(*kv.QuadStore); ok {
		// Resolve the terms a chunk at a time, through the node cache.
		var chunk []*proto.Primitive
		flush := func() error {
			qs, err := s.resolveQuads(ctx, kqs, chunk)
			for _, q := range qs {
				add(q)
			}
			chunk = chunk[:0]
			return err
		}
		err = each(ctx, kqs.QuadsAllIterator(), func(r graph.Ref) error {
			p, ok := r.(*proto.Primitive)
			if !ok {
				return fmt.Errorf("unexpected KV quad ref %T", r)
			}
			if chunk = append(chunk, p); len(chunk) == 10000 {
				return flush()
			}
			return nil
		})
		if err == nil {
			err = flush()
		}
	} else {
		err = each(ctx, s.qs.QuadsAllIterator(), func(r graph.Ref) error {
			q, err := s.qs.Quad(r)
			if err == nil {
				add(q)
			}
			return err
		})
	}
	s.mu.RUnlock()
	if err != nil {
		return err
	}
	keys := make([]string, len(all))
	for i, q := range all {
		keys[i] = q.Key()
	}
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		qa, qb := all[idx[a]], all[idx[b]]
		if qa.Label != qb.Label {
			return qa.Label < qb.Label
		}
		return keys[idx[a]] < keys[idx[b]]
	})
	for _, i := range idx {
		if err := fn(all[i]); err != nil {
			return err
		}
	}
	return nil
}

// DefinedBy implements athar.Store: what gives each entity a type -- narrations (a
// corpus record as the narration it is) and reserved graphs. It reads the read model's
// entity rows (one short scan an entity, however many narrations define it: a load asks
// it of every entity each document defines or names); while the read model is stale, or
// for an id that is not an entity's, Cayley's quads (definedByFromCayley).
func (s *Store) DefinedBy(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ID, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	if s.rmStale {
		return s.definedByFromCayley(ctx, ids)
	}
	out := make(map[athar.ID][]athar.ID, len(ids))
	records := map[athar.ID][]string{}
	var rest []athar.ID
	err := s.man.view(func(tx manifestTx) error {
		for _, id := range ids {
			if _, ok := athar.TypeOfPrefix(id.Prefix()); !ok {
				rest = append(rest, id)
				continue
			}
			by, recs, err := rmDefinedBy(ctx, tx, id)
			if err != nil {
				return err
			}
			out[id] = by
			records[id] = recs
		}
		return nil
	})
	if err == nil {
		err = s.addRecordDefiners(ctx, out, records)
	}
	if err != nil || len(rest) == 0 {
		return out, err
	}
	more, err := s.definedByFromCayley(ctx, rest)
	for id, by := range more {
		out[id] = by
	}
	return out, err
}

// addRecordDefiners adds to each id's definers in out the narrations its corpus records
// are (records), then sorts them and drops the ids nothing defines.
func (s *Store) addRecordDefiners(ctx context.Context, out map[athar.ID][]athar.ID, records map[athar.ID][]string) error {
	for id, by := range out {
		of, err := s.recordNarrations(ctx, records[id])
		if err != nil {
			return err
		}
		if by = uniqueIDs(append(by, of...)); len(by) > 0 {
			out[id] = by
		} else {
			delete(out, id)
		}
	}
	return nil
}

// definer returns the id of a label that can define an entity as DefinedBy gives it: a
// narration's or a reserved graph's (a corpus record's is named by recordNarrations).
func definer(label string) (athar.ID, bool) {
	if n, ok := narrationLabel(label); ok {
		return n, true
	}
	if athar.IsReservedGraph(label) {
		return athar.ParseIRI(label)
	}
	return "", false
}

// definedByFromCayley is DefinedBy from Cayley's quads. Callers hold the read lock.
func (s *Store) definedByFromCayley(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ID, error) {
	out := make(map[athar.ID][]athar.ID, len(ids))
	records := map[athar.ID][]string{}
	for _, id := range ids {
		qs, err := s.withPredicate(ctx, quad.Subject, quad.IRI(id.IRI()), athar.RDFType)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			l := iriOf(q.Label)
			if n, ok := definer(l); ok {
				out[id] = append(out[id], n)
			} else if athar.IsCorpusLabel(l) && !slices.Contains(records[id], l) {
				records[id] = append(records[id], l)
			}
		}
		if _, ok := out[id]; !ok {
			out[id] = nil
		}
	}
	return out, s.addRecordDefiners(ctx, out, records)
}

// Entities implements athar.Store. It reads the records from the read model
// (readmodel_entity.go); while that is stale, from Cayley (entity).
func (s *Store) Entities(ctx context.Context, ids []athar.ID) ([]*athar.Entity, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	out := make([]*athar.Entity, len(ids))
	if !s.rmStale {
		err := s.man.view(func(tx manifestTx) error {
			for i, id := range ids {
				e, err := rmEntity(ctx, tx, id)
				if err != nil {
					return err
				}
				out[i] = e
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("entities: %w", err)
		}
		return out, nil
	}
	for i, id := range ids {
		e, err := s.entity(ctx, id)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

// entityPredicates are the predicates an entity record is read from: one index scan each,
// so that a much-mentioned entity's thousands of other quads are never read.
var entityPredicates = []string{athar.RDFType, athar.RDFSLabel, athar.SKOSAltLbl, athar.RDFSComment, athar.PredFormerID}

func (s *Store) entity(ctx context.Context, id athar.ID) (*athar.Entity, error) {
	t, ok := athar.TypeOfPrefix(id.Prefix())
	if !ok {
		return nil, nil
	}
	var outs []quad.Quad
	for _, p := range entityPredicates {
		qs, err := s.withPredicate(ctx, quad.Subject, quad.IRI(id.IRI()), p)
		if err != nil {
			return nil, err
		}
		if p == athar.RDFType && len(qs) == 0 {
			return nil, nil
		}
		outs = append(outs, qs...)
	}
	e := &athar.Entity{ID: id, Type: t}
	defined := false
	nameVotes := map[string]map[string]bool{} // name -> labels giving it
	var aliases, arabic []string
	var former []athar.ID
	for _, q := range outs {
		label := iriOf(q.Label)
		obj := fromValue(q.Object)
		switch iriOf(q.Predicate) {
		case athar.RDFType:
			defined = defined || obj.IRI == t.IRI()
		case athar.RDFSLabel:
			if obj.Lang == "ar" {
				arabic = append(arabic, obj.Literal)
				continue
			}
			if nameVotes[obj.Literal] == nil {
				nameVotes[obj.Literal] = map[string]bool{}
			}
			nameVotes[obj.Literal][label] = true
		case athar.SKOSAltLbl:
			aliases = append(aliases, obj.Literal)
		case athar.RDFSComment:
			if e.Description == "" || obj.Literal < e.Description {
				e.Description = obj.Literal
			}
		case athar.PredFormerID:
			former = append(former, athar.ID(obj.Literal))
		}
	}
	if !defined {
		return nil, nil
	}
	if len(former) > 0 {
		e.FormerIDs = uniqueIDs(former)
	}
	votes := make(map[string]int, len(nameVotes))
	for name, labels := range nameVotes {
		votes[name] = len(labels)
	}
	e.Name, e.Aliases = athar.ChooseName(id, votes, aliases)
	e.Arabic = uniqueStrings(arabic, "")
	return e, nil
}

// Mentions implements athar.Store: the narrations of the labels of every quad with the id
// as subject or object -- a corpus record's label counting as the narration it is. The
// labels come from the read model's mention rows (readmodel_mention.go); while it is stale,
// from Cayley, where on the KV backends only the labels' values are read.
func (s *Store) Mentions(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ID, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	// A change whose step 3 is still running (bulk mode) has not counted its mentions yet.
	if err := s.settle(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	out := make(map[athar.ID][]athar.ID, len(ids))
	for _, id := range ids {
		if _, ok := athar.TypeOfPrefix(id.Prefix()); !ok {
			continue
		}
		if ns, ok := s.mentions.get(id); ok {
			if len(ns) > 0 {
				out[id] = ns
			}
			continue
		}
		var docs []athar.ID
		var records []string
		if s.rmStale {
			labels, err := s.labelsTouching(ctx, quad.IRI(id.IRI()))
			if err != nil {
				return nil, fmt.Errorf("mentions of %s: %w", id, err)
			}
			docs, records = splitLabels(labels)
		} else {
			err := s.man.view(func(tx manifestTx) error {
				docs, records = rmMentions(tx, id.IRI())
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("mentions of %s: %w", id, err)
			}
		}
		of, err := s.recordNarrations(ctx, records)
		if err != nil {
			return nil, err
		}
		ns := docs
		if len(of) > 0 {
			// Most records are narration:KEY, in the order of their labels; a record a
			// document carries is that document, anywhere.
			ns = append(docs, of...)
			sortIDs(ns)
			ns = slices.Compact(ns) // a document and the record it carries are one narration
		}
		ns = slices.Clip(ns)
		s.mentions.put(id, ns)
		if len(ns) > 0 {
			out[id] = ns
		}
	}
	return out, nil
}

// recordNarrations returns the narrations the corpus records with the labels are, in no
// particular order: the subject of each record's own PredCorpusRecord quad. That is
// narration:KEY unless a narration document carries the record (narration:muslim-1763
// carries corpus:muslim-4588), so KEY's narration row, when the read model has one that
// names the record, answers without reading Cayley; any other is looked up there. A label
// whose record states no narration (none is stored so) is left out. Callers hold the read
// lock.
//
// The rows are read in one walk of the narration bucket in key order, stepping to the
// next row where the ids are dense (the Prophet's 29,000 records of the corpus's 35,000)
// and seeking where they are not, and only the row's corpus field is read: a Get and a
// decoded summary each took 90 of the 120 ms of CPU his first narrationCount cost.
func (s *Store) recordNarrations(ctx context.Context, labels []string) ([]athar.ID, error) {
	if len(labels) == 0 {
		return nil, nil
	}
	out := make([]athar.ID, 0, len(labels))
	var rest []string
	if s.rmStale || s.finishing != nil {
		rest = labels // the rows may lag Cayley: ask it
	} else {
		type record struct {
			id         athar.ID // narration:KEY
			key, label string
		}
		want := make([]record, len(labels))
		for i, l := range labels {
			key := strings.TrimPrefix(l, athar.Base+athar.CorpusPrefix+"/")
			want[i] = record{athar.ID(athar.TypeNarration.Prefix() + ":" + key), key, l}
		}
		slices.SortFunc(want, func(a, b record) int { return strings.Compare(string(a.id), string(b.id)) })
		i := 0
		err := s.man.view(func(tx manifestTx) error {
			var err error
			skim(tx, rmNarrationBucket, string(want[0].id), func(k, v []byte) (string, bool) {
				for i < len(want) && string(want[i].id) < string(k) {
					rest = append(rest, want[i].label) // no row
					i++
				}
				if i == len(want) {
					return "", false
				}
				if string(k) != string(want[i].id) {
					return string(want[i].id), true
				}
				corpus, ok := rowCorpus(v)
				if !ok {
					err = fmt.Errorf("%s %q: %w", rmNarrationBucket, k, errCorruptRow)
					return "", false
				}
				if string(corpus) == want[i].key {
					out = append(out, want[i].id)
				} else {
					rest = append(rest, want[i].label)
				}
				i++
				return "", i < len(want)
			})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("narration rows: %w", err)
		}
		for ; i < len(want); i++ {
			rest = append(rest, want[i].label)
		}
	}
	for _, l := range rest {
		qs, err := s.withPredicate(ctx, quad.Object, quad.IRI(l), athar.PredCorpusRecord)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			if iriOf(q.Label) == l {
				if n, ok := narrationLabel(iriOf(q.Subject)); ok {
					out = append(out, n)
					break
				}
			}
		}
	}
	return out, nil
}

// mentionCache is Store.mentions: entity -> the narrations mentioning it, as Mentions
// found them. Readers share the store's read lock, so it has a lock of its own; Apply,
// holding the write lock, empties it. It holds at most mentionCacheSize entities, and
// starts again when full.
type mentionCache struct {
	mu sync.Mutex
	m  map[athar.ID][]athar.ID
}

const mentionCacheSize = 10000

func (c *mentionCache) get(id athar.ID) ([]athar.ID, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ns, ok := c.m[id]
	// Shared, not copied (the Prophet's, on the corpus, are 29,000 ids): clipped, so
	// that a caller appending to it gets an array of its own; no caller writes into it.
	return slices.Clip(ns), ok
}

func (c *mentionCache) put(id athar.ID, ns []athar.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= mentionCacheSize {
		c.m = map[athar.ID][]athar.ID{}
	}
	c.m[id] = ns
}

// apply brings the memoised mentions in step with a change Cayley has committed. An entity
// no quad of the change touches keeps its narrations; a narration adding a quad that
// touches it is one of them now; one only removing such quads may or may not still be, so
// the entity is read again when next asked. A hub is touched by most writes, and most
// writes add: the Prophet's narrations, on the full corpus, took 200 ms to read again from
// Cayley after every write of anything (30-50 ms from the read model's mention rows, which
// also map his 29,000 records' labels to their narrations).
func (c *mentionCache) apply(change *manifestChange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) == 0 {
		return
	}
	touched := func(qs []quad.Quad) map[athar.ID]bool {
		out := map[athar.ID]bool{}
		for _, q := range qs {
			for _, v := range [2]quad.Value{q.Subject, q.Object} {
				if id, ok := athar.ParseIRI(iriOf(v)); ok {
					if _, cached := c.m[id]; cached {
						out[id] = true
					}
				}
			}
		}
		return out
	}
	for _, l := range change.labels {
		n, ok := narrationLabel(l)
		if !ok && athar.IsCorpusLabel(l) {
			// A corpus record. A new one states the narration it is; a new version may not
			// (only what changed is in the change) and may move the record to another
			// narration (a document carrying it), so whatever it touches is read again
			// when next asked.
			n, ok = recordNarration(l, change.add[l])
			if !ok || len(change.remove[l]) > 0 {
				for _, qs := range [][]quad.Quad{change.remove[l], change.add[l]} {
					for id := range touched(qs) {
						delete(c.m, id)
					}
				}
				continue
			}
		}
		if !ok {
			continue // Mentions gives narrations only
		}
		added := touched(change.add[l])
		for id := range touched(change.remove[l]) {
			if !added[id] {
				delete(c.m, id)
			}
		}
		for id := range added {
			ns, cached := c.m[id]
			switch {
			case !cached:
			case change.both[l]:
				delete(c.m, id) // a quad added and removed: Cayley's net effect is not guessed
			default:
				if i, found := slices.BinarySearch(ns, n); !found {
					c.m[id] = slices.Insert(slices.Clip(ns), i, n) // a new array: readers hold the old one
				}
			}
		}
	}
}

// recordNarration returns the narration that qs, quads under the corpus record label,
// state the record is (its PredCorpusRecord quad).
func recordNarration(label string, qs []quad.Quad) (athar.ID, bool) {
	for _, q := range qs {
		if iriOf(q.Predicate) == athar.PredCorpusRecord && iriOf(q.Object) == label {
			return narrationLabel(iriOf(q.Subject))
		}
	}
	return "", false
}

// labelsTouching returns the distinct labels of the quads with v as subject or object.
func (s *Store) labelsTouching(ctx context.Context, v quad.Value) ([]string, error) {
	set := map[string]bool{}
	kqs, ok := s.qs.(*kv.QuadStore)
	if !ok {
		for _, d := range []quad.Direction{quad.Subject, quad.Object} {
			qs, err := s.quadsWith(ctx, d, v)
			if err != nil {
				return nil, err
			}
			for _, q := range qs {
				set[iriOf(q.Label)] = true
			}
		}
	} else {
		vid, err := nodeID(kqs, v)
		if err != nil || vid == 0 {
			return nil, err
		}
		ids := map[uint64]bool{}
		for _, d := range []quad.Direction{quad.Subject, quad.Object} {
			err := each(ctx, kqs.QuadIterator(d, kv.Int64Value(vid)), func(r graph.Ref) error {
				if p, ok := r.(*proto.Primitive); ok && p.Label != 0 {
					ids[p.Label] = true
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		}
		list := make([]uint64, 0, len(ids))
		for id := range ids {
			list = append(list, id)
		}
		vals, err := s.values(ctx, kqs, list)
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			set[iriOf(v)] = true
		}
	}
	out := make([]string, 0, len(set))
	for l := range set {
		if l != "" && l != pinIRI {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out, nil
}

// EntityIDs implements athar.Store: the read model's list of the type (readmodel_grading.go),
// one range of keys; while the read model is stale, from Cayley. The server's name index
// and the text index's check read every id at start: from Cayley, every rdf:type quad of
// the type and its subject's value.
func (s *Store) EntityIDs(ctx context.Context, t athar.EntityType) ([]athar.ID, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	if s.rmStale {
		return s.entityIDsFromCayley(ctx, t)
	}
	page, err := s.typeList(ctx, athar.EntityPageQuery{Type: t, First: -1})
	if err != nil {
		return nil, fmt.Errorf("entity ids: %w", err)
	}
	return page.IDs, nil
}

// EntityIDsFromCayley reads EntityIDs' answer from Cayley's quads only: what the read
// model's lists are checked against.
func (s *Store) EntityIDsFromCayley(ctx context.Context, t athar.EntityType) ([]athar.ID, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	return s.entityIDsFromCayley(ctx, t)
}

func (s *Store) entityIDsFromCayley(ctx context.Context, t athar.EntityType) ([]athar.ID, error) {
	types := athar.EntityTypes()
	if t != "" {
		types = []athar.EntityType{t}
	}
	var ids []athar.ID
	for _, tt := range types {
		qs, err := s.in(ctx, tt.IRI())
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			if iriOf(q.Predicate) != athar.RDFType {
				continue
			}
			if id, ok := athar.ParseIRI(iriOf(q.Subject)); ok && id.Prefix() == tt.Prefix() {
				ids = append(ids, id)
			}
		}
	}
	return uniqueIDs(ids), nil
}

// MergedInto implements athar.Store. A former id is a literal object of PredFormerID
// quads, found through Cayley's object index.
func (s *Store) MergedInto(ctx context.Context, ids []athar.ID) (map[athar.ID]athar.ID, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	out := map[athar.ID]athar.ID{}
	// Until a first merge, no quad uses the predicate: one lookup answers for every id
	// (validation asks about every id of every document).
	if ref, err := s.qs.ValueOf(quad.IRI(athar.PredFormerID)); err != nil || ref == nil {
		return out, err
	}
	for _, id := range ids {
		qs, err := s.withPredicate(ctx, quad.Object, quad.String(string(id)), athar.PredFormerID)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			into, ok := athar.ParseIRI(iriOf(q.Subject))
			if !ok {
				continue
			}
			if cur, seen := out[id]; !seen || into < cur {
				out[id] = into
			}
		}
	}
	return out, nil
}

// narrationLabel returns the narration a quad label names; reserved graphs (the Qur'an's
// texts) are not narrations.
func narrationLabel(label string) (athar.ID, bool) {
	id, ok := athar.ParseIRI(label)
	if !ok || id.Prefix() != athar.TypeNarration.Prefix() {
		return "", false
	}
	return id, true
}

// Narrations implements athar.Store.
func (s *Store) Narrations(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	out := make([]*athar.Narration, len(ids))
	for i, id := range ids {
		n, err := s.narration(ctx, id)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

type positioned struct {
	pos  int
	node string
}

// narrationNodes are the nodes a narration's own quads point to.
type narrationNodes struct {
	refs, links, gradings, texts []positioned
}

// narrationHead reads a narration's own quads: the narration without what its nodes hold,
// and those nodes. nil when the graph does not define it.
func (s *Store) narrationHead(ctx context.Context, id athar.ID) (*athar.Narration, narrationNodes, error) {
	var nodes narrationNodes
	if id.Prefix() != athar.TypeNarration.Prefix() {
		return nil, nodes, nil
	}
	iri := id.IRI()
	qs, err := s.out(ctx, iri)
	if err != nil {
		return nil, nodes, err
	}
	n := &athar.Narration{ID: id}
	found := false
	refs, links, gradings, texts := &nodes.refs, &nodes.links, &nodes.gradings, &nodes.texts
	var corpusTitle string
	for _, q := range qs {
		label := iriOf(q.Label)
		corpus := athar.IsCorpusLabel(label)
		if label != iri && !corpus {
			continue // claims other narrations make about this one
		}
		obj := fromValue(q.Object)
		switch iriOf(q.Predicate) {
		case athar.RDFType:
			found = found || obj.IRI == athar.TypeNarration.IRI()
		case athar.RDFSLabel:
			if corpus {
				corpusTitle = obj.Literal
			} else {
				n.Title = obj.Literal
			}
		case athar.PredText:
			n.Text = obj.Literal
		case athar.PredLanguage:
			n.Language = obj.Literal
		case athar.PredTranslation:
			n.Translation = obj.Literal
		case athar.PredReference:
			*refs = append(*refs, positioned{node: obj.IRI})
		case athar.PredChainLink:
			*links = append(*links, positioned{node: obj.IRI})
		case athar.PredGrading:
			*gradings = append(*gradings, positioned{node: obj.IRI})
		case athar.PredHasText:
			*texts = append(*texts, positioned{node: obj.IRI})
		case athar.PredChapter:
			if c, ok := athar.ParseIRI(obj.IRI); ok {
				n.Chapter = c
			}
		case athar.PredCorpusRecord:
			if k, ok := strings.CutPrefix(obj.IRI, athar.Base+athar.CorpusPrefix+"/"); ok {
				n.Corpus = k
			}
		}
	}
	if !found {
		return nil, nodes, nil
	}
	if n.Title == "" {
		n.Title = corpusTitle
	}
	return n, nodes, nil
}

func (s *Store) narration(ctx context.Context, id athar.ID) (*athar.Narration, error) {
	return s.narrationWith(ctx, id, true)
}

// narrationWith reads a narration: whole, or (whole false) with its chains, routes and
// narrator only, the references, gradings and texts left unread.
func (s *Store) narrationWith(ctx context.Context, id athar.ID, whole bool) (*athar.Narration, error) {
	n, nodes, err := s.narrationHead(ctx, id)
	if n == nil || err != nil {
		return nil, err
	}
	iri := id.IRI()
	refs, links, gradings, texts := nodes.refs, nodes.links, nodes.gradings, nodes.texts
	if !whole {
		refs, gradings, texts = nil, nil, nil
		n.Text, n.Language, n.Translation = "", "", ""
	}
	// A document's references, texts and gradings come before a corpus record's; each
	// in its own order.
	fromCorpus := func(node string) int {
		if strings.HasPrefix(node, athar.Base+athar.CorpusPrefix+"/") {
			return 1
		}
		return 0
	}
	props := func(node string) (map[string]athar.Term, error) {
		qs, err := s.out(ctx, node)
		if err != nil {
			return nil, err
		}
		m := map[string]athar.Term{}
		for _, q := range qs {
			m[iriOf(q.Predicate)] = fromValue(q.Object)
		}
		return m, nil
	}
	type ref struct {
		pos int
		r   athar.Reference
	}
	var rs []ref
	for _, r := range refs {
		m, err := props(r.node)
		if err != nil {
			return nil, err
		}
		pos, _ := strconv.Atoi(m[athar.PredPosition].Literal)
		pos += fromCorpus(r.node) << 20
		rs = append(rs, ref{pos, athar.Reference{
			Collection: m[athar.PredCollection].Literal,
			Edition:    m[athar.PredEdition].Literal,
			Number:     m[athar.PredNumber].Literal,
			URL:        m[athar.PredURL].Literal,
		}})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].pos < rs[j].pos })
	for _, r := range rs {
		n.References = append(n.References, r.r)
	}
	// Chain links without a route number are the chain (the first route); the others belong
	// to the further route they name (2 on).
	type routeLink struct {
		route, pos int
		node       string
	}
	// A corpus record's links (corpus/K/route/R/I) number every route from 1: they are the
	// record's routes, and the narration's when no document gives a chain.
	var chain, record []routeLink
	for _, l := range links {
		m, err := props(l.node)
		if err != nil {
			return nil, err
		}
		pos, _ := strconv.Atoi(m[athar.PredPosition].Literal)
		route := 1
		if t, ok := m[athar.PredRoute]; ok {
			route, _ = strconv.Atoi(t.Literal)
		}
		if fromCorpus(l.node) == 1 {
			record = append(record, routeLink{route, pos, m[athar.PredNarrator].IRI})
		} else {
			chain = append(chain, routeLink{route, pos, m[athar.PredNarrator].IRI})
		}
	}
	order := func(chain []routeLink) {
		sort.Slice(chain, func(i, j int) bool {
			if chain[i].route != chain[j].route {
				return chain[i].route < chain[j].route
			}
			return chain[i].pos < chain[j].pos
		})
	}
	order(chain)
	order(record)
	for _, c := range record {
		p, ok := athar.ParseIRI(c.node)
		if !ok || c.route < 1 {
			continue
		}
		for len(n.RecordRoutes) < c.route {
			n.RecordRoutes = append(n.RecordRoutes, nil)
		}
		n.RecordRoutes[c.route-1] = append(n.RecordRoutes[c.route-1], p)
	}
	if len(chain) == 0 && len(n.RecordRoutes) > 0 {
		n.Chain = n.RecordRoutes[0]
		n.MoreRoutes = n.RecordRoutes[1:]
	}
	for _, c := range chain {
		p, ok := athar.ParseIRI(c.node)
		switch {
		case !ok || c.route < 1:
		case c.route == 1:
			n.Chain = append(n.Chain, p)
		default:
			for len(n.MoreRoutes) < c.route-1 {
				n.MoreRoutes = append(n.MoreRoutes, nil)
			}
			n.MoreRoutes[c.route-2] = append(n.MoreRoutes[c.route-2], p)
		}
	}
	for _, g := range gradings {
		m, err := props(g.node)
		if err != nil {
			return nil, err
		}
		gr := athar.Grading{
			GraderName: m[athar.PredGraderName].Literal,
			Verdict:    m[athar.PredVerdict].Literal,
			Grade:      athar.Grade(m[athar.PredGrade].Literal),
			Scope:      athar.GradingScope(m[athar.PredScope].Literal),
			Part:       m[athar.PredPart].Literal,
			Note:       m[athar.RDFSComment].Literal,
		}
		gr.Position, _ = strconv.Atoi(m[athar.PredPosition].Literal)
		gr.Position += fromCorpus(g.node) << 20
		if p, ok := athar.ParseIRI(m[athar.PredGrader].IRI); ok {
			gr.Grader = p
		}
		ref := athar.Reference{
			Collection: m[athar.PredCollection].Literal,
			Edition:    m[athar.PredEdition].Literal,
			Number:     m[athar.PredNumber].Literal,
			URL:        m[athar.PredURL].Literal,
		}
		if ref != (athar.Reference{}) {
			gr.StatedIn = &ref
		}
		gr.StatedInText = m[athar.PredStatedIn].Literal
		n.Gradings = append(n.Gradings, gr)
	}
	sort.Slice(n.Gradings, func(i, j int) bool { return n.Gradings[i].Position < n.Gradings[j].Position })
	for i := range n.Gradings { // positions count within the document, and within the record
		n.Gradings[i].Position &= 1<<20 - 1
	}
	if n.Text != "" {
		n.Texts = append(n.Texts, athar.NarrationText{Language: n.Language, Edition: n.Translation, Text: n.Text, Source: athar.TextFromDocument})
	}
	type text struct {
		pos int
		t   athar.NarrationText
	}
	var ts []text
	for _, t := range texts {
		m, err := props(t.node)
		if err != nil {
			return nil, err
		}
		pos, _ := strconv.Atoi(m[athar.PredPosition].Literal)
		ts = append(ts, text{pos, athar.NarrationText{Language: m[athar.PredLanguage].Literal, Edition: m[athar.PredEdition].Literal, Text: m[athar.PredText].Literal, Source: athar.TextFromCorpus}})
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].pos < ts[j].pos })
	for _, t := range ts {
		n.Texts = append(n.Texts, t.t)
	}
	if n.Text == "" && len(ts) > 0 {
		pick := ts[0].t
		for _, t := range ts {
			if t.t.Language == "en" {
				pick = t.t
				break
			}
		}
		n.Text, n.Language = pick.Text, pick.Language
	}
	ins, err := s.withPredicate(ctx, quad.Object, quad.IRI(iri), athar.VocabBase+"narrates")
	if err != nil {
		return nil, err
	}
	var recordNarrator athar.ID
	for _, q := range ins {
		label := iriOf(q.Label)
		p, ok := athar.ParseIRI(iriOf(q.Subject))
		switch {
		case !ok:
		case label == iri:
			n.Narrator = p
		case athar.IsCorpusLabel(label) && n.Corpus != "" && label == athar.Base+athar.CorpusPrefix+"/"+n.Corpus:
			recordNarrator = p
		}
	}
	if n.Narrator == "" {
		n.Narrator = recordNarrator
	}
	return n, nil
}

// Claims implements athar.Store.
func (s *Store) Claims(ctx context.Context, ids []athar.ID) ([]*athar.Claim, error) {
	return s.claims(ctx, ids, -1)
}

// ClaimHeads implements athar.Store. While the read model is stale the claims come from
// Cayley whole.
func (s *Store) ClaimHeads(ctx context.Context, ids []athar.ID, first int) ([]*athar.Claim, error) {
	return s.claims(ctx, ids, max(first, 0))
}

// ClaimParts implements athar.Store. From the read model a claim's parts are one row's
// fields; while it is stale, the claims are read from Cayley whole and stripped.
func (s *Store) ClaimParts(ctx context.Context, ids []athar.ID) ([]*athar.Claim, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	if s.rmStale {
		s.mu.RUnlock()
		cs, err := s.claims(ctx, ids, 0)
		if err != nil {
			return nil, err
		}
		for i, c := range cs {
			if c != nil {
				cs[i] = &athar.Claim{ID: c.ID, Subject: c.Subject, Predicate: c.Predicate, Object: c.Object, Value: c.Value, Bare: true}
			}
		}
		return cs, nil
	}
	defer s.mu.RUnlock()
	out, err := s.rmClaims(ctx, ids, func(tx manifestTx, id athar.ID) (*athar.Claim, error) {
		c, _, err := rmClaimParts(tx, id)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("claim parts: %w", err)
	}
	return out, nil
}

// rmClaims reads the claims of ids from the read model in one transaction, each with
// read; nil where an id is not a claim's or read gives none. Callers hold the read lock.
func (s *Store) rmClaims(ctx context.Context, ids []athar.ID, read func(tx manifestTx, id athar.ID) (*athar.Claim, error)) ([]*athar.Claim, error) {
	out := make([]*athar.Claim, len(ids))
	err := s.man.view(func(tx manifestTx) error {
		for i, id := range ids {
			if err := ctx.Err(); err != nil {
				return err
			}
			if id.Prefix() != athar.ClaimPrefix {
				continue
			}
			c, err := read(tx, id)
			if err != nil {
				return err
			}
			out[i] = c
		}
		return nil
	})
	return out, err
}

// claims reads claims with their first attestations, all of them when first is negative.
func (s *Store) claims(ctx context.Context, ids []athar.ID, first int) ([]*athar.Claim, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	if !s.rmStale {
		corpus, texts := map[athar.ID]string{}, map[string][]byte{}
		out, err := s.rmClaims(ctx, ids, func(tx manifestTx, id athar.ID) (*athar.Claim, error) {
			return rmClaim(tx, id, corpus, texts, first)
		})
		if err != nil {
			return nil, fmt.Errorf("claims: %w", err)
		}
		for _, c := range out {
			if err := s.corpusEvidence(ctx, c, corpus); err != nil {
				return nil, fmt.Errorf("claims: %w", err)
			}
		}
		return out, nil
	}
	out := make([]*athar.Claim, len(ids))
	memo := &tripleMemo{}
	for i, id := range ids {
		c, err := s.claim(ctx, id, memo)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// ClaimsFromCayley reads claims as Claims does, from Cayley's quads only: what the read
// model's claim records are checked against.
func (s *Store) ClaimsFromCayley(ctx context.Context, ids []athar.ID) ([]*athar.Claim, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	out := make([]*athar.Claim, len(ids))
	memo := &tripleMemo{}
	for i, id := range ids {
		if id.Prefix() != athar.ClaimPrefix {
			continue
		}
		c, err := s.claimFromCayley(ctx, id, memo)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// claim reads one claim: from the read model's claim records (readmodel_claim.go), or
// while the read model is stale from Cayley (claimFromCayley, with memo if given). Callers
// hold a lock.
func (s *Store) claim(ctx context.Context, id athar.ID, memo *tripleMemo) (*athar.Claim, error) {
	if id.Prefix() != athar.ClaimPrefix {
		return nil, nil
	}
	if s.rmStale {
		return s.claimFromCayley(ctx, id, memo)
	}
	var c *athar.Claim
	corpus := map[athar.ID]string{}
	err := s.man.view(func(tx manifestTx) (err error) {
		c, err = rmClaim(tx, id, corpus, nil, -1)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.corpusEvidence(ctx, c, corpus); err != nil {
		return nil, err
	}
	return c, nil
}

// corpusEvidence gives the attestations of c that a corpus record makes, which store
// their offsets but not their passage (hadith.CompileWith), the passage: the text of their
// edition in the record, at the offsets. corpus gives each attestation's record as rmClaim
// found it (absent for the attestations of no record). Cayley's path does the same in
// attestation.
func (s *Store) corpusEvidence(ctx context.Context, c *athar.Claim, corpus map[athar.ID]string) error {
	if c == nil {
		return nil
	}
	for i := range c.Attestations {
		a := &c.Attestations[i]
		label := corpus[a.ID]
		if a.Evidence != "" || !a.HasSpan || a.Edition == "" || label == "" {
			continue
		}
		var err error
		if a.Evidence, err = s.corpusPassage(ctx, label, a.Edition, a.Start, a.End); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) claimFromCayley(ctx context.Context, id athar.ID, memo *tripleMemo) (*athar.Claim, error) {
	qs, err := s.out(ctx, id.IRI())
	if err != nil {
		return nil, err
	}
	c := &athar.Claim{ID: id}
	found := false
	var label quad.Value // of the claim node's vocab:subject
	for _, q := range qs {
		obj := fromValue(q.Object)
		switch iriOf(q.Predicate) {
		case athar.PredSubject: // only claim nodes have it (their type is left implied)
			c.Subject, _ = athar.ParseIRI(obj.IRI)
			found, label = true, q.Label
		case athar.PredPredicate:
			c.Predicate = strings.TrimPrefix(obj.IRI, athar.VocabBase)
		case athar.PredObject:
			c.Object, _ = athar.ParseIRI(obj.IRI)
		case athar.PredValue:
			v := obj
			c.Value = &v
		}
	}
	if !found {
		return nil, nil
	}
	if c.Predicate == "" {
		// left implied: the plain triple from the subject, in the claim node's label, whose
		// claim id is this one says them (athar.ImpliedClaimParts)
		if err := s.claimTriple(ctx, c, label, memo); err != nil {
			return nil, err
		}
	}
	ins, err := s.in(ctx, id.IRI())
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, q := range ins {
		if iriOf(q.Predicate) != athar.PredClaim {
			continue
		}
		a := iriOf(q.Subject)
		if seen[a] {
			continue
		}
		seen[a] = true
		att, err := s.attestation(ctx, a, id)
		if err != nil {
			return nil, err
		}
		c.Attestations = append(c.Attestations, att)
	}
	sortAttestations(c.Attestations)
	return c, nil
}

// claimTriple gives c, a claim whose node states its subject in label and nothing more,
// its predicate and object or value: those of the plain triple from the subject in that
// label whose claim id is c's (athar.ImpliedClaimParts). memo, when given, keeps the
// subject's triples for the next claim of the same read.
func (s *Store) claimTriple(ctx context.Context, c *athar.Claim, label quad.Value, memo *tripleMemo) error {
	if memo == nil {
		memo = &tripleMemo{}
	}
	subject := c.Subject.IRI()
	triples, ok := memo.bySubject[subject]
	if !ok {
		qs, err := s.out(ctx, subject)
		if err != nil {
			return err
		}
		triples = map[tripleAt]athar.ClaimRef{}
		for _, q := range qs {
			if t, ok := athar.TripleRef(fromQuad(q)); ok {
				triples[tripleAt{t.ID, q.Label}] = t
			}
		}
		memo.keep(subject, triples)
	}
	if t, ok := triples[tripleAt{c.ID, label}]; ok {
		c.Predicate, c.Object, c.Value = t.Predicate, t.Object, t.Value
	}
	return nil
}

// tripleMemo holds, for one read of many claims on Cayley's path, the plain triples of the
// subjects claimTriple has read, by claim and label: a read of a hub's claims then reads
// the hub's quads once, not once a claim. It holds at most memoTriples triples, and forgets
// them all to take more.
type tripleMemo struct {
	bySubject map[string]map[tripleAt]athar.ClaimRef
	held      int
}

type tripleAt struct {
	claim athar.ID
	label quad.Value
}

const memoTriples = 1 << 20

func (m *tripleMemo) keep(subject string, triples map[tripleAt]athar.ClaimRef) {
	if m.bySubject == nil || m.held+len(triples) > memoTriples {
		m.bySubject, m.held = map[string]map[tripleAt]athar.ClaimRef{}, 0
	}
	m.bySubject[subject] = triples
	m.held += len(triples)
}

func (s *Store) attestation(ctx context.Context, iri string, claim athar.ID) (athar.Attestation, error) {
	qs, err := s.out(ctx, iri)
	if err != nil {
		return athar.Attestation{}, err
	}
	id, _ := athar.ParseIRI(iri)
	a := athar.Attestation{ID: id, Claim: claim}
	var label string
	var labels []string
	for _, q := range qs {
		obj := fromValue(q.Object)
		label = iriOf(q.Label)
		if iriOf(q.Predicate) == athar.PredClaim {
			if l, ok := athar.ParseIRI(label); ok {
				labels = append(labels, string(l))
			}
		}
		switch iriOf(q.Predicate) {
		case athar.PredNarration:
			a.Narration, _ = athar.ParseIRI(obj.IRI)
		case athar.PredEvidence:
			a.Evidence = obj.Literal
		case athar.PredStart:
			a.Start, _ = strconv.Atoi(obj.Literal)
			a.HasSpan = true
		case athar.PredEnd:
			a.End, _ = strconv.Atoi(obj.Literal)
		case athar.RDFSComment:
			a.Note = obj.Literal
		case athar.PredEdition:
			a.Edition = obj.Literal
		}
	}
	if a.Narration == "" {
		// left implied by the narration's label it is stated in (athar.ImpliedNarrations)
		a.Narration = impliedNarration(labels)
	}
	if a.Evidence == "" && a.HasSpan {
		var err error
		switch {
		case a.Edition != "" && athar.IsCorpusLabel(label):
			// a corpus record's attestation gives no evidence: it is the passage of the
			// edition's text the record holds (hadith.CompileWith)
			a.Evidence, err = s.corpusPassage(ctx, label, a.Edition, a.Start, a.End)
		case label == a.Narration.IRI():
			// left implied: the passage of the narration's text (athar.DropImplied)
			a.Evidence, err = s.passage(ctx, label, label, a.Start, a.End)
		}
		if err != nil {
			return athar.Attestation{}, err
		}
	}
	return a, nil
}

// corpusPassage returns the passage [start, end) (code points) of the text of edition in
// the corpus record labelled label (its node label/text/edition); "" when there is none.
func (s *Store) corpusPassage(ctx context.Context, label, edition string, start, end int) (string, error) {
	return s.passage(ctx, label+"/text/"+edition, label, start, end)
}

// passage returns the passage [start, end) (code points) of node's vocab:text in label; ""
// when there is none. It reads the node's text quads only (withPredicate): a corpus
// record's text node has five quads, and reading them all, each from Cayley's log, was a
// seventh of the CPU of an entity page whose claims come from the corpus. Callers hold
// the read lock.
func (s *Store) passage(ctx context.Context, node, label string, start, end int) (string, error) {
	qs, err := s.withPredicate(ctx, quad.Subject, quad.IRI(node), athar.PredText)
	if err != nil {
		return "", err
	}
	for _, q := range qs {
		if iriOf(q.Predicate) != athar.PredText || iriOf(q.Label) != label {
			continue
		}
		if p, ok := athar.Passage(fromValue(q.Object).Literal, start, end); ok {
			return p, nil
		}
	}
	return "", nil
}

// FindClaims implements athar.Store.
func (s *Store) FindClaims(ctx context.Context, f athar.ClaimFilter) ([]*athar.Claim, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	// The claims of a narration, and of every narration when nothing else filters, are read
	// from their labels' quads as well (narrationClaims): a bulk load's last entries for
	// them are made first.
	var err error
	switch {
	case f.Narration != "":
		err = s.settleFor(ctx, f.Narration.IRI())
	case f.Subject == "" && f.Object == "" && f.Entity == "" && f.Predicate == "":
		err = s.settle(ctx)
	}
	if err != nil {
		return nil, err // settle returns without the lock on an error
	}
	defer s.mu.RUnlock()
	var sets []map[string]bool
	// triples collects the claims of the plain triples among qs (athar.ClaimOf): a claim
	// node leaves its predicate and object implied by them (athar.ImpliedClaimParts). Ids
	// of triples no claim node states are dropped when read (claim gives nil).
	triples := func(qs []quad.Quad) {
		set := sets[len(sets)-1]
		for _, q := range qs {
			if id, ok := athar.ClaimOf(fromQuad(q)); ok {
				set[id.IRI()] = true
			}
		}
	}
	collect := func(object, predicate string, hop string) error {
		qs, err := s.in(ctx, object)
		if err != nil {
			return err
		}
		set := map[string]bool{}
		for _, q := range qs {
			if iriOf(q.Predicate) == predicate {
				set[iriOf(q.Subject)] = true
			}
		}
		if hop != "" { // attestations -> their claims
			claims := map[string]bool{}
			for a := range set {
				outs, err := s.out(ctx, a)
				if err != nil {
					return err
				}
				for _, q := range outs {
					if iriOf(q.Predicate) == hop {
						claims[iriOf(q.Object)] = true
					}
				}
			}
			set = claims
		}
		sets = append(sets, set)
		return nil
	}
	if f.Subject != "" {
		err = collect(f.Subject.IRI(), athar.PredSubject, "")
	}
	// asObject collects the claims whose object is the entity: of the plain triples to it,
	// and of the claim nodes stating it (a store written before it was left implied).
	asObject := func(e athar.ID) error {
		if err := collect(e.IRI(), athar.PredObject, ""); err != nil {
			return err
		}
		qs, err := s.in(ctx, e.IRI())
		if err == nil {
			triples(qs)
		}
		return err
	}
	if err == nil && f.Object != "" {
		err = asObject(f.Object)
	}
	if err == nil && f.Entity != "" {
		if err = collect(f.Entity.IRI(), athar.PredSubject, ""); err == nil {
			asSubject := sets[len(sets)-1]
			sets = sets[:len(sets)-1]
			if err = asObject(f.Entity); err == nil {
				for k := range asSubject {
					sets[len(sets)-1][k] = true
				}
			}
		}
	}
	if err == nil && f.Predicate != "" {
		// the plain triples of the predicate (Cayley's kv indexes have none by predicate
		// alone: a scan, on this path only while the read model is stale), and the claim
		// nodes stating it
		if err = collect(athar.VocabBase+f.Predicate, athar.PredPredicate, ""); err == nil {
			var qs []quad.Quad
			if qs, err = s.quadsWith(ctx, quad.Predicate, quad.IRI(athar.VocabBase+f.Predicate)); err == nil {
				triples(qs)
			}
		}
	}
	// narrationClaims collects the claims narration n attests: those of the attestations
	// that state it as their narration (a corpus record's, or any in a store written before
	// the narration was left implied), and those of the attestations in its own label that
	// state no other (athar.ImpliedNarrations).
	narrationClaims := func(n string) error {
		if err := collect(n, athar.PredNarration, athar.PredClaim); err != nil {
			return err
		}
		qs, err := s.labelQuads(ctx, n)
		if err != nil {
			return err
		}
		other := map[quad.Value]bool{}
		for _, q := range qs {
			if iriOf(q.Predicate) == athar.PredNarration && iriOf(q.Object) != n {
				other[q.Subject] = true
			}
		}
		set := sets[len(sets)-1]
		for _, q := range qs {
			if iriOf(q.Predicate) == athar.PredClaim && !other[q.Subject] {
				set[iriOf(q.Object)] = true
			}
		}
		return nil
	}
	if err == nil && f.Narration != "" {
		err = narrationClaims(f.Narration.IRI())
	}
	if err == nil && len(sets) == 0 {
		// Every claim: those the narrations attest. The store does not state the type of a
		// claim node (athar.ImpliedClass), and Cayley has no index by predicate alone.
		if err = collect(athar.TypeNarration.IRI(), athar.RDFType, ""); err == nil {
			narrations := sets[0]
			all := map[string]bool{}
			for n := range narrations {
				sets = sets[:0]
				if err = narrationClaims(n); err != nil {
					break
				}
				for c := range sets[0] {
					all[c] = true
				}
			}
			sets = []map[string]bool{all}
		}
	}
	if err != nil {
		return nil, err
	}
	sort.Slice(sets, func(i, j int) bool { return len(sets[i]) < len(sets[j]) })
	var out []*athar.Claim
	memo := &tripleMemo{}
	for iri := range sets[0] {
		inAll := true
		for _, set := range sets[1:] {
			if !set[iri] {
				inAll = false
				break
			}
		}
		if !inAll {
			continue
		}
		id, ok := athar.ParseIRI(iri)
		if !ok {
			continue
		}
		c, err := s.claim(ctx, id, memo)
		if err != nil {
			return nil, err
		}
		if c == nil || len(c.Attestations) < f.MinAttestations {
			continue
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SortKey() < out[j].SortKey() })
	return out, nil
}

// ClaimsAbout implements athar.Store. It reads the entity's list in the read model
// (readmodel.go); while that is stale, it reads Cayley's indexes (claimsAbout).
//
// claimsAbout reads them from Cayley: the claims about an entity are the subjects of its
// athar:subject and athar:object quads; their keys come from the plain triples beside
// them (subject, predicate and object give the claim id by hash), and the triples' labels
// are the narrations asserting them. No claim node is read, unless a claim has no plain
// triple to describe it (never written so by the importer; read in full to be safe).
func (s *Store) ClaimsAbout(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ClaimRef, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	out := make(map[athar.ID][]athar.ClaimRef, len(ids))
	if !s.rmStale {
		err := s.man.view(func(tx manifestTx) error {
			for _, id := range ids {
				if _, done := out[id]; done {
					continue
				}
				refs, err := s.rmClaimsAbout(ctx, tx, id)
				if err != nil {
					return err
				}
				out[id] = refs
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("claims about %d entities: %w", len(ids), err)
		}
		return out, nil
	}
	for _, id := range ids {
		if _, done := out[id]; done {
			continue
		}
		refs, err := s.claimsAbout(ctx, id)
		if err != nil {
			return nil, err
		}
		out[id] = refs
	}
	return out, nil
}

func (s *Store) claimsAbout(ctx context.Context, id athar.ID) ([]athar.ClaimRef, error) {
	outs, err := s.out(ctx, id.IRI())
	if err != nil {
		return nil, err
	}
	ins, err := s.in(ctx, id.IRI())
	if err != nil {
		return nil, err
	}
	claims := map[athar.ID]bool{}
	for _, q := range ins {
		if p := iriOf(q.Predicate); p == athar.PredSubject || p == athar.PredObject {
			if c, ok := athar.ParseIRI(iriOf(q.Subject)); ok {
				claims[c] = false
			}
		}
	}
	// The claims whose object the entity is and whose node leaves it implied
	// (athar.ImpliedClaimParts): those of the plain triples to it that a claim node states
	// the subject of.
	for _, q := range ins {
		c, ok := athar.ClaimOf(fromQuad(q))
		if _, known := claims[c]; !ok || known {
			continue
		}
		node, err := s.withPredicate(ctx, quad.Subject, quad.IRI(c.IRI()), athar.PredSubject)
		if err != nil {
			return nil, err
		}
		if len(node) > 0 {
			claims[c] = false
		}
	}
	refs := map[athar.ID]*athar.ClaimRef{}
	for _, qs := range [][]quad.Quad{outs, ins} {
		for _, q := range qs {
			t, ok := athar.TripleRef(fromQuad(q))
			if _, isClaim := claims[t.ID]; !ok || !isClaim {
				continue
			}
			cid := t.ID
			ref := refs[cid]
			if ref == nil {
				ref = &t
				refs[cid] = ref
				claims[cid] = true
			}
			if n, ok := narrationLabel(iriOf(q.Label)); ok {
				ref.Narrations = append(ref.Narrations, n)
			}
		}
	}
	for cid, described := range claims {
		if described {
			continue
		}
		c, err := s.claim(ctx, cid, nil)
		if err != nil || c == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		ref := &athar.ClaimRef{ID: cid, Subject: c.Subject, Predicate: c.Predicate, Object: c.Object, Value: c.Value}
		for _, a := range c.Attestations {
			ref.Narrations = append(ref.Narrations, a.Narration)
		}
		refs[cid] = ref
	}
	list := make([]athar.ClaimRef, 0, len(refs))
	for _, ref := range refs {
		ref.Narrations = uniqueIDs(ref.Narrations)
		list = append(list, *ref)
	}
	keys := make(map[athar.ID]string, len(list))
	for i := range list {
		keys[list[i].ID] = list[i].SortKey()
	}
	sort.Slice(list, func(i, j int) bool { return keys[list[i].ID] < keys[list[j].ID] })
	return list, nil
}

// Edges implements athar.Store. It reads the entity's list in the read model
// (readmodel.go); while that is stale, Cayley's indexes (edgesByScan).
func (s *Store) Edges(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.Edge, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	out := make(map[athar.ID][]athar.Edge, len(ids))
	if !s.rmStale {
		err := s.man.view(func(tx manifestTx) error {
			for _, id := range ids {
				edges, err := s.rmEdges(ctx, tx, id)
				if err != nil {
					return err
				}
				if len(edges) > 0 {
					out[id] = edges
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("edges of %d entities: %w", len(ids), err)
		}
		return out, nil
	}
	return s.edgesByScan(ctx, ids)
}

// edgesByScan is Edges from Cayley's indexes. Callers hold the read lock.
func (s *Store) edgesByScan(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.Edge, error) {
	out := make(map[athar.ID][]athar.Edge, len(ids))
	for _, id := range ids {
		type key struct{ s, t, p string }
		labels := map[key]map[string]bool{}
		add := func(q quad.Quad) {
			p := iriOf(q.Predicate)
			if !athar.IsRelation(p) {
				return
			}
			o, ok := q.Object.(quad.IRI)
			if !ok {
				return
			}
			k := key{iriOf(q.Subject), string(o), strings.TrimPrefix(p, athar.VocabBase)}
			if labels[k] == nil {
				labels[k] = map[string]bool{}
			}
			labels[k][iriOf(q.Label)] = true
		}
		outs, err := s.out(ctx, id.IRI())
		if err != nil {
			return nil, err
		}
		ins, err := s.in(ctx, id.IRI())
		if err != nil {
			return nil, err
		}
		for _, q := range outs {
			add(q)
		}
		for _, q := range ins {
			add(q)
		}
		var edges []athar.Edge
		for k, ls := range labels {
			src, ok1 := athar.ParseIRI(k.s)
			dst, ok2 := athar.ParseIRI(k.t)
			if !ok1 || !ok2 {
				continue
			}
			edges = append(edges, athar.Edge{Source: src, Target: dst, Predicate: k.p, Attestations: len(ls)})
		}
		sortEdges(edges)
		if len(edges) > 0 {
			out[id] = edges
		}
	}
	return out, nil
}

func uniqueIDs(ids []athar.ID) []athar.ID {
	slices.Sort(ids)
	return slices.Compact(ids)
}

func sortIDs(ids []athar.ID) { slices.Sort(ids) }

func uniqueStrings(ss []string, except string) []string {
	sort.Strings(ss)
	var out []string
	for i, s := range ss {
		if s == except || i > 0 && s == ss[i-1] {
			continue
		}
		out = append(out, s)
	}
	return out
}
