package athar

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// StateImplied merges the types into quads sorted as exports sort them: the result is
// what sorting everything again would give, whatever labels and nodes the types fall
// between, and a type already stated (a store written before they were left implied) is
// written once.
func TestStateImplied(t *testing.T) {
	n := func(s string) string { return Base + s }
	quad := func(s, p string, o Term, label string) Quad {
		return Quad{Subject: n(s), Predicate: p, Object: o, Label: n(label)}
	}
	var all []Quad
	for _, label := range []string{"narration/a", "narration/m", "narration/z"} {
		for _, c := range []string{"claim/1", "claim/5", "claim/9"} {
			all = append(all,
				quad(c, PredSubject, IRITerm(n("person/x")), label),
				quad(c, PredPredicate, IRITerm(VocabBase+"advises"), label),
				quad("attestation/"+c[6:], PredClaim, IRITerm(n(c)), label),
				quad("attestation/"+c[6:], PredStart, IntTerm(3), label),
			)
		}
		all = append(all,
			quad("chain/q/1", PredNarrator, IRITerm(n("person/x")), label),
			quad("person/x", RDFSLabel, StringTerm("X"), label),
			quad("a-first", RDFSLabel, StringTerm("before every node"), label),
			quad("zz-last", RDFSLabel, StringTerm("after every node"), label),
		)
	}
	types := ImpliedTypes(all)
	if len(types) != 3*(3+3+1) {
		t.Fatalf("%d implied types, want 21: %v", len(types), types)
	}
	narrations := ImpliedNarrations(all)
	if len(narrations) != 3*3 {
		t.Fatalf("%d implied narrations, want 9: %v", len(narrations), narrations)
	}
	implied := slices.Concat(types, narrations)
	want := sortQuads(slices.Concat(all, implied))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		qs := slices.Clone(all)
		// Some of them already stated, as a store of an earlier build holds them.
		for _, ty := range implied {
			if i > 0 && r.IntN(3) == 0 {
				qs = append(qs, ty)
			}
		}
		qs = sortQuads(qs)
		if got := StateImplied(qs); !slices.Equal(got, want) {
			t.Fatalf("round %d: merged\n%v\nwant\n%v", i, got, want)
		}
	}
	if got := StateImplied(sortQuads(slices.Clone(want))); !slices.Equal(got, want) {
		t.Error("everything stated already: not left as it was")
	}
	plain := []Quad{quad("person/x", RDFSLabel, StringTerm("X"), "narration/a")}
	if got := StateImplied(plain); !slices.Equal(got, plain) {
		t.Errorf("quads that imply nothing: %v", got)
	}
}

// sortQuads sorts quads by label, then by key, and drops duplicates: the order of exports.
func sortQuads(qs []Quad) []Quad {
	keys := make([]string, len(qs))
	for i, q := range qs {
		keys[i] = q.Key()
	}
	sort.Sort(byLabelKey{qs, keys})
	return slices.Compact(qs)
}

func TestPassage(t *testing.T) {
	text := "قال عمر: Badr\x80 ok"
	runes := []rune(text)
	for start := -1; start <= len(runes)+1; start++ {
		for end := -1; end <= len(runes)+1; end++ {
			got, ok := Passage(text, start, end)
			in := 0 <= start && start <= end && end <= len(runes)
			if ok != in {
				t.Fatalf("Passage(%d, %d): ok %v, want %v", start, end, ok, in)
			}
			if !in {
				continue
			}
			// The same code points as []rune counts them; an invalid byte is itself.
			if want := string(runes[start:end]); got != want && !strings.Contains(got, "\x80") {
				t.Errorf("Passage(%d, %d) = %q, want %q", start, end, got, want)
			}
			if utf8.RuneCountInString(got) != end-start {
				t.Errorf("Passage(%d, %d) = %q: %d code points", start, end, got, utf8.RuneCountInString(got))
			}
		}
	}
}

// The evidence of a narration's attestation is implied by the narration's text in the same
// label: exports state it, a restore drops it, and only when it is exactly that passage.
func TestImpliedEvidence(t *testing.T) {
	n := func(s string) string { return Base + s }
	quad := func(s, p string, o Term, label string) Quad {
		return Quad{Subject: n(s), Predicate: p, Object: o, Label: n(label)}
	}
	text := "On the day of Badr, أبو بكر advised ransom."
	att := func(a, label, narration string, start, end int) []Quad {
		return []Quad{
			quad(a, PredClaim, IRITerm(n("claim/1")), label),
			quad(a, PredNarration, IRITerm(n(narration)), label),
			quad(a, PredStart, IntTerm(start), label),
			quad(a, PredEnd, IntTerm(end), label),
		}
	}
	var qs []Quad
	qs = append(qs, quad("narration/a", PredText, StringTerm(text), "narration/a"))
	qs = append(qs, att("attestation/1", "narration/a", "narration/a", 20, 27)...) // أبو بكر
	qs = append(qs, att("attestation/2", "narration/a", "narration/a", 0, 18)...)
	qs = append(qs, att("attestation/3", "narration/b", "narration/a", 0, 2)...)   // another label: no text there
	qs = append(qs, att("attestation/4", "narration/a", "narration/c", 0, 2)...)   // another narration's
	qs = append(qs, att("attestation/5", "narration/a", "narration/a", 40, 99)...) // out of the text
	qs = append(qs, quad("corpus/x/text/eng", PredText, StringTerm(text), "corpus/x"))
	qs = append(qs, att("attestation/6", "corpus/x", "corpus/x", 0, 2)...) // a record's: read from its edition
	stated := quad("attestation/2", PredEvidence, StringTerm("On the day of Badr"), "narration/a")
	differs := quad("attestation/7", PredEvidence, StringTerm("On  the day"), "narration/a")
	qs = append(qs, att("attestation/7", "narration/a", "narration/a", 0, 10)...)

	got := ImpliedEvidence(append(slices.Clone(qs), stated, differs))
	want := []Quad{quad("attestation/1", PredEvidence, StringTerm("أبو بكر"), "narration/a")}
	if !slices.Equal(got, want) {
		t.Fatalf("implied %v, want %v", got, want)
	}
	got = ImpliedEvidence(qs)
	want = append(want, stated, quad("attestation/7", PredEvidence, StringTerm("On the day"), "narration/a"))
	if !slices.Equal(got, want) {
		t.Fatalf("with no evidence stated: implied %v, want %v", got, want)
	}

	// A restore keeps the evidence that differs from the passage, and any that is not a
	// plain string; it drops the rest, the types, and the narrations the labels imply.
	tagged := quad("attestation/1", PredEvidence, Term{Literal: "أبو بكر", Lang: "ar"}, "narration/a")
	typ := quad("attestation/1", RDFType, IRITerm(ClassAttestation), "narration/a")
	full := append(slices.Clone(qs), stated, differs, tagged, typ)
	kept := DropImplied(slices.Clone(full))
	ownLabel := func(q Quad) bool {
		return q.Predicate == PredNarration && q.Object.IRI == n("narration/a") && q.Label == n("narration/a")
	}
	wantKept := slices.DeleteFunc(append(slices.Clone(qs), differs, tagged), ownLabel)
	if !slices.Equal(kept, wantKept) {
		t.Errorf("restored %v\nwant %v", kept, wantKept)
	}
	// The evidence is implied as well when the narration is, as the store holds both.
	store := DropImplied(append(slices.Clone(qs), differs))
	if got := ImpliedEvidence(store); !slices.Equal(got, want[:2]) { // attestation/7 states its own
		t.Errorf("with the narrations left implied: evidence %v, want %v", got, want)
	}
	// What an export states, a restore drops: the round trip gives the store's quads back,
	// and the export states every narration and evidence.
	exported := StateImplied(sortQuads(slices.Clone(store)))
	for _, q := range slices.Concat(qs, want[:2], []Quad{differs}) {
		if !slices.Contains(exported, q) {
			t.Errorf("the export does not state %v", q)
		}
	}
	if back := DropImplied(exported); !slices.Equal(sortQuads(back), sortQuads(store)) {
		t.Errorf("stated then dropped: %v\nwant %v", back, store)
	}
}

// An attestation's narration is implied by the narration's label it is stated in, when it
// states its claim there and names no other narration: only then does the store leave it
// out, and every export states it again.
func TestImpliedNarrations(t *testing.T) {
	n := func(s string) string { return Base + s }
	quad := func(s, p string, o Term, label string) Quad {
		return Quad{Subject: n(s), Predicate: p, Object: o, Label: n(label)}
	}
	claim := func(a, label string) Quad { return quad(a, PredClaim, IRITerm(n("claim/1")), label) }
	narr := func(a, narration, label string) Quad { return quad(a, PredNarration, IRITerm(n(narration)), label) }
	qs := []Quad{
		claim("attestation/1", "narration/a"), narr("attestation/1", "narration/a", "narration/a"), // implied: dropped
		claim("attestation/2", "narration/a"),                                                      // implied and not stated: stated by exports
		claim("attestation/3", "narration/a"), narr("attestation/3", "narration/c", "narration/a"), // another's: kept
		claim("attestation/4", "corpus/x"), narr("attestation/4", "narration/h", "corpus/x"), // a record's: kept
		claim("attestation/5", "corpus/x"),                                                                               // no narration label to imply one
		quad("attestation/6", PredStart, IntTerm(1), "narration/a"), narr("attestation/6", "narration/a", "narration/a"), // no claim: not an attestation here
		claim("attestation/7", "narration/b"), narr("attestation/7", "narration/a", "narration/b"), // stated in another narration's label: kept
	}
	got := ImpliedNarrations(qs)
	want := []Quad{narr("attestation/2", "narration/a", "narration/a")}
	if !slices.Equal(got, want) {
		t.Fatalf("implied %v, want %v", got, want)
	}
	kept := DropImplied(slices.Clone(qs))
	wantKept := slices.DeleteFunc(slices.Clone(qs), func(q Quad) bool { return q == narr("attestation/1", "narration/a", "narration/a") })
	if !slices.Equal(kept, wantKept) {
		t.Errorf("dropped to %v\nwant %v", kept, wantKept)
	}
	if got := ImpliedNarrations(kept); !slices.Equal(got, []Quad{narr("attestation/1", "narration/a", "narration/a"), narr("attestation/2", "narration/a", "narration/a")}) {
		t.Errorf("after the drop: implied %v", got)
	}
	if back := StateImplied(sortQuads(slices.Clone(kept))); !slices.Equal(sortQuads(DropImplied(slices.Clone(back))), sortQuads(kept)) {
		t.Errorf("stated then dropped: %v", back)
	}
}

// A claim node's predicate and object (or value) are implied by the plain triple of its
// label from its subject whose claim id is the node's, and by nothing else: not by a
// triple in another label, nor for a triple no claim node states. DropImplied takes out
// exactly the parts so implied, StateImplied puts them back.
func TestImpliedClaimParts(t *testing.T) {
	a, b := Base+"narration/a", Base+"narration/b"
	x, ransom := ID("person:x"), ID("concept:ransom")
	advises := Quad{Subject: x.IRI(), Predicate: VocabBase + "advises", Object: IRITerm(ransom.IRI()), Label: a}
	killed := Quad{Subject: ID("event:badr").IRI(), Predicate: VocabBase + "killedCount", Object: IntTerm(70), Label: a}
	c1 := ClaimID(x, "advises", IRITerm(ransom.IRI())).IRI()
	c2 := ClaimID("event:badr", "killedCount", IntTerm(70)).IRI()
	if id, ok := ClaimOf(advises); !ok || id.IRI() != c1 {
		t.Fatalf("ClaimOf(advises) = %s, %v; want %s", id, ok, c1)
	}
	if _, ok := ClaimOf(Quad{Subject: x.IRI(), Predicate: PredSubject, Object: IRITerm(ransom.IRI())}); ok {
		t.Fatal("a structural quad taken for a plain triple")
	}
	if ref, ok := TripleRef(advises); !ok || ref.ID.IRI() != c1 || ref.Subject != x || ref.Predicate != "advises" || ref.Object != ransom || ref.Value != nil {
		t.Fatalf("TripleRef(advises) = %+v, %v", ref, ok)
	}
	if ref, ok := TripleRef(killed); !ok || ref.ID.IRI() != c2 || ref.Object != "" || ref.Value == nil || *ref.Value != IntTerm(70) {
		t.Fatalf("TripleRef(killed) = %+v, %v", ref, ok)
	}
	for _, q := range []Quad{
		{Subject: x.IRI(), Predicate: PredSubject, Object: IRITerm(ransom.IRI())},               // structural
		{Subject: x.IRI(), Predicate: RDFSLabel, Object: StringTerm("x")},                       // not the vocabulary
		{Subject: "http://example.org/x", Predicate: advises.Predicate, Object: advises.Object}, // not an entity
	} {
		if ref, ok := TripleRef(q); ok {
			t.Errorf("TripleRef(%v) = %+v: not a plain triple from an entity", q, ref)
		}
	}
	all := []Quad{
		advises, killed,
		{Subject: c1, Predicate: PredSubject, Object: IRITerm(x.IRI()), Label: a},
		{Subject: c2, Predicate: PredSubject, Object: IRITerm(ID("event:badr").IRI()), Label: a},
		// the same claim node in label b, whose plain triple is not there: nothing implied
		{Subject: c1, Predicate: PredSubject, Object: IRITerm(x.IRI()), Label: b},
		// a plain triple no claim node states: nothing implied
		{Subject: x.IRI(), Predicate: VocabBase + "participatesIn", Object: IRITerm(ID("event:uhud").IRI()), Label: a},
	}
	want := []Quad{
		{Subject: c1, Predicate: PredPredicate, Object: IRITerm(VocabBase + "advises"), Label: a},
		{Subject: c1, Predicate: PredObject, Object: IRITerm(ransom.IRI()), Label: a},
		{Subject: c2, Predicate: PredPredicate, Object: IRITerm(VocabBase + "killedCount"), Label: a},
		{Subject: c2, Predicate: PredValue, Object: IntTerm(70), Label: a},
	}
	if got := ImpliedClaimParts(all); !slices.Equal(got, want) {
		t.Fatalf("implied parts\n%v\nwant\n%v", got, want)
	}
	// Stated already (a store written before): implied still, not stated twice.
	stated := append(slices.Clone(all), want[0], want[3])
	if got := ImpliedClaimParts(stated); !slices.Equal(got, []Quad{want[1], want[2]}) {
		t.Errorf("with two stated, implied %v", got)
	}
	// A stated part the triple does not say stays; the parts it says go.
	other := Quad{Subject: c1, Predicate: PredObject, Object: IRITerm(ID("concept:execution").IRI()), Label: a}
	in := slices.Concat(all, want, []Quad{other})
	got := DropImplied(slices.Clone(in))
	if !slices.Equal(sortQuads(got), sortQuads(append(slices.Clone(all), other))) {
		t.Errorf("DropImplied kept\n%v", sortQuads(got))
	}
	full := StateImplied(sortQuads(slices.Clone(all)))
	for _, q := range want {
		if !slices.Contains(full, q) {
			t.Errorf("StateImplied lacks %v", q)
		}
	}
	if back := DropImplied(slices.Clone(full)); !slices.Equal(sortQuads(back), sortQuads(slices.Clone(all))) {
		t.Errorf("state then drop: %v", back)
	}
}
