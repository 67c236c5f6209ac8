package traverse_test

import (
	"context"
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/traverse"
)

// graph is an in-memory traverse.Graph built from "source predicate target" lines; it
// counts the calls made to it.
type graph struct {
	edges map[athar.ID][]athar.Edge
	calls int
}

func newGraph(t *testing.T, lines ...string) *graph {
	t.Helper()
	g := &graph{edges: map[athar.ID][]athar.Edge{}}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 3 {
			t.Fatalf("bad edge line %q", l)
		}
		e := athar.Edge{Source: athar.ID(f[0]), Predicate: f[1], Target: athar.ID(f[2]), Attestations: 1}
		g.edges[e.Source] = append(g.edges[e.Source], e)
		if e.Target != e.Source {
			g.edges[e.Target] = append(g.edges[e.Target], e)
		}
	}
	return g
}

func (g *graph) Edges(_ context.Context, ids []athar.ID) (map[athar.ID][]athar.Edge, error) {
	g.calls++
	out := map[athar.ID][]athar.Edge{}
	for _, id := range ids {
		if es := g.edges[id]; len(es) > 0 {
			out[id] = append([]athar.Edge(nil), es...)
		}
	}
	return out, nil
}

func ids(ss ...string) []athar.ID {
	out := make([]athar.ID, len(ss))
	for i, s := range ss {
		out[i] = athar.ID(s)
	}
	return out
}

func edgeStrings(es []athar.Edge) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = string(e.Source) + " " + e.Predicate + " " + string(e.Target)
	}
	return out
}

// The seed's shape in miniature: 'Umar is linked to 3:165 only through events, in mixed
// directions.
var story = []string{
	"p:umar advises c:execution",
	"p:muhammad consults p:umar",
	"p:muhammad participatedIn e:acceptance",
	"e:acceptance causes e:losses",
	"v:3:165 revealedRegarding e:losses",
	"p:umar narrates n:ahmad",
	"n:ahmad mentions v:3:165",
	"p:abu-bakr advises c:ransom",
	"p:muhammad consults p:abu-bakr",
}

func TestShortestPath(t *testing.T) {
	noNarration := func(e athar.Edge) bool { return e.Predicate != "narrates" && e.Predicate != "mentions" }
	tests := []struct {
		name      string
		from, to  string
		maxLength int
		follow    func(athar.Edge) bool
		wantNodes []athar.ID
		wantEdges []string
		wantFound bool
	}{
		{
			name: "through the narration", from: "p:umar", to: "v:3:165", maxLength: 6,
			wantNodes: ids("p:umar", "n:ahmad", "v:3:165"),
			wantEdges: []string{"p:umar narrates n:ahmad", "n:ahmad mentions v:3:165"},
			wantFound: true,
		},
		{
			name: "against the edges' direction, filtered", from: "p:umar", to: "v:3:165", maxLength: 6, follow: noNarration,
			wantNodes: ids("p:umar", "p:muhammad", "e:acceptance", "e:losses", "v:3:165"),
			wantEdges: []string{"p:muhammad consults p:umar", "p:muhammad participatedIn e:acceptance", "e:acceptance causes e:losses", "v:3:165 revealedRegarding e:losses"},
			wantFound: true,
		},
		{
			name: "reverse query keeps true directions", from: "v:3:165", to: "p:umar", maxLength: 6, follow: noNarration,
			wantNodes: ids("v:3:165", "e:losses", "e:acceptance", "p:muhammad", "p:umar"),
			wantEdges: []string{"v:3:165 revealedRegarding e:losses", "e:acceptance causes e:losses", "p:muhammad participatedIn e:acceptance", "p:muhammad consults p:umar"},
			wantFound: true,
		},
		{name: "too far", from: "p:umar", to: "v:3:165", maxLength: 3, follow: noNarration},
		{name: "exactly long enough", from: "p:umar", to: "e:losses", maxLength: 3, follow: noNarration,
			wantNodes: ids("p:umar", "p:muhammad", "e:acceptance", "e:losses"),
			wantEdges: []string{"p:muhammad consults p:umar", "p:muhammad participatedIn e:acceptance", "e:acceptance causes e:losses"},
			wantFound: true},
		{name: "same node", from: "p:umar", to: "p:umar", maxLength: 1, wantNodes: ids("p:umar"), wantFound: true},
		{name: "unknown node", from: "p:umar", to: "p:nobody", maxLength: 6},
		{name: "zero length", from: "p:umar", to: "c:execution", maxLength: 0},
		{name: "one step", from: "c:execution", to: "p:umar", maxLength: 1,
			wantNodes: ids("c:execution", "p:umar"), wantEdges: []string{"p:umar advises c:execution"}, wantFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGraph(t, story...)
			sg, found, err := traverse.ShortestPath(context.Background(), g, athar.ID(tt.from), athar.ID(tt.to), tt.maxLength, traverse.Options{Follow: tt.follow})
			if err != nil {
				t.Fatal(err)
			}
			if found != tt.wantFound {
				t.Fatalf("found = %v, want %v (%v)", found, tt.wantFound, sg.Nodes)
			}
			if !found {
				return
			}
			if !reflect.DeepEqual(sg.Nodes, tt.wantNodes) {
				t.Errorf("nodes = %v, want %v", sg.Nodes, tt.wantNodes)
			}
			if got := edgeStrings(sg.Edges); !reflect.DeepEqual(got, tt.wantEdges) && !(len(got) == 0 && len(tt.wantEdges) == 0) {
				t.Errorf("edges = %q, want %q", got, tt.wantEdges)
			}
			if g.calls > tt.maxLength {
				t.Errorf("%d Edges calls for a path of at most %d steps: want one per level", g.calls, tt.maxLength)
			}
		})
	}
}

func TestShortestPathIsDeterministicAndShortest(t *testing.T) {
	// Two paths of length 2 (via b and via c) and one of length 3.
	lines := []string{"x:a r x:c", "x:c r x:z", "x:b r x:a", "x:z r x:b", "x:a r x:d", "x:d r x:e", "x:e r x:z"}
	for i := 0; i < 5; i++ {
		g := newGraph(t, lines...)
		sg, found, err := traverse.ShortestPath(context.Background(), g, "x:a", "x:z", 6, traverse.Options{})
		if err != nil || !found {
			t.Fatalf("found=%v err=%v", found, err)
		}
		if want := ids("x:a", "x:b", "x:z"); !reflect.DeepEqual(sg.Nodes, want) {
			t.Fatalf("run %d: nodes = %v, want %v", i, sg.Nodes, want)
		}
	}
}

func TestShortestPathVisitedCap(t *testing.T) {
	// A star: the hub has many leaves, and the target is not connected.
	var lines []string
	for i := 0; i < 50; i++ {
		lines = append(lines, "x:hub r x:leaf"+strings.Repeat("a", i+1))
	}
	lines = append(lines, "x:island r x:other")
	g := newGraph(t, lines...)
	_, _, err := traverse.ShortestPath(context.Background(), g, "x:hub", "x:island", 6, traverse.Options{MaxVisited: 10})
	if !errors.Is(err, traverse.ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	_, found, err := traverse.ShortestPath(context.Background(), g, "x:hub", "x:island", 6, traverse.Options{})
	if err != nil || found {
		t.Fatalf("found=%v err=%v, want no path and no error", found, err)
	}
}

func TestNeighbourhood(t *testing.T) {
	tests := []struct {
		name      string
		start     string
		depth     int
		opt       traverse.Options
		wantNodes []athar.ID
		wantEdges []string
		truncated bool
		maxCalls  int
	}{
		{name: "depth 0", start: "p:umar", depth: 0, wantNodes: ids("p:umar"), maxCalls: 0},
		{
			name: "depth 1 both directions", start: "p:umar", depth: 1,
			wantNodes: ids("p:umar", "c:execution", "n:ahmad", "p:muhammad"),
			wantEdges: []string{"p:muhammad consults p:umar", "p:umar advises c:execution", "p:umar narrates n:ahmad"},
			maxCalls:  2,
		},
		{
			name: "depth 2 includes edges among the outer level", start: "e:losses", depth: 2,
			wantNodes: ids("e:losses", "e:acceptance", "v:3:165", "n:ahmad", "p:muhammad"),
			wantEdges: []string{"e:acceptance causes e:losses", "n:ahmad mentions v:3:165", "p:muhammad participatedIn e:acceptance", "v:3:165 revealedRegarding e:losses"},
			maxCalls:  3,
		},
		{
			name: "filtered", start: "p:umar", depth: 1,
			opt:       traverse.Options{Follow: func(e athar.Edge) bool { return e.Predicate == "advises" }},
			wantNodes: ids("p:umar", "c:execution"),
			wantEdges: []string{"p:umar advises c:execution"},
			maxCalls:  2,
		},
		{
			name: "capped", start: "p:muhammad", depth: 3, opt: traverse.Options{MaxVisited: 3},
			wantNodes: ids("p:muhammad", "e:acceptance", "p:abu-bakr"),
			wantEdges: []string{"p:muhammad consults p:abu-bakr", "p:muhammad participatedIn e:acceptance"},
			truncated: true, maxCalls: 2,
		},
		{name: "isolated", start: "p:nobody", depth: 2, wantNodes: ids("p:nobody"), maxCalls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newGraph(t, story...)
			sg, err := traverse.Neighbourhood(context.Background(), g, athar.ID(tt.start), tt.depth, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(sg.Nodes, tt.wantNodes) {
				t.Errorf("nodes = %v, want %v", sg.Nodes, tt.wantNodes)
			}
			got := edgeStrings(sg.Edges)
			want := append([]string(nil), tt.wantEdges...)
			sort.Strings(want)
			if !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
				t.Errorf("edges = %q, want %q", got, want)
			}
			if sg.Truncated != tt.truncated {
				t.Errorf("truncated = %v, want %v", sg.Truncated, tt.truncated)
			}
			if g.calls > tt.maxCalls {
				t.Errorf("%d Edges calls, want at most %d", g.calls, tt.maxCalls)
			}
		})
	}
}
