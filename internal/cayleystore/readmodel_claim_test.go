package cayleystore

import (
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/cayleygraph/quad"

	"github.com/athar-hadith/athar/internal/athar"
)

// claimQuads is a claim node and an attestation of it in one label, an attestation with
// two notes (two objects of one predicate) and a quad of the claim in a second label.
func claimQuads() []quad.Quad {
	const base = "https://w3id.org/athar/"
	label, other := quad.IRI(base+"narration/x"), quad.IRI(base+"narration/y")
	c, a := quad.IRI(base+"claim/c1"), quad.IRI(base+"attestation/a1")
	v := func(p string) quad.IRI { return quad.IRI(athar.VocabBase + p) }
	return []quad.Quad{
		{Subject: c, Predicate: v("subject"), Object: quad.IRI(base + "person/a"), Label: label},
		{Subject: c, Predicate: v("predicate"), Object: v("advises"), Label: label},
		{Subject: c, Predicate: v("object"), Object: quad.IRI(base + "person/b"), Label: label},
		{Subject: a, Predicate: v("claim"), Object: c, Label: label},
		{Subject: a, Predicate: v("narration"), Object: label, Label: label},
		{Subject: a, Predicate: v("evidence"), Object: quad.String("he advised"), Label: label},
		{Subject: a, Predicate: v("start"), Object: quad.Int(3), Label: label},
		{Subject: a, Predicate: v("end"), Object: quad.Int(13), Label: label},
		{Subject: a, Predicate: quad.IRI(athar.RDFSComment), Object: quad.String("one note"), Label: label},
		{Subject: a, Predicate: quad.IRI(athar.RDFSComment), Object: quad.String("another"), Label: label},
		{Subject: c, Predicate: v("subject"), Object: quad.IRI(base + "person/a"), Label: other},
	}
}

func claimRows(m *memManifest) map[string]string {
	out := map[string]string{}
	for _, k := range m.keys(rmClaimBucket) {
		out[k] = string(m.get(rmClaimBucket, k))
	}
	return out
}

// TestClaimRowsDoNotDependOnOrder: a node's row is a function of its quads, whatever the
// order they come in and however they are batched; a quad added twice or removed when
// absent changes nothing; removing them all, in any order, leaves no row; and Claims reads
// every field back.
func TestClaimRowsDoNotDependOnOrder(t *testing.T) {
	qs := claimQuads()
	apply := func(m *memManifest, order []int, add bool, batch int) {
		t.Helper()
		for len(order) > 0 {
			n := min(batch, len(order))
			var b []quad.Quad
			for _, i := range order[:n] {
				b = append(b, qs[i])
			}
			if err := rmApplyAll(m, b, add); err != nil {
				t.Fatal(err)
			}
			order = order[n:]
		}
	}
	all := make([]int, len(qs))
	for i := range all {
		all[i] = i
	}
	in := newMemManifest()
	apply(in, all, true, len(qs))
	want := claimRows(in)
	// Three field rows (the claim in two labels, the attestation) and one rev row.
	if len(want) != 4 {
		t.Fatalf("%d rows, want 4: %q", len(want), want)
	}
	c, err := rmClaim(in, athar.ID("claim:c1"), nil, nil, -1)
	if err != nil || c == nil {
		t.Fatalf("rmClaim: %v, %v", c, err)
	}
	if c.Subject != "person:a" || c.Predicate != "advises" || c.Object != "person:b" || len(c.Attestations) != 1 {
		t.Fatalf("claim read back as %+v", c)
	}
	if a := c.Attestations[0]; a.Narration != "narration:x" || a.Evidence != "he advised" || a.Start != 3 || a.End != 13 || !a.HasSpan || a.Note == "" {
		t.Errorf("attestation read back as %+v", a)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		order := rng.Perm(len(qs))
		batch := 1 + rng.IntN(len(qs))
		m := newMemManifest()
		apply(m, order, true, batch)
		if got := claimRows(m); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d, order %v in batches of %d:\n%q\nwant\n%q", round, order, batch, got, want)
		}
		apply(m, order[:len(order)/2], true, batch) // again: nothing changes
		if got := claimRows(m); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: quads added twice changed the rows:\n%q", round, got)
		}
		half := rng.Perm(len(qs))[:len(qs)/2]
		apply(m, half, false, batch)
		apply(m, half, false, batch) // removed when absent: nothing changes
		apply(m, half, true, batch)
		if got := claimRows(m); !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: removed and added back, the rows are\n%q", round, got)
		}
		apply(m, rng.Perm(len(qs)), false, batch)
		if got := claimRows(m); len(got) != 0 {
			t.Fatalf("round %d: every quad removed, rows left: %q", round, got)
		}
	}
}

// TestClaimRowCorrupt: a row that does not decode is an error that names it, not a claim
// read short.
func TestClaimRowCorrupt(t *testing.T) {
	m := newMemManifest()
	if err := rmApplyAll(m, claimQuads(), true); err != nil {
		t.Fatal(err)
	}
	for _, k := range m.keys(rmClaimBucket) {
		if v := m.get(rmClaimBucket, k); len(v) > 2 {
			if err := m.put(rmClaimBucket, k, v[:len(v)-1]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := rmClaim(m, athar.ID("claim:c1"), nil, nil, -1); err == nil {
		t.Fatal("a truncated row read without an error")
	}
	// Lengths past the row's end, the largest a uvarint holds among them.
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}
	for _, v := range [][]byte{
		append([]byte{1}, huge...),
		append([]byte{1, 1, 'x', 1, 2, 3, 4, 5, 6, 7, 8}, huge...),
		{1, 1, 'x', 1, 2, 3},
		{2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0},
	} {
		if fs, err := decodeFields(v); err == nil {
			t.Errorf("decodeFields(%v) = %v, want an error", v, fs)
		}
	}
	if err := rmApplyAll(m, claimQuads()[:1], true); err == nil {
		t.Fatal("a field merged into a truncated row without an error")
	}
}

// A store written before the claims' predicates and objects were left implied states them
// beside the plain triple. Its claims read the same, and a re-import in the new shape,
// which removes the stated parts and keeps the plain triple, leaves them read from the
// triple: in the read model (whose fields from the triple are not the stated quads'
// fields, so that removing those leaves these) as on Cayley's path.
func TestClaimPartsStatedBefore(t *testing.T) {
	ctx := context.Background()
	n := athar.ID("narration:n1").IRI()
	a, r := athar.ID("person:a"), athar.ID("concept:r")
	c := athar.ClaimID(a, "advises", athar.IRITerm(r.IRI()))
	att := athar.ID(athar.AttestationPrefix + ":x").IRI()
	q := func(s, p string, o athar.Term) athar.Quad {
		return athar.Quad{Subject: s, Predicate: p, Object: o, Label: n}
	}
	plain := q(a.IRI(), athar.VocabBase+"advises", athar.IRITerm(r.IRI()))
	now := []athar.Quad{
		plain,
		q(c.IRI(), athar.PredSubject, athar.IRITerm(a.IRI())),
		q(att, athar.PredClaim, athar.IRITerm(c.IRI())),
	}
	parts := athar.ImpliedClaimParts(now)
	if len(parts) != 2 {
		t.Fatalf("implied parts %v", parts)
	}
	onEachBackend(t, func(t *testing.T, st *Store) {
		check := func(when string) {
			t.Helper()
			for _, stale := range []bool{false, true} {
				st.mu.Lock()
				st.rmStale = stale // true: reads go to Cayley's indexes
				st.mu.Unlock()
				cs, err := st.Claims(ctx, []athar.ID{c})
				if err != nil {
					t.Fatal(err)
				}
				if len(cs) != 1 || cs[0] == nil || cs[0].Subject != a || cs[0].Predicate != "advises" || cs[0].Object != r || len(cs[0].Attestations) != 1 {
					t.Fatalf("%s (Cayley's path: %v): claim %+v", when, stale, cs)
				}
				parts, err := st.ClaimParts(ctx, []athar.ID{c, "claim:absent"})
				if err != nil {
					t.Fatal(err)
				}
				want := &athar.Claim{ID: c, Subject: a, Predicate: "advises", Object: r, Bare: true}
				if len(parts) != 2 || !reflect.DeepEqual(parts[0], want) || parts[1] != nil {
					t.Fatalf("%s (Cayley's path: %v): claim parts %+v, want %+v and nil", when, stale, parts, want)
				}
				found, err := st.FindClaims(ctx, athar.ClaimFilter{Object: r, Predicate: "advises"})
				if err != nil || len(found) != 1 || found[0].ID != c {
					t.Fatalf("%s (Cayley's path: %v): claims of the object and predicate %+v, %v", when, stale, found, err)
				}
			}
			st.mu.Lock()
			st.rmStale = false
			st.mu.Unlock()
			if err := st.CheckReadModel(ctx); err != nil {
				t.Fatalf("%s: %v", when, err)
			}
		}
		if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n1", Add: append(slices.Clone(now), parts...)}); err != nil {
			t.Fatal(err)
		}
		check("parts stated")
		if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n1", Remove: parts}); err != nil {
			t.Fatal(err)
		}
		check("parts left implied")
		held, err := st.NarrationQuads(ctx, "narration:n1")
		if err != nil || len(held) != len(now) {
			t.Fatalf("the store holds %v, %v; want the %d quads of the new shape", held, err, len(now))
		}
	})
}

// passageOf cuts what athar.Passage cuts, from the text's bytes: Arabic with harakat,
// characters outside the BMP, invalid UTF-8, empty and whole passages, and offsets past
// the end or backwards.
func TestPassageOfIsPassage(t *testing.T) {
	for _, text := range []string{"", "abc", "عِكْرِمَةُ بْنُ عَمَّارٍ", "a𝄞b ﷺ c", "x\xffy\xc3", "Umar said: strike his neck"} {
		n := utf8.RuneCountInString(text)
		for start := -1; start <= n+1; start++ {
			for end := start - 1; end <= n+1; end++ {
				want, wok := athar.Passage(text, start, end)
				got, ok := passageOf([]byte(text), start, end)
				if got != want || ok != wok {
					t.Fatalf("passageOf(%q, %d, %d) = %q, %v; athar.Passage gives %q, %v", text, start, end, got, ok, want, wok)
				}
			}
		}
	}
}
