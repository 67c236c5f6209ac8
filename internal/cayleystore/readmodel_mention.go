package cayleystore

// Mentions: which labels touch each entity.
//
// Store.Mentions answers "the narrations that define, mention or make claims about an
// entity": the labels of every quad with the entity as subject or object. Read from
// Cayley, that is every such quad's primitive -- on the full corpus the Prophet's (29,420
// narrations) took 1-1.5 s warm and more than ten seconds from a cold disk, the first time
// he was asked for after a start and again after each write removing a quad that touched
// him. rmMentionBucket keeps the answer: one row per entity and label, holding how many of the
// label's quads touch the entity, so that the narrations mentioning an entity are one
// prefix scan of its rows.
//
//	rmMentionBucket  entity IRI \x00 label -> how many of the label's quads have the
//	                                           entity as subject or object (uvarint)
//
// An entity is an IRI of one of the entity types (athar.TypeOfPrefix). The offsets
// (vocab:start, vocab:end, vocab:position), whose subjects are attestations, chain links
// and references and whose objects are integers, never touch one, and a rebuild's scan
// skips them.
//
// A count moves only with a quad the store really adds or removes: Apply accepts a quad
// already present or one absent (athar.Store), so the rows are counted against the
// label's manifest entry in the transaction that writes it (writeEntries): a quad added
// whose record was not in the old entry counts one more, a quad removed whose record was
// one less; a replay of the change's redo finds the entry moved already and counts
// nothing twice. A label whose entry is rebuilt from a scan instead (one quad both added
// to and removed from it by one change -- no writer of Athar's makes one -- or an entry
// left pending by a write that failed) has the counts of the entities the change touched
// there set from the rebuilt entry (mentionsTouched, recountMentions), in the transaction
// that writes it and clears the read model's mark (rebuildLabels). A rebuild counts every
// quad of the store once (buildInto), and CheckReadModel compares the two.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/cayleygraph/quad"

	"github.com/athar-hadith/athar/internal/athar"
)

const rmMentionBucket = "athar.rm.mention"

// mentionSkips are the predicates whose quads never touch an entity: offsets.
var mentionSkips = map[string]bool{athar.PredStart: true, athar.PredEnd: true, athar.PredPosition: true}

// mentionKey is the key of the row of entity (an IRI) and label.
func mentionKey(entity, label string) string {
	return entity + "\x00" + label
}

// mentioned returns the entities q touches, as IRIs (none, one or two), and its label:
// what its rows in rmMentionBucket count.
func mentioned(q quad.Quad) (entities [2]string, n int, label string) {
	label = labelOf(q)
	if label == "" || mentionSkips[iriOf(q.Predicate)] {
		return entities, 0, ""
	}
	for _, v := range [2]quad.Value{q.Subject, q.Object} {
		iri, ok := v.(quad.IRI)
		if !ok {
			continue
		}
		s := string(iri)
		if n == 1 && entities[0] == s {
			continue
		}
		if id, ok := athar.ParseIRI(s); ok {
			if _, ok := athar.TypeOfPrefix(id.Prefix()); ok {
				entities[n] = s
				n++
			}
		}
	}
	return entities, n, label
}

// mentionCounts gathers the moves of rmMentionBucket's counts, to write them once a key.
type mentionCounts map[string]int

// count adds d to the rows of q's entities.
func (m mentionCounts) count(q quad.Quad, d int) {
	es, n, l := mentioned(q)
	for _, e := range es[:n] {
		m[mentionKey(e, l)] += d
	}
}

// write adds the counts to their rows in key order, deleting those that fall to zero. A
// count falling below zero is a read model out of step with the store: an error, so
// that the transaction fails and the read model is rebuilt.
func (m mentionCounts) write(tx manifestTx) error {
	counts := make(mentionCounts, len(m))
	for k, d := range m {
		if d == 0 {
			continue
		}
		n, _ := binary.Uvarint(tx.get(rmMentionBucket, k))
		c := int64(n) + int64(d)
		if c < 0 {
			return fmt.Errorf("%s %q: count %d %+d falls below zero", rmMentionBucket, k, n, d)
		}
		counts[k] = int(c)
	}
	return counts.set(tx)
}

// countEntry adds to m the moves of label's counts that a change makes, given the records
// of its old entry: a quad added whose record was not in it, and a quad removed whose
// record was. addRecs and removeRecs are c's, one per quad of each side ("" for a quad
// whose terms the store lacked: not stored). Only for a label no quad of which the change
// both adds and removes (manifestChange.both).
func (m mentionCounts) countEntry(c *manifestChange, label string, old map[string]bool) error {
	if len(c.addRecs[label]) != len(c.add[label]) || len(c.removeRecs[label]) != len(c.remove[label]) {
		return fmt.Errorf("%s: %d and %d records for %d quads added and %d removed", label,
			len(c.addRecs[label]), len(c.removeRecs[label]), len(c.add[label]), len(c.remove[label]))
	}
	for i, q := range c.add[label] {
		if r := c.addRecs[label][i]; r != "" && !old[r] {
			m.count(q, 1)
		}
	}
	for i, q := range c.remove[label] {
		if r := c.removeRecs[label][i]; r != "" && old[r] {
			m.count(q, -1)
		}
	}
	return nil
}

// rmMentions returns what the rows of entity (an IRI) say: the narrations whose
// documents' quads touch it, in id order, and the labels of the corpus records whose
// quads do, in label order. Other labels are left out (Mentions gives narrations only).
func rmMentions(tx manifestTx, entity string) (docs []athar.ID, records []string) {
	prefix := []byte(entity + "\x00")
	var ds packed[athar.ID]
	var rs packed[string]
	skim(tx, rmMentionBucket, string(prefix), func(k, _ []byte) (string, bool) {
		if !bytes.HasPrefix(k, prefix) {
			return "", false
		}
		splitLabel(&ds, &rs, k[len(prefix):])
		return "", true
	})
	return ds.strings(), rs.strings()
}

// splitLabels is rmMentions for labels read from Cayley, sorted (labelsTouching).
func splitLabels(labels []string) (docs []athar.ID, records []string) {
	var ds packed[athar.ID]
	var rs packed[string]
	for _, l := range labels {
		splitLabel(&ds, &rs, []byte(l))
	}
	return ds.strings(), rs.strings()
}

// narrationBase and narrationPrefix are a narration's IRI and id without its key;
// corpusBase is a corpus record's label without its key.
var (
	narrationBase   = []byte(athar.Base + athar.TypeNarration.Prefix() + "/")
	narrationPrefix = []byte(athar.TypeNarration.Prefix() + ":")
	corpusBase      = []byte(athar.Base + athar.CorpusPrefix + "/")
)

// splitLabel adds label's narration id to docs when it is a document's (what
// narrationLabel gives), or label itself to records when it is a corpus record's
// (athar.IsCorpusLabel).
func splitLabel(docs *packed[athar.ID], records *packed[string], label []byte) {
	switch {
	case len(label) > len(narrationBase) && bytes.HasPrefix(label, narrationBase):
		docs.add(narrationPrefix, label[len(narrationBase):])
	case bytes.HasPrefix(label, corpusBase):
		records.add(label, nil)
	}
}

// packed gathers strings made of bytes that are only lent (a bbolt key): a hub has tens
// of thousands of rows, so they are copied into chunks of packChunk bytes, each made a
// string once, rather than allocated one by one or into one buffer grown by copying.
type packed[S ~string] struct {
	out   []S
	chunk []byte
	ends  []int // of the chunk's strings not yet in out
}

const packChunk = 64 << 10

// add adds the string a followed by b.
func (p *packed[S]) add(a, b []byte) {
	if n := len(a) + len(b); len(p.chunk)+n > cap(p.chunk) {
		p.flush() // copied into a string: the chunk's bytes can be written again
		if n > cap(p.chunk) {
			p.chunk = make([]byte, 0, max(packChunk, n))
		}
	}
	p.chunk = append(append(p.chunk, a...), b...)
	p.ends = append(p.ends, len(p.chunk))
}

// flush moves the chunk's strings into out.
func (p *packed[S]) flush() {
	all, from := string(p.chunk), 0
	for _, to := range p.ends {
		p.out = append(p.out, S(all[from:to]))
		from = to
	}
	p.chunk, p.ends = p.chunk[:0], p.ends[:0]
}

// strings returns the strings added, in order.
func (p *packed[S]) strings() []S {
	p.flush()
	return p.out
}

// mentionsTouched returns, for each of labels, the entities that c's quads there touch:
// the counts a rebuild of those labels' entries sets again (rebuildLabels).
func mentionsTouched(c *manifestChange, labels []string) map[string][]string {
	out := make(map[string][]string, len(labels))
	for _, l := range labels {
		var es []string
		for _, qs := range [2][]quad.Quad{c.add[l], c.remove[l]} {
			for _, q := range qs {
				e, n, _ := mentioned(q)
				es = append(es, e[:n]...)
			}
		}
		slices.Sort(es)
		out[l] = slices.Compact(es)
	}
	return out
}

// recountMentions counts, in the records of each label's rebuilt entry (sets), the quads
// touching each entity recount names there: the counts to set, zero for none. Callers hold
// the write lock.
func (s *Store) recountMentions(ctx context.Context, sets map[string]map[string]bool, recount map[string][]string) (mentionCounts, error) {
	counts := mentionCounts{}
	for l, es := range recount {
		for _, e := range es {
			counts[mentionKey(e, l)] = 0
		}
		recs := make([]string, 0, len(sets[l]))
		for r := range sets[l] {
			recs = append(recs, r)
		}
		slices.Sort(recs)
		qs, err := s.decodeEntry(ctx, l, joinRecords(recs))
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			e, n, _ := mentioned(q)
			for _, e := range e[:n] {
				if _, ok := counts[mentionKey(e, l)]; ok {
					counts[mentionKey(e, l)]++
				}
			}
		}
	}
	return counts, nil
}

// set writes the counts as they are (where write adds them): a zero deletes its row.
func (m mentionCounts) set(tx manifestTx) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		var err error
		if m[k] == 0 {
			err = tx.del(rmMentionBucket, k)
		} else {
			err = tx.put(rmMentionBucket, k, binary.AppendUvarint(nil, uint64(m[k])))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
