package graph_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
)

type nbEdge struct {
	Source, Target, Predicate string
	Attestations              int
}

type nbSlice struct {
	Nodes     []struct{ ID string }
	Edges     []nbEdge
	Truncated bool
	Reached   int
	PageInfo  struct {
		HasNextPage bool
		EndCursor   *string
	}
}

const nbQuery = `query($id: ID!, $depth: Int, $first: Int, $after: String, $maxEdges: Int) {
	neighbourhood(id: $id, depth: $depth, first: $first, after: $after, maxEdges: $maxEdges) {
		nodes { id } edges { source target predicate attestations }
		truncated reached pageInfo { hasNextPage endCursor }
	}
}`

func (e *env) neighbourhood(t *testing.T, id string, depth, first int, after *string) nbSlice {
	t.Helper()
	return e.neighbourhoodMax(t, id, depth, first, 0, after)
}

// neighbourhoodMax asks for a slice of at most maxEdges edges (0: the default).
func (e *env) neighbourhoodMax(t *testing.T, id string, depth, first, maxEdges int, after *string) nbSlice {
	t.Helper()
	var data struct{ Neighbourhood nbSlice }
	vars := map[string]any{"id": id, "depth": depth, "first": first}
	if after != nil {
		vars["after"] = *after
	}
	if maxEdges > 0 {
		vars["maxEdges"] = maxEdges
	}
	e.query(t, nbQuery, vars, &data)
	return data.Neighbourhood
}

// edgeKeys are the edges as sorted strings, to compare sets of edges.
func edgeKeys(es []nbEdge) []string {
	var out []string
	for _, e := range es {
		out = append(out, fmt.Sprint(e))
	}
	sort.Strings(out)
	return out
}

// pageThrough follows the cursors to the end, checking each slice, and returns the nodes
// and edges of every slice in order.
func (e *env) pageThrough(t *testing.T, id string, depth, first int) ([]string, []nbEdge) {
	t.Helper()
	return e.pageThroughMax(t, id, depth, first, 0)
}

// pageThroughMax is pageThrough with slices of at most maxEdges edges (0: the default): a
// slice with fewer than first nodes and a next page must hold more than one node's edges
// only up to maxEdges.
func (e *env) pageThroughMax(t *testing.T, id string, depth, first, maxEdges int) ([]string, []nbEdge) {
	t.Helper()
	var nodes []string
	var edges []nbEdge
	rank := map[string]int{}
	var after *string
	for page := 0; ; page++ {
		s := e.neighbourhoodMax(t, id, depth, first, maxEdges, after)
		if maxEdges > 0 && len(s.Edges) > maxEdges && len(s.Nodes) > 1 {
			t.Fatalf("%s slice %d: %d nodes and %d edges, more than maxEdges %d", id, page, len(s.Nodes), len(s.Edges), maxEdges)
		}
		from := len(nodes)
		for _, n := range s.Nodes {
			if _, dup := rank[n.ID]; dup {
				t.Fatalf("%s: %s in two slices", id, n.ID)
			}
			rank[n.ID] = len(nodes)
			nodes = append(nodes, n.ID)
		}
		for _, ed := range s.Edges {
			rs, okS := rank[ed.Source]
			rt, okT := rank[ed.Target]
			if !okS || !okT || rs < from && rt < from {
				t.Fatalf("%s slice %d: edge %+v does not join the slice to it or an earlier one", id, page, ed)
			}
		}
		edges = append(edges, s.Edges...)
		if s.Reached < len(nodes) || s.Truncated {
			t.Fatalf("%s slice %d: reached %d after %d nodes, truncated %v", id, page, s.Reached, len(nodes), s.Truncated)
		}
		if !s.PageInfo.HasNextPage {
			if s.Reached != len(nodes) {
				t.Fatalf("%s: last slice reached %d, %d nodes", id, s.Reached, len(nodes))
			}
			return nodes, edges
		}
		if len(s.Nodes) == 0 || len(s.Nodes) != first && maxEdges == 0 || s.PageInfo.EndCursor == nil {
			t.Fatalf("%s slice %d: %d nodes and cursor %v with a next page", id, page, len(s.Nodes), s.PageInfo.EndCursor)
		}
		after = s.PageInfo.EndCursor
	}
}

// Over the seeds: slices of any size cut the same ranking, and together give the whole
// neighbourhood (one slice of 1000) and each of its edges once; the ranking puts the
// entity first, then at depth 1 its neighbours by the attestations of the edge joining
// them, ties by id.
func TestNeighbourhoodRankedSlices(t *testing.T) {
	e := newEnv(t, options{})
	for _, id := range []string{"event:uhud", "person:muhammad", "verse:3:165"} {
		for depth := 1; depth <= 3; depth++ {
			whole := e.neighbourhood(t, id, depth, 1000, nil)
			if whole.PageInfo.HasNextPage || whole.Truncated || whole.Reached != len(whole.Nodes) {
				t.Fatalf("%s depth %d: one slice of 1000 %+v", id, depth, whole.PageInfo)
			}
			var want []string
			for _, n := range whole.Nodes {
				want = append(want, n.ID)
			}
			for _, first := range []int{1, 4} {
				nodes, edges := e.pageThrough(t, id, depth, first)
				if fmt.Sprint(nodes) != fmt.Sprint(want) {
					t.Fatalf("%s depth %d: slices of %d rank\n%v\nwant\n%v", id, depth, first, nodes, want)
				}
				if fmt.Sprint(edgeKeys(edges)) != fmt.Sprint(edgeKeys(whole.Edges)) {
					t.Fatalf("%s depth %d: slices of %d give edges\n%v\nwant\n%v", id, depth, first, edgeKeys(edges), edgeKeys(whole.Edges))
				}
			}
			if want[0] != id {
				t.Fatalf("%s ranks %s first", id, want[0])
			}
			if depth != 1 {
				continue
			}
			score := map[string]int{}
			for _, ed := range whole.Edges {
				if ed.Source == id {
					score[ed.Target] = max(score[ed.Target], ed.Attestations)
				} else if ed.Target == id {
					score[ed.Source] = max(score[ed.Source], ed.Attestations)
				}
			}
			for i := 2; i < len(want); i++ {
				a, b := want[i-1], want[i]
				if score[a] < score[b] || score[a] == score[b] && a > b {
					t.Errorf("%s: %s (%d) ranks before %s (%d)", id, a, score[a], b, score[b])
				}
			}
		}
	}
	// A cursor that is not one is refused.
	bad := "bm9wZQ"
	e.mustFail(t, request{Query: nbQuery, Variables: map[string]any{"id": "event:uhud", "after": bad}}, "INVALID_ARGUMENT")
	e.mustFail(t, request{Query: nbQuery, Variables: map[string]any{"id": "event:uhud", "first": 1001}}, "INVALID_ARGUMENT")
}

// A hub of a generated graph: its depth-3 neighbourhood answers first nodes and a cursor
// to the next slice, reading the edges of about as many entities as it returns.
func TestNeighbourhoodOfAHubIsCapped(t *testing.T) {
	var counter *countingStore
	e := newEnv(t, options{wrap: func(st athar.Store) athar.Store {
		counter = &countingStore{Store: st, calls: map[string]int{}}
		return counter
	}})
	docs, _ := generated(t, 200, 0)
	for _, d := range docs {
		if _, err := e.importer.Import(context.Background(), d); err != nil {
			t.Fatalf("%s: %v", d.Narration.ID, err)
		}
	}
	const first = 50
	edgesRead := 0
	counter.reset()
	var data struct{ Neighbourhood nbSlice }
	var calls map[string]int
	e.query(t, nbQuery, map[string]any{"id": "person:g0", "depth": 3, "first": first, "maxEdges": graph.MaxNeighbourhoodEdges}, &data)
	_, calls = counter.total()
	edgesRead = calls["Edges"]
	s := data.Neighbourhood
	if len(s.Nodes) != first || !s.PageInfo.HasNextPage || s.PageInfo.EndCursor == nil || s.Truncated {
		t.Fatalf("%d nodes, hasNextPage %v, cursor %v, truncated %v; want %d nodes and a cursor", len(s.Nodes), s.PageInfo.HasNextPage, s.PageInfo.EndCursor, s.Truncated, first)
	}
	if s.Reached <= first {
		t.Errorf("reached %d, want more than the %d returned", s.Reached, first)
	}
	if s.Nodes[0].ID != "person:g0" {
		t.Errorf("ranks %s first", s.Nodes[0].ID)
	}
	if edgesRead > first+2 {
		t.Errorf("read the edges %d times for %d nodes", edgesRead, first)
	}
	next := e.neighbourhoodMax(t, "person:g0", 3, first, graph.MaxNeighbourhoodEdges, s.PageInfo.EndCursor)
	seen := map[string]bool{}
	for _, n := range s.Nodes {
		seen[n.ID] = true
	}
	for _, n := range next.Nodes {
		if seen[n.ID] {
			t.Errorf("%s in the first and second slices", n.ID)
		}
	}
	if len(next.Nodes) != first {
		t.Errorf("second slice has %d nodes", len(next.Nodes))
	}
	// The two slices are the first 2*first of one ranking.
	both := e.neighbourhoodMax(t, "person:g0", 3, 2*first, graph.MaxNeighbourhoodEdges, nil)
	var a, b []string
	for _, n := range append(s.Nodes, next.Nodes...) {
		a = append(a, n.ID)
	}
	for _, n := range both.Nodes {
		b = append(b, n.ID)
	}
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("two slices of %d differ from one of %d", first, 2*first)
	}
	t.Logf("person:g0 depth 3: %d nodes, %d edges, reached %d, %d Edges calls", len(s.Nodes), len(s.Edges), s.Reached, edgesRead)

	// The abuse test's query, one alias of it, under the default limits: the default 200
	// nodes have more than the default maxEdges between them, so the slice ends early, at
	// a prefix of the ranking, within the cap, with a cursor.
	var wide struct {
		W0 struct {
			Nodes    []struct{ ID, Type, Name string }
			Edges    []nbEdge
			PageInfo struct{ HasNextPage bool }
		}
	}
	e.query(t, `{ w0: neighbourhood(id: "person:g0", depth: 3) { nodes { id type name } edges { source target predicate attestations } pageInfo { hasNextPage } } }`, nil, &wide)
	all := e.neighbourhoodMax(t, "person:g0", 3, 200, graph.MaxNeighbourhoodEdges, nil)
	if len(all.Nodes) != 200 || len(all.Edges) <= graph.DefaultNeighbourhoodMaxEdges {
		t.Fatalf("200 nodes and %d edges under the largest cap; the test needs more than %d edges", len(all.Edges), graph.DefaultNeighbourhoodMaxEdges)
	}
	if n := len(wide.W0.Nodes); n == 0 || n >= 200 || !wide.W0.PageInfo.HasNextPage || len(wide.W0.Edges) > graph.DefaultNeighbourhoodMaxEdges {
		t.Errorf("default slice: %d nodes, %d edges, hasNextPage %v; want fewer than 200 nodes, at most %d edges and a next page",
			n, len(wide.W0.Edges), wide.W0.PageInfo.HasNextPage, graph.DefaultNeighbourhoodMaxEdges)
	}
	for i, n := range wide.W0.Nodes {
		if i < len(all.Nodes) && n.ID != all.Nodes[i].ID {
			t.Fatalf("default slice ranks %s at %d, the uncut one %s", n.ID, i, all.Nodes[i].ID)
		}
	}
	t.Logf("default slice: %d nodes, %d edges (%d edges among the first 200)", len(wide.W0.Nodes), len(wide.W0.Edges), len(all.Edges))

	// maxEdges ends slices early: paging with a small cap gives the same ranking and the
	// same edges as one slice under the largest, and every slice but those of one node
	// keeps within the cap.
	whole := e.neighbourhoodMax(t, "person:g0", 2, 1000, graph.MaxNeighbourhoodEdges, nil)
	if whole.PageInfo.HasNextPage || len(whole.Edges) < 1000 {
		t.Fatalf("depth 2 in one slice: %d nodes, %d edges, hasNextPage %v; the test needs more than 1000 edges in one slice", len(whole.Nodes), len(whole.Edges), whole.PageInfo.HasNextPage)
	}
	nodes, edges := e.pageThroughMax(t, "person:g0", 2, 200, 300)
	var want []string
	for _, n := range whole.Nodes {
		want = append(want, n.ID)
	}
	if fmt.Sprint(nodes) != fmt.Sprint(want) {
		t.Fatalf("slices of at most 300 edges rank\n%v\nwant\n%v", nodes, want)
	}
	if fmt.Sprint(edgeKeys(edges)) != fmt.Sprint(edgeKeys(whole.Edges)) {
		t.Fatalf("slices of at most 300 edges give %d edges, want %d", len(edges), len(whole.Edges))
	}
	capped := e.neighbourhoodMax(t, "person:g0", 2, 200, 300, nil)
	if len(capped.Nodes) >= 200 || !capped.PageInfo.HasNextPage || len(capped.Edges) > 300 {
		t.Errorf("first slice under 300 edges: %d nodes, %d edges, hasNextPage %v", len(capped.Nodes), len(capped.Edges), capped.PageInfo.HasNextPage)
	}
	for _, bad := range []int{0, -1, graph.MaxNeighbourhoodEdges + 1} {
		r := e.mustFail(t, request{Query: nbQuery, Variables: map[string]any{"id": "person:g0", "maxEdges": bad}}, "INVALID_ARGUMENT")
		if msg := r.Errors[0].Message; !strings.Contains(msg, "maxEdges") {
			t.Errorf("maxEdges %d refused with %q, which does not name maxEdges", bad, msg)
		}
	}
}
