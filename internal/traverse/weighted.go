package traverse

import (
	"container/heap"
	"context"
	"fmt"
	"slices"

	"github.com/athar-hadith/athar/internal/athar"
)

// WeightedGraph is a Graph that keeps each node's edges sorted by weight, so that a
// best-first walk reads no more of a hub's edges than it ranks; athar.Store satisfies it.
type WeightedGraph interface {
	Graph
	// WeightedEdges returns up to n edges of id, most attestations first, then by the other
	// end's id, from the position after ("" from the first), and the position to continue
	// from ("" when none is left).
	WeightedEdges(ctx context.Context, id athar.ID, after string, n int) ([]athar.Edge, string, error)
	// EdgesBetween returns, once each, the edges joining a node of ids to one of others (a
	// loop when a node is in both).
	EdgesBetween(ctx context.Context, ids, others []athar.ID) ([]athar.Edge, error)
}

// Chunks of a weighted list read at a time: the first small (most walks take a few of a
// node's edges), then doubling.
const (
	firstChunk = 16
	maxChunk   = 1024
)

// rankedWeighted is Ranked over a WeightedGraph, with the same ranking. Each ranked node
// less than depth steps from start holds a cursor into its weighted list; the next rank
// goes to the best head among the cursors whose other end is unranked (a k-way merge), so
// a node's list is read only as far as the ranks taken from it and the ranked nodes it
// meets on the way. A node's step count comes from the ranked nodes that could lower it:
// from memory for those whose lists were read whole (start's, mostly), else from
// EdgesBetween; the slice's edges come from one EdgesBetween of the slice and the nodes
// ranked up to its end.
//
// Reached differs from the walk over Graph while more nodes follow the slice: it counts
// the candidates the cursors have read, not every neighbour of the ranked nodes, and is
// still a lower bound; at the end of the neighbourhood it is the same total.
func rankedWeighted(ctx context.Context, g WeightedGraph, start athar.ID, depth, after, first int, opt Options) (Page, error) {
	limit := opt.maxVisited()
	want := min(after+first, limit)
	w := &weightedWalk{g: g, opt: opt, depth: depth, rank: map[athar.ID]int{}, hop: map[athar.ID]int{}, cur: map[athar.ID]*cursor{}, levels: make([][]athar.ID, depth+2)}
	fail := func(err error) (Page, error) { return Page{}, fmt.Errorf("neighbourhood of %s: %w", start, err) }
	if err := w.add(ctx, start, 0); err != nil {
		return fail(err)
	}
	// Under an edge cap the slice's edges are read as its nodes are ranked, so that the walk
	// stops where the cap ends the slice.
	se := &sliceEdges{lo: after, n: want, end: -1}
	if opt.MaxEdges > 0 {
		se.n = firstChunk
	}
	more := false // a node within the depth waits after the last ranked one
	for se.end < 0 {
		v, via, ok, err := w.next(ctx)
		if err != nil {
			return fail(err)
		}
		if !ok {
			break
		}
		if err := ctx.Err(); err != nil {
			return Page{}, err
		}
		if len(w.order) >= want || len(w.order) >= limit {
			more = true
			break
		}
		h, err := w.hopOf(ctx, v, w.hop[via]+1)
		if err != nil {
			return fail(err)
		}
		if err := w.add(ctx, v, h); err != nil {
			return fail(err)
		}
		if len(w.order) >= se.lo+se.n && len(w.order) < want {
			if err := w.readEdges(ctx, se, after, len(w.order)); err != nil {
				return fail(err)
			}
		}
	}
	from, to := min(after, len(w.order)), min(after+first, len(w.order), limit)
	if se.end < 0 && from < to && se.lo < to {
		if err := w.readEdges(ctx, se, from, to); err != nil {
			return fail(err)
		}
	}
	if se.end >= 0 {
		to, more = se.end, true
	}
	edges := se.out
	p := Page{Nodes: append([]athar.ID(nil), w.order[from:to]...), Offset: from, Edges: edges}
	more = more || to < len(w.order)
	if to == limit && more {
		p.Truncated = true
	} else {
		p.HasNext = more
	}
	// The candidates read: the unranked other ends left in the cursors (those passed lead
	// to ranked nodes).
	found := map[athar.ID]bool{}
	for _, c := range w.heads {
		for _, e := range c.buf {
			if x, ok := other(e, c.node); ok && opt.follow(e) {
				if _, ranked := w.rank[x]; !ranked {
					found[x] = true
				}
			}
		}
	}
	p.Reached = len(w.order) + len(found)
	sortEdgesAmong(p.Edges, w.order[:to])
	return p, nil
}

// sliceEdges gathers the edges of a slice: the followed edges joining a node of the slice
// to one ranked no later than its end. They are read in chunks of ranks [lo, lo+n) under
// an edge cap (firstChunk, then as many as the edges per node so far leave room for, at
// most doubling), else in one: the edges between a chunk and
// the ranks up to the chunk's end are exactly those its nodes own (see withinEdges), so
// they can be read as the walk ranks, and the walk stops once the cap ends the slice.
type sliceEdges struct {
	lo, n int
	out   []athar.Edge
	end   int // the slice's end once Options.MaxEdges cut it; -1 until then
}

// readEdges reads the edges of the ranks [se.lo, hi) of the slice starting at from, and
// sets se.end when they take it past the edge cap before hi.
func (w *weightedWalk) readEdges(ctx context.Context, se *sliceEdges, from, hi int) error {
	es, err := w.g.EdgesBetween(ctx, w.order[se.lo:hi], w.order[:hi])
	if err != nil {
		return err
	}
	for _, e := range es {
		if w.opt.follow(e) {
			se.out = append(se.out, e)
		}
	}
	se.lo, se.n = hi, se.n*2
	if w.opt.MaxEdges > 0 && len(se.out) > 0 && len(se.out) <= w.opt.MaxEdges {
		// The next chunk: about as many nodes as the edges per node so far leave room for
		// (later ranks have more ranked nodes to join), so that the walk ranks few past
		// the cut.
		perNode := float64(len(se.out)) / float64(hi-from)
		se.n = min(se.n, 1+int(float64(w.opt.MaxEdges-len(se.out))/perNode))
	}
	if w.opt.MaxEdges > 0 && len(se.out) > w.opt.MaxEdges {
		// end is hi only for a slice of one node, over the cap alone: nothing is cut yet.
		if end, kept := withinEdges(from, hi, se.out, func(id athar.ID) int { return w.rank[id] }, w.opt.MaxEdges); end < hi {
			se.end, se.out = end, kept
		}
	}
	return nil
}

// sortEdgesAmong sorts edges between the nodes as sortEdges does, comparing the places of
// their ends and predicates in sorted order rather than the strings (thousands of edges
// between a few hundred nodes).
func sortEdgesAmong(es []athar.Edge, nodes []athar.ID) {
	ids := slices.Clone(nodes)
	slices.Sort(ids)
	place := make(map[athar.ID]int32, len(ids))
	for i, id := range ids {
		place[id] = int32(i)
	}
	predPlace := map[string]int32{}
	var preds []string
	for _, e := range es {
		if _, ok := predPlace[e.Predicate]; !ok {
			predPlace[e.Predicate] = 0
			preds = append(preds, e.Predicate)
		}
	}
	slices.Sort(preds)
	for i, p := range preds {
		predPlace[p] = int32(i)
	}
	type keyed struct{ s, p, t, i int32 }
	ks := make([]keyed, len(es))
	for i, e := range es {
		s, okS := place[e.Source]
		t, okT := place[e.Target]
		if !okS || !okT {
			sortEdges(es) // an end not among the nodes: cannot happen, but stay correct
			return
		}
		ks[i] = keyed{s, predPlace[e.Predicate], t, int32(i)}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.s != b.s {
			return int(a.s - b.s)
		}
		if a.p != b.p {
			return int(a.p - b.p)
		}
		return int(a.t - b.t)
	})
	sorted := make([]athar.Edge, len(es))
	for i, k := range ks {
		sorted[i] = es[k.i]
	}
	copy(es, sorted)
}

// weightedWalk is the state of a best-first walk over a WeightedGraph.
type weightedWalk struct {
	g     WeightedGraph
	opt   Options
	depth int
	order []athar.ID
	rank  map[athar.ID]int     // ranked node -> its rank
	hop   map[athar.ID]int     // ranked node -> steps from start through ranked nodes
	heads cursors              // the cursors with a head, by head
	cur   map[athar.ID]*cursor // ranked node less than depth steps away -> its cursor
	// levels lists the ranked nodes by step count; a node whose count dropped stays listed
	// under the old one too (hop says which is right).
	levels [][]athar.ID
}

// cursor reads one node's weighted list.
type cursor struct {
	node  athar.ID
	buf   []athar.Edge // read and not yet passed; buf[0] is the head
	other athar.ID     // the head's other end
	pos   string       // where the next chunk starts; "" when the list is read
	n     int          // the next chunk's size
	// nbrs are the other ends of the followed edges read, all of them once complete; kept
	// for the nodes that may answer a step count (fewer than depth-1 steps from start).
	nbrs     map[athar.ID]bool
	complete bool
}

// advance passes the head while it leads nowhere new (a loop, an edge not followed, or to a
// ranked node), reading chunks as needed; false when the list is exhausted.
func (w *weightedWalk) advance(ctx context.Context, c *cursor) (bool, error) {
	for {
		for len(c.buf) > 0 {
			e := c.buf[0]
			if x, ok := other(e, c.node); ok && w.opt.follow(e) {
				if _, ranked := w.rank[x]; !ranked {
					c.other = x
					return true, nil
				}
			}
			c.buf = c.buf[1:]
		}
		if c.complete {
			return false, nil
		}
		es, pos, err := w.g.WeightedEdges(ctx, c.node, c.pos, c.n)
		if err != nil {
			return false, err
		}
		c.buf, c.pos = es, pos
		c.n = min(2*c.n, maxChunk)
		c.complete = pos == "" || len(es) == 0
		if c.nbrs != nil {
			for _, e := range es {
				if x, ok := other(e, c.node); ok && w.opt.follow(e) {
					c.nbrs[x] = true
				}
			}
		}
	}
}

// add ranks v, h steps from start.
func (w *weightedWalk) add(ctx context.Context, v athar.ID, h int) error {
	w.rank[v] = len(w.order)
	w.order = append(w.order, v)
	w.setHop(v, h)
	if err := w.relax(ctx, v); err != nil {
		return err
	}
	return w.activate(ctx, v)
}

// activate gives a ranked node less than depth steps from start its cursor. Start's first
// chunk is the largest: knowing all its neighbours answers the step counts at depth 2.
func (w *weightedWalk) activate(ctx context.Context, v athar.ID) error {
	if w.hop[v] >= w.depth {
		return nil
	}
	c := &cursor{node: v, n: firstChunk}
	if w.hop[v] < w.depth-1 {
		c.nbrs = map[athar.ID]bool{}
	}
	if len(w.order) == 1 {
		c.n = maxChunk
	}
	w.cur[v] = c
	ok, err := w.advance(ctx, c)
	if err != nil || !ok {
		return err
	}
	heap.Push(&w.heads, c)
	return nil
}

// relax lowers the step counts of the ranked nodes v gives a shorter route, and theirs,
// breadth-first; a node that comes within depth steps gets its cursor.
func (w *weightedWalk) relax(ctx context.Context, v athar.ID) error {
	queue := []athar.ID{v}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		hu := w.hop[u]
		var far []athar.ID
		for l := hu + 2; l < len(w.levels); l++ {
			for _, x := range w.levels[l] {
				if w.hop[x] == l {
					far = append(far, x)
				}
			}
		}
		if len(far) == 0 {
			continue
		}
		sortIDs(far)
		es, err := w.g.EdgesBetween(ctx, []athar.ID{u}, far)
		if err != nil {
			return err
		}
		for _, e := range es {
			x, ok := other(e, u)
			if !ok || !w.opt.follow(e) || w.hop[x] <= hu+1 {
				continue
			}
			was := w.hop[x]
			w.setHop(x, hu+1)
			queue = append(queue, x)
			if was >= w.depth && hu+1 < w.depth {
				if err := w.activate(ctx, x); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// setHop sets v's step count.
func (w *weightedWalk) setHop(v athar.ID, h int) {
	w.hop[v] = h
	w.levels[h] = append(w.levels[h], v)
}

// next returns the unranked node joined to a node with a cursor by the edge with the most
// attestations (ties to the smallest id), and that ranked node.
func (w *weightedWalk) next(ctx context.Context) (athar.ID, athar.ID, bool, error) {
	for w.heads.Len() > 0 {
		c := w.heads[0]
		if _, ranked := w.rank[c.other]; !ranked {
			return c.other, c.node, true, nil
		}
		more, err := w.advance(ctx, c)
		if err != nil {
			return "", "", false, err
		}
		if more {
			heap.Fix(&w.heads, 0)
		} else {
			heap.Pop(&w.heads)
		}
	}
	return "", "", false, nil
}

// hopOf returns the step count of x, at most h: one more than the fewest of the ranked
// nodes joined to it. A ranked node whose list is read whole answers from memory.
func (w *weightedWalk) hopOf(ctx context.Context, x athar.ID, h int) (int, error) {
	var ask []athar.ID
	for l := 0; l+1 < h; l++ {
		for _, u := range w.levels[l] {
			if w.hop[u] != l {
				continue
			}
			hu := l
			if c := w.cur[u]; c != nil && c.complete && c.nbrs != nil {
				if c.nbrs[x] {
					h = min(h, hu+1)
				}
			} else {
				ask = append(ask, u)
			}
		}
	}
	if len(ask) == 0 {
		return h, nil
	}
	sortIDs(ask)
	es, err := w.g.EdgesBetween(ctx, []athar.ID{x}, ask)
	if err != nil {
		return 0, err
	}
	for _, e := range es {
		if u, ok := other(e, x); ok && w.opt.follow(e) && w.hop[u]+1 < h {
			h = w.hop[u] + 1
		}
	}
	return h, nil
}

// cursors is a heap of cursors by their heads: most attestations first, then the smallest
// other end.
type cursors []*cursor

func (c cursors) Len() int { return len(c) }
func (c cursors) Less(i, j int) bool {
	a, b := c[i].buf[0].Attestations, c[j].buf[0].Attestations
	if a != b {
		return a > b
	}
	return c[i].other < c[j].other
}
func (c cursors) Swap(i, j int) { c[i], c[j] = c[j], c[i] }
func (c *cursors) Push(x any)   { *c = append(*c, x.(*cursor)) }
func (c *cursors) Pop() any {
	old := *c
	x := old[len(old)-1]
	*c = old[:len(old)-1]
	return x
}
