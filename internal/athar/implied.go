package athar

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// What the store leaves implied, and every RDF export states.
//
// Four kinds of quad follow from others of their label, so the store does not hold them:
//
//   - the rdf:type of a claim node, an attestation and a chain link, each implied by a
//     predicate only nodes of the class have (impliedClasses). Stating them took a fifth
//     of a load's quads (385,000 of 2.29 million at 10,000 generated narrations) and 14%
//     of its time (docs/BENCHMARKS.md);
//   - the vocab:evidence of a narration's attestation, when it is the passage of the
//     narration's vocab:text at the attestation's vocab:start and vocab:end (code points):
//     validation stores the passage as the text writes it, so for a document it always is
//     (narration.Compile states it otherwise). Each was a literal of its own in Cayley,
//     a new node for every attestation;
//   - the vocab:narration of an attestation in a narration's own label, when it is that
//     narration: a document's attestations are all of the narration whose label they are
//     in (narration.Compile), so the label says it. It was one quad of every claim a
//     document makes (192,489 of 1.72 million stored at 10,000 generated narrations).
//     A corpus record's attestations, in the record's label, state theirs;
//   - the vocab:predicate and the vocab:object (or vocab:value) of a claim node, which the
//     plain triple beside it says: a claim's id is the hash of its subject, predicate and
//     object (ClaimID), and every claim node is stated in a label together with its plain
//     triple (narration.Compile, hadith.CompileWith), so the plain triple of that label
//     from the claim's vocab:subject whose hash is the claim's id gives both
//     (ImpliedClaimParts). The claim node keeps its vocab:subject, which says it is a
//     claim and whose subject it is about. They were two of the seven quads a claim
//     costs (385,000 of 1.53 million stored at 10,000 generated narrations).
//
// Every RDF export and backup states them again (StateImplied, ImpliedStater), so exports
// keep their shape; a restore, a load of an export and the decompiler leave them out
// (DropImplied). A corpus record's attestations give no evidence in exports either: theirs
// is the passage of the record's edition text (hadith.CompileWith), not of a vocab:text
// of the label.

// impliedClasses are the classes the store does not state, by the predicate that implies
// them: a claim node's vocab:subject, an attestation's vocab:claim, a chain link's
// vocab:narrator.
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

// Passage returns the code points [start, end) of text, and false when they are not all
// in it. Invalid UTF-8 bytes count as one code point each, as []rune(text) counts them.
func Passage(text string, start, end int) (string, bool) {
	if start < 0 || end < start {
		return "", false
	}
	i, from := 0, -1
	for b := range text {
		if i == start {
			from = b
		}
		if i == end {
			return text[from:b], true
		}
		i++
	}
	if i == start {
		from = len(text)
	}
	if i == end && from >= 0 {
		return text[from:], true
	}
	return "", false
}

// attestationSpan is what an attestation node states in one label: enough to tell whether
// its narration and its evidence are implied.
type attestationSpan struct {
	label, node, narration string
	start, end             int
	hasClaim               bool // it states its vocab:claim in the label
	statesNarration        bool // it states its vocab:narration in the label
	hasStart, hasEnd       bool
	evidence               *Term // as stated, if it is
}

// IsNarrationLabel reports whether label is a narration's IRI: the label of the quads a
// narration document compiles to.
func IsNarrationLabel(label string) bool {
	return strings.HasPrefix(label, Base+"narration/")
}

// narrationImplied reports whether a's label implies its narration: it is an attestation
// (it states its claim) in a narration's label that states no other narration.
func (a *attestationSpan) narrationImplied() bool {
	return a.hasClaim && IsNarrationLabel(a.label) && (!a.statesNarration || a.narration == a.label)
}

// narrationUnstated reports whether a's narration is implied and not stated: what an
// export states for it.
func (a *attestationSpan) narrationUnstated() bool {
	return !a.statesNarration && a.narrationImplied()
}

// spans gathers the attestations of qs (nodes under Base+"attestation:" that state a
// vocab:claim, vocab:narration, vocab:start, vocab:end or vocab:evidence), by label and
// node, in the order they first appear, and the texts of the narrations whose own labels
// qs hold. An attestation's narration is the one it states, or the one its label implies.
func spans(qs []Quad) (order []*attestationSpan, texts map[string]string) {
	prefix := Base + AttestationPrefix + "/"
	byNode := map[[2]string]*attestationSpan{}
	for i := range qs {
		q := &qs[i]
		switch q.Predicate {
		case PredText:
			if q.Subject == q.Label && !IsCorpusLabel(q.Label) {
				if texts == nil {
					texts = map[string]string{}
				}
				texts[q.Label] = q.Object.Literal
			}
			continue
		case PredClaim, PredNarration, PredStart, PredEnd, PredEvidence:
		default:
			continue
		}
		if !strings.HasPrefix(q.Subject, prefix) {
			continue
		}
		k := [2]string{q.Label, q.Subject}
		a := byNode[k]
		if a == nil {
			a = &attestationSpan{label: q.Label, node: q.Subject}
			byNode[k] = a
			order = append(order, a)
		}
		switch q.Predicate {
		case PredClaim:
			a.hasClaim = true
		case PredNarration:
			a.narration, a.statesNarration = q.Object.IRI, true
		case PredStart:
			a.start, _ = strconv.Atoi(q.Object.Literal)
			a.hasStart = true
		case PredEnd:
			a.end, _ = strconv.Atoi(q.Object.Literal)
			a.hasEnd = true
		case PredEvidence:
			t := q.Object
			a.evidence = &t
		}
	}
	for _, a := range order {
		if a.narrationUnstated() {
			a.narration = a.label
		}
	}
	return order, texts
}

// impliedPassage returns the evidence a's label implies for it: the passage of its
// narration's text at its offsets, when a is an attestation of the narration whose label
// it is in and that label gives the narration's text.
func (a *attestationSpan) impliedPassage(texts map[string]string) (string, bool) {
	if !a.hasStart || !a.hasEnd || a.narration != a.label {
		return "", false
	}
	text, ok := texts[a.label]
	if !ok {
		return "", false
	}
	return Passage(text, a.start, a.end)
}

// isPlainString reports whether t is a string literal without a language.
func isPlainString(t Term) bool {
	return !t.IsIRI() && t.Lang == "" && (t.Datatype == "" || t.Datatype == XSDString)
}

// ImpliedEvidence returns the vocab:evidence quads qs imply and do not state, in the order
// their attestations first appear: for each attestation of a narration, in the
// narration's own label, that states its offsets but no evidence, the passage of the
// narration's vocab:text (in qs, in that label) at the offsets.
func ImpliedEvidence(qs []Quad) []Quad {
	order, texts := spans(qs)
	if texts == nil {
		return nil
	}
	var out []Quad
	for _, a := range order {
		if a.evidence != nil {
			continue
		}
		if p, ok := a.impliedPassage(texts); ok {
			out = append(out, Quad{Subject: a.node, Predicate: PredEvidence, Object: StringTerm(p), Label: a.label})
		}
	}
	return out
}

// ImpliedNarrations returns the vocab:narration quads qs imply and do not state, in the
// order their attestations first appear: for each attestation stated in a narration's
// label (IsNarrationLabel) that states its claim there and no narration, that narration.
func ImpliedNarrations(qs []Quad) []Quad {
	order, _ := spans(qs)
	var out []Quad
	for _, a := range order {
		if a.narrationUnstated() {
			out = append(out, Quad{Subject: a.node, Predicate: PredNarration, Object: IRITerm(a.label), Label: a.label})
		}
	}
	return out
}

// DropImplied removes from qs, in place, the quads the store leaves implied: the types
// IsImpliedType names, the parts of claim nodes that their plain triples say (what
// ImpliedClaimParts would state without them), each vocab:narration ImpliedNarrations
// would state without it, and each vocab:evidence that is exactly what ImpliedEvidence
// would state without it. An evidence that differs from the passage at its offsets stays,
// as does an attestation's narration that is not its label's, and a claim's part that its
// plain triple does not say.
func DropImplied(qs []Quad) []Quad {
	qs = slices.DeleteFunc(qs, IsImpliedType)
	if parts := claimParts(qs); len(parts) > 0 {
		implied := make(map[Quad]bool, len(parts))
		for _, q := range parts {
			implied[q] = true
		}
		qs = slices.DeleteFunc(qs, func(q Quad) bool { return implied[q] })
	}
	order, texts := spans(qs)
	narrations := map[[2]string]bool{}
	evidence := map[[2]string]string{}
	for _, a := range order {
		k := [2]string{a.label, a.node}
		if a.statesNarration && a.narrationImplied() {
			narrations[k] = true
		}
		if a.evidence == nil || !isPlainString(*a.evidence) {
			continue
		}
		if p, ok := a.impliedPassage(texts); ok && p == a.evidence.Literal {
			evidence[k] = p
		}
	}
	if len(narrations) == 0 && len(evidence) == 0 {
		return qs
	}
	return slices.DeleteFunc(qs, func(q Quad) bool {
		k := [2]string{q.Label, q.Subject}
		switch q.Predicate {
		case PredNarration:
			return narrations[k] && q.Object.IRI == q.Label
		case PredEvidence:
			p, ok := evidence[k]
			return ok && q.Object.Literal == p && isPlainString(q.Object)
		}
		return false
	})
}

// IsRelation reports whether the predicate IRI is a relation between entities (or an
// entity and a value): a term of the vocabulary outside its structural part, the predicate
// of a plain triple.
func IsRelation(predicate string) bool {
	return strings.HasPrefix(predicate, VocabBase) && !IsStructural(predicate)
}

// ClaimOf returns the id of the claim whose plain triple q is, and false when q is not a
// plain triple (IsRelation) from an entity.
func ClaimOf(q Quad) (ID, bool) {
	if !IsRelation(q.Predicate) {
		return "", false
	}
	subject, ok := ParseIRI(q.Subject)
	if !ok {
		return "", false
	}
	return ClaimID(subject, strings.TrimPrefix(q.Predicate, VocabBase), q.Object), true
}

// TripleRef returns the claim whose plain triple q is (ClaimOf), as a reference: its id,
// subject, predicate and object or value (without its narrations); false when q is not a
// plain triple from an entity.
func TripleRef(q Quad) (ClaimRef, bool) {
	if !IsRelation(q.Predicate) {
		return ClaimRef{}, false
	}
	subject, ok := ParseIRI(q.Subject)
	if !ok {
		return ClaimRef{}, false
	}
	predicate := strings.TrimPrefix(q.Predicate, VocabBase)
	ref := ClaimRef{ID: ClaimID(subject, predicate, q.Object), Subject: subject, Predicate: predicate}
	if q.Object.IsIRI() {
		ref.Object, _ = ParseIRI(q.Object.IRI)
	} else {
		v := q.Object
		ref.Value = &v
	}
	return ref, true
}

// ClaimParts returns the vocab:predicate and vocab:object (or vocab:value) that the plain
// triple q implies for its claim node (ClaimOf), in q's label.
func ClaimParts(claim string, q Quad) [2]Quad {
	p := Quad{Subject: claim, Predicate: PredPredicate, Object: IRITerm(q.Predicate), Label: q.Label}
	o := Quad{Subject: claim, Predicate: PredObject, Object: q.Object, Label: q.Label}
	if !q.Object.IsIRI() {
		o.Predicate = PredValue
	}
	return [2]Quad{p, o}
}

// claimParts returns every vocab:predicate and vocab:object (or vocab:value) quad qs imply,
// stated or not: for each claim node stating its vocab:subject in a label, the parts of
// the plain triple of that label from that subject whose claim id is the node's.
func claimParts(qs []Quad) []Quad {
	prefix := Base + ClaimPrefix + "/"
	subjects := map[[2]string]string{} // label, claim node -> its subject
	for _, q := range qs {
		if q.Predicate == PredSubject && strings.HasPrefix(q.Subject, prefix) {
			subjects[[2]string{q.Label, q.Subject}] = q.Object.IRI
		}
	}
	if len(subjects) == 0 {
		return nil
	}
	var out []Quad
	for _, q := range qs {
		id, ok := ClaimOf(q)
		if !ok {
			continue
		}
		c := id.IRI()
		if s, ok := subjects[[2]string{q.Label, c}]; ok && s == q.Subject {
			parts := ClaimParts(c, q)
			out = append(out, parts[:]...)
		}
	}
	return out
}

// ImpliedClaimParts returns the vocab:predicate and vocab:object (or vocab:value) quads of
// claim nodes that qs imply and do not state, in the order of their plain triples: for
// each claim node that states its vocab:subject in a label, what the plain triple of that
// label from that subject whose claim id (ClaimID) is the node's says.
func ImpliedClaimParts(qs []Quad) []Quad {
	parts := claimParts(qs)
	if len(parts) == 0 {
		return nil
	}
	stated := map[Quad]bool{}
	for _, q := range qs {
		switch q.Predicate {
		case PredPredicate, PredObject, PredValue:
			stated[q] = true
		}
	}
	return slices.DeleteFunc(parts, func(q Quad) bool { return stated[q] })
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

// StateImplied returns qs, sorted by label then by Key (the order of Store.Quads and of
// exports), with the types, claims' parts, narrations and evidence they imply
// (ImpliedTypes, ImpliedClaimParts, ImpliedNarrations, ImpliedEvidence) merged in, in the
// same order: what every RDF export writes. A quad qs states already (a store written
// before it was left implied) is given once. qs is returned as it is when it implies
// nothing.
func StateImplied(qs []Quad) []Quad {
	implied := slices.Concat(ImpliedTypes(qs), ImpliedClaimParts(qs), ImpliedNarrations(qs), ImpliedEvidence(qs))
	if len(implied) == 0 {
		return qs
	}
	keys := make([]string, len(implied))
	for i, t := range implied {
		keys[i] = t.Key()
	}
	sort.Sort(byLabelKey{implied, keys})
	out := make([]Quad, 0, len(qs)+len(implied))
	j := 0
	for _, q := range qs {
		k := ""
		for j < len(implied) {
			t := implied[j]
			if t.Label == q.Label && k == "" {
				k = q.Key()
			}
			if t.Label > q.Label || t.Label == q.Label && keys[j] >= k {
				break
			}
			out = append(out, t)
			j++
		}
		if j < len(implied) && implied[j] == q {
			j++ // stated already
		}
		out = append(out, q)
	}
	return append(out, implied[j:]...)
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

// ImpliedStater passes quads given in the order of Store.Quads (by label, then key) on to
// Write with what they imply merged in (StateImplied), holding one label's quads at a
// time: the whole graph's export and a backup stream through it. Flush after the last.
type ImpliedStater struct {
	Write func(Quad) error
	label string
	buf   []Quad
}

// Add takes the next quad.
func (s *ImpliedStater) Add(q Quad) error {
	if q.Label != s.label {
		if err := s.Flush(); err != nil {
			return err
		}
		s.label = q.Label
	}
	s.buf = append(s.buf, q)
	return nil
}

// Flush writes the quads held, and what they imply.
func (s *ImpliedStater) Flush() error {
	for _, q := range StateImplied(s.buf) {
		if err := s.Write(q); err != nil {
			return err
		}
	}
	s.buf = s.buf[:0]
	return nil
}
