package cayleystore

// The redo of a write.
//
// An Apply that adds quads commits twice on bbolt: Cayley's transaction, which also marks
// the labels it changes and the read model pending (step 1, join.go), and the manifest's,
// which writes their entries and the read model's rows and clears the marks (step 3). A
// crash between the two used to leave only the marks, and Open rebuilt the whole read
// model and the marked entries from scans of the store: at 100,000 narrations twelve
// minutes before the server could answer. Now step 1 also writes, as the value of the read
// model's mark, what step 3 needs to finish the change -- its quads by label, the records
// of the quads it removes (looked up before the commit, while their terms exist) and the
// labels that were pending already -- and Open, finding it, runs step 3 as Apply would
// have (replayRedo): the change's own quads, no scan.
//
// The redo is only written while the read model is in step. An Apply whose step 3 fails
// in a running process sets rmStale; the Applies after it write the mark without a redo,
// so that Open rebuilds the read model whole, as it must (their own step 3 leaves the
// read model alone). Bulk mode and a rebuild write the mark without a redo too.
//
//	redo   = version (1) stale changes
//	stale  = count label...
//	changes = count (label adds removes removeRecs)...
//	adds, removes = count quad...        quad = subject predicate object label (values)
//	removeRecs = count rec...            one a quad of removes, "" for one not stored
//
// Counts are uvarints; labels, records and values (pquads.MarshalValue) are uvarint-length
// prefixed.

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/pquads"
)

// redoVersion 2: removeRecs has one record a quad removed ("" for one not stored), which
// the mention counts need (readmodel_mention.go); a redo of version 1 is not replayed
// (Open rebuilds the read model instead).
const redoVersion = 2

// encodeRedo encodes what step 3 of c needs, stale being the labels c found pending.
func encodeRedo(c *manifestChange, stale []string) ([]byte, error) {
	b := binary.AppendUvarint(nil, redoVersion)
	b = appendStrings(b, stale)
	b = binary.AppendUvarint(b, uint64(len(c.labels)))
	for _, l := range c.labels {
		b = appendBytes(b, []byte(l))
		for _, qs := range [][]quad.Quad{c.add[l], c.remove[l]} {
			b = binary.AppendUvarint(b, uint64(len(qs)))
			for _, q := range qs {
				for _, v := range []quad.Value{q.Subject, q.Predicate, q.Object, q.Label} {
					raw, err := pquads.MarshalValue(v)
					if err != nil {
						return nil, fmt.Errorf("redo: %v: %w", q, err)
					}
					b = appendBytes(b, raw)
				}
			}
		}
		b = appendStrings(b, c.removeRecs[l])
	}
	return b, nil
}

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendBytes(b, []byte(s))
	}
	return b
}

var errCorruptRedo = errors.New("redo: corrupt record")

// decodeRedo gives back the change (its removeRecs set; its addRecs are for step 3 to
// look up) and the stale labels of encodeRedo.
func decodeRedo(b []byte) (*manifestChange, []string, error) {
	r := redoReader{b: b}
	if v := r.uvarint(); v != redoVersion {
		return nil, nil, fmt.Errorf("redo: version %d, not %d", v, redoVersion)
	}
	stale := r.strings()
	var deltas []graph.Delta
	removeRecs := map[string][]string{}
	n := r.uvarint()
	for i := uint64(0); i < n && r.err == nil; i++ {
		l := string(r.bytes())
		var removes uint64
		for _, action := range []graph.Procedure{graph.Add, graph.Delete} {
			m := r.uvarint()
			if action == graph.Delete {
				removes = m
			}
			for j := uint64(0); j < m && r.err == nil; j++ {
				var vs [4]quad.Value
				for k := range vs {
					v, err := pquads.UnmarshalValue(r.bytes())
					if err != nil && r.err == nil {
						r.err = err
					}
					vs[k] = v
				}
				q := quad.Quad{Subject: vs[0], Predicate: vs[1], Object: vs[2], Label: vs[3]}
				if labelOf(q) != l && r.err == nil {
					r.err = errCorruptRedo
				}
				deltas = append(deltas, graph.Delta{Quad: q, Action: action})
			}
		}
		if recs := r.strings(); len(recs) > 0 {
			removeRecs[l] = recs
		}
		if r.err == nil && uint64(len(removeRecs[l])) != removes {
			r.err = errCorruptRedo // one record a quad removed
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errCorruptRedo
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	c := newManifestChange(deltas)
	c.removeRecs = removeRecs
	return c, stale, nil
}

type redoReader struct {
	b   []byte
	err error
}

func (r *redoReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errCorruptRedo
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *redoReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errCorruptRedo
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *redoReader) strings() []string {
	n := r.uvarint()
	var out []string
	for i := uint64(0); i < n && r.err == nil; i++ {
		out = append(out, string(r.bytes()))
	}
	return out
}
