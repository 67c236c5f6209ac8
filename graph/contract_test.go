package graph_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/graph"
)

// TestContractFields asks for every field of shared/API-CONTRACT.md over HTTP, on every
// entity type, and checks the shapes the contract promises.
func TestContractFields(t *testing.T) {
	e := newEnv(t, options{token: testToken})
	const entityFields = `id type name aliases
		narrations { id text title }
		claims(first: 2) {
			totalCount
			pageInfo { hasNextPage endCursor }
			edges { cursor node { ...claim } }
		}`
	q := `
	fragment claim on Claim {
		id predicate value
		subject { id type }
		object { id type }
		attestations { narration { id } evidence start end }
	}
	query {
		person: entity(id: "person:abu-bakr") { ` + entityFields + ` }
		group: entity(id: "group:captives-of-badr") { ` + entityFields + ` }
		event: entity(id: "event:badr") { ` + entityFields + ` }
		place: entity(id: "place:badr") { ` + entityFields + ` }
		concept: entity(id: "concept:ransom") { ` + entityFields + ` }
		verseEntity: entity(id: "verse:8:67") { ` + entityFields + ` }
		narrationEntity: entity(id: "narration:ahmad-208") { ` + entityFields + ` }
		missing: entity(id: "person:nobody") { id }
		search(text: "Abu Bakr", first: 3) { id name }
		verse(ref: "8:67") { id surah ayah surahName ` + entityFields + ` }
		narration(id: "narration:ahmad-208") {
			id text title
			references { collection number edition }
		}
		claims(subject: "person:abu-bakr", predicate: "advises", object: "concept:ransom",
			narration: "narration:ahmad-208", minAttestations: 1, first: 5, after: null) {
			totalCount pageInfo { hasNextPage endCursor } edges { cursor node { ...claim } }
		}
		neighbourhood(id: "event:uhud", depth: 1) {
			nodes { id type }
			edges { source target predicate attestations }
		}
		shortestPath(from: "person:abu-bakr", to: "event:uhud", maxLength: 6) {
			nodes { id }
			edges { source target predicate attestations }
		}
		timeline { id name }
	}`
	var data map[string]json.RawMessage
	e.query(t, q, nil, &data)

	type claim struct {
		ID, Predicate string
		Value         *string
		Subject       struct{ ID, Type string }
		Object        *struct{ ID, Type string }
		Attestations  []struct {
			Narration  struct{ ID string }
			Evidence   *string
			Start, End *int
		}
	}
	type entity struct {
		ID, Type, Name string
		Aliases        []string
		Narrations     []struct{ ID, Text, Title string }
		Claims         connectionJSON[claim]
	}
	for alias, want := range map[string]string{
		"person": "Person", "group": "Group", "event": "Event", "place": "Place",
		"concept": "Concept", "verseEntity": "Verse", "narrationEntity": "Narration", "verse": "Verse",
	} {
		var got entity
		if err := json.Unmarshal(data[alias], &got); err != nil {
			t.Fatalf("%s: %v", alias, err)
		}
		if got.Type != want || got.Name == "" || got.Aliases == nil || len(got.Narrations) == 0 {
			t.Errorf("%s: got %+v, want a %s with a name, aliases and narrations", alias, got, want)
		}
		if got.Claims.TotalCount == 0 || len(got.Claims.Edges) == 0 || got.Claims.Edges[0].Cursor == "" {
			t.Errorf("%s: no claims: %+v", alias, got.Claims)
		}
		for _, edge := range got.Claims.Edges {
			c := edge.Node
			if (c.Object == nil) == (c.Value == nil) {
				t.Errorf("%s: claim %s: exactly one of object and value must be set", alias, c.ID)
			}
			if c.Subject.ID != got.ID && (c.Object == nil || c.Object.ID != got.ID) {
				t.Errorf("%s: claim %s is neither from nor to %s", alias, c.ID, got.ID)
			}
			if len(c.Attestations) == 0 {
				t.Errorf("%s: claim %s has no attestations", alias, c.ID)
			}
		}
	}
	if string(data["missing"]) != "null" {
		t.Errorf("missing entity = %s, want null", data["missing"])
	}
	var conn struct {
		TotalCount int
		Edges      []struct{ Node claim }
	}
	if err := json.Unmarshal(data["claims"], &conn); err != nil {
		t.Fatal(err)
	}
	if conn.TotalCount != 1 || len(conn.Edges) != 1 || conn.Edges[0].Node.Object.ID != "concept:ransom" {
		t.Errorf("claims with every filter = %+v, want Abu Bakr advises ransom", conn)
	}
	var sg struct {
		Nodes []struct{ ID string }
		Edges []struct {
			Source, Target, Predicate string
			Attestations              int
		}
	}
	if err := json.Unmarshal(data["shortestPath"], &sg); err != nil {
		t.Fatal(err)
	}
	if len(sg.Nodes) < 2 || sg.Nodes[0].ID != "person:abu-bakr" || sg.Nodes[len(sg.Nodes)-1].ID != "event:uhud" {
		t.Errorf("shortestPath nodes = %+v", sg.Nodes)
	}
	for _, ed := range sg.Edges {
		if ed.Attestations < 1 || ed.Source == ed.Target {
			t.Errorf("bad edge %+v", ed)
		}
	}
}

// TestResearchQuestions checks the answers researchers ask for (shared/DOMAIN.md) against
// what the seed narrations say.
func TestResearchQuestions(t *testing.T) {
	e := newEnv(t, options{})
	tests := []struct {
		name  string
		query string
		// want lists strings that must appear in the answer, in order
		want []string
		// absent lists strings that must not appear
		absent []string
	}{
		{
			name:  "Abu Bakr advises ransom, 'Umar execution, with the words of Ahmad 208",
			query: `{ claims(predicate: "advises") { nodes { subject { id } object { id } attestations { narration { id } evidence } } } }`,
			want: []string{
				`"person:abu-bakr"`, `"concept:ransom"`, `"narration:ahmad-208"`, `"I think that you should accept a ransom for them"`,
				`"person:umar-ibn-al-khattab"`, `"concept:execution"`, `"narration:ahmad-208"`, `"over to me so that I may strike his neck"`,
			},
		},
		{
			name:  "8:67 was revealed regarding the ransom",
			query: `{ verse(ref: "8:67") { revealedRegarding { nodes { entity { id } } } } }`,
			want:  []string{`"concept:ransom"`},
		},
		{
			name:  "the Prophet consulted Abu Bakr, 'Ali and 'Umar",
			query: `{ entity(id: "person:muhammad") { ... on Person { consults { nodes { entity { id } } } } } }`,
			want:  []string{`"person:abu-bakr"`, `"person:ali-ibn-abi-talib"`, `"person:umar-ibn-al-khattab"`},
		},
		{
			name:  "Badr precedes Uhud, read from both sides",
			query: `{ b: entity(id: "event:badr") { ... on Event { precedes { nodes { entity { id } } } } } u: entity(id: "event:uhud") { ... on Event { follows { nodes { entity { id } direction } } } } }`,
			want:  []string{`"b"`, `"event:uhud"`, `"u"`, `"event:badr"`, `"INCOMING"`},
		},
		{
			name:  "the participants of Badr are the inverse of participatedIn",
			query: `{ entity(id: "event:badr") { ... on Event { participants { nodes { name entity { id } } } } } }`,
			want:  []string{`"participants"`, `"person:muhammad"`},
		},
		{
			name:  "the variant counts of the companions at Badr, each with its narration",
			query: `{ entity(id: "group:companions-at-badr") { ... on Group { memberCount { nodes { value claim { attestations { narration { id } } } } } } } }`,
			want:  []string{`"319"`, `"narration:muslim-1763"`, `"three hundred and some"`, `"narration:ahmad-208"`},
		},
		{
			name:  "'Umar is found as son of al-Khattab and as عمر",
			query: "{ a: search(text: \"son of al-Khattab\") { id } b: search(text: \"عمر\", first: 1) { id } c: search(text: \"`UMAR\", first: 1) { id } }",
			want:  []string{`"a"`, `"person:umar-ibn-al-khattab"`, `"b"`, `"person:umar-ibn-al-khattab"`, `"c"`, `"person:umar-ibn-al-khattab"`},
		},
		{
			name:  "the chain of Ahmad 208, nearest the compiler first",
			query: `{ narration(id: "narration:ahmad-208") { chain { id } narrator { id } } }`,
			want: []string{`"person:abu-nuh-qurad"`, `"person:ikrimah-ibn-ammar"`, `"person:abu-zumayl"`, `"person:ibn-abbas"`,
				`"person:umar-ibn-al-khattab"`, `"narrator"`, `"person:umar-ibn-al-khattab"`},
		},
		{
			name:   "3:165 comes only through Ahmad 208",
			query:  `{ verse(ref: "3:165") { revealedRegarding { nodes { entity { id } claim { attestations { narration { id } } } } } } }`,
			want:   []string{`"event:losses-at-uhud"`, `"narration:ahmad-208"`},
			absent: []string{`"narration:muslim-1763"`},
		},
		{
			name:  "recited is not revealed: 54:45",
			query: `{ verse(ref: "54:45") { recitedBy { nodes { entity { id } } } revealedRegarding { totalCount } } }`,
			want:  []string{`"person:muhammad"`, `"totalCount":0`},
		},
		{
			name:  "the timeline puts Badr before Uhud and Uhud before the revelation of 3:165",
			query: `{ timeline { id } }`,
			want:  []string{`"event:badr"`, `"event:badr-supplication"`, `"event:consultation-on-prisoners"`, `"event:acceptance-of-ransom"`, `"event:uhud"`, `"event:losses-at-uhud"`, `"event:revelation-of-3-165"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(t, request{Query: tt.query})
			if len(r.Errors) > 0 {
				t.Fatalf("errors: %+v", r.Errors)
			}
			got := string(r.Data)
			rest := got
			for _, w := range tt.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("answer lacks %s (in order)\n%s", w, got)
				}
				rest = rest[i+len(w):]
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("answer has %s\n%s", a, got)
				}
			}
		})
	}
}

// TestEvidenceOffsets checks every attestation of every claim: its offsets slice exactly its
// evidence out of the narration's text, in code points.
func TestEvidenceOffsets(t *testing.T) {
	e := newEnv(t, options{})
	type page struct {
		Claims struct {
			TotalCount int
			PageInfo   struct {
				HasNextPage bool
				EndCursor   string
			}
			Nodes []struct {
				ID           string
				Attestations []struct {
					Narration  struct{ ID, Text string }
					Evidence   *string
					Start, End *int
				}
			}
		}
	}
	var after any
	seen, checked := 0, 0
	for {
		var p page
		e.query(t, `query($after: String) { claims(first: 100, after: $after) {
			totalCount pageInfo { hasNextPage endCursor }
			nodes { id attestations { narration { id text } evidence start end } } } }`,
			map[string]any{"after": after}, &p)
		for _, c := range p.Claims.Nodes {
			seen++
			for _, a := range c.Attestations {
				if a.Evidence == nil {
					if a.Start != nil || a.End != nil {
						t.Errorf("claim %s: offsets without evidence", c.ID)
					}
					continue
				}
				text := []rune(a.Narration.Text)
				if *a.Start < 0 || *a.End > len(text) || *a.Start >= *a.End {
					t.Errorf("claim %s in %s: offsets [%d, %d) outside the text", c.ID, a.Narration.ID, *a.Start, *a.End)
					continue
				}
				if got := string(text[*a.Start:*a.End]); got != *a.Evidence {
					t.Errorf("claim %s in %s: text[%d:%d] = %q, evidence %q", c.ID, a.Narration.ID, *a.Start, *a.End, got, *a.Evidence)
				}
				checked++
			}
		}
		if !p.Claims.PageInfo.HasNextPage {
			if seen != p.Claims.TotalCount {
				t.Errorf("paged through %d claims, totalCount %d", seen, p.Claims.TotalCount)
			}
			break
		}
		after = p.Claims.PageInfo.EndCursor
	}
	if checked < 100 {
		t.Errorf("checked only %d attestations", checked)
	}
}

// TestRelationFields asks for every generated relation field of every type, and checks that
// each relation read from one end is read, under the inverse name, from the other.
func TestRelationFields(t *testing.T) {
	// Every field of a type in one query costs more than the default limit allows.
	e := newEnv(t, options{config: func(c *graph.Config) { c.MaxComplexity = 1 << 20 }})
	var schema struct {
		Schema struct {
			Types []struct {
				Name   string
				Fields []struct {
					Name string
					Type struct{ OfType struct{ Name string } }
				}
			}
		} `json:"__schema"`
	}
	e.query(t, `{ __schema { types { name fields { name type { ofType { name } } } } } }`, nil, &schema)
	samples := map[string]string{
		"Person": "person:muhammad", "Group": "group:companions-at-badr", "Event": "event:badr",
		"Place": "place:badr", "Concept": "concept:ransom", "Verse": "verse:8:67", "Narration": "narration:ahmad-208",
	}
	type relation struct {
		Predicate, Name, Direction string
		Value                      *string
		Entity                     *struct{ ID string }
		Claim                      struct {
			Subject struct{ ID string }
			Object  *struct{ ID string }
		}
	}
	fields := 0
	for _, ty := range schema.Schema.Types {
		id, ok := samples[ty.Name]
		if !ok {
			continue
		}
		var sel []string
		for _, f := range ty.Fields {
			if f.Type.OfType.Name == "RelationConnection" && f.Name != "relations" {
				sel = append(sel, fmt.Sprintf(`%s { totalCount nodes { predicate name direction value entity { id } claim { subject { id } object { id } } } }`, f.Name))
			}
		}
		fields += len(sel)
		var got struct {
			Entity map[string]struct{ Nodes []relation }
		}
		e.query(t, fmt.Sprintf(`{ entity(id: %q) { ... on %s { %s } } }`, id, ty.Name, strings.Join(sel, "\n")), nil, &got)
		var all struct {
			Entity struct {
				Relations struct{ Nodes []relation }
			}
		}
		e.query(t, fmt.Sprintf(`{ entity(id: %q) { relations(first: 100) { nodes { predicate name direction value entity { id } claim { subject { id } object { id } } } } } }`, id), nil, &all)
		named := map[string]bool{} // symmetric predicates are read by two fields
		for field, conn := range got.Entity {
			for _, r := range conn.Nodes {
				b, _ := json.Marshal(r)
				named[string(b)] = true
				if r.Name != field && !slices.Contains([]string{"relativeOf", "relatives", "siblingOf", "siblings", "foughtAgainst", "opponents"}, field) {
					t.Errorf("%s.%s returned a relation named %s", ty.Name, field, r.Name)
				}
				switch r.Direction {
				case "OUTGOING":
					if r.Claim.Subject.ID != id {
						t.Errorf("%s.%s: outgoing relation whose subject is %s", ty.Name, field, r.Claim.Subject.ID)
					}
				case "INCOMING":
					if r.Claim.Object == nil || r.Claim.Object.ID != id || r.Entity.ID != r.Claim.Subject.ID {
						t.Errorf("%s.%s: incoming relation %+v", ty.Name, field, r)
					}
				}
				if (r.Entity == nil) == (r.Value == nil) {
					t.Errorf("%s.%s: exactly one of entity and value must be set: %+v", ty.Name, field, r)
				}
			}
		}
		if len(named) != len(all.Entity.Relations.Nodes) {
			t.Errorf("%s %s: named fields give %d relations, relations gives %d", ty.Name, id, len(named), len(all.Entity.Relations.Nodes))
		}
		// Read each relation from the other end, under the other name.
		for _, r := range all.Entity.Relations.Nodes {
			if r.Entity == nil {
				continue
			}
			want := "INCOMING"
			if r.Direction == "INCOMING" {
				want = "OUTGOING"
			}
			var back struct {
				Entity struct{ Relations struct{ Nodes []relation } }
			}
			e.query(t, fmt.Sprintf(`{ entity(id: %q) { relations(predicate: %q, direction: %s, first: 100) { nodes { predicate name direction value entity { id } claim { subject { id } object { id } } } } } }`, r.Entity.ID, r.Predicate, want), nil, &back)
			found := false
			for _, b := range back.Entity.Relations.Nodes {
				found = found || b.Entity != nil && b.Entity.ID == id
			}
			if !found {
				t.Errorf("%s %s %s %s is not read back from %s", id, r.Direction, r.Name, r.Entity.ID, r.Entity.ID)
			}
		}
	}
	if fields < 90 {
		t.Errorf("only %d relation fields found", fields)
	}
}

// TestPagination walks connections page by page with opaque cursors.
func TestPagination(t *testing.T) {
	e := newEnv(t, options{})
	type page = connectionJSON[json.RawMessage]
	tests := []struct {
		name  string
		query string // takes $after and returns one connection under "c"
		pick  func(map[string]json.RawMessage) json.RawMessage
	}{
		{name: "entities", query: `query($after: String) { c: entities(type: "Person", first: 7, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } } }`},
		{name: "claims", query: `query($after: String) { c: claims(first: 30, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id } } } }`},
		{name: "relations", query: `query($after: String) { e: entity(id: "person:muhammad") { c: relations(first: 3, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { name claim { id } } } } } }`,
			pick: func(m map[string]json.RawMessage) json.RawMessage {
				var inner map[string]json.RawMessage
				json.Unmarshal(m["e"], &inner)
				return inner["c"]
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var after any
			seen := map[string]bool{}
			total, pages := -1, 0
			for {
				var data map[string]json.RawMessage
				e.query(t, tt.query, map[string]any{"after": after}, &data)
				raw := data["c"]
				if tt.pick != nil {
					raw = tt.pick(data)
				}
				var p page
				if err := json.Unmarshal(raw, &p); err != nil {
					t.Fatal(err)
				}
				total = p.TotalCount
				pages++
				for _, ed := range p.Edges {
					if seen[string(ed.Node)] {
						t.Fatalf("%s is on two pages", ed.Node)
					}
					seen[string(ed.Node)] = true
				}
				if len(p.Edges) > 0 && *p.PageInfo.EndCursor != p.Edges[len(p.Edges)-1].Cursor {
					t.Errorf("endCursor is not the last edge's cursor")
				}
				if !p.PageInfo.HasNextPage {
					break
				}
				after = *p.PageInfo.EndCursor
			}
			if len(seen) != total || pages < 2 {
				t.Errorf("saw %d items in %d pages, totalCount %d", len(seen), pages, total)
			}
		})
	}
}
