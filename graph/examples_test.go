package graph_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/testsupport"
	"github.com/athar-hadith/athar/schema"
)

// exampleDir holds the documents of docs/linking.md: narrations written after the seeds,
// using their ids.
var exampleDir = filepath.Join("..", "docs", "examples")

func readExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(exampleDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestExamplesValidate: every document of docs/examples is valid against the seeds alone.
func TestExamplesValidate(t *testing.T) {
	e := newEnv(t, options{})
	names, err := filepath.Glob(filepath.Join(exampleDir, "*.yaml"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no examples in %s: %v", exampleDir, err)
	}
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		d, err := narration.Parse(filepath.Base(n), data)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := narration.Validate(context.Background(), d, schema.Vocabulary(), e.store); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

// TestExamplesLinkIntoTheSeeds is the definition of done: a narration document
// written later by someone else, using the core ids, links into the seeds -- its claims
// appear among the same entities, agreeing claims count one more attestation, differing
// values show as variants -- and deleting it restores the graph exactly.
func TestExamplesLinkIntoTheSeeds(t *testing.T) {
	e := newEnv(t, options{token: testToken})
	before := testsupport.Quads(t, e.store)

	const factsQ = `{
		uhud: claims(subject: "group:companions-at-uhud", predicate: "killedCount") { nodes { value attestationCount } }
		deserted: claims(subject: "group:companions-at-uhud", predicate: "deserted") { nodes { attestationCount } }
		archers: claims(subject: "group:archers-at-uhud", predicate: "memberCount") { nodes { value attestations { narration { id } } } }
		companions: variants(subject: "group:companions-at-badr", predicate: "memberCount") { value attestations { narration { id } evidence } }
		umarAtUhud: claims(subject: "person:umar-ibn-al-khattab", predicate: "participatedIn", object: "event:uhud") { totalCount }
	}`
	type facts struct {
		Uhud, Deserted struct {
			Nodes []struct {
				Value            *string
				AttestationCount int
			}
		}
		Archers    struct{ Nodes []claimJSON }
		Companions []claimJSON
		UmarAtUhud struct{ TotalCount int }
	}
	var f0 facts
	e.query(t, factsQ, nil, &f0)

	importDoc := func(name string) {
		t.Helper()
		var res struct {
			ImportNarration struct {
				Changed     bool
				ClaimsAdded int
			}
		}
		r := e.do(t, request{Query: `mutation($d: String!) { importNarration(document: $d) { changed claimsAdded } }`,
			Variables: map[string]any{"d": readExample(t, name)}, token: testToken})
		if len(r.Errors) > 0 {
			t.Fatalf("import %s: %+v", name, r.Errors)
		}
		json.Unmarshal(r.Data, &res)
		if !res.ImportNarration.Changed {
			t.Fatalf("import %s changed nothing", name)
		}
	}
	importDoc("bukhari-3039.yaml")

	var f1 facts
	e.query(t, factsQ, nil, &f1)
	// Agreeing claims count one more attestation.
	if f1.Uhud.Nodes[0].AttestationCount != f0.Uhud.Nodes[0].AttestationCount+1 || len(f1.Uhud.Nodes) != 1 {
		t.Errorf("Uhud's seventy killed: %+v, before %+v", f1.Uhud.Nodes, f0.Uhud.Nodes)
	}
	if f1.Deserted.Nodes[0].AttestationCount != f0.Deserted.Nodes[0].AttestationCount+1 {
		t.Errorf("the companions deserting at Uhud: %+v", f1.Deserted.Nodes)
	}
	// New claims appear among the same entities.
	if len(f1.Archers.Nodes) != 1 || *f1.Archers.Nodes[0].Value != "fifty" || f0.UmarAtUhud.TotalCount != 0 || f1.UmarAtUhud.TotalCount != 1 {
		t.Errorf("new claims about the seeds' entities: archers %+v, 'Umar at Uhud %d", f1.Archers.Nodes, f1.UmarAtUhud.TotalCount)
	}

	// Its parallels: Bukhari 3986, the same route's shorter report, first.
	var par struct {
		Narration struct {
			Parallels []parallelJSON
		}
		Route *struct{ Person struct{ ID string } }
	}
	e.query(t, `{
		narration(id: "narration:bukhari-3039") { parallels { narration { id } sharedClaims } }
		route: commonLink(narrations: ["narration:bukhari-3039", "narration:bukhari-3986"]) { person { id } }
	}`, nil, &par)
	if ps := par.Narration.Parallels; len(ps) < 2 || ps[0].Narration.ID != "narration:bukhari-3986" || ps[0].SharedClaims < 10 {
		t.Errorf("parallels of Bukhari 3039: %+v", ps)
	}
	if par.Route == nil || par.Route.Person.ID != "person:amr-ibn-khalid-al-harrani" {
		t.Errorf("common link of 3039 and 3986: %+v", par.Route)
	}

	// A differing value shows as a variant.
	importDoc("bukhari-3958.yaml")
	var f2 facts
	e.query(t, factsQ, nil, &f2)
	values := func(cs []claimJSON) map[string][]string {
		m := map[string][]string{}
		for _, c := range cs {
			m[*c.Value] = c.narrations()
		}
		return m
	}
	want := values(f0.Companions)
	if len(want) != 3 {
		t.Fatalf("the seeds count the companions at Badr %d ways, want 3: %v", len(want), want)
	}
	want["over three-hundred-and-ten men"] = []string{"narration:bukhari-3958"}
	if got := values(f2.Companions); !reflect.DeepEqual(got, want) {
		t.Errorf("variants of the companions' count: %v, want %v", got, want)
	}
	// A narration that only gives another count is among its parallels too, sharing nothing.
	var par3958 struct {
		Narration struct{ Parallels []parallelJSON }
	}
	e.query(t, `{ narration(id: "narration:bukhari-3958") { parallels { narration { id } sharedClaims variants { value } } } }`, nil, &par3958)
	onlyDiffers := false
	for _, p := range par3958.Narration.Parallels {
		if p.Narration.ID == "narration:tirmidhi-3081" && p.SharedClaims == 0 && len(p.Variants) == 1 {
			onlyDiffers = true
		}
	}
	if !onlyDiffers {
		t.Errorf("Tirmidhi 3081 (another count, nothing shared) is not among Bukhari 3958's parallels: %+v", par3958.Narration.Parallels)
	}
	var cl struct {
		CommonLink *struct {
			Person    struct{ ID string }
			Positions []struct{ Position int }
		}
	}
	e.query(t, `{ commonLink(narrations: ["narration:bukhari-3039", "narration:bukhari-3958", "narration:bukhari-3986"]) { person { id } positions { position } } }`, nil, &cl)
	if cl.CommonLink == nil || cl.CommonLink.Person.ID != "person:abu-ishaq-al-sabii" {
		t.Errorf("common link of al-Bara's reports: %+v", cl.CommonLink)
	} else {
		var pos []int
		for _, p := range cl.CommonLink.Positions {
			pos = append(pos, p.Position)
		}
		sort.Ints(pos)
		if !reflect.DeepEqual(pos, []int{3, 3, 3}) {
			t.Errorf("Abu Ishaq's positions: %v", pos)
		}
	}

	// Deleting both restores the graph exactly.
	for _, id := range []string{"narration:bukhari-3958", "narration:bukhari-3039"} {
		if r := e.do(t, request{Query: `mutation($id: ID!) { deleteNarration(id: $id) }`, Variables: map[string]any{"id": id}, token: testToken}); len(r.Errors) > 0 {
			t.Fatalf("delete %s: %+v", id, r.Errors)
		}
	}
	if after := testsupport.Quads(t, e.store); after != before {
		t.Fatal("deleting the examples did not restore the graph exactly")
	}
}
