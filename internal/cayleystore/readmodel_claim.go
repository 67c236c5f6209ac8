package cayleystore

// The read model's claim records: what Claims returns, without Cayley.
//
// A claim as Claims gives it is its claim node's quads (subject, predicate, object or
// value) and, for each attestation of it, the attestation node's quads (narration,
// evidence, start, end, edition, note). Read from Cayley, that is an index scan and a log
// lookup per quad, plus one more scan to find the attestations: 50 claims of an entity
// page cost some 1,500 quad lookups, half the page's time. rmClaimBucket keeps those quads
// as one row per node and label:
//
//	"f\x00" label \x00 node                 -> its fields: (predicate, object hash, object)...
//	"c\x00" claim \x00 label \x00 attestation -> 1 (the attestation's vocab:claim quad)
//
// where the node is a claim or an attestation (its id, "claim:6e1a..."), or the narration
// whose label it is (its vocab:text alone: the passages of the attestations whose
// evidence the store leaves implied, athar.DropImplied), the label a
// narration's id (or the IRI of a label that is not one), and each field one quad of the
// node in that label: its predicate, one of claimFieldPreds (its local name in the
// vocabulary), the first 8 bytes of the SHA-256 of the object's N-Quads form (which tells
// two objects of one predicate apart) and the object (encodeTerm), the fields sorted by
// predicate and hash so that a row's bytes are a function of its quads alone. A claim is
// one prefix scan for its attestations and their labels, then one Get for its own fields
// and one per attestation. The rows lead with the label so that a narration's rows lie
// together: an import writes them into a few pages, where keys led by the (hashed, so
// random) node ids dirtied a page per row.
//
// Until layout claim2 a row held one quad (its key ended with the predicate and the hash):
// eight rows a claim, 1.57 million keys at 10,000 generated narrations, half of what a
// bulk load's flushes wrote. A store of that layout has athar.rm.claim instead of
// rmClaimBucket, and its read model is rebuilt at Open. The rows are derived quad by quad
// like every other row of the read model (rmApply), a row's fields merged into it as they
// come, so they are rebuilt, checked and kept in step by the same code; rmApplyAll merges
// the fields of one batch of quads into each row once.

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/athar-hadith/athar/internal/athar"
)

const rmClaimBucket = "athar.rm.claim4"

// The fields of a claim node that its plain triple gives (athar.ImpliedClaimParts), under
// names of their own so that a store still stating them (written before they were left
// implied) keeps both, neither removal taking the other's field.
const (
	impliedPredicateField = "~predicate"
	impliedObjectField    = "~object"
	impliedValueField     = "~value"
)

// claimFieldPreds are the predicates of claim and attestation nodes that Claims reads, and
// a narration's vocab:text (in its own label), from which an attestation's evidence left
// implied is read (athar.DropImplied).
var claimFieldPreds = map[string]bool{
	athar.PredSubject: true, athar.PredPredicate: true, athar.PredObject: true, athar.PredValue: true,
	athar.PredClaim: true, athar.PredNarration: true, athar.PredEvidence: true, athar.PredStart: true,
	athar.PredEnd: true, athar.RDFSComment: true, athar.PredEdition: true, athar.PredText: true,
}

// claimPredShort and claimPredLong map the local names of claimFieldPreds to themselves
// and to their IRIs, so that reading a row allocates no predicate.
var claimPredShort, claimPredLong = func() (map[string]string, map[string]string) {
	short, long := map[string]string{}, map[string]string{}
	for p := range claimFieldPreds {
		short[shortPred(p)], long[shortPred(p)] = shortPred(p), p
	}
	for f, p := range map[string]string{impliedPredicateField: athar.PredPredicate, impliedObjectField: athar.PredObject, impliedValueField: athar.PredValue} {
		short[f], long[f] = f, p
	}
	return short, long
}()

// claimRow is one quad of a claim or attestation node: a field of the row at key; rev is set
// for an attestation's vocab:claim quad, which is also kept under its claim.
type claimRow struct {
	key, rev string
	field    claimField
}

// claimField is one quad of a node's row: its predicate (shortPred), the hash of its object
// and the object (encodeTerm).
type claimField struct {
	pred string
	hash [8]byte
	obj  []byte
}

// less orders a row's fields: by predicate, then hash.
func (f claimField) less(g claimField) bool {
	if f.pred != g.pred {
		return f.pred < g.pred
	}
	return string(f.hash[:]) < string(g.hash[:])
}

func (f claimField) same(g claimField) bool { return f.pred == g.pred && f.hash == g.hash }

func claimRowOf(q quad.Quad) (claimRow, bool) {
	p := iriOf(q.Predicate)
	if !claimFieldPreds[p] {
		return claimRow{}, false
	}
	id, ok := athar.ParseIRI(iriOf(q.Subject))
	if !ok {
		return claimRow{}, false
	}
	label := iriOf(q.Label)
	if l, ok := athar.ParseIRI(label); ok {
		label = string(l)
	}
	if p == athar.PredText {
		if label != string(id) || id.Prefix() != athar.TypeNarration.Prefix() {
			return claimRow{}, false // a corpus record's texts, say: not a narration's own
		}
	} else if id.Prefix() != athar.ClaimPrefix && id.Prefix() != athar.AttestationPrefix {
		return claimRow{}, false
	}
	obj := ""
	if q.Object != nil {
		obj = q.Object.String()
	}
	h := sha256.Sum256([]byte(obj))
	node := string(id)
	r := claimRow{key: "f\x00" + label + "\x00" + node, field: claimField{pred: shortPred(p), obj: encodeTerm(fromValue(q.Object))}}
	copy(r.field.hash[:], h[:8])
	if p == athar.PredClaim {
		claim, _ := athar.ParseIRI(iriOf(q.Object))
		r.rev = "c\x00" + string(claim) + "\x00" + label + "\x00" + node
	}
	return r, true
}

// impliedClaimRows returns the fields of r's claim node that r, its plain triple with
// object obj, gives: its predicate and its object or value, in the claim's row of r's
// label. Every plain triple gives them; only a claim node's row is read (rmClaim finds a
// claim by its attestations), so those of a triple no claim node states lie unread.
func impliedClaimRows(r rmRow, obj athar.Term) [2]claimRow {
	label := r.label
	if l, ok := athar.ParseIRI(label); ok {
		label = string(l)
	}
	key := "f\x00" + label + "\x00" + string(r.ref.ID)
	pred := athar.IRITerm(athar.VocabBase + r.ref.Predicate)
	of := impliedObjectField
	if !obj.IsIRI() {
		of = impliedValueField
	}
	return [2]claimRow{
		{key: key, field: claimFieldOf(impliedPredicateField, pred)},
		{key: key, field: claimFieldOf(of, obj)},
	}
}

// claimFieldOf is the field of predicate pred (its row name) with object t.
func claimFieldOf(pred string, t athar.Term) claimField {
	f := claimField{pred: pred, obj: encodeTerm(t)}
	h := sha256.Sum256([]byte(t.Key()))
	copy(f.hash[:], h[:8])
	return f
}

// encodeFields is a row's value: a count, then each field's predicate, hash and object.
func encodeFields(fs []claimField) []byte {
	n := 0
	for _, f := range fs {
		n += len(f.pred) + len(f.hash) + len(f.obj) + 4
	}
	b := binary.AppendUvarint(make([]byte, 0, n+2), uint64(len(fs)))
	for _, f := range fs {
		b = appendStr(b, f.pred)
		b = append(b, f.hash[:]...)
		b = appendBytes(b, f.obj)
	}
	return b
}

// decodeFields reads a row's value; the objects are slices of b.
func decodeFields(b []byte) ([]claimField, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, errCorruptRow
	}
	b = b[k:]
	fs := make([]claimField, 0, n)
	for range n {
		var f claimField
		m, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < m || uint64(len(b)-k)-m < uint64(len(f.hash)) {
			return nil, errCorruptRow
		}
		pred := b[k : k+int(m)]
		if p, ok := claimPredShort[string(pred)]; ok {
			f.pred = p
		} else {
			f.pred = string(pred)
		}
		b = b[k+int(m):]
		copy(f.hash[:], b)
		b = b[len(f.hash):]
		m, k = binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < m {
			return nil, errCorruptRow
		}
		f.obj, b = b[k:k+int(m)], b[k+int(m):]
		fs = append(fs, f)
	}
	if len(b) != 0 {
		return nil, errCorruptRow
	}
	return fs, nil
}

// claimBatch gathers the claim rows of a batch of quads, so that each row is read and
// written once however many of its fields the batch holds (a new attestation's six).
type claimBatch struct {
	keys []string
	rows map[string][]claimRow
}

func (b *claimBatch) add(r claimRow) {
	if b.rows == nil {
		b.rows = map[string][]claimRow{}
	}
	if _, ok := b.rows[r.key]; !ok {
		b.keys = append(b.keys, r.key)
	}
	b.rows[r.key] = append(b.rows[r.key], r)
}

// write stores (add) or removes the gathered fields: each row read, its fields merged in or
// taken out, and written back (deleted once it has none), and the rev rows put or deleted.
// A field added twice or removed when absent changes nothing, as a row per quad would.
func (b *claimBatch) write(tx manifestTx, add bool) error {
	for _, key := range b.keys {
		var fs []claimField
		old := tx.get(rmClaimBucket, key)
		if old != nil {
			var err error
			if fs, err = decodeFields(old); err != nil {
				return fmt.Errorf("%s %q: %w", rmClaimBucket, key, err)
			}
		}
		changed := false
		for _, r := range b.rows[key] {
			i := sort.Search(len(fs), func(i int) bool { return !fs[i].less(r.field) })
			has := i < len(fs) && fs[i].same(r.field)
			switch {
			case add && has:
				if string(fs[i].obj) != string(r.field.obj) {
					fs[i], changed = r.field, true
				}
			case add:
				fs = slices.Insert(fs, i, r.field)
				changed = true
			case has:
				fs = slices.Delete(fs, i, i+1)
				changed = true
			}
		}
		// The row first: its fields may be slices of what get returned, which no other
		// write of the transaction should come before.
		var err error
		switch {
		case !changed:
		case len(fs) == 0:
			err = tx.del(rmClaimBucket, key)
		default:
			err = tx.put(rmClaimBucket, key, encodeFields(fs))
		}
		if err != nil {
			return err
		}
		for _, r := range b.rows[key] {
			switch {
			case r.rev == "":
			case add:
				err = tx.put(rmClaimBucket, r.rev, []byte{1})
			default:
				err = tx.del(rmClaimBucket, r.rev)
			}
			if err != nil {
				return err
			}
		}
	}
	b.keys, b.rows = b.keys[:0], nil
	return nil
}

// shortPred is a predicate as a row's key holds it: a local name of the vocabulary, or
// another IRI whole (rdfs:comment); longPred gives the IRI back.
func shortPred(p string) string { return strings.TrimPrefix(p, athar.VocabBase) }

func longPred(p string) string {
	if strings.Contains(p, ":") {
		return p
	}
	return athar.VocabBase + p
}

func encodeTerm(t athar.Term) []byte {
	b := appendStr(nil, t.IRI)
	b = appendStr(b, t.Literal)
	b = appendStr(b, t.Lang)
	return appendStr(b, t.Datatype)
}

func decodeTerm(b []byte) (athar.Term, error) {
	var fs [4]string
	for i := range fs {
		s, rest, ok := cutStr(b)
		if !ok {
			return athar.Term{}, errCorruptRow
		}
		fs[i], b = s, rest
	}
	return athar.Term{IRI: fs[0], Literal: fs[1], Lang: fs[2], Datatype: fs[3]}, nil
}

// cutStr reads one appendStr string off b.
func cutStr(b []byte) (string, []byte, bool) {
	s, rest, ok := cutBytes(b)
	return string(s), rest, ok
}

// rmFields calls fn with the predicate (its IRI) and object of each kept quad of node in
// label, in the row's order (by predicate, then hash).
func rmFields(tx manifestTx, label string, node athar.ID, fn func(pred string, obj athar.Term) error) error {
	key := "f\x00" + label + "\x00" + string(node)
	v := tx.get(rmClaimBucket, key)
	if v == nil {
		return nil
	}
	fs, err := decodeFields(v)
	if err != nil {
		return fmt.Errorf("%s %q: %w", rmClaimBucket, key, err)
	}
	for _, f := range fs {
		obj, err := decodeTerm(f.obj)
		if err != nil {
			return fmt.Errorf("%s %q: %w", rmClaimBucket, key, err)
		}
		pred, ok := claimPredLong[f.pred]
		if !ok {
			pred = longPred(f.pred)
		}
		if err := fn(pred, obj); err != nil {
			return err
		}
	}
	return nil
}

// claimAtt is one row of a claim's records: an attestation of it, in a label.
type claimAtt struct{ label, id string }

// rmClaimParts reads a claim's parts -- subject, predicate, object or value -- and the rows
// of its attestations, without reading those: the claim is Bare. nil when no claim node
// has that id. Its fields are read in the label of its first attestation: a claim's node
// has the same quads in every label (its id is the hash of them), and a narration states a
// claim only with an attestation of it.
func rmClaimParts(tx manifestTx, id athar.ID) (*athar.Claim, []claimAtt, error) {
	prefix := "c\x00" + string(id) + "\x00"
	var atts []claimAtt
	tx.scan(rmClaimBucket, prefix, func(k string, _ []byte) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		label, a, _ := strings.Cut(k[len(prefix):], "\x00")
		atts = append(atts, claimAtt{label, a})
		return true
	})
	if len(atts) == 0 {
		return nil, nil, nil
	}
	c := &athar.Claim{ID: id, Bare: true}
	found := false
	err := rmFields(tx, atts[0].label, id, func(pred string, obj athar.Term) error {
		switch pred { // the parts the plain triple gives read as stated ones (claimPredLong)
		case athar.PredSubject:
			c.Subject, _ = athar.ParseIRI(obj.IRI)
			found = true
		case athar.PredPredicate:
			c.Predicate = strings.TrimPrefix(obj.IRI, athar.VocabBase)
			found = true
		case athar.PredObject:
			c.Object, _ = athar.ParseIRI(obj.IRI)
		case athar.PredValue:
			v := obj
			c.Value = &v
		}
		return nil
	})
	if err != nil || !found {
		return nil, nil, err
	}
	return c, atts, nil
}

// rmClaim reads a claim as claim does from Cayley: nil when no claim node has that id. Its
// parts are rmClaimParts'; then its attestations are read.
//
// corpus, when not nil, is given the IRI of the corpus record each attestation is
// recorded under (the label of one of its rows), for corpusEvidence: a record's
// attestations keep their offsets but not their passage.
//
// first, when not negative, reads only the claim's first attestations in the order they
// are listed (see rmAttestationHeads).
//
// texts, when not nil, keeps the narration texts read for evidence left implied (the rows'
// bytes, valid while tx is open), so that a page's claims read each narration's text once.
func rmClaim(tx manifestTx, id athar.ID, corpus map[athar.ID]string, texts map[string][]byte, first int) (*athar.Claim, error) {
	c, atts, err := rmClaimParts(tx, id)
	if c == nil || err != nil {
		return nil, err
	}
	c.Bare = false
	// The labels each attestation is stated in, in the order first seen: one attestation in
	// two labels is read once, as Cayley's path does.
	var order []string
	labels := make(map[string][]string, len(atts))
	for _, x := range atts {
		if labels[x.id] == nil {
			order = append(order, x.id)
		}
		labels[x.id] = append(labels[x.id], x.label)
	}
	read := func(x string) (athar.Attestation, error) {
		a := athar.Attestation{ID: athar.ID(x), Claim: id}
		for _, label := range labels[x] {
			if corpus != nil && strings.HasPrefix(label, athar.CorpusPrefix+":") {
				corpus[a.ID] = athar.ID(label).IRI()
			}
			err := rmFields(tx, label, a.ID, func(pred string, obj athar.Term) error {
				switch pred {
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
				return nil
			})
			if err != nil {
				return a, err
			}
		}
		if a.Narration == "" {
			// left implied by the narration's label it is stated in (athar.ImpliedNarrations)
			a.Narration = impliedNarration(labels[x])
		}
		if a.Evidence == "" && a.HasSpan && slices.Contains(labels[x], string(a.Narration)) {
			if err := rmPassage(tx, &a, texts); err != nil {
				return a, err
			}
		}
		return a, nil
	}
	if first >= 0 && len(order) > first {
		heads, ok, err := rmAttestationHeads(order, labels, first, read)
		if err != nil || ok {
			if ok {
				c.Attestations, c.Partial = heads.attestations, true
				c.AttestationTotal, c.NarrationTotal = len(order), heads.narrations
			}
			return c, err
		}
	}
	c.Attestations = make([]athar.Attestation, 0, len(order))
	for _, x := range order {
		a, err := read(x)
		if err != nil {
			return nil, err
		}
		c.Attestations = append(c.Attestations, a)
	}
	sortAttestations(c.Attestations)
	return c, nil
}

// impliedNarration returns the narration an attestation stated in labels (ids, as the
// claim rows hold them) and stating none is of: the first narration among its labels
// (athar.ImpliedNarrations), or "" when none is one.
func impliedNarration(labels []string) athar.ID {
	for _, l := range labels {
		if id := athar.ID(l); id.Prefix() == athar.TypeNarration.Prefix() {
			return id
		}
	}
	return ""
}

// rmPassage gives a, an attestation with offsets and no evidence in its narration's label,
// the evidence the store leaves implied there (athar.DropImplied): the passage of the
// narration's text at its offsets. texts, when not nil, caches the texts read.
func rmPassage(tx manifestTx, a *athar.Attestation, texts map[string][]byte) error {
	label := string(a.Narration)
	text, ok := texts[label]
	if !ok {
		var err error
		if text, ok, err = rmTextOf(tx, label, a.Narration); err != nil || !ok {
			return err
		}
		if texts != nil {
			texts[label] = text
		}
	}
	a.Evidence, _ = passageOf(text, a.Start, a.End)
	return nil
}

// rmTextOf returns the literal of node's text in label's row, as the row's own bytes --
// valid while tx is open -- without decoding the row's other fields: a page of fifty
// claims reads fifty narrations' rows for their passages, and decoding each text and
// title whole was the read model's largest allocation on the entity page.
func rmTextOf(tx manifestTx, label string, node athar.ID) ([]byte, bool, error) {
	key := "f\x00" + label + "\x00" + string(node)
	b := tx.get(rmClaimBucket, key)
	if b == nil {
		return nil, false, nil
	}
	corrupt := func() ([]byte, bool, error) {
		return nil, false, fmt.Errorf("%s %q: %w", rmClaimBucket, key, errCorruptRow)
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return corrupt()
	}
	b = b[k:]
	for range n {
		pred, rest, ok := cutBytes(b)
		if !ok || len(rest) < 8 {
			return corrupt()
		}
		obj, rest, ok := cutBytes(rest[8:]) // past the hash
		if !ok {
			return corrupt()
		}
		b = rest
		if string(pred) != textField {
			continue
		}
		_, obj, ok = cutBytes(obj) // past the IRI
		lit, _, ok2 := cutBytes(obj)
		if !ok || !ok2 {
			return corrupt()
		}
		return lit, true, nil
	}
	return nil, false, nil
}

// textField is the row name of a narration's vocab:text.
var textField = shortPred(athar.PredText)

// cutBytes reads one appendStr string off b, as a slice of b.
func cutBytes(b []byte) ([]byte, []byte, bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}

// passageOf is athar.Passage over the text's bytes, making a string of the passage only.
func passageOf(text []byte, start, end int) (string, bool) {
	if start < 0 || end < start {
		return "", false
	}
	i, from := 0, -1
	for b := 0; b < len(text); {
		if i == start {
			from = b
		}
		if i == end {
			return string(text[from:b]), true
		}
		_, size := utf8.DecodeRune(text[b:])
		b += size
		i++
	}
	if i == start {
		from = len(text)
	}
	if i == end && from >= 0 {
		return string(text[from:]), true
	}
	return "", false
}

// attestationHeads are a claim's first attestations and how many narrations state it.
type attestationHeads struct {
	attestations []athar.Attestation
	narrations   int
}

// rmAttestationHeads reads the first attestations of a claim in sortAttestations' order
// (by narration, then start) without reading them all: a hub's claim has thousands, and a
// page shows twenty. order lists the claim's attestations by their first label, labels the
// labels each is stated in. An attestation stated in a narration's label alone is that
// narration's (narration.Compile and hadith chains make an attestation in the label of the
// narration it names), so its narration is known from its row's key: those are read label
// by label, in order, until first of them are read and the last label is done; the others
// (a corpus record's, or one stated in two labels) are read all. Anything read that breaks
// the rule gives ok false, and the caller reads every attestation.
func rmAttestationHeads(order []string, labels map[string][]string, first int, read func(string) (athar.Attestation, error)) (attestationHeads, bool, error) {
	var cands []athar.Attestation
	narrs := map[athar.ID]bool{}
	var known []string
	for _, x := range order {
		if ls := labels[x]; len(ls) == 1 && athar.ID(ls[0]).Prefix() == athar.TypeNarration.Prefix() {
			known = append(known, x)
			narrs[athar.ID(ls[0])] = true
			continue
		}
		a, err := read(x)
		if err != nil {
			return attestationHeads{}, false, err
		}
		cands = append(cands, a)
		narrs[a.Narration] = true
	}
	done, last := 0, ""
	for _, x := range known {
		label := labels[x][0]
		if done >= first && label != last {
			break
		}
		a, err := read(x)
		if err != nil {
			return attestationHeads{}, false, err
		}
		if string(a.Narration) != label {
			return attestationHeads{}, false, nil
		}
		cands = append(cands, a)
		done, last = done+1, label
	}
	sortAttestations(cands)
	heads := append(make([]athar.Attestation, 0, min(first, len(cands))), cands[:min(first, len(cands))]...)
	return attestationHeads{attestations: heads, narrations: len(narrs)}, true, nil
}

// sortAttestations orders a claim's attestations by narration, then start.
func sortAttestations(as []athar.Attestation) {
	sort.Slice(as, func(i, j int) bool {
		a, b := as[i], as[j]
		if a.Narration != b.Narration {
			return a.Narration < b.Narration
		}
		return a.Start < b.Start
	})
}
