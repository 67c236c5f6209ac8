package athar

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// StateImpliedTypes merges the types into quads sorted as exports sort them: the result is
// what sorting everything again would give, whatever labels and nodes the types fall
// between, and a type already stated (a store written before they were left implied) is
// written once.
func TestStateImpliedTypes(t *testing.T) {
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
	want := sortQuads(append(slices.Clone(all), types...))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		qs := slices.Clone(all)
		// Some of the types already stated, as a store of an earlier build holds them.
		for _, ty := range types {
			if i > 0 && r.IntN(3) == 0 {
				qs = append(qs, ty)
			}
		}
		qs = sortQuads(qs)
		if got := StateImpliedTypes(qs); !slices.Equal(got, want) {
			t.Fatalf("round %d: merged\n%v\nwant\n%v", i, got, want)
		}
	}
	if got := StateImpliedTypes(sortQuads(slices.Clone(want))); !slices.Equal(got, want) {
		t.Error("every type stated already: not left as it was")
	}
	plain := []Quad{quad("person/x", RDFSLabel, StringTerm("X"), "narration/a")}
	if got := StateImpliedTypes(plain); !slices.Equal(got, plain) {
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
