package cayleystore

import (
	"math/rand/v2"
	"reflect"
	"testing"

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
