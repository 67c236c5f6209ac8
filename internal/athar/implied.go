package athar

import "sort"

// impliedClasses are the classes the store does not state: each is implied by a predicate
// only nodes of the class have (a claim node's vocab:subject, an attestation's vocab:claim,
// a chain link's vocab:narrator). Stating them took a fifth of a load's quads (385,000 of
// 2.29 million at 10,000 generated narrations) and 14% of its time
// (docs/BENCHMARKS.md); every RDF export states them again (WithImpliedTypes), so that
// exports keep their shape, and a restore leaves them out (IsImpliedType).
var impliedClasses = map[string]string{
	PredSubject:  ClassClaim,
	PredClaim:    ClassAttestation,
	PredNarrator: ClassChainLink,
}

// ImpliedClass returns the class a node is of when it is the subject of predicate, for the
// classes the store leaves implied.
func ImpliedClass(predicate string) (string, bool) {
	c, ok := impliedClasses[predicate]
	return c, ok
}

// IsImpliedType reports whether q states one of the types the store leaves implied: the
// rdf:type of a claim, an attestation or a chain link.
func IsImpliedType(q Quad) bool {
	if q.Predicate != RDFType || !q.Object.IsIRI() {
		return false
	}
	switch q.Object.IRI {
	case ClassClaim, ClassAttestation, ClassChainLink:
		return true
	}
	return false
}

// ImpliedTypes returns the rdf:type quads that qs imply (see impliedClasses), one per node,
// class and label, in the order their nodes first appear; qs may state some of them already.
func ImpliedTypes(qs []Quad) []Quad {
	var out []Quad
	seen := map[Quad]bool{}
	for _, q := range qs {
		class, ok := impliedClasses[q.Predicate]
		if !ok {
			continue
		}
		t := Quad{Subject: q.Subject, Predicate: RDFType, Object: IRITerm(class), Label: q.Label}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// StateImpliedTypes returns qs, sorted by label then by Key (the order of Store.Quads and
// of exports), with the types they imply (ImpliedTypes) merged in, in the same order: what
// every RDF export writes. A type qs states already (a store written before they were left
// implied) is given once. qs is returned as it is when it implies nothing.
func StateImpliedTypes(qs []Quad) []Quad {
	types := ImpliedTypes(qs)
	if len(types) == 0 {
		return qs
	}
	typeKeys := make([]string, len(types))
	for i, t := range types {
		typeKeys[i] = t.Key()
	}
	sort.Sort(byLabelKey{types, typeKeys})
	out := make([]Quad, 0, len(qs)+len(types))
	j := 0
	for _, q := range qs {
		k := ""
		for j < len(types) {
			t := types[j]
			if t.Label == q.Label && k == "" {
				k = q.Key()
			}
			if t.Label > q.Label || t.Label == q.Label && typeKeys[j] >= k {
				break
			}
			out = append(out, t)
			j++
		}
		if j < len(types) && types[j] == q {
			j++ // stated already
		}
		out = append(out, q)
	}
	return append(out, types[j:]...)
}

// byLabelKey sorts quads by label, then by their keys.
type byLabelKey struct {
	qs   []Quad
	keys []string
}

func (b byLabelKey) Len() int { return len(b.qs) }
func (b byLabelKey) Less(i, j int) bool {
	if b.qs[i].Label != b.qs[j].Label {
		return b.qs[i].Label < b.qs[j].Label
	}
	return b.keys[i] < b.keys[j]
}
func (b byLabelKey) Swap(i, j int) {
	b.qs[i], b.qs[j] = b.qs[j], b.qs[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
}

// TypeStater passes quads given in the order of Store.Quads (by label, then key) on to
// Write with the types they imply merged in (StateImpliedTypes), holding one label's quads
// at a time: the whole graph's export and a backup stream through it. Flush after the last.
type TypeStater struct {
	Write func(Quad) error
	label string
	buf   []Quad
}

// Add takes the next quad.
func (s *TypeStater) Add(q Quad) error {
	if q.Label != s.label {
		if err := s.Flush(); err != nil {
			return err
		}
		s.label = q.Label
	}
	s.buf = append(s.buf, q)
	return nil
}

// Flush writes the quads held, and their types.
func (s *TypeStater) Flush() error {
	for _, q := range StateImpliedTypes(s.buf) {
		if err := s.Write(q); err != nil {
			return err
		}
	}
	s.buf = s.buf[:0]
	return nil
}
