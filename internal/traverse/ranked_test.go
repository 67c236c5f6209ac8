package traverse_test

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/traverse"
)

// randomGraph has n nodes, a hub n0 joined to a third of them, and random edges with
// attestation counts from 1 to 5 (many ties).
func randomGraph(seed int64, n int) *graph {
	r := rand.New(rand.NewSource(seed))
	g := &graph{edges: map[athar.ID][]athar.Edge{}}
	add := func(a, b int, p string) {
		if a == b {
			return // Neighbourhood at depth 0 fetches no edges, not even a loop on start
		}
		e := athar.Edge{Source: athar.ID(fmt.Sprintf("n%d", a)), Target: athar.ID(fmt.Sprintf("n%d", b)), Predicate: p, Attestations: 1 + r.Intn(5)}
		g.edges[e.Source] = append(g.edges[e.Source], e)
		if e.Source != e.Target {
			g.edges[e.Target] = append(g.edges[e.Target], e)
		}
	}
	for i := 1; i < n; i++ {
		if r.Intn(3) == 0 {
			add(0, i, "mentions")
		}
	}
	for range 2 * n {
		add(r.Intn(n), r.Intn(n), []string{"knows", "narrates", "precedes"}[r.Intn(3)])
	}
	return g
}

// allPages pages through the neighbourhood first at a time, each page after the last node
// of the one before (a page that Options.MaxEdges ends early holds fewer than first nodes).
func allPages(t *testing.T, g traverse.Graph, start athar.ID, depth, first int, opt traverse.Options) ([]athar.ID, []athar.Edge, []traverse.Page) {
	t.Helper()
	var nodes []athar.ID
	var edges []athar.Edge
	var pages []traverse.Page
	for after := 0; ; after += len(pages[len(pages)-1].Nodes) {
		p, err := traverse.Ranked(context.Background(), g, start, depth, after, first, opt)
		if err != nil {
			t.Fatal(err)
		}
		if p.Offset != after {
			t.Fatalf("page after %d: offset %d", after, p.Offset)
		}
		if opt.MaxEdges > 0 && len(p.Edges) > opt.MaxEdges && len(p.Nodes) > 1 {
			t.Fatalf("page after %d: %d nodes and %d edges, more than MaxEdges %d", after, len(p.Nodes), len(p.Edges), opt.MaxEdges)
		}
		pages = append(pages, p)
		nodes = append(nodes, p.Nodes...)
		edges = append(edges, p.Edges...)
		if !p.HasNext {
			return nodes, edges, pages
		}
		switch {
		case len(p.Nodes) == 0:
			t.Fatalf("page after %d has no nodes and a next page", after)
		case opt.MaxEdges == 0 && len(p.Nodes) != first:
			t.Fatalf("page after %d has %d nodes and a next page", after, len(p.Nodes))
		case len(p.Nodes) < first:
			// Ended by MaxEdges: the next node's edges would have passed it.
			next, err := traverse.Ranked(context.Background(), g, start, depth, after, len(p.Nodes)+1, traverse.Options{Follow: opt.Follow, MaxVisited: opt.MaxVisited})
			if err != nil {
				t.Fatal(err)
			}
			if len(next.Edges) <= opt.MaxEdges {
				t.Fatalf("page after %d ended at %d nodes and %d edges, but %d nodes have %d edges, within MaxEdges %d",
					after, len(p.Nodes), len(p.Edges), len(next.Nodes), len(next.Edges), opt.MaxEdges)
			}
		}
	}
}

// Paging to the end gives exactly the neighbourhood: every node within depth once, and
// every edge between them once, whatever the page size and edge cap; pages of any size cut
// the same ranking, and a page the cap ends early ends just before the node that would pass
// it.
func TestRankedPagesCoverTheNeighbourhood(t *testing.T) {
	ctx := context.Background()
	for seed := int64(1); seed <= 20; seed++ {
		g := randomGraph(seed, 60)
		for depth := 0; depth <= 3; depth++ {
			opt := traverse.Options{}
			if seed%3 == 0 {
				opt.Follow = func(e athar.Edge) bool { return e.Predicate != "knows" }
			}
			want, err := traverse.Neighbourhood(ctx, g, "n0", depth, opt)
			if err != nil {
				t.Fatal(err)
			}
			var whole []athar.ID
			for _, first := range []int{1, 3, 7, 1000} {
				for _, maxEdges := range []int{0, 1, 4, 25} {
					opt.MaxEdges = maxEdges
					nodes, edges, pages := allPages(t, g, "n0", depth, first, opt)
					if whole == nil {
						whole = nodes
					} else if !reflect.DeepEqual(nodes, whole) {
						t.Fatalf("seed %d depth %d: pages of %d rank differently:\n%v\n%v", seed, depth, first, nodes, whole)
					}
					if nodes[0] != "n0" {
						t.Fatalf("seed %d: start ranks %v", seed, nodes[0])
					}
					got := append([]athar.ID(nil), nodes...)
					sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
					wantNodes := append([]athar.ID(nil), want.Nodes...)
					sort.Slice(wantNodes, func(i, j int) bool { return wantNodes[i] < wantNodes[j] })
					if !reflect.DeepEqual(got, wantNodes) {
						t.Fatalf("seed %d depth %d first %d: nodes\n%v\nwant\n%v", seed, depth, first, got, wantNodes)
					}
					sort.Slice(edges, func(i, j int) bool { return fmt.Sprint(edges[i]) < fmt.Sprint(edges[j]) })
					wantEdges := append([]athar.Edge(nil), want.Edges...)
					sort.Slice(wantEdges, func(i, j int) bool { return fmt.Sprint(wantEdges[i]) < fmt.Sprint(wantEdges[j]) })
					if len(edges)+len(wantEdges) > 0 && !reflect.DeepEqual(edges, wantEdges) {
						t.Fatalf("seed %d depth %d first %d: %d edges, want %d", seed, depth, first, len(edges), len(wantEdges))
					}
					last := pages[len(pages)-1]
					if last.Reached != len(nodes) || last.Truncated {
						t.Fatalf("seed %d depth %d: last page reached %d truncated %v, %d nodes", seed, depth, last.Reached, last.Truncated, len(nodes))
					}
				}
			}
		}
	}
}

// At depth 1 the ranking is by the attestations of the edge to start, ties by id; a page
// reads the edges of no more nodes than it ranks.
func TestRankedOrderAndReads(t *testing.T) {
	g := randomGraph(7, 200)
	g.calls = 0
	p, err := traverse.Ranked(context.Background(), g, "n0", 1, 0, 10, traverse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.calls > 11 {
		t.Errorf("a page of 10 asked for edges %d times, want at most 11", g.calls)
	}
	score := map[athar.ID]int{}
	for _, e := range g.edges["n0"] {
		v := e.Target
		if v == "n0" {
			v = e.Source
		}
		if v != "n0" {
			score[v] = max(score[v], e.Attestations)
		}
	}
	var all []athar.ID
	for v := range score {
		all = append(all, v)
	}
	sort.Slice(all, func(i, j int) bool {
		if score[all[i]] != score[all[j]] {
			return score[all[i]] > score[all[j]]
		}
		return all[i] < all[j]
	})
	if want := append([]athar.ID{"n0"}, all[:9]...); !reflect.DeepEqual(p.Nodes, want) {
		t.Errorf("ranked\n%v\nwant\n%v", p.Nodes, want)
	}
	if !p.HasNext || p.Reached != len(all)+1 || p.Truncated {
		t.Errorf("hasNext %v reached %d (want %d) truncated %v", p.HasNext, p.Reached, len(all)+1, p.Truncated)
	}
}

// The visited cap stops the ranking: no page past it, and the one reaching it says so.
func TestRankedCap(t *testing.T) {
	g := randomGraph(3, 100)
	opt := traverse.Options{MaxVisited: 10}
	p, err := traverse.Ranked(context.Background(), g, "n0", 3, 5, 10, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Nodes) != 5 || p.HasNext || !p.Truncated {
		t.Errorf("%d nodes, hasNext %v, truncated %v; want 5, false, true", len(p.Nodes), p.HasNext, p.Truncated)
	}
	p, err = traverse.Ranked(context.Background(), g, "n0", 3, 20, 10, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Nodes) != 0 || p.HasNext || !p.Truncated {
		t.Errorf("past the cap: %d nodes, hasNext %v, truncated %v", len(p.Nodes), p.HasNext, p.Truncated)
	}
	if _, err := traverse.Ranked(context.Background(), g, "n0", -1, 0, 1, opt); err == nil {
		t.Error("negative depth accepted")
	}
}
