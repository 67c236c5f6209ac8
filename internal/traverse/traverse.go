// Package traverse walks the plain triples of the graph as an undirected graph: the
// neighbourhood of an entity and the shortest path between two. It knows nothing of how the
// edges are stored: it asks a Graph for the edges touching a set of nodes, one call per
// breadth-first level, so a store that answers in one batch answers a whole level at once.
//
// Direction is ignored for reachability ("how is 'Umar connected to 3:165?" is not a
// question about who is the subject), but every edge returned keeps its true source and
// target.
package traverse

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
)

// Graph gives, for each id, the edges touching it in either direction, each with its true
// source and target. athar.Store satisfies it.
type Graph interface {
	Edges(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.Edge, error)
}

// DefaultMaxVisited is the visited cap used when Options.MaxVisited is zero.
const DefaultMaxVisited = 10000

// Options bound and filter a traversal.
type Options struct {
	// Follow reports whether an edge may be walked; nil walks every edge.
	Follow func(athar.Edge) bool
	// MaxVisited caps the number of distinct nodes a traversal may reach; 0 means
	// DefaultMaxVisited.
	MaxVisited int
	// MaxEdges caps the edges of a Ranked slice; 0 means no cap. A slice ends before the
	// node whose edges would take it past MaxEdges, so that it holds fewer than first nodes
	// and HasNext is set; it always holds at least one node, with all its edges.
	MaxEdges int
}

func (o Options) follow(e athar.Edge) bool { return o.Follow == nil || o.Follow(e) }

func (o Options) maxVisited() int {
	if o.MaxVisited <= 0 {
		return DefaultMaxVisited
	}
	return o.MaxVisited
}

// ErrTooLarge is returned by ShortestPath when the search reaches more than
// Options.MaxVisited nodes before it can tell whether a path exists.
var ErrTooLarge = errors.New("the search reached too many entities")

// Subgraph is a set of nodes and the edges between them.
type Subgraph struct {
	Nodes []athar.ID
	Edges []athar.Edge
	// Truncated is set when Neighbourhood stopped at the visited cap: some nodes within the
	// depth are missing.
	Truncated bool
}

// Neighbourhood returns start and every node within depth steps of it (walking edges in
// either direction), with every followed edge between two returned nodes. Nodes come in
// breadth-first order: start, then each level sorted by id. Edges are sorted by source,
// predicate and target. Depth 0 gives start alone.
func Neighbourhood(ctx context.Context, g Graph, start athar.ID, depth int, opt Options) (Subgraph, error) {
	if depth < 0 {
		return Subgraph{}, fmt.Errorf("neighbourhood of %s: negative depth %d", start, depth)
	}
	limit := opt.maxVisited()
	seen := map[athar.ID]bool{start: true}
	nodes := []athar.ID{start}
	known := map[athar.ID][]athar.Edge{} // edges of every node fetched so far
	frontier := []athar.ID{start}
	truncated := false
	for level := 0; level < depth && len(frontier) > 0 && !truncated; level++ {
		edges, err := g.Edges(ctx, frontier)
		if err != nil {
			return Subgraph{}, fmt.Errorf("neighbourhood of %s: %w", start, err)
		}
		var next []athar.ID
		for _, u := range frontier {
			known[u] = edges[u]
			for _, e := range edges[u] {
				v, ok := other(e, u)
				if !ok || seen[v] || !opt.follow(e) {
					continue
				}
				seen[v] = true
				next = append(next, v)
			}
		}
		sortIDs(next)
		if room := limit - len(nodes); len(next) > room {
			for _, v := range next[room:] {
				delete(seen, v)
			}
			next, truncated = next[:room], true
		}
		nodes = append(nodes, next...)
		frontier = next
	}
	// The outermost level was reached but not expanded: fetch its edges so that the
	// edges among its nodes are returned too.
	var unfetched []athar.ID
	for _, n := range nodes {
		if _, ok := known[n]; !ok {
			unfetched = append(unfetched, n)
		}
	}
	if len(unfetched) > 0 && len(nodes) > 1 {
		edges, err := g.Edges(ctx, unfetched)
		if err != nil {
			return Subgraph{}, fmt.Errorf("neighbourhood of %s: %w", start, err)
		}
		for _, n := range unfetched {
			known[n] = edges[n]
		}
	}
	return Subgraph{Nodes: nodes, Edges: induced(known, seen, opt), Truncated: truncated}, nil
}

// induced returns the followed edges whose both ends are in nodes, once each, sorted.
func induced(known map[athar.ID][]athar.Edge, nodes map[athar.ID]bool, opt Options) []athar.Edge {
	type key struct {
		s, t athar.ID
		p    string
	}
	seen := map[key]bool{}
	var out []athar.Edge
	for _, es := range known {
		for _, e := range es {
			k := key{e.Source, e.Target, e.Predicate}
			if seen[k] || !nodes[e.Source] || !nodes[e.Target] || !opt.follow(e) {
				continue
			}
			seen[k] = true
			out = append(out, e)
		}
	}
	sortEdges(out)
	return out
}

// ShortestPath returns a shortest path from one node to another walking edges in either
// direction, at most maxLength edges long, and whether there is one. The path's nodes come
// in order from `from` to `to`; its edges are every followed edge between consecutive
// nodes, in path order. The search is a breadth-first search from both ends, expanding the
// smaller frontier one level at a time; among paths of equal length it picks the same one
// every time. It fails with ErrTooLarge past Options.MaxVisited nodes.
func ShortestPath(ctx context.Context, g Graph, from, to athar.ID, maxLength int, opt Options) (Subgraph, bool, error) {
	if from == to {
		return Subgraph{Nodes: []athar.ID{from}}, true, nil
	}
	limit := opt.maxVisited()
	fwd := newSide(from)
	bwd := newSide(to)
	known := map[athar.ID][]athar.Edge{}
	for fwd.depth+bwd.depth < maxLength && len(fwd.frontier) > 0 && len(bwd.frontier) > 0 {
		s, o := fwd, bwd
		if len(bwd.frontier) < len(fwd.frontier) {
			s, o = bwd, fwd
		}
		edges, err := g.Edges(ctx, s.frontier)
		if err != nil {
			return Subgraph{}, false, fmt.Errorf("path from %s to %s: %w", from, to, err)
		}
		var next, meets []athar.ID
		for _, u := range s.frontier {
			known[u] = edges[u]
			for _, e := range edges[u] {
				v, ok := other(e, u)
				if !ok || !opt.follow(e) {
					continue
				}
				if _, seen := s.parent[v]; seen {
					continue
				}
				s.parent[v] = u
				next = append(next, v)
				if _, met := o.parent[v]; met {
					meets = append(meets, v)
				}
			}
		}
		s.depth++
		if len(meets) > 0 {
			sortIDs(meets)
			nodes := append(fwd.pathTo(meets[0]), reversed(bwd.pathTo(meets[0]))[1:]...)
			return Subgraph{Nodes: nodes, Edges: pathEdges(nodes, known, opt)}, true, nil
		}
		if len(fwd.parent)+len(bwd.parent) > limit {
			return Subgraph{}, false, fmt.Errorf("path from %s to %s within %d steps: %w (more than %d)", from, to, maxLength, ErrTooLarge, limit)
		}
		sortIDs(next)
		s.frontier = next
	}
	return Subgraph{}, false, nil
}

// side is one end of a bidirectional search.
type side struct {
	root     athar.ID
	parent   map[athar.ID]athar.ID // reached node -> the node it was reached from; root -> ""
	frontier []athar.ID
	depth    int
}

func newSide(root athar.ID) *side {
	return &side{root: root, parent: map[athar.ID]athar.ID{root: ""}, frontier: []athar.ID{root}}
}

// pathTo returns the nodes from the side's root to n.
func (s *side) pathTo(n athar.ID) []athar.ID {
	var rev []athar.ID
	for ; n != ""; n = s.parent[n] {
		rev = append(rev, n)
	}
	return reversed(rev)
}

func reversed(ids []athar.ID) []athar.ID {
	out := make([]athar.ID, len(ids))
	for i, id := range ids {
		out[len(ids)-1-i] = id
	}
	return out
}

// pathEdges returns the followed edges between consecutive nodes. Of each consecutive pair
// at least one node was expanded, so its edges are known.
func pathEdges(nodes []athar.ID, known map[athar.ID][]athar.Edge, opt Options) []athar.Edge {
	var out []athar.Edge
	for i := 0; i+1 < len(nodes); i++ {
		a, b := nodes[i], nodes[i+1]
		es, ok := known[a]
		if !ok {
			es = known[b]
		}
		for _, e := range es {
			if (e.Source == a && e.Target == b || e.Source == b && e.Target == a) && opt.follow(e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// other returns the end of e that is not u; false when e does not touch u or loops on it.
func other(e athar.Edge, u athar.ID) (athar.ID, bool) {
	switch {
	case e.Source == u && e.Target != u:
		return e.Target, true
	case e.Target == u && e.Source != u:
		return e.Source, true
	}
	return "", false
}

func sortIDs(ids []athar.ID) { sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] }) }

func sortEdges(es []athar.Edge) {
	slices.SortFunc(es, func(a, b athar.Edge) int {
		if c := strings.Compare(string(a.Source), string(b.Source)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Predicate, b.Predicate); c != 0 {
			return c
		}
		return strings.Compare(string(a.Target), string(b.Target))
	})
}
