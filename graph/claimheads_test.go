package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/narration"
)

// TestHubClaimAttestations: a page of claims reads each with its first twenty
// attestations only (a hub's claims have thousands), and what the page shows is still the
// whole claim's: the first of every attestation, the count of every narration, the routes
// of all of them, and more than twenty when asked -- on every path that gives a claim.
func TestHubClaimAttestations(t *testing.T) {
	e := newEnv(t, options{})
	ctx := context.Background()
	for i := range 30 {
		d, err := narration.Parse("hub.yaml", []byte(fmt.Sprintf(`
narration:
  id: narration:hub-%02d
  title: Report %d
  references: [{collection: Test, number: "h%d"}]
  text: "Abu Bakr advised ransom."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
`, (i*11)%30, i, i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.importer.Import(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	id := athar.ClaimID("person:abu-bakr", "advises", athar.IRITerm(athar.ID("concept:ransom").IRI()))
	full, err := e.store.Claims(ctx, []athar.ID{id})
	if err != nil || full[0] == nil {
		t.Fatalf("the claim: %v, %v", full, err)
	}
	narrs := map[athar.ID]bool{}
	var want []string
	for _, a := range full[0].Attestations {
		narrs[a.Narration] = true
		want = append(want, string(a.Narration))
	}
	if len(want) < 31 {
		t.Fatalf("%d attestations, want the seeds' and thirty more", len(want))
	}
	const fields = `id attestationCount routeCount first: attestations { narration { id } } more: attestations(first: 25) { narration { id } }`
	type claim struct {
		ID               string
		AttestationCount int
		RouteCount       int
		First, More      []struct{ Narration struct{ ID string } }
	}
	check := func(path string, c claim) {
		t.Helper()
		if c.ID != string(id) {
			t.Fatalf("%s: claim %s, want %s", path, c.ID, id)
		}
		if c.AttestationCount != len(narrs) {
			t.Errorf("%s: attestationCount %d, want %d", path, c.AttestationCount, len(narrs))
		}
		if c.RouteCount < 30 || c.RouteCount > len(narrs) {
			t.Errorf("%s: routeCount %d, want at least the thirty chainless reports'", path, c.RouteCount)
		}
		for name, got := range map[string][]struct{ Narration struct{ ID string } }{"first 20": c.First, "first 25": c.More} {
			n := 20
			if name == "first 25" {
				n = 25
			}
			if len(got) != n {
				t.Fatalf("%s: %s: %d attestations", path, name, len(got))
			}
			for i, a := range got {
				if a.Narration.ID != want[i] {
					t.Fatalf("%s: %s: attestation %d is %s's, want %s's", path, name, i, a.Narration.ID, want[i])
				}
			}
		}
	}
	var byID struct{ Claim claim }
	e.query(t, `{ claim(id: "`+string(id)+`") { `+fields+` } }`, nil, &byID)
	check("claim", byID.Claim)
	var page struct {
		Claims struct{ Edges []struct{ Node claim } }
	}
	e.query(t, `{ claims(subject: "person:abu-bakr", predicate: "advises", first: 50) { edges { node { `+fields+` } } } }`, nil, &page)
	seen := 0
	for _, ed := range page.Claims.Edges {
		if ed.Node.ID == string(id) {
			check("claims", ed.Node)
			seen++
		}
	}
	var ent struct {
		Entity struct {
			Claims struct{ Edges []struct{ Node claim } }
		}
	}
	e.query(t, `{ entity(id: "concept:ransom") { claims(first: 50) { edges { node { `+fields+` } } } } }`, nil, &ent)
	for _, ed := range ent.Entity.Claims.Edges {
		if ed.Node.ID == string(id) {
			check("entity claims", ed.Node)
			seen++
		}
	}
	if seen != 2 {
		b, _ := json.Marshal([]any{page, ent})
		t.Fatalf("the claim is not on both pages: %s", b)
	}
}

// TestAttestationNarrations: an attestation's narration is its id alone when the query
// asks for nothing more, and the narration whole however else it is asked for -- plain
// fields, a fragment on the attestation, a fragment on the narration, an alias -- since
// the attestations' resolver, not a resolver per attestation, decides which to give.
func TestAttestationNarrations(t *testing.T) {
	e := newEnv(t, options{})
	ctx := context.Background()
	titles := map[string]string{}
	for i := range 3 {
		id := fmt.Sprintf("narration:att-%d", i)
		titles[id] = fmt.Sprintf("Report number %d", i)
		d, err := narration.Parse("att.yaml", []byte(fmt.Sprintf(`
narration:
  id: %s
  title: %s
  references: [{collection: Test, number: "a%d"}]
  text: "Abu Bakr advised ransom."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
`, id, titles[id], i)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.importer.Import(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	id := athar.ClaimID("person:abu-bakr", "advises", athar.IRITerm(athar.ID("concept:ransom").IRI()))
	type narr struct{ ID, Title string }
	for _, tc := range []struct {
		name, sel string
		whole     bool
	}{
		{"id alone", `attestations { narration { id } }`, false},
		{"id and typename", `attestations { narration { __typename id } }`, false},
		{"title", `attestations { narration { id title } }`, true},
		{"inline fragment on the attestation", `attestations { ... on Attestation { narration { id title } } }`, true},
		{"named fragment on the attestation", `attestations { ...att }`, true},
		{"fragment on the narration", `attestations { narration { id ... on Narration { title } } }`, true},
		{"id here, title under an alias", `attestations { narration { id } other: narration { title } }`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := `{ claim(id: "` + string(id) + `") { ` + tc.sel + ` } }`
			if strings.Contains(tc.sel, "...att") {
				q += ` fragment att on Attestation { narration { id title } }`
			}
			var got struct {
				Claim struct {
					Attestations []struct {
						Narration narr
						Other     *narr
					}
				}
			}
			e.query(t, q, nil, &got)
			seen := 0
			for _, a := range got.Claim.Attestations {
				n := a.Narration
				if a.Other != nil {
					n.Title = a.Other.Title
				}
				want, ok := titles[n.ID]
				if !ok {
					continue // the seeds' attestations of the same claim
				}
				seen++
				if tc.whole && n.Title != want {
					t.Errorf("%s: title %q, want %q", n.ID, n.Title, want)
				}
				if !tc.whole && n.Title != "" {
					t.Errorf("%s: title %q unasked", n.ID, n.Title)
				}
			}
			if seen != len(titles) {
				t.Fatalf("%d of the %d narrations' attestations: %+v", seen, len(titles), got)
			}
		})
	}
}

// TestClaimPagesWithoutAttestations: a page of claims whose selection asks for neither
// their attestations nor a count of them reads the claims' parts only (Store.ClaimParts,
// no attestation read), and shows the same claims as a page that asks for them; as soon as
// anything under the page asks -- directly, through a fragment, in a nested claim --
// the claims are read with their attestations, and what they show is right.
func TestClaimPagesWithoutAttestations(t *testing.T) {
	cs := &countingStore{calls: map[string]int{}}
	e := newEnv(t, options{wrap: func(st athar.Store) athar.Store { cs.Store = st; return cs }})
	const parts = `id predicate subject { id } object { id } value`
	paths := map[string]string{
		"claims":         `{ claims(subject: "person:umar-ibn-al-khattab", first: 50) { totalCount edges { node { %s } } } }`,
		"entity claims":  `{ entity(id: "concept:ransom") { claims(first: 50) { totalCount edges { node { %s } } } } }`,
		"relations":      `{ entity(id: "person:umar-ibn-al-khattab") { relations(first: 50) { nodes { claim { %s } } } } }`,
		"claims by pred": `{ claims(predicate: "advises", first: 50) { edges { node { %s } } } }`,
	}
	asks := []string{
		parts + ` attestationCount`,
		parts + ` attestations { narration { id } evidence }`,
		parts + ` ...A`,
		parts + ` variants { id routeCount }`,
	}
	for name, q := range paths {
		cs.reset()
		var bare map[string]any
		e.query(t, fmt.Sprintf(q, parts), nil, &bare)
		if _, calls := cs.total(); calls["ClaimParts"] == 0 || calls["ClaimHeads"] != 0 {
			t.Errorf("%s: a page without attestations read %v; want ClaimParts and no ClaimHeads", name, calls)
		}
		for _, ask := range asks {
			cs.reset()
			text := fmt.Sprintf(q, ask)
			if strings.Contains(ask, "...A") {
				text += ` fragment A on Claim { attestations(first: 1) { narration { id } } }`
			}
			var full map[string]any
			e.query(t, text, nil, &full)
			if _, calls := cs.total(); calls["ClaimHeads"] == 0 && calls["Claims"] == 0 {
				t.Errorf("%s, asking %q: read %v; want the claims with their attestations", name, ask, calls)
			}
			if got, want := strip(full), strip(bare); got != want {
				t.Errorf("%s, asking %q: the claims' parts differ:\n%s\nwithout attestations:\n%s", name, ask, got, want)
			}
			if strings.Contains(ask, "attestationCount") && !strings.Contains(mustJSON(full), `"attestationCount":1`) && !strings.Contains(mustJSON(full), `"attestationCount":2`) {
				t.Errorf("%s: no attestationCount of 1 or 2 in %s", name, mustJSON(full))
			}
		}
	}
}

// strip gives a response's claims' parts as JSON, without what the asks add.
func strip(v any) string {
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, f := range x {
				switch k {
				case "attestationCount", "attestations", "variants":
				default:
					out[k] = walk(f)
				}
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, f := range x {
				out[i] = walk(f)
			}
			return out
		}
		return v
	}
	return mustJSON(walk(v))
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestClaimEndsReadWithThePage: a claim's subject and object are read with the page of
// claims it is on, for every path that gives claims and however the query asks for them
// (plain fields, a named fragment, an inline fragment), the same entities each way;
// narrations among them are read whole when the query asks more than a summary gives; and
// a page that asks for neither reads no entity (where nothing else in the query does); a
// page that asks reads its entities in one go, an edge's claims theirs in one batch.
func TestClaimEndsReadWithThePage(t *testing.T) {
	cs := &countingStore{calls: map[string]int{}}
	e := newEnv(t, options{wrap: func(st athar.Store) athar.Store { cs.Store = st; return cs }})
	paths := map[string]string{
		"claims":              `{ claims(subject: "person:umar-ibn-al-khattab", first: 50) { edges { node { %s } } } }`,
		"entity claims":       `{ entity(id: "concept:ransom") { claims(first: 50) { nodes { %s } } } }`,
		"relations":           `{ entity(id: "person:umar-ibn-al-khattab") { relations(first: 50) { nodes { claim { %s } } } } }`,
		"claims by predicate": `{ claims(predicate: "advises", first: 50) { nodes { %s } } }`,
		"variants":            `{ variants(subject: "group:companions-at-badr", predicate: "memberCount") { %s } }`,
		"claim variants":      `{ claims(subject: "group:companions-at-badr", predicate: "memberCount", first: 5) { nodes { variants { %s } } } }`,
		"parallels":           `{ narration(id: "narration:muslim-1763") { parallels { claims { %s } variants { %s } } } }`,
		"edges":               `{ neighbourhood(id: "event:badr", depth: 1, first: 20) { edges { claim { %s } } } }`,
	}
	forms := map[string]string{
		"plain":    `id value subject { id name } object { id name }`,
		"fragment": `id value ...Ends`,
		"inline":   `id value ... on Claim { subject { id name } } ... on Claim { object { id name } }`,
	}
	const fragment = ` fragment Ends on Claim { subject { id name } object { id name } }`
	for name, q := range paths {
		var want string
		for _, form := range []string{"plain", "fragment", "inline"} {
			text := strings.ReplaceAll(q, "%s", forms[form])
			if form == "fragment" {
				text += fragment
			}
			cs.reset()
			var got map[string]any
			e.query(t, text, nil, &got)
			if _, calls := cs.total(); calls["Entities"] > 3 {
				// the page's in one read, besides what the query reads of its own
				t.Errorf("%s, %s: %d reads of entities: %v", name, form, calls["Entities"], calls)
			}
			if s := mustJSON(got); want == "" {
				want = s
				if !strings.Contains(s, `"subject":{"id":"`) {
					t.Fatalf("%s: no claim with a subject in %s", name, s)
				}
			} else if s != want {
				t.Errorf("%s, %s: %s\nwant, as plain fields: %s", name, form, s, want)
			}
		}
		if strings.Contains(q, "entity(") || strings.Contains(q, "neighbourhood(") {
			continue // they read entities of their own
		}
		cs.reset()
		var bare map[string]any
		e.query(t, strings.ReplaceAll(q, "%s", "id value"), nil, &bare)
		if _, calls := cs.total(); calls["Entities"] != 0 {
			t.Errorf("%s: a page asking for no subject or object read entities: %v", name, calls)
		}
	}
	var narrates struct {
		Claims struct {
			Nodes []struct {
				Object struct{ ID, Text string }
			}
		}
	}
	e.query(t, `{ claims(subject: "person:umar-ibn-al-khattab", predicate: "narrates", first: 5) { nodes { object { id ... on Narration { text } } } } }`, nil, &narrates)
	if len(narrates.Claims.Nodes) == 0 {
		t.Fatal("'Umar narrates nothing in the seeds")
	}
	for _, n := range narrates.Claims.Nodes {
		if !strings.HasPrefix(n.Object.ID, "narration:") || n.Object.Text == "" {
			t.Errorf("a narrates claim's object read as a summary though its text is asked: %+v", n.Object)
		}
	}
}

// TestRelationEntitiesReadWithThePage: the entity at a relation's other end is read with
// the page of relations, however the query asks for it, the same entity each way, whole
// when the query asks more than a summary gives; a page that does not ask reads none.
func TestRelationEntitiesReadWithThePage(t *testing.T) {
	cs := &countingStore{calls: map[string]int{}}
	e := newEnv(t, options{wrap: func(st athar.Store) athar.Store { cs.Store = st; return cs }})
	const q = `{ entity(id: "person:umar-ibn-al-khattab") { ... on Person { narrates(first: 20) { nodes { predicate %s } } } relations(first: 50) { nodes { predicate value %s } } } }`
	forms := map[string]string{
		"plain":    `entity { id name }`,
		"fragment": `...Other`,
		"inline":   `... on Relation { entity { id name } }`,
	}
	var want string
	for _, form := range []string{"plain", "fragment", "inline"} {
		text := strings.ReplaceAll(q, "%s", forms[form])
		if form == "fragment" {
			text += ` fragment Other on Relation { entity { id name } }`
		}
		cs.reset()
		var got map[string]any
		e.query(t, text, nil, &got)
		if _, calls := cs.total(); calls["Entities"] > 3 {
			t.Errorf("%s: %d reads of entities: %v", form, calls["Entities"], calls)
		}
		s := mustJSON(got)
		if want == "" {
			want = s
			if !strings.Contains(s, `"entity":{"id":"narration:`) || !strings.Contains(s, `"entity":{"id":"`) {
				t.Fatalf("no relation with an entity in %s", s)
			}
		} else if s != want {
			t.Errorf("%s: %s\nwant, as plain fields: %s", form, s, want)
		}
	}
	cs.reset()
	e.query(t, strings.ReplaceAll(q, "%s", ""), nil, nil)
	_, bare := cs.total()
	cs.reset()
	e.query(t, strings.ReplaceAll(q, "%s", forms["plain"]), nil, nil)
	if _, asked := cs.total(); bare["Entities"] >= asked["Entities"] {
		t.Errorf("relations not asking for their entities read %d times, asking %d", bare["Entities"], asked["Entities"])
	}
	var whole struct {
		Entity struct {
			Narrates struct {
				Nodes []struct{ Entity struct{ ID, Text string } }
			}
		}
	}
	e.query(t, `{ entity(id: "person:umar-ibn-al-khattab") { ... on Person { narrates(first: 5) { nodes { entity { id ... on Narration { text } } } } } } }`, nil, &whole)
	if len(whole.Entity.Narrates.Nodes) == 0 {
		t.Fatal("'Umar narrates nothing in the seeds")
	}
	for _, n := range whole.Entity.Narrates.Nodes {
		if n.Entity.Text == "" {
			t.Errorf("a narrates relation's narration read as a summary though its text is asked: %+v", n.Entity)
		}
	}
}
