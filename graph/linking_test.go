package graph_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/testsupport"
)

// claimJSON is a claim as the tests ask for it.
type claimJSON struct {
	ID           string
	Predicate    string
	Value        *string
	Subject      struct{ ID string }
	Object       *struct{ ID string }
	Attestations []struct {
		Narration struct{ ID string }
		Evidence  *string
	}
	AttestationCount int
	Variants         []claimJSON
}

func (c claimJSON) narrations() []string {
	var out []string
	for _, a := range c.Attestations {
		out = append(out, a.Narration.ID)
	}
	return out
}

const claimFields = `id predicate value subject { id } object { id } attestationCount attestations { narration { id } evidence }`

// TestVariantsOfTheCompanionsCount: the three seeds that count the companions at Badr give
// three values, each kept with its narration and its words.
func TestVariantsOfTheCompanionsCount(t *testing.T) {
	e := newEnv(t, options{})
	var data struct {
		Variants []claimJSON
		Claims   struct{ Nodes []claimJSON }
	}
	e.query(t, `{
		variants(subject: "group:companions-at-badr", predicate: "memberCount") { `+claimFields+` }
		claims(subject: "group:companions-at-badr", predicate: "memberCount", first: 5) {
			nodes { `+claimFields+` variants { `+claimFields+` } }
		}
	}`, nil, &data)
	got := map[string][]string{}
	for _, c := range data.Variants {
		got[*c.Value] = c.narrations()
		if len(c.Attestations) != 1 || c.Attestations[0].Evidence == nil {
			t.Errorf("%q: attestations %+v", *c.Value, c.Attestations)
		}
	}
	want := map[string][]string{
		"three hundred and some": {"narration:ahmad-208"},
		"319":                    {"narration:muslim-1763"},
		"three-hundred and ten and some odd number of men": {"narration:tirmidhi-3081"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("variants = %v, want %v", got, want)
	}
	// Each claim lists the two others as its variants.
	for _, c := range data.Claims.Nodes {
		var vs []string
		for _, v := range c.Variants {
			vs = append(vs, *v.Value)
		}
		sort.Strings(vs)
		var others []string
		for v := range want {
			if v != *c.Value {
				others = append(others, v)
			}
		}
		sort.Strings(others)
		if !reflect.DeepEqual(vs, others) {
			t.Errorf("variants of %q = %v, want %v", *c.Value, vs, others)
		}
	}
	// Claims of predicates that are not single-valued have no variants, and the query
	// refuses them.
	var adv struct{ Claims struct{ Nodes []claimJSON } }
	e.query(t, `{ claims(predicate: "advises") { nodes { id variants { id } } } }`, nil, &adv)
	for _, c := range adv.Claims.Nodes {
		if len(c.Variants) != 0 {
			t.Errorf("advises claim %s has variants", c.ID)
		}
	}
	r := e.mustFail(t, request{Query: `{ variants(subject: "person:abu-bakr", predicate: "advises") { id } }`}, "INVALID_ARGUMENT")
	if !strings.Contains(r.Errors[0].Message, "not single-valued") {
		t.Errorf("message %q", r.Errors[0].Message)
	}
	e.mustFail(t, request{Query: `{ variants(subject: "person:abu-bakr", predicate: "nope") { id } }`}, "INVALID_ARGUMENT")
}

type parallelJSON struct {
	Narration    struct{ ID string }
	SharedClaims int
	Claims       []claimJSON
	Variants     []claimJSON
}

func TestParallels(t *testing.T) {
	e := newEnv(t, options{})
	var data struct {
		Narration struct{ Parallels []parallelJSON }
		Top       struct{ Parallels []parallelJSON }
	}
	e.query(t, `{
		narration(id: "narration:muslim-1763") {
			parallels { narration { id } sharedClaims claims { `+claimFields+` } variants { `+claimFields+` } }
		}
		top: narration(id: "narration:muslim-1763") { parallels(first: 1) { narration { id } sharedClaims } }
	}`, nil, &data)
	ps := data.Narration.Parallels
	if len(ps) == 0 || ps[0].Narration.ID != "narration:ahmad-208" {
		t.Fatalf("parallels of Muslim 1763: %+v, want Ahmad 208 first", ps)
	}
	for i, p := range ps {
		if p.SharedClaims != len(p.Claims) || p.SharedClaims == 0 && len(p.Variants) == 0 {
			t.Errorf("%s: sharedClaims %d, %d claims, %d variants", p.Narration.ID, p.SharedClaims, len(p.Claims), len(p.Variants))
		}
		if i > 0 {
			q := ps[i-1]
			if q.SharedClaims < p.SharedClaims || q.SharedClaims == p.SharedClaims && (len(q.Variants) < len(p.Variants) ||
				len(q.Variants) == len(p.Variants) && q.Narration.ID > p.Narration.ID) {
				t.Errorf("not ranked: %s (%d, %d) before %s (%d, %d)", q.Narration.ID, q.SharedClaims, len(q.Variants), p.Narration.ID, p.SharedClaims, len(p.Variants))
			}
		}
		for _, c := range p.Claims {
			ns := c.narrations()
			if !contains(ns, "narration:muslim-1763") || !contains(ns, p.Narration.ID) {
				t.Errorf("%s: shared claim %s is attested by %v", p.Narration.ID, c.ID, ns)
			}
		}
	}
	// Ahmad 208 counts the companions differently: a variant, with its words.
	found := false
	for _, v := range ps[0].Variants {
		if v.Predicate == "memberCount" && v.Subject.ID == "group:companions-at-badr" && *v.Value == "three hundred and some" {
			found = true
		}
	}
	if !found {
		t.Errorf("Ahmad 208's variant of the companions' count is missing: %+v", ps[0].Variants)
	}
	if len(data.Top.Parallels) != 1 || data.Top.Parallels[0].Narration.ID != "narration:ahmad-208" {
		t.Errorf("first: 1 gave %+v", data.Top.Parallels)
	}
	e.mustFail(t, request{Query: `{ narration(id: "narration:ahmad-208") { parallels(first: 0) { sharedClaims } } }`}, "INVALID_ARGUMENT")
}

// TestChains reads chains the other way (a person's narrations as transmitter and as
// narrator) and finds where chains converge.
func TestChains(t *testing.T) {
	e := newEnv(t, options{})
	var data struct {
		Ikrimah  struct{ Transmitted, Narrated []struct{ ID string } }
		IbnAbbas struct {
			Transmitted, Narrated []struct{ ID string }
			Witnessed             struct{ TotalCount int }
		}
		Umar struct{ Narrated []struct{ ID string } }
	}
	e.query(t, `{
		ikrimah: entity(id: "person:ikrimah-ibn-ammar") { ... on Person { transmitted { id } narrated { id } } }
		ibnAbbas: entity(id: "person:ibn-abbas") { ... on Person { transmitted { id } narrated { id } witnessed { totalCount } } }
		umar: entity(id: "person:umar-ibn-al-khattab") { ... on Person { narrated { id } } }
	}`, nil, &data)
	ids := func(xs []struct{ ID string }) []string {
		out := []string{}
		for _, x := range xs {
			out = append(out, x.ID)
		}
		return out
	}
	if got := ids(data.Ikrimah.Transmitted); !reflect.DeepEqual(got, []string{"narration:abudawud-2690", "narration:ahmad-208", "narration:muslim-1763", "narration:tirmidhi-3081"}) {
		t.Errorf("'Ikrimah ibn 'Ammar transmitted %v", got)
	}
	if got := ids(data.Ikrimah.Narrated); len(got) != 0 {
		t.Errorf("'Ikrimah narrated %v", got)
	}
	if got := ids(data.IbnAbbas.Narrated); !reflect.DeepEqual(got, []string{"narration:bukhari-3953"}) {
		t.Errorf("Ibn 'Abbas narrated %v", got)
	}
	if len(data.IbnAbbas.Transmitted) != 5 {
		t.Errorf("Ibn 'Abbas transmitted %v", ids(data.IbnAbbas.Transmitted))
	}
	// Narrating and transmitting never make a witness.
	if data.IbnAbbas.Witnessed.TotalCount != 0 {
		t.Errorf("Ibn 'Abbas witnessed %d events", data.IbnAbbas.Witnessed.TotalCount)
	}
	if got := ids(data.Umar.Narrated); !reflect.DeepEqual(got, []string{"narration:abudawud-2690", "narration:ahmad-208", "narration:muslim-1763", "narration:tirmidhi-3081"}) {
		t.Errorf("'Umar narrated %v", got)
	}

	type commonLink struct {
		Person      struct{ ID string }
		SharedRoute []struct{ ID string }
		Positions   []struct {
			Narration struct{ ID string }
			Position  int
			Branch    []struct{ ID string }
		}
	}
	var cl struct{ Umar, Yunus, None *commonLink }
	e.query(t, `
	fragment cl on CommonLink { person { id } sharedRoute { id } positions { narration { id } position branch { id } } }
	{
		umar: commonLink(narrations: ["narration:ahmad-208", "narration:muslim-1763", "narration:tirmidhi-3081", "narration:abudawud-2690"]) { ...cl }
		yunus: commonLink(narrations: ["narration:muslim-1763", "narration:tirmidhi-3081"]) { ...cl }
		none: commonLink(narrations: ["narration:bukhari-3986", "narration:ahmad-208"]) { ...cl }
	}`, nil, &cl)
	if cl.Umar == nil || cl.Umar.Person.ID != "person:ikrimah-ibn-ammar" {
		t.Fatalf("common link of 'Umar's report: %+v, want 'Ikrimah ibn 'Ammar", cl.Umar)
	}
	if got := ids(cl.Umar.SharedRoute); !reflect.DeepEqual(got, []string{"person:ikrimah-ibn-ammar", "person:abu-zumayl", "person:ibn-abbas", "person:umar-ibn-al-khattab"}) {
		t.Errorf("shared route %v", got)
	}
	wantPos := map[string]int{"narration:ahmad-208": 2, "narration:muslim-1763": 3, "narration:tirmidhi-3081": 3, "narration:abudawud-2690": 3}
	for i, p := range cl.Umar.Positions {
		if p.Position != wantPos[p.Narration.ID] || len(p.Branch) != p.Position-1 {
			t.Errorf("position in %s: %d, branch %v", p.Narration.ID, p.Position, ids(p.Branch))
		}
		if i == 0 && p.Narration.ID != "narration:ahmad-208" {
			t.Errorf("positions are not in the order asked: %s first", p.Narration.ID)
		}
	}
	if cl.Yunus == nil || cl.Yunus.Person.ID != "person:umar-ibn-yunus-al-hanafi" {
		t.Errorf("common link of Muslim 1763 and Tirmidhi 3081: %+v", cl.Yunus)
	}
	if cl.None != nil {
		t.Errorf("Bukhari 3986 and Ahmad 208 share no one, yet: %+v", cl.None)
	}
	e.mustFail(t, request{Query: `{ commonLink(narrations: ["narration:ahmad-208"]) { person { id } } }`}, "INVALID_ARGUMENT")
	e.mustFail(t, request{Query: `{ commonLink(narrations: ["narration:ahmad-208", "narration:ahmad-208"]) { person { id } } }`}, "INVALID_ARGUMENT")
	e.mustFail(t, request{Query: `{ commonLink(narrations: ["narration:ahmad-208", "narration:nope"]) { person { id } } }`}, "NOT_FOUND")
	e.mustFail(t, request{Query: `{ commonLink(narrations: ["narration:ahmad-208", "person:abu-bakr"]) { person { id } } }`}, "INVALID_ARGUMENT")
}

// TestCommonLinkReadsEveryRoute: Muslim 1763 gives two routes, split at the ح; a narration
// through Ibn al-Mubarak meets it on the second (Hannad > Ibn al-Mubarak > 'Ikrimah ...),
// which the chain alone (Zuhayr > 'Umar ibn Yunus > 'Ikrimah ...) never names.
func TestCommonLinkReadsEveryRoute(t *testing.T) {
	e := newEnv(t, options{token: testToken})
	d, err := narration.Parse("mubarak.yaml", []byte(`narration:
  id: narration:test-mubarak
  title: a report through Ibn al-Mubarak
  references: [{collection: Test, number: "1"}]
  chain: [person:test-student, person:ibn-al-mubarak]
  language: en
  text: Ibn al-Mubarak reported it.
entities:
  - {id: person:test-student, type: Person, name: A student}
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.importer.Import(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	var got struct {
		CommonLink *struct {
			Person    struct{ ID string }
			Positions []struct {
				Narration       struct{ ID string }
				Route, Position int
				Branch          []struct{ ID string }
			}
		}
	}
	e.query(t, `{ commonLink(narrations: ["narration:muslim-1763", "narration:test-mubarak"]) {
		person { id } positions { narration { id } route position branch { id } } } }`, nil, &got)
	cl := got.CommonLink
	if cl == nil || cl.Person.ID != "person:ibn-al-mubarak" {
		t.Fatalf("common link %+v, want Ibn al-Mubarak (Muslim 1763's second route)", cl)
	}
	p := cl.Positions[0]
	if p.Narration.ID != "narration:muslim-1763" || p.Route != 2 || p.Position != 2 || len(p.Branch) != 1 || p.Branch[0].ID != "person:hannad-ibn-al-sari" {
		t.Errorf("in Muslim 1763: %+v, want route 2, position 2, branch [Hannad]", p)
	}
	if p := cl.Positions[1]; p.Route != 1 || p.Position != 2 {
		t.Errorf("in the test narration: %+v, want route 1, position 2", p)
	}
}

func TestGradingsThroughGraphQL(t *testing.T) {
	e := newEnv(t, options{token: testToken})
	type grading struct {
		Position     int
		Grader       *struct{ ID, Name string }
		GraderName   string
		Verdict      string
		Grade        *string
		Scope        string
		Part         *string
		StatedIn     *struct{ Collection, Number string }
		StatedInText *string
	}
	var data struct {
		Narration struct{ Gradings []grading }
		Sahih     struct{ Gradings []grading }
	}
	e.query(t, `{
		narration(id: "narration:tirmidhi-1567") {
			gradings { position grader { id name } graderName verdict grade scope part statedIn { collection number } statedInText }
		}
		sahih: narration(id: "narration:bukhari-3953") { gradings { verdict } }
	}`, nil, &data)
	gs := data.Narration.Gradings
	if len(gs) != 4 {
		t.Fatalf("Tirmidhi 1567 has %d gradings, want 4", len(gs))
	}
	first := gs[0]
	// The seeds name their graders by id: graders are people of the graph (issue 17).
	if first.GraderName != "al-Tirmidhi" || first.Grader == nil || first.Grader.ID != "person:al-tirmidhi" || first.Verdict != "Hasan Gharib as a narration of Ath-Thawri" ||
		*first.Grade != "HASAN" || first.Scope != "CHAIN" || first.StatedIn == nil || first.StatedIn.Number != "1567" {
		t.Errorf("al-Tirmidhi's grading: %+v", first)
	}
	var verdicts []string
	for _, g := range gs {
		verdicts = append(verdicts, g.GraderName+": "+*g.Grade)
	}
	// The graders disagree, and every verdict is kept.
	if want := []string{"al-Tirmidhi: HASAN", "Ahmad Muhammad Shakir: SAHIH", "al-Albani: SAHIH", "Zubair Ali Zai: DAIF"}; !reflect.DeepEqual(verdicts, want) {
		t.Errorf("verdicts %v, want %v", verdicts, want)
	}
	if len(data.Sahih.Gradings) != 0 {
		t.Errorf("Bukhari 3953 has gradings: %+v", data.Sahih.Gradings)
	}

	// A grader named by id is a person of the graph; a partial grading names its part.
	doc := `
narration:
  id: narration:graded-test
  title: A graded test report
  references: [{collection: Test, number: "1"}]
  text: "Abu Bakr advised ransom."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
gradings:
  - {grader: person:ibn-abbas, verdict: "weak in this part", grade: daif, scope: part, part: "the advice", statedIn: "a test"}
`
	var imp struct {
		ImportNarration struct{ Narration struct{ Gradings []grading } }
	}
	r := e.do(t, request{Query: `mutation($d: String!) { importNarration(document: $d) { narration { gradings { grader { id name } graderName grade scope part statedInText } } } }`,
		Variables: map[string]any{"d": doc}, token: testToken})
	if len(r.Errors) > 0 {
		t.Fatal(r.Errors)
	}
	if err := json.Unmarshal(r.Data, &imp); err != nil {
		t.Fatal(err)
	}
	g := imp.ImportNarration.Narration.Gradings[0]
	if g.Grader == nil || g.Grader.ID != "person:ibn-abbas" || g.GraderName != g.Grader.Name || g.Scope != "PART" || *g.Part != "the advice" || *g.StatedInText != "a test" {
		t.Errorf("grading by id: %+v", g)
	}
	// Validation errors name the grading's field.
	bad := strings.Replace(doc, "scope: part, part: \"the advice\"", "scope: part", 1)
	r = e.mustFail(t, request{Query: `mutation($d: String!) { importNarration(document: $d) { changed } }`, Variables: map[string]any{"d": bad}, token: testToken}, "INVALID_ARGUMENT")
	if !strings.Contains(r.Errors[0].Message, "gradings[0].part") {
		t.Errorf("message %q", r.Errors[0].Message)
	}
}

// dupDoc names Abu Bakr under a second id, person:siddiq.
const dupDoc = `
narration:
  id: narration:dup
  title: A report naming Abu Bakr as al-Siddiq
  references: [{collection: Test, number: "2"}]
  narrator: person:siddiq
  text: "'Atiq advised ransom, and took part in Badr."
entities:
  - {id: person:siddiq, type: Person, name: "'Atiq", aliases: ["'Abd Allah ibn 'Uthman"]}
claims:
  - {subject: person:siddiq, predicate: advises, object: concept:ransom, evidence: "'Atiq advised ransom"}
  - {subject: person:siddiq, predicate: participatedIn, object: event:badr, evidence: "took part in Badr"}
`

func TestMergeEntities(t *testing.T) {
	e := newEnv(t, options{token: testToken})
	const importQ = `mutation($d: String!) { importNarration(document: $d) { changed } }`
	if r := e.do(t, request{Query: importQ, Variables: map[string]any{"d": dupDoc}, token: testToken}); len(r.Errors) > 0 {
		t.Fatal(r.Errors)
	}
	var before struct{ Claims struct{ Nodes []claimJSON } }
	e.query(t, `{ claims(subject: "person:abu-bakr", predicate: "advises") { nodes { `+claimFields+` } } }`, nil, &before)

	const mergeQ = `mutation { mergeEntities(keep: "person:abu-bakr", remove: "person:siddiq") {
		entity { id name aliases formerIds } removed narrations { id } changed quadsAdded quadsRemoved } }`
	e.mustFail(t, request{Query: mergeQ}, "UNAUTHENTICATED")
	e.mustFail(t, request{Query: mergeQ, token: "wrong"}, "UNAUTHENTICATED")
	type mergeResult struct {
		MergeEntities struct {
			Entity struct {
				ID, Name  string
				Aliases   []string
				FormerIds []string
			}
			Removed    string
			Narrations []struct{ ID string }
			Changed    bool
			QuadsAdded int
		}
	}
	var res mergeResult
	r := e.do(t, request{Query: mergeQ, token: testToken})
	if len(r.Errors) > 0 {
		t.Fatal(r.Errors)
	}
	json.Unmarshal(r.Data, &res)
	m := res.MergeEntities
	if m.Entity.ID != "person:abu-bakr" || m.Entity.Name != "Abu Bakr" || !contains(m.Entity.Aliases, "'Atiq") || !contains(m.Entity.Aliases, "'Abd Allah ibn 'Uthman") ||
		!reflect.DeepEqual(m.Entity.FormerIds, []string{"person:siddiq"}) || m.Removed != "person:siddiq" || !m.Changed || len(m.Narrations) != 1 || m.Narrations[0].ID != "narration:dup" {
		t.Fatalf("merge result %+v", m)
	}
	// The old id resolves to the kept entity, in entity() and in claims filters; the shared
	// claim has one attestation more; search finds the kept entity by the removed names.
	var after struct {
		Entity struct{ ID string }
		Claims struct{ Nodes []claimJSON }
		Search []struct{ ID string }
		Walk   struct{ Nodes []struct{ ID string } }
	}
	e.query(t, `{
		entity(id: "person:siddiq") { id }
		claims(subject: "person:siddiq", predicate: "advises") { nodes { `+claimFields+` } }
		search(text: "Abd Allah ibn Uthman") { id }
		walk: neighbourhood(id: "person:siddiq", depth: 0) { nodes { id } }
	}`, nil, &after)
	if after.Entity.ID != "person:abu-bakr" {
		t.Errorf("entity(person:siddiq) = %q", after.Entity.ID)
	}
	if len(after.Claims.Nodes) != 1 || after.Claims.Nodes[0].AttestationCount != before.Claims.Nodes[0].AttestationCount+1 {
		t.Errorf("advises claims after the merge: %+v (before: %d attestations)", after.Claims.Nodes, before.Claims.Nodes[0].AttestationCount)
	}
	if len(after.Search) == 0 || after.Search[0].ID != "person:abu-bakr" {
		t.Errorf("search by the removed alias: %+v", after.Search)
	}
	if len(after.Walk.Nodes) != 1 || after.Walk.Nodes[0].ID != "person:abu-bakr" {
		t.Errorf("neighbourhood of the old id: %+v", after.Walk.Nodes)
	}
	// Merging again changes nothing; a later document naming the old id links to the kept one.
	r = e.do(t, request{Query: mergeQ, token: testToken})
	json.Unmarshal(r.Data, &res)
	if len(r.Errors) > 0 || res.MergeEntities.Changed {
		t.Errorf("second merge: %+v %+v", r.Errors, res)
	}
	later := `
narration:
  id: narration:later
  title: Later
  references: [{collection: Test, number: "3"}]
  text: "'Atiq wept."
claims:
  - {subject: person:siddiq, predicate: weepsOver, object: concept:ransom, evidence: "'Atiq wept"}
`
	if r := e.do(t, request{Query: importQ, Variables: map[string]any{"d": later}, token: testToken}); len(r.Errors) > 0 {
		t.Fatal(r.Errors)
	}
	var wept struct{ Claims struct{ Nodes []claimJSON } }
	e.query(t, `{ claims(narration: "narration:later") { nodes { subject { id } } } }`, nil, &wept)
	if len(wept.Claims.Nodes) != 1 || wept.Claims.Nodes[0].Subject.ID != "person:abu-bakr" {
		t.Errorf("the later document's claim: %+v", wept.Claims.Nodes)
	}
	// Refusals.
	for _, tc := range []struct{ keep, remove, code string }{
		{"person:abu-bakr", "person:nobody", "NOT_FOUND"},
		{"person:abu-bakr", "event:badr", "INVALID_ARGUMENT"},
		{"verse:8:67", "verse:8:68", "INVALID_ARGUMENT"},
		{"person:abu-bakr", "not an id", "INVALID_ARGUMENT"},
		{"person:abu-bakr", "person:abu-bakr", "INVALID_ARGUMENT"},
	} {
		e.mustFail(t, request{Query: `mutation($k: ID!, $r: ID!) { mergeEntities(keep: $k, remove: $r) { changed } }`,
			Variables: map[string]any{"k": tc.keep, "r": tc.remove}, token: testToken}, tc.code)
	}
}

// TestUnknownIDSuggestion: a document naming an id that does not exist is refused with the
// closest ids the graph defines.
func TestUnknownIDSuggestion(t *testing.T) {
	e := newEnv(t, options{token: testToken})
	doc := `
narration:
  id: narration:typo
  title: A typo
  references: [{collection: Test, number: "1"}]
  text: "Abu Bakr advised ransom."
claims:
  - {subject: person:abu-bkr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
`
	r := e.mustFail(t, request{Query: `mutation($d: String!) { importNarration(document: $d) { changed } }`, Variables: map[string]any{"d": doc}, token: testToken}, "INVALID_ARGUMENT")
	problems, _ := r.Errors[0].Extensions["problems"].([]any)
	if len(problems) != 1 {
		t.Fatalf("problems %v", r.Errors[0].Extensions)
	}
	p := problems[0].(map[string]any)
	if p["path"] != "claims[0].subject" || !strings.Contains(p["message"].(string), "person:abu-bkr is not defined in this document's entities or in the graph (did you mean person:abu-bakr?)") {
		t.Errorf("problem %v", p)
	}
}

func TestVerseTexts(t *testing.T) {
	e := newEnv(t, options{})
	const q = `{
		v867: verse(ref: "8:67") { text translation textAttribution { title url license rights translator } }
		v11: verse(ref: "1:1") { name text translation }
		v2255: verse(ref: "2:255") { text translation textAttribution { title } }
	}`
	type verse struct {
		Name, Text, Translation *string
		TextAttribution         *struct {
			Title, Rights            string
			URL, License, Translator *string
		}
	}
	var none struct{ V867, V11, V2255 verse }
	e.query(t, q, nil, &none)
	if none.V867.Text != nil || none.V867.TextAttribution != nil {
		t.Fatalf("texts before any import: %+v", none.V867)
	}
	f, err := os.Open(filepath.Join("..", "internal", "narration", "testdata", "quran_en.fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	texts, err := narration.ReadQuranJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	before := testsupport.Quads(t, e.store)
	if _, err := e.importer.ImportVerseTexts(context.Background(), texts, narration.QuranJSONSource); err != nil {
		t.Fatal(err)
	}
	var got struct{ V867, V11, V2255 verse }
	e.query(t, q, nil, &got)
	v := got.V867
	if v.Text == nil || !strings.HasPrefix(*v.Text, "مَا كَانَ") || v.Translation == nil || !strings.HasPrefix(*v.Translation, "It is not for a prophet to have captives") {
		t.Errorf("8:67: %+v", v)
	}
	if a := v.TextAttribution; a == nil || a.Title != "quran-json 3.1.2, dist/quran_en.json" || *a.License != "https://creativecommons.org/licenses/by-sa/4.0/" ||
		*a.Translator != "Saheeh International" || !strings.Contains(a.Rights, "CC BY-SA 4.0") {
		t.Errorf("attribution: %+v", v.TextAttribution)
	}
	// A verse no narration mentions has its text too; one outside the file has none.
	if got.V11.Text == nil || *got.V11.Translation != "In the name of Allah, the Entirely Merciful, the Especially Merciful" {
		t.Errorf("1:1: %+v", got.V11)
	}
	if got.V2255.Text != nil || got.V2255.TextAttribution != nil {
		t.Errorf("2:255 outside the fixture: %+v", got.V2255)
	}
	// The texts are not a narration: 8:67's narrations are unchanged, and deleting a
	// narration leaves the texts in place.
	var ns struct {
		Verse struct{ Narrations []struct{ ID string } }
	}
	e.query(t, `{ verse(ref: "8:67") { narrations { id } } }`, nil, &ns)
	for _, n := range ns.Verse.Narrations {
		if !strings.HasPrefix(n.ID, "narration:") {
			t.Errorf("8:67 lists %s among its narrations", n.ID)
		}
	}
	var lines []string
	for _, l := range strings.Split(testsupport.Quads(t, e.store), "\n") {
		if !strings.Contains(l, "https://w3id.org/athar/graph/quran>") {
			lines = append(lines, l)
		}
	}
	if strings.Join(lines, "\n") != before {
		t.Error("importing verse texts changed narrations' quads")
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestNarrationRoutes: Muslim 1763 gives two routes; chain is the first, routes both, and
// Hannad ibn al-Sari (only in the second) transmits it.
func TestNarrationRoutes(t *testing.T) {
	e := newEnv(t, options{})
	var data struct {
		Narration struct {
			Chain  []struct{ ID string }
			Routes [][]struct{ ID string }
		}
		Hannad struct{ Transmitted []struct{ ID string } }
	}
	e.query(t, `{
		narration(id: "narration:muslim-1763") { chain { id } routes { id } }
		hannad: entity(id: "person:hannad-ibn-al-sari") { ... on Person { transmitted { id } } }
	}`, nil, &data)
	ids := func(ps []struct{ ID string }) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.ID)
		}
		return out
	}
	n := data.Narration
	if len(n.Routes) != 2 {
		t.Fatalf("routes = %v, want 2", n.Routes)
	}
	if !reflect.DeepEqual(ids(n.Chain), ids(n.Routes[0])) {
		t.Errorf("chain %v is not the first route %v", ids(n.Chain), ids(n.Routes[0]))
	}
	want := []string{"person:hannad-ibn-al-sari", "person:ibn-al-mubarak", "person:ikrimah-ibn-ammar", "person:abu-zumayl", "person:ibn-abbas", "person:umar-ibn-al-khattab"}
	if got := ids(n.Routes[1]); !reflect.DeepEqual(got, want) {
		t.Errorf("second route = %v, want %v", got, want)
	}
	if got := ids(data.Hannad.Transmitted); !reflect.DeepEqual(got, []string{"narration:muslim-1763"}) {
		t.Errorf("Hannad transmitted %v, want Muslim 1763", got)
	}
}

// TestTimelineFollowsWrites: the timeline's order is kept between writes, and a write that
// adds an event, or removes it, or orders two events already there, shows in the next
// request.
func TestTimelineFollowsWrites(t *testing.T) {
	e := newEnv(t, options{token: testToken})
	ctx := context.Background()
	ids := func() []string {
		var got struct{ Timeline []struct{ ID string } }
		e.query(t, `{ timeline(first: 1000) { id } }`, nil, &got)
		var out []string
		for _, ev := range got.Timeline {
			out = append(out, ev.ID)
		}
		return out
	}
	before := ids()
	if !reflect.DeepEqual(ids(), before) {
		t.Fatal("the timeline changed without a write")
	}
	d, err := narration.Parse("trench.yaml", []byte(`narration:
  id: narration:test-trench
  title: The Trench after Uhud
  references: [{collection: Test, number: "2"}]
  language: en
  text: After Uhud came the battle of the Trench.
entities:
  - {id: event:test-trench, type: Event, name: The Trench}
claims:
  - {subject: event:uhud, predicate: precedes, object: event:test-trench, evidence: "After Uhud came the battle of the Trench"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.importer.Import(ctx, d); err != nil {
		t.Fatal(err)
	}
	after := ids()
	iUhud, iTrench := slices.Index(after, "event:uhud"), slices.Index(after, "event:test-trench")
	if iTrench < 0 || iUhud < 0 || iTrench < iUhud || len(after) != len(before)+1 {
		t.Fatalf("after the import: %v (before: %v)", after, before)
	}
	if err := e.importer.Delete(ctx, "narration:test-trench"); err != nil {
		t.Fatal(err)
	}
	if got := ids(); !reflect.DeepEqual(got, before) {
		t.Errorf("after the deletion: %v, want %v", got, before)
	}

	// A claim of precedes alone, between events already defined, moves one of them.
	importDoc := func(src string) {
		t.Helper()
		d, err := narration.Parse("doc.yaml", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.importer.Import(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	importDoc(`narration:
  id: narration:test-ditch
  title: A ditch
  references: [{collection: Test, number: "3"}]
  language: en
  text: There was a ditch.
entities:
  - {id: event:aaa-ditch, type: Event, name: A ditch}
claims:
  - {subject: event:aaa-ditch, predicate: concerns, object: person:abu-bakr, evidence: "There was a ditch"}
`)
	unordered := ids()
	importDoc(`narration:
  id: narration:test-ditch-after
  title: The ditch after Uhud
  references: [{collection: Test, number: "4"}]
  language: en
  text: After Uhud they dug the ditch.
claims:
  - {subject: event:uhud, predicate: precedes, object: event:aaa-ditch, evidence: "After Uhud they dug the ditch"}
`)
	ordered := ids()
	if slices.Index(unordered, "event:aaa-ditch") > slices.Index(unordered, "event:uhud") {
		t.Fatalf("the ditch placed after Uhud before any claim orders them: %v", unordered)
	}
	if slices.Index(ordered, "event:aaa-ditch") < slices.Index(ordered, "event:uhud") {
		t.Errorf("after the claim that Uhud precedes the ditch: %v", ordered)
	}
}
