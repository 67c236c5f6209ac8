package traverse_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"reflect"
	"sort"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/traverse"
)

// weighted is a graph that also gives its edges in weight order, as the store keeps them.
type weighted struct {
	*graph
	read int // edges returned by WeightedEdges and EdgesBetween
}

// dedupe keeps one edge per source, predicate and target, as the store does (a claim is
// one edge).
func dedupe(g *graph) *graph {
	type key struct {
		s, t athar.ID
		p    string
	}
	first := map[key]athar.Edge{}
	out := &graph{edges: map[athar.ID][]athar.Edge{}}
	for _, es := range g.edges {
		for _, e := range es {
			k := key{e.Source, e.Target, e.Predicate}
			if _, ok := first[k]; !ok {
				first[k] = e
			}
		}
	}
	for _, e := range first {
		out.edges[e.Source] = append(out.edges[e.Source], e)
		if e.Target != e.Source {
			out.edges[e.Target] = append(out.edges[e.Target], e)
		}
	}
	return out
}

// weightKey sorts id's edges as the store does: attestations (most first), other end,
// predicate, direction.
func weightKey(id athar.ID, e athar.Edge) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], ^uint32(e.Attestations))
	o, dir := e.Target, "o"
	if e.Source != id {
		o, dir = e.Source, "i"
	}
	return string(b[:]) + string(o) + "\x00" + e.Predicate + "\x00" + dir
}

func (w *weighted) WeightedEdges(_ context.Context, id athar.ID, after string, n int) ([]athar.Edge, string, error) {
	es := append([]athar.Edge(nil), w.edges[id]...)
	sort.Slice(es, func(i, j int) bool { return weightKey(id, es[i]) < weightKey(id, es[j]) })
	i := sort.Search(len(es), func(i int) bool { return weightKey(id, es[i]) > after })
	var out []athar.Edge
	last := ""
	for ; i < len(es) && len(out) < n; i++ {
		out, last = append(out, es[i]), weightKey(id, es[i])
	}
	if i == len(es) {
		last = ""
	}
	w.read += len(out)
	return out, last, nil
}

func (w *weighted) EdgesBetween(_ context.Context, ids, others []athar.ID) ([]athar.Edge, error) {
	in, want := map[athar.ID]bool{}, map[athar.ID]bool{}
	for _, id := range ids {
		in[id] = true
	}
	for _, o := range others {
		want[o] = true
	}
	seen := map[athar.Edge]bool{}
	var out []athar.Edge
	for id := range in {
		for _, e := range w.edges[id] {
			if (in[e.Source] && want[e.Target] || in[e.Target] && want[e.Source]) && !seen[e] {
				seen[e] = true
				out = append(out, e)
			}
		}
	}
	w.read += len(out)
	return out, nil
}

// The walk over a WeightedGraph ranks exactly as the walk over its edges: the same nodes,
// edges, offsets and flags for every page, depth, filter, cap and edge cap; Reached is a lower bound
// of the other's while more nodes follow, and the same total at the end.
func TestRankedWeightedAgrees(t *testing.T) {
	ctx := context.Background()
	for seed := int64(1); seed <= 16; seed++ {
		g := dedupe(randomGraph(seed, 40+int(seed)*8))
		w := &weighted{graph: g}
		for depth := 0; depth <= 3; depth++ {
			for i, cap := range []int{0, 10, 25} {
				opt := traverse.Options{MaxVisited: cap, MaxEdges: []int{0, 3, 40}[(i+int(seed))%3]}
				if seed%3 == 0 {
					opt.Follow = func(e athar.Edge) bool { return e.Predicate != "knows" }
				}
				for _, first := range []int{0, 1, 3, 7, 50, 1000} {
					for after := 0; after <= 60; after += max(first, 13) {
						name := fmt.Sprintf("seed %d depth %d cap %d maxEdges %d after %d first %d", seed, depth, cap, opt.MaxEdges, after, first)
						want, err := traverse.Ranked(ctx, g, "n0", depth, after, first, opt)
						if err != nil {
							t.Fatal(err)
						}
						got, err := traverse.Ranked(ctx, w, "n0", depth, after, first, opt)
						if err != nil {
							t.Fatal(err)
						}
						if got.Reached > want.Reached || got.Reached < got.Offset+len(got.Nodes) ||
							!got.HasNext && !got.Truncated && got.Reached != want.Reached {
							t.Fatalf("%s: reached %d, the walk over edges %d", name, got.Reached, want.Reached)
						}
						got.Reached = want.Reached
						if !reflect.DeepEqual(got, want) {
							t.Fatalf("%s:\n got %+v\nwant %+v", name, got, want)
						}
					}
				}
			}
		}
	}
}

// A short slice of a hub's neighbourhood reads a few of the hub's edges, not all of them.
func TestRankedWeightedReadsLittle(t *testing.T) {
	g := &graph{edges: map[athar.ID][]athar.Edge{}}
	add := func(e athar.Edge) {
		g.edges[e.Source] = append(g.edges[e.Source], e)
		g.edges[e.Target] = append(g.edges[e.Target], e)
	}
	for i := 1; i <= 5000; i++ {
		add(athar.Edge{Source: "hub", Target: athar.ID(fmt.Sprintf("n%d", i)), Predicate: "mentions", Attestations: 1 + i%7})
		add(athar.Edge{Source: athar.ID(fmt.Sprintf("n%d", i)), Target: "hub2", Predicate: "knows", Attestations: 1 + i%5})
	}
	w := &weighted{graph: g}
	p, err := traverse.Ranked(context.Background(), w, "hub", 2, 0, 10, traverse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Nodes) != 10 || !p.HasNext {
		t.Fatalf("%d nodes, hasNext %v", len(p.Nodes), p.HasNext)
	}
	if w.read > 1500 { // start's first chunk (1,024), and a few of its neighbours'
		t.Errorf("a slice of 10 read %d edges of a 10,000-edge neighbourhood", w.read)
	}
}
