package ingest_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/hadith"
	"github.com/athar-hadith/athar/internal/isnad"
)

// withPrevious sets each record's predecessor's routes, as the corpus import does.
func withPrevious(recs []hadith.Record) []hadith.Record {
	var prev []isnad.Route
	for i := range recs {
		recs[i].Previous = nil
		if i > 0 && recs[i].Collection == recs[i-1].Collection {
			recs[i].Previous = prev
		}
		prev, _, _ = hadith.Routes(&recs[i])
	}
	return recs
}

// With the seeds, Muslim 4588 is the seed muslim-1763: the narration's routes are the
// document's (Zuhayr's first, whose wording it is), and the record's extracted routes, in
// the text's order and with the same people, are kept beside them. Re-importing writes
// nothing. The common link of the 'Umar reports of Badr is 'Ikrimah ibn 'Ammar, and stays
// so with the corpus's routes.
func TestCorpusChainsWithSeeds(t *testing.T) {
	ctx := context.Background()
	st, w := newStore(t)
	loadSeeds(t, w)
	recs := withPrevious(fixtureRecords(t))
	importRecords(t, w, recs)
	if n := changed(importRecords(t, w, recs)); n != 0 {
		t.Fatalf("re-importing the same records changed %d", n)
	}
	ns, err := st.Narrations(ctx, []athar.ID{"narration:muslim-1763", "narration:abudawud-2690", "narration:ahmad-208", "narration:tirmidhi-3081", "narration:bukhari-3955"})
	if err != nil {
		t.Fatal(err)
	}
	m := ns[0]
	hannad := []athar.ID{"person:hannad-ibn-al-sari", "person:ibn-al-mubarak", "person:ikrimah-ibn-ammar", "person:abu-zumayl", "person:ibn-abbas", "person:umar-ibn-al-khattab"}
	zuhayr := []athar.ID{"person:zuhayr-ibn-harb", "person:umar-ibn-yunus-al-hanafi", "person:ikrimah-ibn-ammar", "person:abu-zumayl", "person:ibn-abbas", "person:umar-ibn-al-khattab"}
	if !reflect.DeepEqual(m.RecordRoutes, [][]athar.ID{hannad, zuhayr}) {
		t.Errorf("Muslim 4588's record routes %v", m.RecordRoutes)
	}
	if !reflect.DeepEqual(m.Chains(), [][]athar.ID{zuhayr, hannad}) || m.Narrator != "person:umar-ibn-al-khattab" {
		t.Errorf("muslim-1763's routes %v, narrator %s: the document's", m.Chains(), m.Narrator)
	}
	routes := map[athar.ID][][]athar.ID{}
	for _, n := range ns[:4] {
		routes[n.ID] = n.Routes()
	}
	if cl, ok := athar.FindCommonLink(routes); !ok || cl.Person != "person:ikrimah-ibn-ammar" {
		t.Errorf("common link of the 'Umar reports of Badr: %v", cl.Person)
	}
	// a corpus-only narration: its routes and narrator are the record's
	b := ns[4]
	if b == nil || len(b.Chain) == 0 || b.Narrator != "person:al-bara-ibn-azib" || !reflect.DeepEqual(b.Chains(), b.RecordRoutes) {
		t.Fatalf("bukhari-3955: %+v", b)
	}
	// Person.transmitted / narrated read claims: 'Umar narrates Muslim 4588 (the seed's
	// narration) twice over -- the document's claim and the record's, one claim node.
	cs, err := st.FindClaims(ctx, athar.ClaimFilter{Subject: "person:al-zuhri", Predicate: "transmits"})
	if err != nil || len(cs) < 3 {
		t.Fatalf("al-Zuhri transmits %d: %v", len(cs), err)
	}
	// A record's attestation stores offsets, not the passage: the store reads it from the
	// edition's text, the name as written.
	texts := map[string]string{}
	for _, r := range recs {
		for _, tx := range r.Texts {
			texts[r.Key()+" "+tx.Edition] = tx.Text
		}
	}
	passages := 0
	for _, c := range cs {
		for _, a := range c.Attestations {
			key, ok := strings.CutPrefix(string(a.Narration), "narration:")
			if !ok || !a.HasSpan {
				continue
			}
			passages++
			txt, ok := texts[key+" "+a.Edition]
			if !ok {
				t.Errorf("%s: attestation by %s names edition %q", c.ID, a.Narration, a.Edition)
				continue
			}
			if r := []rune(txt); a.Evidence == "" || a.End > len(r) || string(r[a.Start:a.End]) != a.Evidence {
				t.Errorf("%s: attestation by %s: evidence %q at [%d,%d) of %s", c.ID, a.Narration, a.Evidence, a.Start, a.End, a.Edition)
			}
		}
	}
	if passages == 0 {
		t.Errorf("no attestation of al-Zuhri's transmits claims gives a passage")
	}
	// Read together (one record's text is read once for all the claims it attests, in each
	// edition), every chain and narrator claim gives the passages it gives alone.
	var ids []athar.ID
	for _, p := range []string{"transmits", "narrates"} {
		all, err := st.FindClaims(ctx, athar.ClaimFilter{Predicate: p})
		if err != nil || len(all) < 3 {
			t.Fatalf("%s: %d claims, %v", p, len(all), err)
		}
		for _, c := range all {
			ids = append(ids, c.ID)
		}
	}
	together, err := st.Claims(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		alone, err := st.Claims(ctx, []athar.ID{id})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(together[i], alone[0]) {
			t.Errorf("%s read with %d others:\n%+v\nalone:\n%+v", id, len(ids)-1, together[i], alone[0])
		}
	}
}

// A person created from a chain (a name no known person has) can be merged into another
// with Merge; re-importing the corpus afterwards keeps the merge.
func TestCorpusMergeThenReimport(t *testing.T) {
	ctx := context.Background()
	st, w := newStore(t)
	loadSeeds(t, w)
	recs := withPrevious(fixtureRecords(t))
	importRecords(t, w, recs)
	// Bukhari 3953's first link, Muhammad ibn 'Abdullah ibn Hawshab, is in no table; the
	// seed bukhari-3953 documents him.
	ns, _ := st.Narrations(ctx, []athar.ID{"narration:bukhari-3953"})
	rr := ns[0].RecordRoutes
	if len(rr) == 0 || len(rr[0]) == 0 {
		t.Fatalf("bukhari-3953 record routes %v", rr)
	}
	created := rr[0][0]
	keep := athar.ID("person:muhammad-ibn-abd-allah-ibn-hawshab")
	if got := string(created); len(got) < 9 || got[:9] != "person:w." {
		t.Fatalf("first link of Bukhari 3953: %s, want a created person", created)
	}
	res, err := w.Merge(ctx, keep, created)
	if err != nil || !res.Changed {
		t.Fatalf("merge: %+v %v", res, err)
	}
	check := func(when string) {
		ns, _ := st.Narrations(ctx, []athar.ID{"narration:bukhari-3953"})
		if got := ns[0].RecordRoutes[0][0]; got != keep {
			t.Fatalf("%s: first link %s, want %s", when, got, keep)
		}
		es, _ := st.Entities(ctx, []athar.ID{keep, created})
		if es[0] == nil || es[1] != nil {
			t.Fatalf("%s: entities %v", when, es)
		}
		merged, _ := st.MergedInto(ctx, []athar.ID{created})
		if merged[created] != keep {
			t.Fatalf("%s: MergedInto %v", when, merged)
		}
	}
	check("after the merge")
	if n := changed(importRecords(t, w, recs)); n != 0 {
		t.Fatalf("re-importing after the merge changed %d records", n)
	}
	check("after re-importing")
}
