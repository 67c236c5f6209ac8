// Package storetest is the conformance suite every athar.Store implementation must pass.
// Each backend's tests call Run with a function opening a fresh, empty store.
package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/schema"
)

// Run runs the suite. open must return a new empty store; Run closes it.
func Run(t *testing.T, open func(t *testing.T) athar.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, st athar.Store)
	}{
		{"ApplyAndNarrationQuads", testApply},
		{"RepeatedQuadsStoredOnce", testRepeatedQuads},
		{"SameTripleTwoLabels", testTwoLabels},
		{"QuadsSortedAndComplete", testQuads},
		{"QuadsAbout", testQuadsAbout},
		{"Entities", testEntities},
		{"NamesDoNotDependOnOrder", testNameVoting},
		{"DefinedBy", testDefinedBy},
		{"EntityIDs", testEntityIDs},
		{"Narrations", testNarrations},
		{"NarrationRoutes", testNarrationRoutes},
		{"FindClaims", testFindClaims},
		{"Claims", testClaims},
		{"ClaimsAboutAgreesWithFindClaims", testClaimsAbout},
		{"Edges", testEdges},
		{"RemoveRestoresExactly", testRemove},
		{"CancelledContextChangesNothing", testCancelled},
		{"ReadsAfterTheDeadlineFail", testReadsAfterDeadline},
		{"ConcurrentReadersAndWriter", testConcurrent},
		{"Gradings", testGradings},
		{"NarrationSummaries", testNarrationSummaries},
		{"MergedIntoAndFormerIDs", testMergedInto},
		{"ReservedGraph", testReservedGraph},
		{"MentionsOfCorpusRecords", testRecordMentions},
		{"ReplaceWithFewerUsesOfATerm", testFewerUses},
		{"NarrationQuadsAgreeWithAScan", testNarrationQuadsAgree},
		{"ReadModelAgreesWithQuads", testReadModelAgrees},
		{"PagesWithoutNarrations", testPagesWithoutNarrations},
		{"ClaimHeads", testClaimHeads},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := open(t)
			defer st.Close()
			tc.fn(t, st)
		})
	}
	t.Run("ClosedStoreErrors", func(t *testing.T) {
		st := open(t)
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Entities(context.Background(), []athar.ID{"person:a"}); athar.ErrorCode(err) != athar.Unavailable {
			t.Errorf("Entities on a closed store: %v (code %q), want %s", err, athar.ErrorCode(err), athar.Unavailable)
		}
		if err := st.Apply(context.Background(), athar.Changeset{Narration: "narration:x", Add: []athar.Quad{{Subject: "a", Predicate: "b", Object: athar.StringTerm("c"), Label: "d"}}}); athar.ErrorCode(err) != athar.Unavailable {
			t.Errorf("Apply on a closed store: %v (code %q), want %s", err, athar.ErrorCode(err), athar.Unavailable)
		}
	})
}

// docA and docB share people and a claim; docB names Abu Bakr differently.
const docA = `
narration:
  id: narration:a
  title: Report A
  references: [{collection: Test, number: "1"}]
  narrator: person:umar
  chain: [person:ibn-abbas, person:umar]
  language: en
  text: "Abu Bakr advised ransom. 'Umar advised execution. Badr came before Uhud. Seventy were killed."
entities:
  - {id: person:abu-bakr, type: Person, name: Abu Bakr, arabic: [أبو بكر], aliases: [al-Siddiq]}
  - {id: person:umar, type: Person, name: "'Umar", aliases: [Umar]}
  - {id: person:ibn-abbas, type: Person, name: "Ibn 'Abbas"}
  - {id: concept:ransom, type: Concept, name: ransom}
  - {id: concept:execution, type: Concept, name: execution}
  - {id: event:badr, type: Event, name: Badr}
  - {id: event:uhud, type: Event, name: Uhud}
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
  - {subject: person:umar, predicate: advises, object: concept:execution, evidence: "'Umar advised execution"}
  - {subject: event:badr, predicate: precedes, object: event:uhud, evidence: "Badr came before Uhud"}
  - {subject: event:badr, predicate: killedCount, value: 70, evidence: "Seventy were killed"}
  - {subject: verse:8:67, predicate: revealedRegarding, object: concept:ransom, evidence: "ransom"}
`

const docB = `
narration:
  id: narration:b
  title: Report B
  references: [{collection: Test, number: "2", edition: Second}]
  text: "Abu Bakr al-Siddiq advised ransom, and Badr was before Uhud."
entities:
  - {id: person:abu-bakr, type: Person, name: Abu Bakr al-Siddiq}
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr al-Siddiq advised ransom"}
  - {subject: event:badr, predicate: precedes, object: event:uhud, evidence: "Badr was before Uhud"}
`

// compile turns a document into its changeset against the store, as the importer would.
func compile(t *testing.T, st athar.Store, src string) athar.Changeset {
	t.Helper()
	ctx := context.Background()
	d, err := narration.Parse("test", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := narration.Validate(ctx, d, schema.Vocabulary(), st)
	if err != nil {
		t.Fatal(err)
	}
	have, err := st.NarrationQuads(ctx, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	return athar.Diff(c.ID, have, narration.Compile(c))
}

func apply(t *testing.T, st athar.Store, docs ...string) {
	t.Helper()
	for _, d := range docs {
		if err := st.Apply(context.Background(), compile(t, st, d)); err != nil {
			t.Fatal(err)
		}
	}
}

func allQuads(t *testing.T, st athar.Store) []string {
	t.Helper()
	var out []string
	if err := st.Quads(context.Background(), func(q athar.Quad) error {
		out = append(out, q.Key())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func testApply(t *testing.T, st athar.Store) {
	ctx := context.Background()
	cs := compile(t, st, docA)
	if len(cs.Add) == 0 || len(cs.Remove) != 0 {
		t.Fatalf("first compile: %d adds, %d removes", len(cs.Add), len(cs.Remove))
	}
	if err := st.Apply(ctx, cs); err != nil {
		t.Fatal(err)
	}
	got, err := st.NarrationQuads(ctx, "narration:a")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keys(got), keys(cs.Add)) {
		t.Fatalf("NarrationQuads returned %d quads, want the %d applied", len(got), len(cs.Add))
	}
	// Applying again is a no-op, and a recompile finds nothing to change.
	if err := st.Apply(ctx, cs); err != nil {
		t.Fatal(err)
	}
	if again := compile(t, st, docA); !again.Empty() {
		t.Fatalf("recompiling an imported document: %d adds, %d removes", len(again.Add), len(again.Remove))
	}
	if qs, _ := st.NarrationQuads(ctx, "narration:none"); len(qs) != 0 {
		t.Fatalf("unknown narration has %d quads", len(qs))
	}
}

func keys(qs []athar.Quad) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Key()
	}
	sort.Strings(out)
	return out
}

// testRepeatedQuads: a change that lists a quad more than once -- twice in one changeset,
// again in another -- stores it once, and its removal leaves nothing behind; the read
// model counts it once.
func testRepeatedQuads(t *testing.T, st athar.Store) {
	ctx := context.Background()
	cs := compile(t, st, docA)
	twice := append(slices.Clone(cs.Add), cs.Add...)
	slices.Reverse(twice[len(cs.Add):])
	if err := st.Apply(ctx, athar.Changeset{Narration: cs.Narration, Add: twice}, athar.Changeset{Narration: cs.Narration, Add: cs.Add[:5]}); err != nil {
		t.Fatal(err)
	}
	if got := allQuads(t, st); !reflect.DeepEqual(got, keys(cs.Add)) {
		t.Fatalf("the store holds %d quads, want the %d distinct ones applied", len(got), len(cs.Add))
	}
	checkReadModel(t, st, 0)
	if err := st.Apply(ctx, athar.Changeset{Narration: cs.Narration, Remove: cs.Add}); err != nil {
		t.Fatal(err)
	}
	if got := allQuads(t, st); len(got) != 0 {
		t.Fatalf("removing every quad applied left %d", len(got))
	}
	if es, err := st.EntityIDs(ctx, ""); err != nil || len(es) != 0 {
		t.Fatalf("removing every quad applied left entities %v (%v)", es, err)
	}
	checkReadModel(t, st, 1)
}

func testTwoLabels(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	n := 0
	for _, k := range allQuads(t, st) {
		if k == "<"+athar.ID("person:abu-bakr").IRI()+"> <"+athar.VocabBase+"advises> <"+athar.ID("concept:ransom").IRI()+"> <"+athar.ID("narration:a").IRI()+">" ||
			k == "<"+athar.ID("person:abu-bakr").IRI()+"> <"+athar.VocabBase+"advises> <"+athar.ID("concept:ransom").IRI()+"> <"+athar.ID("narration:b").IRI()+">" {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("the triple asserted by two narrations is stored %d times, want once per narration (2)", n)
	}
}

func testQuads(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	var labels []string
	var got []athar.Quad
	if err := st.Quads(context.Background(), func(q athar.Quad) error {
		labels = append(labels, q.Label)
		got = append(got, q)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !sort.StringsAreSorted(labels) {
		t.Fatal("Quads is not sorted by label")
	}
	a, _ := st.NarrationQuads(context.Background(), "narration:a")
	b, _ := st.NarrationQuads(context.Background(), "narration:b")
	if len(got) != len(a)+len(b) {
		t.Fatalf("Quads returned %d, NarrationQuads %d+%d", len(got), len(a), len(b))
	}
	stop := fmt.Errorf("stop")
	n := 0
	if err := st.Quads(context.Background(), func(athar.Quad) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("Quads did not stop at the callback's error: %v after %d", err, n)
	}
}

func testEntities(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	es, err := st.Entities(context.Background(), []athar.ID{"person:abu-bakr", "person:nobody", "verse:8:67", "event:badr", "narration:a", "claim:x"})
	if err != nil {
		t.Fatal(err)
	}
	if es[1] != nil || es[5] != nil {
		t.Fatalf("undefined ids returned entities: %+v %+v", es[1], es[5])
	}
	ab := es[0]
	if ab == nil || ab.Type != athar.TypePerson {
		t.Fatalf("abu-bakr: %+v", ab)
	}
	if !reflect.DeepEqual(ab.Arabic, []string{"أبو بكر"}) {
		t.Errorf("Arabic = %q", ab.Arabic)
	}
	mentions, err := st.Mentions(context.Background(), []athar.ID{"person:abu-bakr", "person:nobody", "event:badr", "claim:x"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(mentions["person:abu-bakr"], []athar.ID{"narration:a", "narration:b"}) {
		t.Errorf("Mentions(abu-bakr) = %v", mentions["person:abu-bakr"])
	}
	if len(mentions) != 2 {
		t.Errorf("Mentions = %v, want abu-bakr and badr only", mentions)
	}
	v := es[2]
	if v == nil || v.Type != athar.TypeVerse || v.Name != "Al-Anfal 8:67" {
		t.Errorf("verse: %+v", v)
	}
	if es[4] == nil || es[4].Type != athar.TypeNarration || es[4].Name != "Report A" {
		t.Errorf("narration as entity: %+v", es[4])
	}
	if es[3] == nil || !reflect.DeepEqual(mentions["event:badr"], []athar.ID{"narration:a", "narration:b"}) {
		t.Errorf("badr mentioned by: %+v", mentions["event:badr"])
	}
}

func testNameVoting(t *testing.T, st athar.Store) {
	// A gives "Abu Bakr", B gives "Abu Bakr al-Siddiq": one vote each, so the
	// lexicographically smaller wins whatever the order; the other is an alias.
	apply(t, st, docB2, docA)
	es, err := st.Entities(context.Background(), []athar.ID{"person:abu-bakr"})
	if err != nil {
		t.Fatal(err)
	}
	if es[0].Name != "Abu Bakr" {
		t.Errorf("Name = %q, want Abu Bakr", es[0].Name)
	}
	if !reflect.DeepEqual(es[0].Aliases, []string{"Abu Bakr al-Siddiq", "al-Siddiq"}) {
		t.Errorf("Aliases = %q", es[0].Aliases)
	}
}

// docB2 is docB defining its own entities, so that it can be imported first.
const docB2 = `
narration:
  id: narration:b
  title: Report B
  references: [{collection: Test, number: "2", edition: Second}]
  text: "Abu Bakr al-Siddiq advised ransom, and Badr was before Uhud."
entities:
  - {id: person:abu-bakr, type: Person, name: Abu Bakr al-Siddiq}
  - {id: concept:ransom, type: Concept, name: ransom}
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr al-Siddiq advised ransom"}
`

func testDefinedBy(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	got, err := st.DefinedBy(context.Background(), []athar.ID{"person:abu-bakr", "event:badr", "person:nobody", "verse:8:67"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[athar.ID][]athar.ID{
		"person:abu-bakr": {"narration:a", "narration:b"},
		"event:badr":      {"narration:a"},
		"verse:8:67":      {"narration:a"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("DefinedBy = %v, want %v", got, want)
	}
}

func testEntityIDs(t *testing.T, st athar.Store) {
	apply(t, st, docA)
	got, err := st.EntityIDs(context.Background(), athar.TypeEvent)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []athar.ID{"event:badr", "event:uhud"}) {
		t.Errorf("events = %v", got)
	}
	all, _ := st.EntityIDs(context.Background(), "")
	if len(all) != 9 { // 7 defined entities, one verse, one narration
		t.Errorf("all entities = %v", all)
	}
	if !sort.SliceIsSorted(all, func(i, j int) bool { return all[i] < all[j] }) {
		t.Error("EntityIDs not sorted")
	}
}

func testNarrations(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	ns, err := st.Narrations(context.Background(), []athar.ID{"narration:a", "narration:zzz", "person:umar"})
	if err != nil {
		t.Fatal(err)
	}
	if ns[1] != nil || ns[2] != nil {
		t.Fatal("unknown ids returned narrations")
	}
	a := ns[0]
	want := &athar.Narration{
		ID: "narration:a", Title: "Report A", Language: "en",
		Text:       "Abu Bakr advised ransom. 'Umar advised execution. Badr came before Uhud. Seventy were killed.",
		References: []athar.Reference{{Collection: "Test", Number: "1"}},
		Narrator:   "person:umar",
		Chain:      []athar.ID{"person:ibn-abbas", "person:umar"},
	}
	want.Texts = []athar.NarrationText{{Language: "en", Text: want.Text, Source: athar.TextFromDocument}}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("narration:a =\n%+v\nwant\n%+v", a, want)
	}
	// QuadsTo: the quads with a predicate and an object, under any label.
	qs, err := st.QuadsTo(context.Background(), athar.PredNumber, athar.StringTerm("1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 1 || qs[0].Label != "https://w3id.org/athar/narration/a" || !strings.HasPrefix(qs[0].Subject, "https://w3id.org/athar/reference/a/") {
		t.Fatalf("QuadsTo(number, \"1\") = %v", qs)
	}
	if qs, err := st.QuadsTo(context.Background(), athar.PredNumber, athar.StringTerm("no such number")); err != nil || len(qs) != 0 {
		t.Fatalf("QuadsTo of an absent value = %v, %v", qs, err)
	}
}

// docRoutes gives three routes: its chain and two further ones.
const docRoutes = `
narration:
  id: narration:r
  title: Report R
  references: [{collection: Test, number: "3"}]
  narrator: person:umar
  chain: [person:ibn-abbas, person:umar]
  routes:
    - [person:abu-bakr, person:ibn-abbas, person:umar]
    - [person:abu-bakr, person:umar]
  text: "Badr came before Uhud."
claims:
  - {subject: event:badr, predicate: precedes, object: event:uhud, evidence: "Badr came before Uhud"}
`

func testNarrationRoutes(t *testing.T, st athar.Store) {
	apply(t, st, docA, docRoutes)
	ns, err := st.Narrations(context.Background(), []athar.ID{"narration:r"})
	if err != nil {
		t.Fatal(err)
	}
	r := ns[0]
	if !reflect.DeepEqual(r.Chain, []athar.ID{"person:ibn-abbas", "person:umar"}) {
		t.Errorf("chain = %v, want the first route", r.Chain)
	}
	want := [][]athar.ID{{"person:abu-bakr", "person:ibn-abbas", "person:umar"}, {"person:abu-bakr", "person:umar"}}
	if !reflect.DeepEqual(r.MoreRoutes, want) {
		t.Errorf("further routes = %v, want %v", r.MoreRoutes, want)
	}
	// The routes-only read gives the same routes and narrator, and nothing it skips.
	rs, err := st.NarrationRoutes(context.Background(), []athar.ID{"narration:r", "narration:absent"})
	if err != nil {
		t.Fatal(err)
	}
	if rs[1] != nil || rs[0] == nil || !reflect.DeepEqual(rs[0].Routes(), r.Routes()) || rs[0].Narrator != r.Narrator || len(rs[0].Routes()) != 3 {
		t.Errorf("NarrationRoutes = %+v, want the routes %v and narrator %s of Narrations, and nil for an absent one", rs, r.Routes(), r.Narrator)
	}
	if rs[0] != nil && (rs[0].Text != "" || len(rs[0].References) != 0 || len(rs[0].Texts) != 0) {
		t.Errorf("NarrationRoutes read what it skips: %+v", rs[0])
	}
	cs, err := st.FindClaims(context.Background(), athar.ClaimFilter{Predicate: "transmits", Object: "narration:r"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cs {
		got = append(got, string(c.Subject))
	}
	sort.Strings(got)
	if w := []string{"person:abu-bakr", "person:ibn-abbas", "person:umar"}; !reflect.DeepEqual(got, w) {
		t.Errorf("transmitters = %v, want everyone in every route, once: %v", got, w)
	}
}

func testFindClaims(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	ctx := context.Background()
	cases := []struct {
		name string
		f    athar.ClaimFilter
		want []string // "subject predicate object-or-value"
	}{
		{"by subject", athar.ClaimFilter{Subject: "person:abu-bakr"}, []string{"person:abu-bakr advises concept:ransom"}},
		{"by predicate", athar.ClaimFilter{Predicate: "advises"}, []string{"person:abu-bakr advises concept:ransom", "person:umar advises concept:execution"}},
		{"by object", athar.ClaimFilter{Object: "concept:ransom"}, []string{"person:abu-bakr advises concept:ransom", "verse:8:67 revealedRegarding concept:ransom"}},
		{"by entity either side", athar.ClaimFilter{Entity: "event:uhud"}, []string{"event:badr precedes event:uhud"}},
		{"by narration", athar.ClaimFilter{Narration: "narration:b"}, []string{"event:badr precedes event:uhud", "person:abu-bakr advises concept:ransom"}},
		{"corroborated", athar.ClaimFilter{MinAttestations: 2}, []string{"event:badr precedes event:uhud", "person:abu-bakr advises concept:ransom"}},
		{"combined", athar.ClaimFilter{Predicate: "advises", Narration: "narration:a", MinAttestations: 2}, []string{"person:abu-bakr advises concept:ransom"}},
		{"value", athar.ClaimFilter{Predicate: "killedCount"}, []string{"event:badr killedCount 70"}},
		{"derived chain claims", athar.ClaimFilter{Predicate: "transmits"}, []string{"person:ibn-abbas transmits narration:a", "person:umar transmits narration:a"}},
		{"nothing", athar.ClaimFilter{Subject: "person:nobody"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := st.FindClaims(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, cl := range got {
				o := string(cl.Object)
				if cl.Value != nil {
					o = cl.Value.Literal
				}
				s = append(s, fmt.Sprintf("%s %s %s", cl.Subject, cl.Predicate, o))
			}
			if !reflect.DeepEqual(s, c.want) {
				t.Errorf("got %q, want %q", s, c.want)
			}
		})
	}
}

func testClaims(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	ctx := context.Background()
	id := athar.ClaimID("person:abu-bakr", "advises", athar.IRITerm(athar.ID("concept:ransom").IRI()))
	cs, err := st.Claims(ctx, []athar.ID{id, "claim:nope"})
	if err != nil {
		t.Fatal(err)
	}
	if cs[1] != nil {
		t.Fatal("unknown claim returned")
	}
	c := cs[0]
	if c == nil || len(c.Attestations) != 2 {
		t.Fatalf("claim %s: %+v", id, c)
	}
	ns, _ := st.Narrations(ctx, []athar.ID{"narration:a", "narration:b"})
	for i, a := range c.Attestations {
		if a.Narration != ns[i].ID {
			t.Fatalf("attestation %d from %s, want %s", i, a.Narration, ns[i].ID)
		}
		if !a.HasSpan || string([]rune(ns[i].Text)[a.Start:a.End]) != a.Evidence {
			t.Errorf("attestation %d: [%d,%d) does not slice %q out of the text", i, a.Start, a.End, a.Evidence)
		}
	}
	// The narrator claim has an attestation without evidence.
	nid := athar.ClaimID("person:umar", "narrates", athar.IRITerm(athar.ID("narration:a").IRI()))
	ncs, _ := st.Claims(ctx, []athar.ID{nid})
	if ncs[0] == nil || len(ncs[0].Attestations) != 1 || ncs[0].Attestations[0].HasSpan {
		t.Errorf("narrates claim: %+v", ncs[0])
	}
}

// docTwice attests a claim twice.
const docTwice = `
narration:
  id: narration:c
  title: Report C
  references: [{collection: Test, number: "3"}]
  text: "Abu Bakr advised ransom. He said it twice: ransom them."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "He said it twice: ransom them"}
`

// testClaimsAbout checks the cheap form against the full one, for every entity of the
// graph (values, derived chain claims, three narrations on one claim, one of them twice).
// A claim cannot have its subject as object: validation refuses it.
func testClaimsAbout(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB, docTwice)
	ctx := context.Background()
	ids, err := st.EntityIDs(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, "narration:a", "person:nobody", ids[0]) // a narration, an unknown id, a repeat
	got, err := st.ClaimsAbout(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, id := range ids {
		full, err := st.FindClaims(ctx, athar.ClaimFilter{Entity: id})
		if err != nil {
			t.Fatal(err)
		}
		var want []athar.ClaimRef
		for _, c := range full {
			ref := athar.ClaimRef{ID: c.ID, Subject: c.Subject, Predicate: c.Predicate, Object: c.Object, Value: c.Value}
			seen := map[athar.ID]bool{}
			for _, a := range c.Attestations {
				if !seen[a.Narration] {
					seen[a.Narration] = true
					ref.Narrations = append(ref.Narrations, a.Narration)
				}
			}
			sort.Slice(ref.Narrations, func(i, j int) bool { return ref.Narrations[i] < ref.Narrations[j] })
			want = append(want, ref)
		}
		if len(got[id]) != len(want) || len(want) > 0 && !reflect.DeepEqual(got[id], want) {
			t.Errorf("ClaimsAbout(%s) =\n%+v\nFindClaims gives\n%+v", id, got[id], want)
		}
		total += len(want)
	}
	if total == 0 {
		t.Fatal("no claims at all: the comparison proves nothing")
	}
	ransom := got["concept:ransom"]
	if len(ransom) != 2 || ransom[0].Subject != "person:abu-bakr" || len(ransom[0].Narrations) != 3 {
		t.Errorf("claims about concept:ransom = %+v, want abu-bakr's advice (three narrations) first", ransom)
	}
}

func testEdges(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	got, err := st.Edges(context.Background(), []athar.ID{"concept:ransom", "person:nobody"})
	if err != nil {
		t.Fatal(err)
	}
	want := []athar.Edge{
		{Source: "person:abu-bakr", Target: "concept:ransom", Predicate: "advises", Attestations: 2},
		{Source: "verse:8:67", Target: "concept:ransom", Predicate: "revealedRegarding", Attestations: 1},
	}
	if !reflect.DeepEqual(got["concept:ransom"], want) {
		t.Errorf("edges of ransom = %+v, want %+v", got["concept:ransom"], want)
	}
	if _, ok := got["person:nobody"]; ok {
		t.Error("edges for an unknown id")
	}
}

func testRemove(t *testing.T, st athar.Store) {
	ctx := context.Background()
	apply(t, st, docA)
	before := allQuads(t, st)
	apply(t, st, docB)
	have, _ := st.NarrationQuads(ctx, "narration:b")
	if err := st.Apply(ctx, athar.Diff("narration:b", have, nil)); err != nil {
		t.Fatal(err)
	}
	if after := allQuads(t, st); !reflect.DeepEqual(before, after) {
		t.Fatalf("removing narration:b left %d quads, want the %d from before", len(after), len(before))
	}
}

func testCancelled(t *testing.T, st athar.Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := st.Apply(ctx, compile(t, st, docA)); err == nil {
		t.Fatal("Apply with a cancelled context succeeded")
	}
	if qs := allQuads(t, st); len(qs) != 0 {
		t.Fatalf("a refused Apply left %d quads", len(qs))
	}
}

// testReadsAfterDeadline checks that a read whose context's deadline has passed fails with
// DeadlineExceeded (and with Cancelled once cancelled) instead of answering as if the graph
// were empty: an empty answer here is a false verdict ("not defined", "no such narration").
func testReadsAfterDeadline(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	reads := []struct {
		name string
		read func(ctx context.Context) error
	}{
		{"NarrationQuads", func(ctx context.Context) error { _, err := st.NarrationQuads(ctx, "narration:a"); return err }},
		{"QuadsAbout", func(ctx context.Context) error {
			_, err := st.QuadsAbout(ctx, []athar.ID{"person:abu-bakr"})
			return err
		}},
		{"Quads", func(ctx context.Context) error { return st.Quads(ctx, func(athar.Quad) error { return nil }) }},
		{"Entities", func(ctx context.Context) error { _, err := st.Entities(ctx, []athar.ID{"person:abu-bakr"}); return err }},
		{"Mentions", func(ctx context.Context) error { _, err := st.Mentions(ctx, []athar.ID{"person:abu-bakr"}); return err }},
		{"MergedInto", func(ctx context.Context) error {
			_, err := st.MergedInto(ctx, []athar.ID{"person:abu-bakr"})
			return err
		}},
		{"EntityIDs", func(ctx context.Context) error { _, err := st.EntityIDs(ctx, athar.TypePerson); return err }},
		{"DefinedBy", func(ctx context.Context) error {
			_, err := st.DefinedBy(ctx, []athar.ID{"person:abu-bakr"})
			return err
		}},
		{"Narrations", func(ctx context.Context) error { _, err := st.Narrations(ctx, []athar.ID{"narration:a"}); return err }},
		{"FindClaims", func(ctx context.Context) error {
			_, err := st.FindClaims(ctx, athar.ClaimFilter{Subject: "person:abu-bakr"})
			return err
		}},
		{"ClaimsAbout", func(ctx context.Context) error { _, err := st.ClaimsAbout(ctx, []athar.ID{"event:badr"}); return err }},
		{"Edges", func(ctx context.Context) error { _, err := st.Edges(ctx, []athar.ID{"event:badr"}); return err }},
	}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	for _, r := range reads {
		if err := r.read(context.Background()); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if err := r.read(expired); athar.ErrorCode(err) != athar.DeadlineExceeded {
			t.Errorf("%s after the deadline: %v (code %q), want a %s error", r.name, err, athar.ErrorCode(err), athar.DeadlineExceeded)
		}
		if err := r.read(cancelled); athar.ErrorCode(err) != athar.Cancelled {
			t.Errorf("%s cancelled: %v (code %q), want a %s error", r.name, err, athar.ErrorCode(err), athar.Cancelled)
		}
	}
}

// testConcurrent runs readers against a writer that adds and removes a narration; readers
// must never see an error or half a narration.
func testConcurrent(t *testing.T, st athar.Store) {
	ctx := context.Background()
	apply(t, st, docA)
	add := compile(t, st, docB)
	remove := athar.Changeset{Narration: add.Narration, Remove: add.Add}
	deadline := time.Now().Add(300 * time.Millisecond)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				c, err := st.FindClaims(ctx, athar.ClaimFilter{Narration: "narration:b"})
				if err != nil {
					errs <- err
					return
				}
				if len(c) != 0 && len(c) != 2 {
					errs <- fmt.Errorf("saw %d claims of narration:b: half a narration", len(c))
					return
				}
				if _, err := st.Entities(ctx, []athar.ID{"person:abu-bakr"}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for time.Now().Before(deadline) {
		if err := st.Apply(ctx, add); err != nil {
			t.Fatal(err)
		}
		if err := st.Apply(ctx, remove); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func testQuadsAbout(t *testing.T, st athar.Store) {
	apply(t, st, docA, docB)
	got, err := st.QuadsAbout(context.Background(), []athar.ID{"event:badr", "event:badr", "person:nobody"})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, k := range allQuads(t, st) {
		if strings.HasPrefix(k, "<"+athar.ID("event:badr").IRI()+"> ") {
			want = append(want, k)
		}
	}
	sort.Strings(want)
	if g := keys(got); !reflect.DeepEqual(g, want) || !sort.SliceIsSorted(got, func(i, j int) bool { return got[i].Key() < got[j].Key() }) {
		t.Fatalf("QuadsAbout(event:badr) = %d quads, want the %d with that subject, sorted", len(g), len(want))
	}
}

// docGraded is docA's narration graded twice.
const docGraded = `
narration:
  id: narration:g
  title: Graded
  references: [{collection: Test, number: "3"}]
  text: "Abu Bakr advised ransom."
entities:
  - {id: person:grader, type: Person, name: A grader}
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
gradings:
  - {grader: person:grader, verdict: "Sahih", grade: sahih, scope: text, statedIn: {collection: A book, edition: Second, number: "4", url: "https://example.org/4"}}
  - {grader: Someone, verdict: "its isnad is weak", grade: daif, scope: chain, statedIn: "a lecture"}
  - {grader: Someone, verdict: "weak in this part", scope: part, part: "the ransom", note: "n"}
`

func testGradings(t *testing.T, st athar.Store) {
	apply(t, st, docA, docGraded)
	ns, err := st.Narrations(context.Background(), []athar.ID{"narration:g", "narration:a"})
	if err != nil {
		t.Fatal(err)
	}
	want := []athar.Grading{
		{Position: 1, Grader: "person:grader", Verdict: "Sahih", Grade: athar.GradeSahih, Scope: athar.ScopeText,
			StatedIn: &athar.Reference{Collection: "A book", Edition: "Second", Number: "4", URL: "https://example.org/4"}},
		{Position: 2, GraderName: "Someone", Verdict: "its isnad is weak", Grade: athar.GradeDaif, Scope: athar.ScopeChain, StatedInText: "a lecture"},
		{Position: 3, GraderName: "Someone", Verdict: "weak in this part", Scope: athar.ScopePart, Part: "the ransom", Note: "n"},
	}
	if !reflect.DeepEqual(ns[0].Gradings, want) {
		t.Errorf("gradings = %+v\nwant %+v", ns[0].Gradings, want)
	}
	if len(ns[1].Gradings) != 0 {
		t.Errorf("an ungraded narration has gradings: %+v", ns[1].Gradings)
	}
}

// testNarrationSummaries: a summary is the narration's id, title, chapter and corpus
// record, nil where Narrations gives nil, without what its nodes hold.
func testNarrationSummaries(t *testing.T, st athar.Store) {
	apply(t, st, docA, docGraded)
	ids := []athar.ID{"narration:g", "narration:a", "narration:none", "person:umar"}
	whole, err := st.Narrations(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	sums, err := st.NarrationSummaries(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range whole {
		s := sums[i]
		if (w == nil) != (s == nil) {
			t.Fatalf("%s: summary %+v, narration %+v", ids[i], s, w)
		}
		if w == nil {
			continue
		}
		if s.ID != w.ID || s.Title != w.Title || s.Chapter != w.Chapter || s.Corpus != w.Corpus || w.Title == "" {
			t.Errorf("%s: summary %+v, narration %+v", ids[i], s, w)
		}
		if len(s.Gradings)+len(s.References)+len(s.Chain)+len(s.Texts) != 0 {
			t.Errorf("%s: a summary with the narration's nodes: %+v", ids[i], s)
		}
	}
}

// testMergedInto stores, as ingest.Local.Merge does, a former id on an entity.
func testMergedInto(t *testing.T, st athar.Store) {
	ctx := context.Background()
	apply(t, st, docA)
	label := athar.ID("narration:a").IRI()
	former := []athar.Quad{
		{Subject: athar.ID("person:umar").IRI(), Predicate: athar.PredFormerID, Object: athar.StringTerm("person:umar-2"), Label: label},
		{Subject: athar.ID("person:umar").IRI(), Predicate: athar.PredFormerID, Object: athar.StringTerm("person:al-faruq"), Label: label},
		{Subject: athar.ID("person:abu-bakr").IRI(), Predicate: athar.PredFormerID, Object: athar.StringTerm("person:umar-2"), Label: label},
	}
	if err := st.Apply(ctx, athar.Changeset{Narration: "narration:a", Add: former}); err != nil {
		t.Fatal(err)
	}
	got, err := st.MergedInto(ctx, []athar.ID{"person:al-faruq", "person:umar-2", "person:umar", "person:nobody"})
	if err != nil {
		t.Fatal(err)
	}
	// person:umar-2 is claimed by two entities: the smaller id wins.
	want := map[athar.ID]athar.ID{"person:al-faruq": "person:umar", "person:umar-2": "person:abu-bakr"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("MergedInto = %v, want %v", got, want)
	}
	es, _ := st.Entities(ctx, []athar.ID{"person:umar", "person:al-faruq"})
	if !reflect.DeepEqual(es[0].FormerIDs, []athar.ID{"person:al-faruq", "person:umar-2"}) {
		t.Errorf("FormerIDs = %v", es[0].FormerIDs)
	}
	if es[1] != nil {
		t.Errorf("a former id is an entity of its own: %+v", es[1])
	}
}

// testReservedGraph stores verse texts under athar.QuranGraph: they are read back by
// NarrationQuads and QuadsAbout, and no entity counts the reserved graph as a narration.
// testRecordMentions: a corpus record's quads (label corpus:KEY) are the narration it is
// -- narration:KEY, or the narration document carrying it -- for Mentions, whose memo
// follows records added, given new versions and removed, and for DefinedBy, which also
// names the reserved graphs defining an entity.
func testRecordMentions(t *testing.T, st athar.Store) {
	ctx := context.Background()
	person := athar.ID("person:p").IRI()
	record := func(key string, narration athar.ID, touch bool) athar.Changeset {
		label := athar.ID(athar.CorpusPrefix + ":" + key).IRI()
		n := narration.IRI()
		qs := []athar.Quad{
			{Subject: n, Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypeNarration.IRI())},
			{Subject: n, Predicate: athar.PredCorpusRecord, Object: athar.IRITerm(label)},
			{Subject: n, Predicate: athar.RDFSLabel, Object: athar.StringTerm("Record " + key)},
		}
		if touch {
			qs = append(qs, athar.Quad{Subject: person, Predicate: athar.VocabBase + "transmits", Object: athar.IRITerm(n)})
		}
		// a person the record creates (as the corpus import does for a name as written)
		qs = append(qs, athar.Quad{Subject: athar.ID("person:w." + key).IRI(), Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypePerson.IRI())})
		for i := range qs {
			qs[i].Label = label
		}
		return athar.Changeset{Narration: athar.ID(athar.CorpusPrefix + ":" + key), Add: qs}
	}
	mustApply := func(cs ...athar.Changeset) {
		t.Helper()
		if err := st.Apply(ctx, cs...); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(when string, id athar.ID, want ...athar.ID) {
		t.Helper()
		got, err := st.Mentions(ctx, []athar.ID{id})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 0 {
			want = nil
		}
		if !reflect.DeepEqual(got[id], want) {
			t.Errorf("%s: Mentions(%s) = %v, want %v", when, id, got[id], want)
		}
	}
	doc := athar.ID("narration:d").IRI()
	docQuads := []athar.Quad{
		{Subject: doc, Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypeNarration.IRI()), Label: doc},
		{Subject: person, Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypePerson.IRI()), Label: doc},
	}
	people := athar.Changeset{Narration: athar.PeopleGraph, Add: []athar.Quad{
		{Subject: athar.ID("person:t").IRI(), Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypePerson.IRI()), Label: athar.PeopleGraph.IRI()},
		{Subject: person, Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypePerson.IRI()), Label: athar.PeopleGraph.IRI()},
	}}
	mustApply(people, athar.Changeset{Narration: "narration:d", Add: docQuads}, record("x-1", "narration:x-1", true), record("x-2", "narration:d", true))
	expect("two records, one carried by a document", "person:p", "narration:d", "narration:x-1")
	expect("a record's own narration", "narration:x-1", "narration:x-1")
	// What defines an entity: a record as the narration it is, a reserved graph as itself.
	defs, err := st.DefinedBy(ctx, []athar.ID{"person:p", "person:t", "person:w.x-1", "person:w.x-2", "person:none"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[athar.ID][]athar.ID{
		"person:p":     {athar.PeopleGraph, "narration:d"},
		"person:t":     {athar.PeopleGraph},
		"person:w.x-1": {"narration:x-1"},
		"person:w.x-2": {"narration:d"},
	}
	if !reflect.DeepEqual(defs, want) {
		t.Errorf("DefinedBy = %v, want %v", defs, want)
	}
	// With the memo warm: a record added, a new version leaving the person out, a removal.
	mustApply(record("x-3", "narration:x-3", true))
	expect("a record added", "person:p", "narration:d", "narration:x-1", "narration:x-3")
	mustApply(record("x-4", "narration:x-4", true))
	expect("another", "person:p", "narration:d", "narration:x-1", "narration:x-3", "narration:x-4")
	mustApply(athar.Changeset{Narration: "corpus:x-4", Remove: record("x-4", "narration:x-4", true).Add, Add: record("x-4", "narration:d", true).Add})
	expect("a record moved to a document", "person:p", "narration:d", "narration:x-1", "narration:x-3")
	mustApply(athar.Changeset{Narration: "corpus:x-4", Remove: record("x-4", "narration:d", true).Add})
	expect("the moved record removed", "person:p", "narration:d", "narration:x-1", "narration:x-3")
	mustApply(athar.Changeset{Narration: "corpus:x-1", Remove: record("x-1", "narration:x-1", true).Add[3:4]})
	expect("a new version without the person", "person:p", "narration:d", "narration:x-3")
	mustApply(athar.Changeset{Narration: "corpus:x-2", Remove: record("x-2", "narration:d", true).Add})
	expect("the document's record removed (the document stays)", "person:p", "narration:d", "narration:x-3")
	mustApply(athar.Changeset{Narration: "narration:d", Remove: docQuads})
	expect("the document removed", "person:p", "narration:x-3")
	mustApply(athar.Changeset{Narration: "corpus:x-3", Remove: record("x-3", "narration:x-3", true).Add})
	expect("every record removed", "person:p")
}

func testReservedGraph(t *testing.T, st athar.Store) {
	ctx := context.Background()
	apply(t, st, docA)
	texts := athar.VerseTextQuads([]athar.VerseText{{Verse: "verse:8:67", Arabic: "مَا كَانَ", Translation: "It is not"}, {Verse: "verse:1:1", Arabic: "بِسۡمِ", Translation: "In the name"}},
		athar.TextSource{Title: "t", URL: "https://example.org/q.json", License: "https://example.org/l", Rights: "r", Translator: "x"})
	if err := st.Apply(ctx, athar.Changeset{Narration: athar.QuranGraph, Add: texts}); err != nil {
		t.Fatal(err)
	}
	got, err := st.NarrationQuads(ctx, athar.QuranGraph)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keys(got), keys(texts)) {
		t.Fatalf("NarrationQuads(QuranGraph) = %d quads, want the %d applied", len(got), len(texts))
	}
	es, _ := st.Entities(ctx, []athar.ID{"verse:8:67", "verse:1:1"})
	mentions, _ := st.Mentions(ctx, []athar.ID{"verse:8:67", "verse:1:1"})
	if es[0] == nil || !reflect.DeepEqual(mentions["verse:8:67"], []athar.ID{"narration:a"}) {
		t.Errorf("verse 8:67 mentioned by %v, want narration:a only (never the texts' graph)", mentions["verse:8:67"])
	}
	if len(mentions["verse:1:1"]) != 0 {
		t.Errorf("verse 1:1 mentioned by %v: the texts' graph is not a narration", mentions["verse:1:1"])
	}
	if es[1] != nil {
		t.Errorf("a verse only the texts mention is defined: %+v", es[1])
	}
	if defs, _ := st.DefinedBy(ctx, []athar.ID{"verse:8:67"}); !reflect.DeepEqual(defs["verse:8:67"], []athar.ID{"narration:a"}) {
		t.Errorf("DefinedBy = %v", defs)
	}
	qs, _ := st.QuadsAbout(ctx, []athar.ID{"verse:1:1", athar.QuranGraph})
	vt, src := athar.ReadVerseTexts(qs)
	if vt["verse:1:1"].Translation != "In the name" || src.Rights != "r" || src.License != "https://example.org/l" {
		t.Errorf("read back %+v %+v", vt, src)
	}
}

// testFewerUses applies, in one changeset, the removal of two quads using a predicate, a
// literal and an IRI, and the addition of one quad using each: the change a merge or a new
// version of a narration makes. The added quad must come back whole. (Cayley's KV backends
// drop, from an added quad, any term whose uses fall within the transaction.)
func testFewerUses(t *testing.T, st athar.Store) {
	ctx := context.Background()
	label := athar.ID("narration:n").IRI()
	p := athar.VocabBase + "advises"
	lit := athar.Term{Literal: "a name", Lang: "ar"}
	obj := athar.IRITerm(athar.ID("concept:ransom").IRI())
	old := []athar.Quad{
		{Subject: athar.ID("person:a").IRI(), Predicate: p, Object: obj, Label: label},
		{Subject: athar.ID("person:b").IRI(), Predicate: p, Object: obj, Label: label},
		{Subject: athar.ID("person:a").IRI(), Predicate: athar.RDFSLabel, Object: lit, Label: label},
		{Subject: athar.ID("person:b").IRI(), Predicate: athar.RDFSLabel, Object: lit, Label: label},
	}
	decl := athar.Quad{Subject: label, Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypeNarration.IRI()), Label: label}
	if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n", Add: append([]athar.Quad{decl}, old...)}); err != nil {
		t.Fatal(err)
	}
	want := []athar.Quad{
		decl,
		{Subject: athar.ID("person:c").IRI(), Predicate: p, Object: obj, Label: label},
		{Subject: athar.ID("person:c").IRI(), Predicate: athar.RDFSLabel, Object: lit, Label: label},
	}
	if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n", Remove: old, Add: want[1:]}); err != nil {
		t.Fatal(err)
	}
	got, err := st.NarrationQuads(ctx, "narration:n")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keys(got), keys(want)) {
		t.Fatalf("after replacing two uses by one: %v, want %v", keys(got), keys(want))
	}
	if all := allQuads(t, st); !reflect.DeepEqual(all, keys(want)) {
		t.Fatalf("the graph holds %v, want %v", all, keys(want))
	}
}

// docE defines an entity merged below, and is imported in one batch with docD.
const docE = `
narration:
  id: narration:e
  title: Report E
  references: [{collection: Test, number: "5"}]
  text: "Al-Faruq advised execution."
entities:
  - {id: person:al-faruq, type: Person, name: Al-Faruq}
claims:
  - {subject: person:al-faruq, predicate: advises, object: concept:execution, evidence: "Al-Faruq advised execution"}
`

const docD = `
narration:
  id: narration:d
  title: Report D
  references: [{collection: Test, number: "4"}]
  text: "Al-Faruq took part in Badr."
claims:
  - {subject: person:al-faruq, predicate: participatedIn, object: event:badr, evidence: "Al-Faruq took part in Badr"}
`

// testNarrationQuadsAgree checks NarrationQuads against a scan of the whole graph grouped by
// label, after each kind of write the importer makes: first imports, a batch of several
// narrations in one Apply, a new version of a narration, a merge, a delete and a reserved
// graph. A store that answers NarrationQuads from anything kept beside the graph fails here
// as soon as that falls out of step.
func testNarrationQuadsAgree(t *testing.T, st athar.Store) {
	ctx := context.Background()
	im := ingest.NewLocal(st, schema.Vocabulary())
	labels := map[string]bool{athar.ID("narration:none").IRI(): true}
	check := func(step string) {
		t.Helper()
		byLabel := map[string][]string{}
		if err := st.Quads(ctx, func(q athar.Quad) error {
			byLabel[q.Label] = append(byLabel[q.Label], q.Key())
			labels[q.Label] = true
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for l := range labels {
			id, ok := athar.ParseIRI(l)
			if !ok {
				t.Fatalf("%s: label %s is no Athar IRI", step, l)
			}
			got, err := st.NarrationQuads(ctx, id)
			if err != nil {
				t.Fatalf("%s: NarrationQuads(%s): %v", step, id, err)
			}
			want := byLabel[l]
			sort.Strings(want)
			if g := keys(got); !reflect.DeepEqual(g, want) && len(g)+len(want) > 0 {
				t.Errorf("%s: NarrationQuads(%s) = %d quads, a scan finds %d\ngot:  %v\nscan: %v", step, id, len(g), len(want), g, want)
			}
		}
	}
	parse := func(src string) *narration.Document {
		t.Helper()
		d, err := narration.Parse("test", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, src := range []string{docA, docB} {
		if _, err := im.Import(ctx, parse(src)); err != nil {
			t.Fatal(err)
		}
	}
	check("after importing a and b")

	for _, r := range im.ImportMany(ctx, []ingest.Doc{{Document: parse(docE)}, {Document: parse(docD)}}) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	check("after a batch of e and d")

	newA := strings.Replace(docA, "Badr came before Uhud.", "Badr, they say, came before Uhud.", 1)
	newA = strings.Replace(newA, `evidence: "Badr came before Uhud"`, `evidence: "came before Uhud"`, 1)
	newA = strings.Replace(newA, "aliases: [al-Siddiq]", "aliases: [al-Siddiq, Atiq]", 1)
	if _, err := im.Import(ctx, parse(newA)); err != nil {
		t.Fatal(err)
	}
	check("after a new version of a")

	if _, err := im.Merge(ctx, "person:umar", "person:al-faruq"); err != nil {
		t.Fatal(err)
	}
	check("after merging person:al-faruq into person:umar")

	if err := im.Delete(ctx, "narration:b"); err != nil {
		t.Fatal(err)
	}
	check("after deleting b")

	verse := athar.Quad{Subject: athar.ID("verse:8:67").IRI(), Predicate: athar.RDFSComment, Object: athar.Term{Literal: "a verse", Lang: "en"}, Label: athar.QuranGraph.IRI()}
	if err := st.Apply(ctx, athar.Changeset{Narration: athar.QuranGraph, Add: []athar.Quad{verse}}); err != nil {
		t.Fatal(err)
	}
	check("after adding to the Qur'an graph")

	if err := st.Apply(ctx, athar.Changeset{Narration: athar.QuranGraph, Remove: []athar.Quad{verse}}); err != nil {
		t.Fatal(err)
	}
	check("after emptying the Qur'an graph")
}

// randomDoc is version v of narration r<n>: a few claims among four people, three
// concepts and three events, drawn from v.
func randomDoc(n, v int) string {
	rnd := rand.New(rand.NewPCG(uint64(n), uint64(v)))
	var text, claims []string
	used := map[string]string{}
	said := map[string]bool{}
	for range 2 + rnd.IntN(5) {
		switch rnd.IntN(3) {
		case 0:
			p, c := rnd.IntN(4), rnd.IntN(3)
			ev := fmt.Sprintf("P%d advised C%d", p, c)
			if said[ev] {
				continue
			}
			used[fmt.Sprintf("person:p%d", p)], used[fmt.Sprintf("concept:c%d", c)] = "Person", "Concept"
			claims = append(claims, fmt.Sprintf(`  - {subject: person:p%d, predicate: advises, object: concept:c%d, evidence: "%s"}`, p, c, ev))
			text, said[ev] = append(text, ev), true
		case 1:
			a, b := rnd.IntN(3), rnd.IntN(3)
			if a == b {
				continue
			}
			ev := fmt.Sprintf("E%d came before E%d", a, b)
			if said[ev] {
				continue
			}
			used[fmt.Sprintf("event:e%d", a)], used[fmt.Sprintf("event:e%d", b)] = "Event", "Event"
			claims = append(claims, fmt.Sprintf(`  - {subject: event:e%d, predicate: precedes, object: event:e%d, evidence: "%s"}`, a, b, ev))
			text, said[ev] = append(text, ev), true
		default:
			e, k := rnd.IntN(3), 10+rnd.IntN(3)
			ev := fmt.Sprintf("at E%d %d were killed", e, k)
			if said[ev] {
				continue
			}
			used[fmt.Sprintf("event:e%d", e)] = "Event"
			claims = append(claims, fmt.Sprintf(`  - {subject: event:e%d, predicate: killedCount, value: %d, evidence: "%s"}`, e, k, ev))
			text, said[ev] = append(text, ev), true
		}
	}
	if len(claims) == 0 {
		return ""
	}
	// Gradings, by a person of the four or named in text, with a grade or none: the read
	// model lists them by grader and grade.
	var gradings []string
	for range rnd.IntN(3) {
		grader := "Someone"
		if p := rnd.IntN(5); p < 4 {
			grader = fmt.Sprintf("person:p%d", p)
			used[grader] = "Person"
		}
		verdict, grade := [][2]string{{"Sahih", "sahih"}, {"Hasan", "hasan"}, {"Da'if", "daif"}, {"Munkar", ""}}[rnd.IntN(4)][0], ""
		switch verdict {
		case "Sahih":
			grade = "sahih"
		case "Hasan":
			grade = "hasan"
		case "Da'if":
			grade = "daif"
		}
		g := fmt.Sprintf(`  - {grader: "%s", verdict: "%s", scope: %s`, grader, verdict, []string{"text", "chain"}[rnd.IntN(2)])
		if grade != "" {
			g += ", grade: " + grade
		}
		gradings = append(gradings, g+"}")
	}
	// A chain, further routes and a narrator of the four persons, or none: the read model
	// keeps each narration's routes, and a merge rewrites them.
	var routes string
	if rnd.IntN(3) > 0 {
		person := func() string {
			p := fmt.Sprintf("person:p%d", rnd.IntN(4))
			used[p] = "Person"
			return p
		}
		chain := func() string {
			var ps []string
			for range 1 + rnd.IntN(3) {
				ps = append(ps, person())
			}
			return "[" + strings.Join(ps, ", ") + "]"
		}
		routes = "  chain: " + chain() + "\n"
		if k := rnd.IntN(3); k > 0 {
			routes += "  routes:\n"
			for range k {
				routes += "    - " + chain() + "\n"
			}
		}
		if rnd.IntN(2) == 0 {
			routes += "  narrator: " + person() + "\n"
		}
	}
	ids := make([]string, 0, len(used))
	for id := range used {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var ents []string
	for _, id := range ids {
		ents = append(ents, fmt.Sprintf(`  - {id: %s, type: %s, name: "%s"}`, id, used[id], strings.ToUpper(id[strings.Index(id, ":")+1:])))
	}
	// The title changes with the claims, so that new versions rewrite summaries too.
	doc := fmt.Sprintf("narration:\n  id: narration:r%d\n  title: R%d (%d claims)\n  references: [{collection: Rand, number: \"%d\"}]\n%s  text: \"%s.\"\nentities:\n%s\nclaims:\n%s\n",
		n, n, len(claims), n, routes, strings.Join(text, ". "), strings.Join(ents, "\n"), strings.Join(claims, "\n"))
	if len(gradings) > 0 {
		doc += "gradings:\n" + strings.Join(gradings, "\n") + "\n"
	}
	return doc
}

// testReadModelAgrees runs random imports, new versions, deletes and merges through the
// writer and checks, after each step, that the claims about every entity (ClaimsAbout,
// PageClaims page by page), the claims of each predicate and the edges agree with what
// the quads themselves say.
func testReadModelAgrees(t *testing.T, st athar.Store) {
	RandomWrites(t, st, 60, func(step int) { checkReadModel(t, st, step) })
}

// RandomIDs are the entities RandomWrites writes about.
var RandomIDs = func() []athar.ID {
	var ids []athar.ID
	for _, p := range []string{"person:p", "concept:c", "event:e"} {
		for i := range 4 {
			ids = append(ids, athar.ID(fmt.Sprintf("%s%d", p, i)))
		}
	}
	return ids
}()

// RandomWrites runs steps random imports, new versions, deletes and merges of six
// narrations about RandomIDs through the writer, and writes of three corpus records
// (randomRecord) beside them, the same sequence every run, calling check after each.
// Refused writes are logged, not failed.
func RandomWrites(t *testing.T, st athar.Store, steps int, check func(step int)) {
	t.Helper()
	ctx := context.Background()
	w := ingest.NewLocal(st, schema.Vocabulary())
	rnd := rand.New(rand.NewPCG(14, 14))
	for step := range steps {
		switch op := rnd.IntN(12); {
		case op >= 10: // a corpus record: new, a new version, or removed
			label := athar.ID(fmt.Sprintf("%s:k%d", athar.CorpusPrefix, rnd.IntN(3)))
			have, err := st.NarrationQuads(ctx, label)
			if err != nil {
				t.Fatal(err)
			}
			var want []athar.Quad
			if op == 10 {
				want = randomRecord(label, rnd)
			}
			if err := st.Apply(ctx, athar.Diff(label, have, want)); err != nil {
				t.Fatalf("step %d: record %s: %v", step, label, err)
			}
		case op < 6: // import, or a new version
			src := randomDoc(rnd.IntN(6), rnd.IntN(1000))
			if src == "" {
				continue
			}
			d, err := narration.Parse("random", []byte(src))
			if err != nil {
				t.Fatalf("step %d: %v\n%s", step, err, src)
			}
			if _, err := w.Import(ctx, d); err != nil {
				t.Logf("step %d: import refused: %v", step, err)
			}
		case op < 8:
			if err := w.Delete(ctx, athar.ID(fmt.Sprintf("narration:r%d", rnd.IntN(6)))); err != nil {
				t.Logf("step %d: delete refused: %v", step, err)
			}
		default:
			a, b := rnd.IntN(4), rnd.IntN(4)
			if _, err := w.Merge(ctx, athar.ID(fmt.Sprintf("person:p%d", a)), athar.ID(fmt.Sprintf("person:p%d", b))); err != nil {
				t.Logf("step %d: merge refused: %v", step, err)
			}
		}
		check(step)
	}
}

// randomRecord returns the quads of a corpus record under label: its narration is its own
// (narration:kN) or one of the random documents' (a document carrying the record), which
// one of its people transmits; it creates a person of its own, as the corpus import does
// for a name as written, and names one more of RandomIDs' people.
func randomRecord(label athar.ID, rnd *rand.Rand) []athar.Quad {
	key := label.Local()
	n := athar.ID("narration:" + key)
	if rnd.IntN(2) == 0 {
		n = athar.ID(fmt.Sprintf("narration:r%d", rnd.IntN(6)))
	}
	l, ni := label.IRI(), n.IRI()
	created := athar.ID("person:w." + key)
	q := func(s, p string, o athar.Term) athar.Quad {
		return athar.Quad{Subject: s, Predicate: p, Object: o, Label: l}
	}
	qs := []athar.Quad{
		q(ni, athar.RDFType, athar.IRITerm(athar.TypeNarration.IRI())),
		q(ni, athar.PredCorpusRecord, athar.IRITerm(l)),
		q(ni, athar.RDFSLabel, athar.StringTerm("Record "+key)),
		q(created.IRI(), athar.RDFType, athar.IRITerm(athar.TypePerson.IRI())),
		q(created.IRI(), athar.RDFSLabel, athar.StringTerm("W "+key)),
	}
	// Each transmits claim as the corpus import states it (hadith's emitter): the plain
	// triple, the claim node and the record's attestation.
	for _, p := range []athar.ID{created, athar.ID(fmt.Sprintf("person:p%d", rnd.IntN(4)))} {
		obj := athar.IRITerm(ni)
		c := athar.ClaimID(p, "transmits", obj)
		a := athar.AttestationID(c, n, -1, -1).IRI()
		qs = append(qs,
			q(p.IRI(), athar.VocabBase+"transmits", obj),
			q(c.IRI(), athar.PredSubject, athar.IRITerm(p.IRI())),
			q(a, athar.PredClaim, athar.IRITerm(c.IRI())),
			q(a, athar.PredNarration, obj))
	}
	return qs
}

// checkMentions compares what Mentions gives -- memoised by the store and kept in step by
// its writes, warmed by the check of the step before -- with the narrations labelling
// quads that touch each entity, for every entity the random writes name.
func checkMentions(t *testing.T, st athar.Store, step int) {
	t.Helper()
	ctx := context.Background()
	want := map[athar.ID][]athar.ID{}
	var ids []athar.ID
	for i := range 6 {
		for _, f := range []string{"person:p%d", "concept:c%d", "event:e%d", "narration:r%d", "narration:k%d", "person:w.k%d"} {
			ids = append(ids, athar.ID(fmt.Sprintf(f, i)))
		}
	}
	var all []athar.Quad
	record := map[string]athar.ID{} // a corpus record's label -> the narration it is
	if err := st.Quads(ctx, func(q athar.Quad) error {
		all = append(all, q)
		if q.Predicate == athar.PredCorpusRecord && q.Object.IRI == q.Label {
			record[q.Label], _ = athar.ParseIRI(q.Subject)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	defs := map[athar.ID][]athar.ID{} // what DefinedBy should give
	for _, q := range all {
		n, ok := athar.ParseIRI(q.Label)
		if athar.IsCorpusLabel(q.Label) {
			n, ok = record[q.Label]
		}
		if !ok || n.Prefix() != athar.TypeNarration.Prefix() && !athar.IsReservedGraph(q.Label) {
			continue
		}
		if s, _ := athar.ParseIRI(q.Subject); q.Predicate == athar.RDFType && slices.Contains(ids, s) && !slices.Contains(defs[s], n) {
			defs[s] = append(defs[s], n)
		}
		if athar.IsReservedGraph(q.Label) {
			continue // it defines; it does not mention
		}
		for _, v := range []string{q.Subject, q.Object.IRI} {
			if id, ok := athar.ParseIRI(v); ok && !slices.Contains(want[id], n) {
				want[id] = append(want[id], n)
			}
		}
	}
	for _, by := range defs {
		slices.Sort(by)
	}
	if got, err := st.DefinedBy(ctx, ids); err != nil {
		t.Fatal(err)
	} else if !reflect.DeepEqual(got, defs) {
		t.Fatalf("step %d: DefinedBy = %v, the quads give %v", step, got, defs)
	}
	for id, ns := range want {
		if _, typed := athar.TypeOfPrefix(id.Prefix()); !typed {
			delete(want, id)
			continue
		}
		slices.Sort(ns)
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	got, err := st.Mentions(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("step %d: Mentions = %v, the quads give %v", step, got, want)
	}
}

// checkReadModel compares the claim lists and edges the store gives with those computed
// from its quads, and the mentions.
func checkReadModel(t *testing.T, st athar.Store, step int) {
	t.Helper()
	ctx := context.Background()
	checkMentions(t, st, step)
	type group struct {
		ref    athar.ClaimRef
		labels []string
	}
	claims := map[athar.ID]*group{}
	if err := st.Quads(ctx, func(q athar.Quad) error {
		if !athar.IsRelation(q.Predicate) {
			return nil
		}
		subj, ok := athar.ParseIRI(q.Subject)
		if !ok {
			return nil
		}
		pred := strings.TrimPrefix(q.Predicate, athar.VocabBase)
		id := athar.ClaimID(subj, pred, q.Object)
		g := claims[id]
		if g == nil {
			g = &group{ref: athar.ClaimRef{ID: id, Subject: subj, Predicate: pred}}
			if q.Object.IRI != "" {
				g.ref.Object, _ = athar.ParseIRI(q.Object.IRI)
			} else {
				v := q.Object
				g.ref.Value = &v
			}
			claims[id] = g
		}
		g.labels = append(g.labels, q.Label)
		if n, ok := athar.ParseIRI(q.Label); ok && strings.HasPrefix(string(n), "narration:") {
			g.ref.Narrations = append(g.ref.Narrations, n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	about := map[athar.ID][]athar.ClaimRef{}
	byPred := map[string][]athar.ClaimRef{}
	edges := map[athar.ID][]athar.Edge{}
	for _, g := range claims {
		sort.Slice(g.ref.Narrations, func(i, j int) bool { return g.ref.Narrations[i] < g.ref.Narrations[j] })
		ends := []athar.ID{g.ref.Subject}
		if g.ref.Object != "" && g.ref.Object != g.ref.Subject {
			ends = append(ends, g.ref.Object)
		}
		for _, e := range ends {
			about[e] = append(about[e], g.ref)
			if g.ref.Object != "" {
				edges[e] = append(edges[e], athar.Edge{Source: g.ref.Subject, Target: g.ref.Object, Predicate: g.ref.Predicate, Attestations: len(g.labels)})
			}
		}
		byPred[g.ref.Predicate] = append(byPred[g.ref.Predicate], g.ref)
	}
	bySortKey := func(rs []athar.ClaimRef) {
		sort.Slice(rs, func(i, j int) bool { return rs[i].SortKey() < rs[j].SortKey() })
	}
	ids := RandomIDs
	gotAbout, err := st.ClaimsAbout(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	gotEdges, err := st.Edges(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		want := about[id]
		bySortKey(want)
		if len(want) == 0 {
			want = nil
		}
		got := gotAbout[id]
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: ClaimsAbout(%s) =\n%+v\nthe quads give\n%+v", step, id, got, want)
		}
		if paged := pageAll(t, st, athar.ClaimPageQuery{Entity: id}, len(want)); !reflect.DeepEqual(paged, want) {
			t.Fatalf("step %d: PageClaims(%s) =\n%+v\nthe quads give\n%+v", step, id, paged, want)
		}
		for _, p := range []string{"", "advises", "killedCount", "transmits", "narrates", "precedes"} {
			var mine []athar.ClaimRef
			for _, r := range want {
				if r.Subject == id && (p == "" || r.Predicate == p) {
					mine = append(mine, r)
				}
			}
			q := athar.ClaimPageQuery{Entity: id, Predicate: p, AsSubject: true}
			if paged := pageAll(t, st, q, len(mine)); !reflect.DeepEqual(paged, mine) {
				t.Fatalf("step %d: PageClaims(%+v) =\n%+v\nthe quads give\n%+v", step, q, paged, mine)
			}
			q.SkipTotal = true
			if paged := pageAll(t, st, q, -1); !reflect.DeepEqual(paged, mine) {
				t.Fatalf("step %d: PageClaims(%+v) =\n%+v\nthe quads give\n%+v", step, q, paged, mine)
			}
		}
		we := edges[id]
		sort.Slice(we, func(i, j int) bool {
			a, b := we[i], we[j]
			return a.Source+"\x00"+athar.ID(a.Predicate)+"\x00"+a.Target < b.Source+"\x00"+athar.ID(b.Predicate)+"\x00"+b.Target
		})
		if !reflect.DeepEqual(gotEdges[id], we) {
			t.Fatalf("step %d: Edges(%s) = %+v, the quads give %+v", step, id, gotEdges[id], we)
		}
		checkAdjacency(t, st, step, id, we)
	}
	checkEdgesBetween(t, st, step, edges)
	for _, p := range []string{"advises", "precedes", "killedCount"} {
		want := byPred[p]
		bySortKey(want)
		if paged := pageAll(t, st, athar.ClaimPageQuery{Predicate: p}, len(want)); !reflect.DeepEqual(paged, want) {
			t.Fatalf("step %d: PageClaims(predicate %s) =\n%+v\nthe quads give\n%+v", step, p, paged, want)
		}
	}
	CheckPagedLists(t, st, step)
	checkRoutes(t, st, step)
	ids = ids[:0]
	for id := range claims {
		ids = append(ids, id)
	}
	checkClaimHeads(t, st, fmt.Sprintf("step %d", step), ids)
}

// checkClaimHeads compares ClaimHeads with Claims for ids, for several numbers of heads: the
// same claims, each with the first of the attestations Claims gives, Partial with their
// totals when there are more. And ClaimParts: the same claims' parts, Bare.
func checkClaimHeads(t *testing.T, st athar.Store, where string, ids []athar.ID) {
	t.Helper()
	sortIDs(ids)
	full, err := st.Claims(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := st.ClaimParts(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range full {
		var want *athar.Claim
		if c != nil {
			want = &athar.Claim{ID: c.ID, Subject: c.Subject, Predicate: c.Predicate, Object: c.Object, Value: c.Value, Bare: true}
		}
		if !reflect.DeepEqual(parts[i], want) {
			t.Fatalf("%s: ClaimParts(%s) =\n%+v\nClaims gives:\n%+v", where, ids[i], parts[i], want)
		}
	}
	if none, err := st.ClaimParts(context.Background(), []athar.ID{"claim:nope", "person:umar"}); err != nil || len(none) != 2 || none[0] != nil || none[1] != nil {
		t.Fatalf("%s: ClaimParts of an absent claim and an entity = %+v, %v; want [nil nil]", where, none, err)
	}
	for _, first := range []int{0, 1, 2, 3, 5, 7, 61} {
		heads, err := st.ClaimHeads(context.Background(), ids, first)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range full {
			var want *athar.Claim
			if c != nil {
				w := *c
				if len(c.Attestations) > first {
					w.Attestations = c.Attestations[:first]
					w.Partial, w.AttestationTotal = true, len(c.Attestations)
					narrs := map[athar.ID]bool{}
					for _, a := range c.Attestations {
						narrs[a.Narration] = true
					}
					w.NarrationTotal = len(narrs)
				}
				want = &w
			}
			if !reflect.DeepEqual(heads[i], want) {
				t.Fatalf("%s: ClaimHeads(%s, %d) =\n%+v\nClaims gives, cut:\n%+v", where, ids[i], first, heads[i], want)
			}
		}
	}
}

func sortIDs(ids []athar.ID) { sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] }) }

// checkRoutes compares NarrationRoutes with the same fields of Narrations, for the random
// writes' narrations and an absent one.
func checkRoutes(t *testing.T, st athar.Store, step int) {
	t.Helper()
	ctx := context.Background()
	ids := []athar.ID{"narration:absent"}
	for i := range 6 {
		ids = append(ids, athar.ID(fmt.Sprintf("narration:r%d", i)))
	}
	whole, err := st.Narrations(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	routes, err := st.NarrationRoutes(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Routes, Chain, MoreRoutes, RecordRoutes any
		Narrator                                athar.ID
		Corpus                                  string
	}
	of := func(n *athar.Narration) *view {
		if n == nil {
			return nil
		}
		v := &view{Routes: n.Routes(), Chain: n.Chain, MoreRoutes: n.MoreRoutes, RecordRoutes: n.RecordRoutes, Narrator: n.Narrator, Corpus: n.Corpus}
		if len(n.MoreRoutes) == 0 {
			v.MoreRoutes = [][]athar.ID(nil)
		}
		return v
	}
	for i, id := range ids {
		if w, g := of(whole[i]), of(routes[i]); !reflect.DeepEqual(g, w) {
			t.Fatalf("step %d: NarrationRoutes(%s) = %+v, Narrations gives %+v", step, id, g, w)
		}
	}
	sums, err := st.NarrationSummaries(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		w, g := whole[i], sums[i]
		if (w == nil) != (g == nil) || w != nil && (g.ID != w.ID || g.Title != w.Title || g.Chapter != w.Chapter || g.Corpus != w.Corpus || w.Title == "") {
			t.Fatalf("step %d: NarrationSummaries(%s) = %+v, Narrations gives %+v", step, id, g, w)
		}
	}
}

// entityIDsFromCayley is a store that can also give EntityIDs' answer from its quads,
// bypassing the lists it keeps beside them.
type entityIDsFromCayley interface {
	EntityIDsFromCayley(ctx context.Context, t athar.EntityType) ([]athar.ID, error)
}

// CheckPagedLists compares the entity ids EntityIDs gives, and PageEntities page by page,
// with the store's quads (EntityIDsFromCayley, when the store has it), for every type and
// for all of them; and the gradings PageGradings gives, for every grader and grade the
// narrations use and for any, with those the narrations give (Narrations of every
// narration).
func CheckPagedLists(t *testing.T, st athar.Store, step int) {
	t.Helper()
	ctx := context.Background()
	for _, ty := range append([]athar.EntityType{""}, athar.EntityTypes()...) {
		want, err := st.EntityIDs(ctx, ty)
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := st.(entityIDsFromCayley); ok {
			fromQuads, err := c.EntityIDsFromCayley(ctx, ty)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(want, fromQuads) {
				t.Fatalf("step %d: EntityIDs(%q) = %v, the quads give %v", step, ty, want, fromQuads)
			}
		}
		var got []athar.ID
		q := athar.EntityPageQuery{Type: ty, First: 3}
		for {
			p, err := st.PageEntities(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != len(want) {
				t.Fatalf("step %d: PageEntities(%+v): total %d, EntityIDs gives %d", step, q, p.Total, len(want))
			}
			got = append(got, p.IDs...)
			if !p.More {
				break
			}
			if len(p.IDs) == 0 {
				t.Fatalf("step %d: PageEntities(%+v): an empty page says more follow", step, q)
			}
			q.After = p.IDs[len(p.IDs)-1]
		}
		if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Fatalf("step %d: PageEntities(%q) = %v, EntityIDs gives %v", step, ty, got, want)
		}
	}
	ids, err := st.EntityIDs(ctx, athar.TypeNarration)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := st.Narrations(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	type graded struct {
		Narration athar.ID
		Grading   athar.Grading
	}
	lists := map[athar.GradingPageQuery][]graded{{}: nil}
	for _, n := range ns {
		if n == nil {
			continue
		}
		for _, g := range n.Gradings {
			qs := map[athar.GradingPageQuery]bool{{}: true, {Grader: g.Grader}: true, {Grade: g.Grade}: true, {Grader: g.Grader, Grade: g.Grade}: true}
			for q := range qs {
				lists[q] = append(lists[q], graded{n.ID, g})
			}
		}
	}
	for q, want := range lists {
		var got []graded
		pq := q
		pq.First = 2
		for {
			p, err := st.PageGradings(ctx, pq)
			if err != nil {
				t.Fatal(err)
			}
			if p.Total != len(want) {
				t.Fatalf("step %d: PageGradings(%+v): total %d, the narrations give %d", step, pq, p.Total, len(want))
			}
			for _, g := range p.Gradings {
				got = append(got, graded{g.Narration, g.Grading})
			}
			if !p.More {
				break
			}
			if len(p.Gradings) == 0 {
				t.Fatalf("step %d: PageGradings(%+v): an empty page says more follow", step, pq)
			}
			pq.After = p.Gradings[len(p.Gradings)-1].Key
		}
		if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
			t.Fatalf("step %d: PageGradings(%+v) =\n%+v\nthe narrations give\n%+v", step, q, got, want)
		}
	}
}

// checkAdjacency compares WeightedEdges, read two at a time, and EdgesBetween with the
// edges of id, sorted by Edges (edges).
func checkAdjacency(t *testing.T, st athar.Store, step int, id athar.ID, edges []athar.Edge) {
	t.Helper()
	ctx := context.Background()
	otherEnd := func(e athar.Edge) athar.ID {
		if e.Source == id {
			return e.Target
		}
		return e.Source
	}
	byWeight := append([]athar.Edge(nil), edges...)
	sort.SliceStable(byWeight, func(i, j int) bool { // stable: then predicate, then incoming first
		a, b := byWeight[i], byWeight[j]
		if a.Attestations != b.Attestations {
			return a.Attestations > b.Attestations
		}
		return otherEnd(a) < otherEnd(b)
	})
	sort.SliceStable(byWeight, func(i, j int) bool {
		a, b := byWeight[i], byWeight[j]
		if a.Attestations != b.Attestations || otherEnd(a) != otherEnd(b) {
			return false
		}
		if a.Predicate != b.Predicate {
			return a.Predicate < b.Predicate
		}
		return a.Source != id && b.Source == id
	})
	var got []athar.Edge
	after := ""
	for i := 0; ; i++ {
		es, next, err := st.WeightedEdges(ctx, id, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, es...)
		if next == "" {
			break
		}
		if len(es) != 2 || i > len(edges) {
			t.Fatalf("step %d: WeightedEdges(%s) gave %d edges and a next position", step, id, len(es))
		}
		after = next
	}
	if len(got)+len(byWeight) > 0 && !reflect.DeepEqual(got, byWeight) {
		t.Fatalf("step %d: WeightedEdges(%s) =\n%+v\nthe quads give\n%+v", step, id, got, byWeight)
	}
	for _, others := range append([][]athar.ID{RandomIDs}, splitIDs(RandomIDs)...) {
		in := map[athar.ID]bool{}
		for _, o := range others {
			in[o] = true
		}
		var want []athar.Edge
		for _, e := range edges {
			if in[otherEnd(e)] {
				want = append(want, e)
			}
		}
		got, err := st.EdgesBetween(ctx, []athar.ID{id}, others)
		if err != nil {
			t.Fatal(err)
		}
		sortEdgeSet(got)
		if len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: EdgesBetween(%s, %v) = %+v, the quads give %+v", step, id, others, got, want)
		}
	}
}

// checkEdgesBetween compares EdgesBetween of sets of RandomIDs with the edges the quads
// give (edges, by entity): each edge joining the two sets once.
func checkEdgesBetween(t *testing.T, st athar.Store, step int, edges map[athar.ID][]athar.Edge) {
	t.Helper()
	half := len(RandomIDs) / 2
	for _, c := range []struct{ ids, others []athar.ID }{
		{RandomIDs, RandomIDs},
		{RandomIDs[:half], RandomIDs},
		{RandomIDs[:half+2], RandomIDs[half-2:]},
		{append([]athar.ID{RandomIDs[1]}, RandomIDs[:3]...), RandomIDs[1:2]},
	} {
		ids, others := map[athar.ID]bool{}, map[athar.ID]bool{}
		for _, id := range c.ids {
			ids[id] = true
		}
		for _, id := range c.others {
			others[id] = true
		}
		seen := map[athar.Edge]bool{}
		var want []athar.Edge
		for id := range ids {
			for _, e := range edges[id] {
				if (ids[e.Source] && others[e.Target] || ids[e.Target] && others[e.Source]) && !seen[e] {
					seen[e] = true
					want = append(want, e)
				}
			}
		}
		sortEdgeSet(want)
		got, err := st.EdgesBetween(context.Background(), c.ids, c.others)
		if err != nil {
			t.Fatal(err)
		}
		sortEdgeSet(got)
		if len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: EdgesBetween(%v, %v) =\n%+v\nthe quads give\n%+v", step, c.ids, c.others, got, want)
		}
	}
}

func sortEdgeSet(es []athar.Edge) {
	sort.Slice(es, func(i, j int) bool {
		a, b := es[i], es[j]
		return a.Source+"\x00"+athar.ID(a.Predicate)+"\x00"+a.Target < b.Source+"\x00"+athar.ID(b.Predicate)+"\x00"+b.Target
	})
}

func splitIDs(ids []athar.ID) [][]athar.ID {
	var out [][]athar.ID
	for _, id := range ids {
		out = append(out, []athar.ID{id})
	}
	return out
}

// testPagesWithoutNarrations: a page of claims read without their narrations (which the
// store may jump over: a hub's claims are stated by thousands) is the page read with them,
// Narrations left nil -- the same claims, order, total and More, page after page, with a
// claim stated by thirty narrations among claims stated by one.
func testPagesWithoutNarrations(t *testing.T, st athar.Store) {
	applyHub(t, st, false)
	for _, q := range []athar.ClaimPageQuery{{Entity: "person:abu-bakr"}, {Predicate: "advises"}, {Entity: "person:abu-bakr", Predicate: "advises"}, {Entity: "concept:ransom"}, {Entity: "person:abu-bakr", Predicate: "advises", AsSubject: true}} {
		for _, first := range []int{-1, 0, 1, 3, 40} {
			q.First, q.After = first, ""
			for page := 0; ; page++ {
				with, err := st.PageClaims(context.Background(), q)
				if err != nil {
					t.Fatal(err)
				}
				skip := q
				skip.SkipNarrations = true
				without, err := st.PageClaims(context.Background(), skip)
				if err != nil {
					t.Fatal(err)
				}
				hub := false
				for i := range with.Refs {
					hub = hub || len(with.Refs[i].Narrations) == 30
					with.Refs[i].Narrations = nil
				}
				if !reflect.DeepEqual(with, without) {
					t.Fatalf("PageClaims(%+v) page %d without narrations:\n%+v\nwith them, narrations left out:\n%+v", q, page, without, with)
				}
				if q.Entity == "concept:ransom" && first != 0 && !hub {
					t.Fatalf("PageClaims(%+v): the claim thirty narrations state is not on the page", q)
				}
				if !with.More || len(with.Refs) == 0 {
					break
				}
				q.After = with.Refs[len(with.Refs)-1].SortKey()
			}
		}
	}
	// Edges count a claim's narrations without reading them: the claim thirty narrations
	// state has thirty, and each claim after it its one.
	edges, err := st.Edges(context.Background(), []athar.ID{"person:abu-bakr"})
	if err != nil {
		t.Fatal(err)
	}
	if len(edges["person:abu-bakr"]) != 31 {
		t.Fatalf("Edges(person:abu-bakr): %d edges, want 31: %+v", len(edges["person:abu-bakr"]), edges)
	}
	for _, e := range edges["person:abu-bakr"] {
		want := 1
		if e.Target == "concept:ransom" {
			want = 30
		}
		if e.Attestations != want {
			t.Errorf("Edges(person:abu-bakr): %s has %d attestations, want %d", e.Target, e.Attestations, want)
		}
	}
}

// applyHub imports thirty narrations (in an order that is not their ids') that each state
// person:abu-bakr advises concept:ransom -- twice, in two passages, when twice -- and a
// claim of their own.
func applyHub(t *testing.T, st athar.Store, twice bool) {
	t.Helper()
	again := ""
	if twice {
		again = `
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "he said ransom"}`
	}
	for i := range 30 {
		n := (i * 7) % 30
		apply(t, st, fmt.Sprintf(`
narration:
  id: narration:hub-%02d
  title: Report %d
  references: [{collection: Test, number: "%d"}]
  text: "Abu Bakr advised ransom, and then he said ransom. He advised zeal %d."
entities:
  - {id: person:abu-bakr, type: Person, name: Abu Bakr}
  - {id: concept:ransom, type: Concept, name: Ransom}
  - {id: concept:zeal-%02d, type: Concept, name: Zeal %d}
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}%s
  - {subject: person:abu-bakr, predicate: advises, object: concept:zeal-%02d, evidence: "He advised zeal %d"}
`, n, n, n, n, n, n, again, n, n))
	}
}

// testClaimHeads: the first attestations of a claim thirty narrations state, each in two
// passages (so that a cut after an odd number falls inside a narration), are those Claims
// lists first, with the totals; so for claims with fewer and for an absent claim.
func testClaimHeads(t *testing.T, st athar.Store) {
	applyHub(t, st, true)
	page, err := st.PageClaims(context.Background(), athar.ClaimPageQuery{Entity: "person:abu-bakr", First: -1})
	if err != nil {
		t.Fatal(err)
	}
	ids := []athar.ID{"claim:absent"}
	for _, r := range page.Refs {
		ids = append(ids, r.ID)
	}
	full, err := st.Claims(context.Background(), ids)
	if err != nil {
		t.Fatal(err)
	}
	hub := 0
	for _, c := range full {
		if c != nil && c.Object == "concept:ransom" && len(c.Attestations) == 60 {
			hub++
		}
	}
	if hub != 1 {
		t.Fatalf("no claim with sixty attestations in %+v", full)
	}
	checkClaimHeads(t, st, "hub", ids)
}

// pageAll reads every page of q, two claims at a time, checking that each page gives the
// total (unless it is negative).
func pageAll(t *testing.T, st athar.Store, q athar.ClaimPageQuery, total int) []athar.ClaimRef {
	t.Helper()
	var out []athar.ClaimRef
	q.First = 2
	for {
		p, err := st.PageClaims(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if total >= 0 && p.Total != total {
			t.Fatalf("PageClaims(%+v): total %d, want %d", q, p.Total, total)
		}
		out = append(out, p.Refs...)
		if !p.More {
			return out
		}
		if len(p.Refs) == 0 {
			t.Fatalf("PageClaims(%+v): an empty page says more follow", q)
		}
		q.After = p.Refs[len(p.Refs)-1].SortKey()
	}
}
