package graph_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/hadith"
	"github.com/athar-hadith/athar/internal/hadithapi"
	"github.com/athar-hadith/athar/internal/ingest"
)

// newCorpusEnv is newEnv with the repository's corpus fixture (26 hadiths of Muslim, Abu
// Dawud and Bukhari) imported after the seeds, and a complexity limit below what a scan
// of that store costs (ten per entity), so that a query costed as a scan is refused.
func newCorpusEnv(t *testing.T, wrap func(athar.Store) athar.Store) *env {
	t.Helper()
	e := newEnv(t, options{wrap: wrap, config: func(c *graph.Config) {
		c.MaxComplexity = 3000
		// The tests here count batches: a window no busy scheduler splits (load_test.go).
		c.LoaderWait = 50 * time.Millisecond
	}})
	recs := fixtureRecords(t)
	if len(recs) != 26 {
		t.Fatalf("%d records, want 26", len(recs))
	}
	importRecords(t, e.importer, recs)
	if n := e.index.Len(); 10*n < 3000 {
		t.Fatalf("the store holds %d entities: a scan would fit the limit", n)
	}
	return e
}

// fixtureRecords reads the repository's corpus fixture, paired into records: the editions
// named (e.g. "eng-muslim.json"), or all of them.
func fixtureRecords(t *testing.T, files ...string) []hadith.Record {
	t.Helper()
	dir := filepath.Join("..", "internal", "hadithapi", "testdata", "corpus")
	if len(files) == 0 {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, p := range paths {
			files = append(files, filepath.Base(p))
		}
	}
	var eds []*hadithapi.Edition
	for _, f := range files {
		ed, probs, err := hadithapi.ReadFile(filepath.Join(dir, f))
		if err != nil || len(probs) > 0 {
			t.Fatalf("%s: %v %v", f, err, probs)
		}
		eds = append(eds, ed)
	}
	recs, probs := hadithapi.Pair(eds)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	return recs
}

// importRecords imports recs through im, failing the test on any record refused.
func importRecords(t *testing.T, im *ingest.Local, recs []hadith.Record) {
	t.Helper()
	for _, r := range im.ImportHadiths(context.Background(), recs) {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Key, r.Err)
		}
	}
}

type gradingJSON struct {
	Narration struct{ ID string }
	Position  int
	Grader    *struct{ ID string }
	Verdict   string
	Grade     *string
	Scope     string
}

// wantGradings reads every narration's gradings from the store, in the order the gradings
// queries give them (by narration id, then position), keeping those keep accepts.
func wantGradings(t *testing.T, st athar.Store, keep func(athar.Grading) bool) []gradingJSON {
	t.Helper()
	ctx := context.Background()
	ids, err := st.EntityIDs(ctx, athar.TypeNarration)
	if err != nil {
		t.Fatal(err)
	}
	ns, err := st.Narrations(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	var out []gradingJSON
	for _, n := range ns {
		for _, g := range n.Gradings {
			if !keep(g) {
				continue
			}
			x := gradingJSON{Position: g.Position, Verdict: g.Verdict, Scope: map[athar.GradingScope]string{athar.ScopeChain: "CHAIN", athar.ScopeText: "TEXT", athar.ScopePart: "PART"}[g.Scope]}
			x.Narration.ID = string(n.ID)
			if g.Grader != "" {
				x.Grader = &struct{ ID string }{string(g.Grader)}
			}
			if g.Grade != "" {
				s := map[athar.Grade]string{athar.GradeSahih: "SAHIH", athar.GradeHasanSahih: "HASAN_SAHIH", athar.GradeHasan: "HASAN", athar.GradeDaif: "DAIF", athar.GradeMawdu: "MAWDU"}[g.Grade]
				x.Grade = &s
			}
			out = append(out, x)
		}
	}
	return out
}

// TestGradingsPagedOnTheCorpus: "everything al-Albani graded sahih" on the seeds and the
// corpus fixture is a page of the store's list, costed as a page (the limit here is below
// a scan's cost), paged by cursor with its count, and gives what the narrations give.
func TestGradingsPagedOnTheCorpus(t *testing.T) {
	e := newCorpusEnv(t, nil)
	want := wantGradings(t, e.store, func(g athar.Grading) bool {
		return g.Grader == "person:al-albani" && g.Grade == athar.GradeSahih
	})
	if len(want) < 5 {
		t.Fatalf("the fixture gives %d sahih gradings by al-Albani: too few to page", len(want))
	}
	const fields = `narration { id } position grader { id } verdict grade scope`
	var got []gradingJSON
	var after *string
	for pages := 0; ; pages++ {
		var page struct {
			GradingConnection connectionJSON[gradingJSON]
		}
		e.query(t, `query($after: String) { gradingConnection(grader: "person:al-albani", grade: SAHIH, first: 2, after: $after) {
			totalCount pageInfo { hasNextPage endCursor } edges { cursor node { `+fields+` } } } }`, map[string]any{"after": after}, &page)
		c := page.GradingConnection
		if c.TotalCount != len(want) {
			t.Fatalf("totalCount %d, the narrations give %d", c.TotalCount, len(want))
		}
		for _, ed := range c.Edges {
			got = append(got, ed.Node)
		}
		if !c.PageInfo.HasNextPage {
			break
		}
		if pages > len(want) || c.PageInfo.EndCursor == nil {
			t.Fatalf("paging does not end: %+v", c.PageInfo)
		}
		after = c.PageInfo.EndCursor
		// The list takes the connection's cursors.
		var list struct{ Gradings []gradingJSON }
		e.query(t, `query($after: String) { gradings(grader: "person:al-albani", grade: SAHIH, first: 1, after: $after) { `+fields+` } }`, map[string]any{"after": after}, &list)
		if len(list.Gradings) != 1 || !reflect.DeepEqual(list.Gradings[0], want[len(got)]) {
			t.Fatalf("gradings after the cursor of page %d: %+v, want %+v", pages, list.Gradings, want[len(got)])
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paged:\n%+v\nthe narrations give\n%+v", got, want)
	}
	// Filters beyond the grader and grade read the list: costed by its count, still
	// within the limit here.
	var v struct{ Gradings []gradingJSON }
	e.query(t, `{ gradings(grader: "person:al-albani", verdict: "sahih", first: 50) { `+fields+` } }`, nil, &v)
	wantV := wantGradings(t, e.store, func(g athar.Grading) bool { return g.Grader == "person:al-albani" && g.Verdict == "Sahih" })
	if !reflect.DeepEqual(v.Gradings, wantV) {
		t.Errorf("verdict Sahih by al-Albani:\n%+v\nwant\n%+v", v.Gradings, wantV)
	}
	// Any grader, one grade: the corpus's daif gradings come after the seeds' in id order.
	var d struct {
		GradingConnection struct{ TotalCount int }
	}
	e.query(t, `{ gradingConnection(grade: DAIF, first: 0) { totalCount } }`, nil, &d)
	if n := len(wantGradings(t, e.store, func(g athar.Grading) bool { return g.Grade == athar.GradeDaif })); d.GradingConnection.TotalCount != n || n == 0 {
		t.Errorf("daif gradings: totalCount %d, the narrations give %d", d.GradingConnection.TotalCount, n)
	}
}

// TestEntitiesCountedByType: counting the persons and paging them read the store's list
// of ids by type, not every id (costed as a page), and agree with EntityIDs.
func TestEntitiesCountedByType(t *testing.T) {
	e := newCorpusEnv(t, nil)
	ctx := context.Background()
	for _, typ := range []athar.EntityType{athar.TypePerson, athar.TypeNarration, ""} {
		ids, err := e.store.EntityIDs(ctx, typ)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		var after *string
		for {
			var page struct {
				Entities struct {
					TotalCount int
					PageInfo   struct {
						HasNextPage bool
						EndCursor   *string
					}
					Nodes []struct{ ID string }
				}
			}
			var tp *string
			if typ != "" {
				s := string(typ)
				tp = &s
			}
			e.query(t, `query($type: String, $after: String) { entities(type: $type, first: 100, after: $after) {
				totalCount pageInfo { hasNextPage endCursor } nodes { id } } }`, map[string]any{"type": tp, "after": after}, &page)
			if page.Entities.TotalCount != len(ids) {
				t.Fatalf("%q: totalCount %d, EntityIDs gives %d", typ, page.Entities.TotalCount, len(ids))
			}
			for _, n := range page.Entities.Nodes {
				got = append(got, n.ID)
			}
			if !page.Entities.PageInfo.HasNextPage {
				break
			}
			after = page.Entities.PageInfo.EndCursor
		}
		var want []string
		for _, id := range ids {
			want = append(want, string(id))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: paged %d ids, EntityIDs gives %d:\n%v\n%v", typ, len(got), len(want), got, want)
		}
	}
}

func (c *countingStore) NarrationSummaries(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error) {
	c.count("NarrationSummaries")
	return c.Store.NarrationSummaries(ctx, ids)
}

// TestChapterPageReadsSummaries: a chapter's page of narrations asking for their ids and
// titles reads their summaries, not the narrations whole, and gives what the whole
// narrations give; asking for more reads them whole.
func TestChapterPageReadsSummaries(t *testing.T) {
	cs := &countingStore{calls: map[string]int{}}
	e := newCorpusEnv(t, func(st athar.Store) athar.Store { cs.Store = st; return cs })
	type page struct {
		Chapter struct {
			Narrations struct {
				TotalCount int
				PageInfo   struct{ EndCursor *string }
				Edges      []struct {
					Cursor string
					Node   struct {
						ID, Title  string
						References []struct{ Number string }
					}
				}
			}
		}
	}
	var titles, whole page
	cs.reset()
	e.query(t, `{ chapter(id: "chapter:bukhari-64") { narrations(first: 100) { totalCount pageInfo { endCursor } edges { cursor node { id title ... on Entity { name } } } } } }`, nil, &titles)
	if _, calls := cs.total(); calls["Narrations"] != 0 || calls["NarrationSummaries"] != 1 {
		t.Errorf("ids and titles: %v, want one NarrationSummaries and no Narrations", calls)
	}
	cs.reset()
	e.query(t, `{ chapter(id: "chapter:bukhari-64") { narrations(first: 100) { totalCount pageInfo { endCursor } edges { cursor node { id title references { number } } } } } }`, nil, &whole)
	if _, calls := cs.total(); calls["Narrations"] == 0 || calls["NarrationSummaries"] != 0 {
		t.Errorf("with references: %v, want Narrations", calls)
	}
	n := len(whole.Chapter.Narrations.Edges)
	if n < 8 || len(titles.Chapter.Narrations.Edges) != n || titles.Chapter.Narrations.TotalCount != whole.Chapter.Narrations.TotalCount {
		t.Fatalf("%d narrations with titles, %d whole", len(titles.Chapter.Narrations.Edges), n)
	}
	for i, w := range whole.Chapter.Narrations.Edges {
		g := titles.Chapter.Narrations.Edges[i]
		if g.Cursor != w.Cursor || g.Node.ID != w.Node.ID || g.Node.Title != w.Node.Title || w.Node.Title == "" {
			t.Errorf("narration %d: summary %+v, whole %+v", i, g, w)
		}
	}
}

// TestNarratedReadsSummaries: a person's narrated and an entity's narrations asking for ids
// and titles read summaries and give what whole narrations give.
func TestNarratedReadsSummaries(t *testing.T) {
	cs := &countingStore{calls: map[string]int{}}
	e := newCorpusEnv(t, func(st athar.Store) athar.Store { cs.Store = st; return cs })
	type person struct {
		Entity struct {
			Narrated, Transmitted, Narrations []struct {
				ID, Title  string
				References []struct{ Number string }
			}
		}
	}
	var sum, whole person
	cs.reset()
	e.query(t, `{ entity(id: "person:umar-ibn-al-khattab") { ... on Person { narrated { id title } transmitted { id } narrations { id title } } } }`, nil, &sum)
	if _, calls := cs.total(); calls["Narrations"] != 0 || calls["NarrationSummaries"] != 3 {
		t.Errorf("ids and titles: %v, want three NarrationSummaries and no Narrations", calls)
	}
	e.query(t, `{ entity(id: "person:umar-ibn-al-khattab") { ... on Person { narrated { id title references { number } } transmitted { id references { number } } narrations { id title references { number } } } } }`, nil, &whole)
	for name, pair := range map[string][2]int{
		"narrated": {len(sum.Entity.Narrated), len(whole.Entity.Narrated)}, "transmitted": {len(sum.Entity.Transmitted), len(whole.Entity.Transmitted)},
		"narrations": {len(sum.Entity.Narrations), len(whole.Entity.Narrations)},
	} {
		if pair[0] != pair[1] || pair[0] == 0 {
			t.Errorf("%s: %d summaries, %d whole", name, pair[0], pair[1])
		}
	}
	for i, w := range whole.Entity.Narrated {
		if g := sum.Entity.Narrated[i]; g.ID != w.ID || g.Title != w.Title {
			t.Errorf("narrated %d: summary %+v, whole %+v", i, g, w)
		}
	}
}

// TestSearchHitsReadSummaries: searchTexts hits asking their narration's id and title read
// summaries, give what whole narrations give, and read narrations whole when asked more.
func TestSearchHitsReadSummaries(t *testing.T) {
	cs := &countingStore{calls: map[string]int{}}
	e := newCorpusEnv(t, func(st athar.Store) athar.Store { cs.Store = st; return cs })
	type hits struct {
		SearchTexts struct {
			Edges []struct {
				Node struct {
					Narration struct {
						ID, Title  string
						References []struct{ Number string }
					}
				}
			}
		}
	}
	var sum, whole hits
	cs.reset()
	e.query(t, `{ searchTexts(query: "prisoners", first: 20) { edges { node { narration { id title } } } } }`, nil, &sum)
	if _, calls := cs.total(); calls["Narrations"] != 0 || calls["NarrationSummaries"] == 0 {
		t.Errorf("ids and titles: %v, want NarrationSummaries and no Narrations", calls)
	}
	cs.reset()
	e.query(t, `{ searchTexts(query: "prisoners", first: 20) { edges { node { narration { id title references { number } } } } } }`, nil, &whole)
	if _, calls := cs.total(); calls["Narrations"] == 0 {
		t.Errorf("with references: %v, want Narrations", calls)
	}
	if len(sum.SearchTexts.Edges) < 2 || len(sum.SearchTexts.Edges) != len(whole.SearchTexts.Edges) {
		t.Fatalf("%d hits with summaries, %d whole", len(sum.SearchTexts.Edges), len(whole.SearchTexts.Edges))
	}
	for i, w := range whole.SearchTexts.Edges {
		g := sum.SearchTexts.Edges[i].Node.Narration
		if g.ID != w.Node.Narration.ID || g.Title != w.Node.Narration.Title || g.Title == "" {
			t.Errorf("hit %d: summary %+v, whole %+v", i, g, w.Node.Narration)
		}
	}
}

// TestSubgraphNodesReadSummaries: a neighbourhood or a path asking of its nodes only ids
// and titles reads narrations as summaries, and gives the nodes and edges it gives when
// it reads them whole.
func TestSubgraphNodesReadSummaries(t *testing.T) {
	cs := &countingStore{calls: map[string]int{}}
	e := newCorpusEnv(t, func(st athar.Store) athar.Store { cs.Store = st; return cs })
	type subgraph struct {
		Neighbourhood struct {
			Nodes []struct {
				ID, Name   string
				References []struct{ Number string }
			}
			Edges []struct{ Source, Target, Predicate string }
		}
	}
	var sum, whole subgraph
	q := `{ neighbourhood(id: "person:umar-ibn-al-khattab", depth: 2, first: 100) { nodes { id name %s } edges { source target predicate } } }`
	cs.reset()
	e.query(t, fmt.Sprintf(q, ""), nil, &sum)
	if _, calls := cs.total(); calls["Narrations"] != 0 || calls["NarrationSummaries"] == 0 {
		t.Errorf("nodes by id and name: %v, want NarrationSummaries and no Narrations", calls)
	}
	cs.reset()
	e.query(t, fmt.Sprintf(q, "... on Narration { references { number } }"), nil, &whole)
	if _, calls := cs.total(); calls["Narrations"] == 0 {
		t.Errorf("nodes with references: %v, want Narrations", calls)
	}
	narrations := 0
	for _, n := range whole.Neighbourhood.Nodes {
		if strings.HasPrefix(n.ID, "narration:") {
			narrations++
		}
	}
	if narrations < 2 {
		t.Fatalf("the neighbourhood holds %d narrations: nothing to read as summaries", narrations)
	}
	for i := range whole.Neighbourhood.Nodes {
		whole.Neighbourhood.Nodes[i].References = nil
	}
	if !reflect.DeepEqual(sum.Neighbourhood, whole.Neighbourhood) {
		t.Errorf("summaries and whole narrations give different subgraphs:\n%+v\n%+v", sum.Neighbourhood, whole.Neighbourhood)
	}
}

// TestNarrationChapterFromItsRecord: a corpus narration's chapter, read from its own
// record, is the chapter read from all of them.
func TestNarrationChapterFromItsRecord(t *testing.T) {
	e := newCorpusEnv(t, nil)
	type chapter struct {
		ID, Collection, Name, Arabic string
		Number                       int
	}
	var got struct {
		N  struct{ Chapter *chapter }
		Ch *chapter
	}
	e.query(t, `{ n: narration(id: "narration:bukhari-3953") { chapter { id collection number name arabic } }
		ch: chapter(id: "chapter:bukhari-64") { id collection number name arabic } }`, nil, &got)
	if got.N.Chapter == nil || got.Ch == nil || *got.N.Chapter != *got.Ch || got.Ch.Name == "" || got.Ch.Arabic == "" {
		t.Errorf("from the record %+v, from every record %+v", got.N.Chapter, got.Ch)
	}
}

// TestRelationCountsFromTheStoreCount: a relation field asked for its totalCount alone is
// counted by the store's count where the vocabulary fixes the entity's side or the
// relations are outgoing (the count of the entity's claims as subject), and agrees
// with the relations counted one by one (pageInfo asked too).
func TestRelationCountsFromTheStoreCount(t *testing.T) {
	e := newCorpusEnv(t, nil)
	for _, q := range []string{
		`entity(id: "person:umar-ibn-al-khattab") { ... on Person { F: narrates { S } G: transmits { S } H: relations(predicate: "narrates") { S } I: relations(predicate: "narrates", direction: INCOMING) { S } J: advises { S } } }`,
		`entity(id: "person:abu-hurayrah") { ... on Person { F: narrates { S } G: transmits { S } H: relations(predicate: "transmits", direction: OUTGOING) { S } I: relations(predicate: "year") { S } J: relations(predicate: "narrates", direction: BOTH) { S } } }`,
		`entity(id: "narration:muslim-1763") { ... on Narration { F: narratedBy { S } G: transmitters { S } H: relations(predicate: "narrates", direction: OUTGOING) { S } I: relations(predicate: "mentions") { S } J: relations(predicate: "transmits", direction: INCOMING) { S } } }`,
		// an event on both sides of precedes: the outgoing ones from the count of its claims
		// as subject
		`entity(id: "event:consultation-on-prisoners") { ... on Event { F: relations(predicate: "precedes", direction: OUTGOING) { S } G: relations(predicate: "precedes", direction: INCOMING) { S } H: relations(predicate: "precedes") { S } I: relations(predicate: "advises", direction: OUTGOING) { S } J: relations(predicate: "precedes", direction: BOTH) { S } } }`,
	} {
		type counts struct {
			F, G, H, I, J struct {
				TotalCount int
				PageInfo   *struct{ HasNextPage bool }
			}
		}
		var fast, slow struct{ Entity counts }
		e.query(t, "{ "+strings.ReplaceAll(q, "{ S }", "{ totalCount }")+" }", nil, &fast)
		e.query(t, "{ "+strings.ReplaceAll(q, "{ S }", "{ totalCount pageInfo { hasNextPage } }")+" }", nil, &slow)
		f, s := fast.Entity, slow.Entity
		for i, pair := range [][2]int{{f.F.TotalCount, s.F.TotalCount}, {f.G.TotalCount, s.G.TotalCount}, {f.H.TotalCount, s.H.TotalCount}, {f.I.TotalCount, s.I.TotalCount}, {f.J.TotalCount, s.J.TotalCount}} {
			if pair[0] != pair[1] {
				t.Errorf("%s: field %c: totalCount alone %d, counted one by one %d", q[:40], 'F'+i, pair[0], pair[1])
			}
		}
		if s.F.TotalCount == 0 && s.G.TotalCount == 0 {
			t.Errorf("%s: nothing to count", q[:40])
		}
	}
}

// TestNarratedPaged: narrated and transmitted, read as a page of the store's list, are the
// narrations the person's claims name, by id, cut at first.
func TestNarratedPaged(t *testing.T) {
	e := newCorpusEnv(t, nil)
	for _, c := range []struct{ person, field, predicate string }{
		{"person:umar-ibn-al-khattab", "narrated", "narrates"},
		{"person:ibn-abbas", "transmitted", "transmits"},
		{"person:ikrimah-ibn-ammar", "transmitted", "transmits"},
	} {
		var got struct {
			Entity struct{ All, Two []struct{ ID string } }
			Claims struct {
				Nodes []struct{ Object struct{ ID string } }
			}
		}
		e.query(t, `query($p: ID!, $pred: String!) { entity(id: $p) { ... on Person { all: `+c.field+` { id } two: `+c.field+`(first: 2) { id } } }
			claims(subject: $p, predicate: $pred, first: 100) { nodes { object { id } } } }`, map[string]any{"p": c.person, "pred": c.predicate}, &got)
		var want []string
		for _, n := range got.Claims.Nodes {
			want = append(want, n.Object.ID)
		}
		var all []string
		for _, n := range got.Entity.All {
			all = append(all, n.ID)
		}
		if len(want) < 2 || !reflect.DeepEqual(all, want) {
			t.Errorf("%s %s: %v, the claims name %v", c.person, c.field, all, want)
			continue
		}
		if len(got.Entity.Two) != 2 || got.Entity.Two[0].ID != want[0] || got.Entity.Two[1].ID != want[1] {
			t.Errorf("%s %s(first: 2): %v, want %v", c.person, c.field, got.Entity.Two, want[:2])
		}
	}
}
