package cayleystore

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

// openBulk opens a new bbolt store in bulk mode, closed when the test ends.
func openBulk(t *testing.T) *Store {
	t.Helper()
	st, err := Open("bbolt:"+t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.BeginBulk(); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestBulkArena: the bulk buffer keeps its own copies of keys and values (in its arena), an
// empty value stays distinct from an absent one, and a row rewritten over and over -- a
// hub's count -- fills the arena though the buffer's live rows stay small, which writes
// the buffer out like any other excess: the arena's memory is bounded by the budget too.
func TestBulkArena(t *testing.T) {
	st := openBulk(t)
	m := st.man.(*bulkManifest)
	const bucket = "athar.test.bulk"
	get := func(key string) []byte {
		t.Helper()
		var v []byte
		if err := m.view(func(tx manifestTx) error {
			v = bytes.Clone(tx.get(bucket, key)) // nil stays nil, empty stays empty
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return v
	}

	key, val := []byte("a-key"), []byte("one")
	if err := m.update(func(tx manifestTx) error {
		if err := tx.put(bucket, string(key), val); err != nil {
			return err
		}
		return tx.put(bucket, "empty", []byte{})
	}); err != nil {
		t.Fatal(err)
	}
	copy(key, "X")
	copy(val, "XXX")
	if got := get("a-key"); string(got) != "one" {
		t.Fatalf("after the caller reused its slice, the buffer holds %q, want %q", got, "one")
	}
	if got := get("empty"); got == nil || len(got) != 0 {
		t.Fatalf("an empty value reads back as %#v, want a present empty value", got)
	}
	if got := get("absent"); got != nil {
		t.Fatalf("an absent key reads back as %q", got)
	}

	defer func(b int) { bulkBudget = b }(bulkBudget)
	bulkBudget = 64 << 10
	value := func(i int) []byte { return fmt.Appendf(bytes.Repeat([]byte{'v'}, 1000), "%06d", i) }
	for i := range 200 {
		if err := m.update(func(tx manifestTx) error { return tx.put(bucket, "hub", value(i)) }); err != nil {
			t.Fatal(err)
		}
	}
	if m.bytes > bulkBudget || m.arena.used <= bulkBudget {
		t.Fatalf("buffer %d bytes, arena %d: the test needs live rows under the budget (%d) and the arena over it", m.bytes, m.arena.used, bulkBudget)
	}
	flushes := m.flushes
	st.mu.Lock()
	st.bulkSpill()
	st.mu.Unlock()
	if m.flushes != flushes+1 || m.arena.used != 0 {
		t.Fatalf("after the spill: %d flush(es) (before: %d), arena %d bytes; want the buffer written out and the arena dropped", m.flushes, flushes, m.arena.used)
	}
	if got := get("hub"); !bytes.Equal(got, value(199)) {
		t.Fatalf("the rewritten row reads back from disk as %d bytes ending %q, want its last value (ending %q)", len(got), got[max(0, len(got)-6):], "000199")
	}
	if got := get("a-key"); string(got) != "one" {
		t.Fatalf("after the spill, a-key reads %q, want %q", got, "one")
	}
	if err := st.EndBulk(); err != nil {
		t.Fatal(err)
	}
}

// TestBulkBudgetGrows: the buffer's budget doubles at each flush, to four times bulkBudget,
// and a spill waits for the budget of the moment.
func TestBulkBudgetGrows(t *testing.T) {
	st := openBulk(t)
	defer func(b int) { bulkBudget = b }(bulkBudget)
	bulkBudget = 64 << 10
	m := st.man.(*bulkManifest)
	row := 0
	// fill writes rows of about 1 KB until the buffer holds kb of them.
	fill := func(kb int) {
		t.Helper()
		for m.bytes < kb<<10 {
			row++
			if err := m.update(func(tx manifestTx) error {
				return tx.put("athar.test.bulk", fmt.Sprintf("row-%06d", row), bytes.Repeat([]byte{'v'}, 1000))
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	spill := func() int {
		st.mu.Lock()
		defer st.mu.Unlock()
		before := m.flushes
		st.bulkSpill()
		return m.flushes - before
	}
	for i, tc := range []struct{ under, over int }{{60, 66}, {120, 130}, {250, 260}, {250, 260}} {
		fill(tc.under)
		if n := spill(); n != 0 {
			t.Fatalf("flush %d: %d KB buffered, budget %d KB: spilled", i+1, m.bytes>>10, m.budget()>>10)
		}
		fill(tc.over)
		if n := spill(); n != 1 {
			t.Fatalf("flush %d: %d KB buffered, over the budget of %d KB: %d flushes, want 1", i+1, tc.over, tc.under, n)
		}
	}
	if got, want := m.budget(), 4*bulkBudget; got != want {
		t.Fatalf("after %d flushes the budget is %d, want %d", m.flushes, got, want)
	}
	if err := st.EndBulk(); err != nil {
		t.Fatal(err)
	}
}

// TestBulkStepThreeBeside: in bulk mode an addition's step 3 is left reading while the next
// addition commits (finishing), and is written before anything could see it missing: by
// the next Apply once Cayley has committed it, before an Apply that removes quads or
// touches the same label, and before EndBulk writes the buffer out. What the store reads
// in between is what it reads without bulk mode.
func TestBulkStepThreeBeside(t *testing.T) {
	ctx := context.Background()
	st := openBulk(t)
	plain, err := Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	apply := func(c athar.Changeset) {
		t.Helper()
		for _, s := range []*Store{st, plain} {
			if err := s.Apply(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
	}
	// entry reads a label's manifest entry and pending mark as they stand, unsettled.
	entry := func(id athar.ID) (e []byte, pending bool) {
		_ = st.man.view(func(tx manifestTx) error {
			e, pending = tx.get(manifestBucket, id.IRI()), tx.get(pendingBucket, id.IRI()) != nil
			return nil
		})
		return e, pending
	}
	same := func(when string) {
		t.Helper()
		for _, id := range fixtureLabels {
			got, err := st.NarrationQuads(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			want, err := plain.NarrationQuads(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: NarrationQuads(%s) = %v, without bulk mode %v", when, id, got, want)
			}
		}
	}

	apply(fixtureBase[0]) // n1: an addition
	first := st.finishing
	if first == nil {
		t.Fatal("an addition in bulk mode left no step 3 running beside the next write")
	}
	if e, pending := entry("narration:n1"); len(e) != 0 || !pending {
		t.Fatalf("n1's entry was written before the next write (%d bytes, pending %v)", len(e), pending)
	}
	apply(fixtureBase[1]) // n2: another label, committed beside n1's step 3
	if st.finishing == nil || st.finishing == first {
		t.Fatalf("the next addition did not settle n1's step 3 and leave its own (%p, then %p)", first, st.finishing)
	}
	if e, pending := entry("narration:n1"); len(e) == 0 || pending {
		t.Fatalf("n1's step 3 was not written after the next commit (%d bytes, pending %v)", len(e), pending)
	}
	if _, pending := entry("narration:n2"); !pending {
		t.Fatal("n2 is not pending while its step 3 runs")
	}
	same("n2's step 3 running") // NarrationQuads of n2 settles it
	if st.finishing != nil {
		t.Fatal("NarrationQuads of a pending label left its step 3 running")
	}
	apply(fixtureBase[2])
	apply(fixtureBase[2]) // the same label again: settled first
	apply(fixtureChange[0])
	if st.finishing != nil {
		t.Error("a change that removes quads left its step 3 running")
	}
	apply(fixtureChange[2])
	same("n4's step 3 running")
	apply(fixtureChange[1])
	if err := st.EndBulk(); err != nil {
		t.Fatal(err)
	}
	if st.finishing != nil {
		t.Error("EndBulk left a step 3 running")
	}
	same("after EndBulk")
	if err := st.CheckReadModel(ctx); err != nil {
		t.Error(err)
	}
	checkManifestAgainstScan(t, st)
}

// TestBulkFindClaimsByNarration: FindClaims by narration reads the narration's own quads
// (its attestations' vocab:narration is left implied by the label, athar.ImpliedNarrations),
// so an addition whose step 3 is still running beside the next write is settled first: its
// claim is found, attested by the narration.
func TestBulkFindClaimsByNarration(t *testing.T) {
	ctx := context.Background()
	st := openBulk(t)
	const n = athar.ID("narration:p")
	claim := athar.ClaimID("person:a", "advises", athar.IRITerm(athar.ID("concept:c").IRI()))
	att := athar.AttestationID(claim, n, -1, -1)
	q := func(s, p string, o athar.Term) athar.Quad {
		return athar.Quad{Subject: s, Predicate: p, Object: o, Label: n.IRI()}
	}
	c := athar.Changeset{Narration: n, Add: []athar.Quad{
		mquad(string(n), "person:a", "advises", athar.IRITerm(athar.ID("concept:c").IRI())),
		q(claim.IRI(), athar.PredSubject, athar.IRITerm(athar.ID("person:a").IRI())),
		q(claim.IRI(), athar.PredPredicate, athar.IRITerm(athar.VocabBase+"advises")),
		q(claim.IRI(), athar.PredObject, athar.IRITerm(athar.ID("concept:c").IRI())),
		q(att.IRI(), athar.PredClaim, athar.IRITerm(claim.IRI())),
	}}
	if err := st.Apply(ctx, c); err != nil {
		t.Fatal(err)
	}
	if st.finishing == nil {
		t.Fatal("an addition in bulk mode left no step 3 running beside the next write")
	}
	got, err := st.FindClaims(ctx, athar.ClaimFilter{Narration: n})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].ID != claim || len(got[0].Attestations) != 1 || got[0].Attestations[0].Narration != n {
		t.Fatalf("FindClaims(%s) = %+v, want %s attested by %s", n, got, claim, n)
	}
	if st.finishing != nil {
		t.Error("FindClaims by a pending narration left its step 3 running")
	}
}
