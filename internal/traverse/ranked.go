package traverse

import (
	"container/heap"
	"context"
	"fmt"

	"github.com/athar-hadith/athar/internal/athar"
)

// Page is one ranked slice of a neighbourhood.
type Page struct {
	// Nodes are the slice's nodes in rank order; Edges every followed edge joining a node of
	// the slice to a node of this slice or an earlier one (so the pages together give each
	// edge of the neighbourhood once), sorted by source, predicate and target.
	Nodes []athar.ID
	Edges []athar.Edge
	// Offset is the rank of the slice's first node (start is rank 0).
	Offset int
	// HasNext is set when more nodes within the depth follow the slice.
	HasNext bool
	// Reached counts the nodes the walk found within the depth while answering: every node
	// ranked up to the end of the slice and the candidates waiting after it. It is the
	// total when HasNext is false, and a lower bound otherwise.
	Reached int
	// Truncated is set when ranks past the visited cap were asked for, or the slice stopped
	// at it with nodes within the depth left over.
	Truncated bool
}

// Ranked returns the nodes of the neighbourhood of start ranked from rank after, first of
// them. The walk is best-first: start has rank 0; each next rank goes to the node outside
// the ranked ones joined to one of them (one that lies less than depth steps from start)
// by the edge with the most attestations; ties go to the smallest id. A node's step count
// is its distance from start through the ranked nodes, lowered when a later node gives a
// shorter route, so paging to the end gives exactly the nodes within depth steps. The walk
// asks g for the edges of each node as it ranks it: a slice reads the edges of the
// after+first+1 best nodes and no more. When g is a WeightedGraph it reads each ranked
// node's edges in weight order only as far as the ranking needs (see rankedWeighted): the
// same nodes, edges and flags, and a smaller Reached while more nodes follow. Ranks from
// Options.MaxVisited on are never given.
func Ranked(ctx context.Context, g Graph, start athar.ID, depth, after, first int, opt Options) (Page, error) {
	if depth < 0 || after < 0 || first < 0 {
		return Page{}, fmt.Errorf("neighbourhood of %s: negative depth, after or first (%d, %d, %d)", start, depth, after, first)
	}
	if wg, ok := g.(WeightedGraph); ok {
		return rankedWeighted(ctx, wg, start, depth, after, first, opt)
	}
	limit := opt.maxVisited()
	want := min(after+first, limit) // ranks [0, want) are needed; rank want tells HasNext
	w := &walk{g: g, opt: opt, depth: depth, hop: map[athar.ID]int{}, edges: map[athar.ID][]athar.Edge{}, best: map[athar.ID]int{}}
	if err := w.rank(ctx, start, 0); err != nil {
		return Page{}, fmt.Errorf("neighbourhood of %s: %w", start, err)
	}
	for len(w.order) < want+1 && len(w.order) < limit {
		v, ok := w.next()
		if !ok {
			break
		}
		if err := ctx.Err(); err != nil {
			return Page{}, err
		}
		if err := w.rank(ctx, v, -1); err != nil {
			return Page{}, fmt.Errorf("neighbourhood of %s: %w", start, err)
		}
	}
	from, to := min(after, len(w.order)), min(after+first, len(w.order), limit)
	rank := make(map[athar.ID]int, len(w.order))
	for i, n := range w.order {
		rank[n] = i
	}
	// Edges: followed edges with an end in the slice and the other end ranked no later
	// than the slice's end.
	type key struct {
		s, t athar.ID
		p    string
	}
	seen := map[key]bool{}
	var edges []athar.Edge
	for _, n := range w.order[from:to] {
		for _, e := range w.edges[n] {
			rs, okS := rank[e.Source]
			rt, okT := rank[e.Target]
			if !okS || !okT || rs >= to || rt >= to || rs < from && rt < from || !opt.follow(e) {
				continue
			}
			k := key{e.Source, e.Target, e.Predicate}
			if !seen[k] {
				seen[k] = true
				edges = append(edges, e)
			}
		}
	}
	if opt.MaxEdges > 0 {
		to, edges = withinEdges(from, to, edges, func(id athar.ID) int { return rank[id] }, opt.MaxEdges)
	}
	p := Page{Nodes: append([]athar.ID(nil), w.order[from:to]...), Offset: from, Edges: edges}
	more := to < len(w.order) || w.pending() > 0 // nodes within the depth rank after the slice
	if to == limit && more {
		p.Truncated = true // they rank at or past the cap
	} else {
		p.HasNext = more
	}
	p.Reached = len(w.order) + w.pending()
	sortEdges(p.Edges)
	return p, nil
}

// withinEdges applies Options.MaxEdges to the slice of ranks [from, to) and its edges: each
// edge belongs to its later-ranked end (the page that gives it), and the slice ends before
// the first node, after its first, whose edges would take the total past maxEdges. It
// returns the slice's new end and the edges of the nodes kept.
func withinEdges(from, to int, edges []athar.Edge, rank func(athar.ID) int, maxEdges int) (int, []athar.Edge) {
	if len(edges) <= maxEdges {
		return to, edges
	}
	owned := make([]int, to-from) // edges per node of the slice, by rank
	owner := func(e athar.Edge) int { return max(rank(e.Source), rank(e.Target)) }
	for _, e := range edges {
		owned[owner(e)-from]++
	}
	end, total := from+1, owned[0]
	for end < to && total+owned[end-from] <= maxEdges {
		total += owned[end-from]
		end++
	}
	kept := edges[:0]
	for _, e := range edges {
		if owner(e) < end {
			kept = append(kept, e)
		}
	}
	return end, kept
}

// walk is the state of a best-first walk.
type walk struct {
	g     Graph
	opt   Options
	depth int
	order []athar.ID                // ranked nodes in rank order
	hop   map[athar.ID]int          // ranked node -> steps from start through ranked nodes
	edges map[athar.ID][]athar.Edge // ranked node -> its edges
	best  map[athar.ID]int          // candidate -> attestations of its strongest edge to a node it may be reached from
	queue candidates
}

// rank ranks v, fetching its edges; h is its step count, or -1 to take it from its ranked
// neighbours.
func (w *walk) rank(ctx context.Context, v athar.ID, h int) error {
	es, err := w.g.Edges(ctx, []athar.ID{v})
	if err != nil {
		return err
	}
	w.edges[v] = es[v]
	delete(w.best, v)
	if h < 0 {
		h = w.depth + 1
		for _, e := range es[v] {
			if u, ok := other(e, v); ok && w.opt.follow(e) {
				if hu, ok := w.hop[u]; ok && hu+1 < h {
					h = hu + 1
				}
			}
		}
	}
	w.hop[v] = h
	w.order = append(w.order, v)
	// v may give its ranked neighbours a shorter route, and they theirs: relax breadth-first
	// over the ranked nodes, offering the neighbours of every node whose count drops.
	queue := []athar.ID{v}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		w.offer(u)
		for _, e := range w.edges[u] {
			x, ok := other(e, u)
			if !ok || !w.opt.follow(e) {
				continue
			}
			if hx, ranked := w.hop[x]; ranked && hx > w.hop[u]+1 {
				w.hop[x] = w.hop[u] + 1
				queue = append(queue, x)
			}
		}
	}
	return nil
}

// offer makes the unranked neighbours of the ranked node u candidates, when u lies less
// than depth steps from start.
func (w *walk) offer(u athar.ID) {
	if w.hop[u] >= w.depth {
		return
	}
	for _, e := range w.edges[u] {
		x, ok := other(e, u)
		if !ok || !w.opt.follow(e) {
			continue
		}
		if _, ranked := w.hop[x]; ranked {
			continue
		}
		if b, ok := w.best[x]; ok && b >= e.Attestations {
			continue
		}
		w.best[x] = e.Attestations
		heap.Push(&w.queue, candidate{x, e.Attestations})
	}
}

// next pops the best candidate, skipping stale entries.
func (w *walk) next() (athar.ID, bool) {
	for w.queue.Len() > 0 {
		c := heap.Pop(&w.queue).(candidate)
		if b, ok := w.best[c.id]; ok && b == c.score {
			return c.id, true
		}
	}
	return "", false
}

// pending counts the candidates not yet ranked.
func (w *walk) pending() int { return len(w.best) }

type candidate struct {
	id    athar.ID
	score int
}

// candidates is a heap: most attestations first, then smallest id.
type candidates []candidate

func (c candidates) Len() int { return len(c) }
func (c candidates) Less(i, j int) bool {
	if c[i].score != c[j].score {
		return c[i].score > c[j].score
	}
	return c[i].id < c[j].id
}
func (c candidates) Swap(i, j int) { c[i], c[j] = c[j], c[i] }
func (c *candidates) Push(x any)   { *c = append(*c, x.(candidate)) }
func (c *candidates) Pop() any {
	old := *c
	x := old[len(old)-1]
	*c = old[:len(old)-1]
	return x
}
