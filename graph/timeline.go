package graph

import (
	"container/heap"
	"math"
	"math/bits"
	"sort"
	"strconv"

	"github.com/athar-hadith/athar/internal/athar"
)

// The predicates the timeline reads.
const (
	predPrecedes   = "precedes"
	predPartOf     = "partOf"
	predCauses     = "causes"
	predRespondsTo = "respondsTo"
	predYear       = "year"
)

// timelinePredicates are read by chronology; the resolver fetches their claims.
var timelinePredicates = []string{predPrecedes, predPartOf, predCauses, predRespondsTo, predYear}

// chronology orders events in time. It is a topological order of the "happened before"
// relation the claims give:
//
//   - a precedes b: a before b;
//   - p partOf w: w before p (a whole is listed before its episodes), and p before
//     everything w (or any whole w is part of) precedes;
//   - a causes b (both events): a before b;
//   - a respondsTo b: b before a.
//
// Among events free to come next, the one with the earliest year comes first (an event
// without a year claim takes the year of the whole it is part of; events with no year at all
// come after dated ones), then the smallest id. Contradictory claims (a cycle) do not stop
// it: the earliest remaining event by that key is taken next. The order is deterministic.
func chronology(events []athar.ID, byPredicate map[string][]*athar.Claim) []athar.ID {
	g := ordering(events, byPredicate)
	order := g.topological()
	out := make([]athar.ID, len(order))
	for i, e := range order {
		out[i] = g.ids[e]
	}
	return out
}

// eventOrder is the "happened before" relation chronology sorts, over small integers: the
// events are 0 to n-1 in the order given, other ids the claims name follow them. Ordering
// ten thousand narrations' events by maps of ids spent most of its time hashing strings.
type eventOrder struct {
	ids   []athar.ID
	n     int       // ids[:n] are the events
	after [][]int32 // after[a]: the events directly after a, each once
	// The edges already made: a bit per pair, a row per event that has any, when the
	// events are few enough for that to be small (at 5,000 events a full matrix is 3 MB,
	// and the walk below may ask for the same edge hundreds of times); a map otherwise.
	rows  [][]uint64
	edge  map[uint64]bool // a<<32|b for each a before b
	indeg []int
	year  []int // each event's own or inherited year; math.MaxInt when none
}

func (g *eventOrder) before(a, b int32) {
	if a == b || int(a) >= g.n || int(b) >= g.n {
		return
	}
	if g.rows != nil {
		row := g.rows[a]
		if row == nil {
			row = make([]uint64, (g.n+63)/64)
			g.rows[a] = row
		}
		if row[b/64]&(1<<(b%64)) != 0 {
			return
		}
		row[b/64] |= 1 << (b % 64)
	} else {
		k := uint64(a)<<32 | uint64(b)
		if g.edge[k] {
			return
		}
		g.edge[k] = true
	}
	g.after[a] = append(g.after[a], b)
	g.indeg[b]++
}

// ordering builds the "happened before" relation chronology sorts.
func ordering(events []athar.ID, byPredicate map[string][]*athar.Claim) *eventOrder {
	g := &eventOrder{ids: append([]athar.ID(nil), events...), edge: map[uint64]bool{}}
	index := make(map[athar.ID]int32, len(events))
	for _, e := range events {
		if _, dup := index[e]; !dup {
			index[e] = int32(len(index))
		}
	}
	if len(index) != len(g.ids) { // the same event given twice: keep its first place
		g.ids = g.ids[:0]
		seen := map[athar.ID]bool{}
		for _, e := range events {
			if !seen[e] {
				seen[e] = true
				g.ids = append(g.ids, e)
			}
		}
	}
	g.n = len(g.ids)
	id := func(e athar.ID) int32 {
		if i, ok := index[e]; ok {
			return i
		}
		i := int32(len(g.ids))
		index[e] = i
		g.ids = append(g.ids, e)
		return i
	}
	type pair struct{ s, o int32 }
	pairs := func(p string) []pair {
		var out []pair
		for _, c := range byPredicate[p] {
			if c.Object != "" {
				out = append(out, pair{id(c.Subject), id(c.Object)})
			}
		}
		return out
	}
	partOf, precedes, causes, responds := pairs(predPartOf), pairs(predPrecedes), pairs(predCauses), pairs(predRespondsTo)
	years := map[int32]int{}
	for _, c := range byPredicate[predYear] {
		if c.Value == nil {
			continue
		}
		y, err := strconv.Atoi(c.Value.Literal)
		if err != nil {
			continue
		}
		s := id(c.Subject)
		if old, ok := years[s]; !ok || y < old {
			years[s] = y
		}
	}
	all := len(g.ids)
	g.after, g.indeg = make([][]int32, g.n), make([]int, g.n)
	if g.n <= maxMatrixEvents {
		g.rows = make([][]uint64, g.n)
	}
	wholes := make([][]int32, all) // part -> the wholes it is directly part of
	for _, p := range partOf {
		wholes[p.s] = append(wholes[p.s], p.o)
	}
	precededBy := make([][]int32, all) // a -> what a precedes
	for _, p := range precedes {
		precededBy[p.s] = append(precededBy[p.s], p.o)
		g.before(p.s, p.o)
	}
	for _, p := range causes {
		g.before(p.s, p.o)
	}
	for _, p := range responds {
		g.before(p.o, p.s)
	}
	g.year = inheritedYears(g.n, wholes, years)
	if g.rows != nil {
		g.wholesByComponent(wholes, precededBy)
	} else {
		g.wholesByWalk(wholes, precededBy)
	}
	return g
}

// walkUp walks breadth first up the wholes of each of the first n nodes (every whole it is
// transitively part of, each once, itself excluded), calling visit with the node and each
// whole until visit returns false.
func walkUp(n int, wholes [][]int32, visit func(p, w int32) bool) {
	seen := make([]int32, len(wholes)) // seen[w] == p+1 once p's walk reached w
	var queue []int32
	for p := int32(0); int(p) < n; p++ {
		seen[p] = p + 1
		queue = append(queue[:0], wholes[p]...)
		for len(queue) > 0 {
			w := queue[0]
			queue = queue[1:]
			if seen[w] == p+1 {
				continue
			}
			seen[w] = p + 1
			if !visit(p, w) {
				break
			}
			queue = append(queue, wholes[w]...)
		}
	}
}

// inheritedYears gives each of the n events its own year, or else the year of the first
// whole found walking up its wholes breadth first (math.MaxInt when none has one).
func inheritedYears(n int, wholes [][]int32, years map[int32]int) []int {
	out := make([]int, n)
	for p := range out {
		out[p] = math.MaxInt
	}
	walkUp(n, wholes, func(p, w int32) bool {
		if _, dated := years[p]; dated {
			return false // its own year, below
		}
		if y, ok := years[w]; ok {
			out[p] = y
			return false
		}
		return true
	})
	for p := range out {
		if y, ok := years[int32(p)]; ok {
			out[p] = y
		}
	}
	return out
}

// wholesByWalk adds the edges the wholes give -- each whole w (transitively) of event p
// before p, and p before everything w precedes -- by walking up from each event: the
// number of (event, whole) pairs, which on the 100k generated graph (one partOf cycle
// through thousands of events) is tens of millions. Used when the events are too many
// for wholesByComponent's bit sets.
func (g *eventOrder) wholesByWalk(wholes, precededBy [][]int32) {
	walkUp(g.n, wholes, func(p, w int32) bool {
		g.before(w, p)
		for _, y := range precededBy[w] {
			g.before(p, y)
		}
		return true
	})
}

// wholesByComponent adds the same edges as wholesByWalk from the strongly connected
// components of the partOf graph: every member of a cycle is a whole of every other, and
// the wholes of a component are those of the components it is part of, so each
// component's wholes (as a bit set of events) and what they precede (another) are
// unions of its parents', computed once per component rather than walked once per event.
func (g *eventOrder) wholesByComponent(wholes, precededBy [][]int32) {
	comp, members := components(wholes)
	words := (g.n + 63) / 64
	type sets struct{ events, precede []uint64 }
	own := func(c int) sets { // the component's own events and what its members precede
		s := sets{make([]uint64, words), make([]uint64, words)}
		for _, v := range members[c] {
			if int(v) < g.n {
				s.events[v/64] |= 1 << (v % 64)
			}
			for _, y := range precededBy[v] {
				if int(y) < g.n {
					s.precede[y/64] |= 1 << (y % 64)
				}
			}
		}
		return s
	}
	or := func(dst, src []uint64) {
		for i := range dst {
			dst[i] |= src[i]
		}
	}
	up := make([]sets, len(members)) // the events and precede targets of the component's wholes
	mine := make([]sets, len(members))
	// components lists a component after every component it is part of.
	for c := range members {
		up[c] = sets{make([]uint64, words), make([]uint64, words)}
		mine[c] = own(c)
		seen := map[int]bool{}
		for _, v := range members[c] {
			for _, w := range wholes[v] {
				if d := comp[w]; d != c && !seen[d] {
					seen[d] = true
					or(up[c].events, up[d].events)
					or(up[c].events, mine[d].events)
					or(up[c].precede, up[d].precede)
					or(up[c].precede, mine[d].precede)
				}
			}
		}
		if len(members[c]) > 1 { // a cycle: each member is a whole of the others
			or(up[c].events, mine[c].events)
			or(up[c].precede, mine[c].precede)
		}
	}
	for p := int32(0); int(p) < g.n; p++ {
		s := up[comp[p]]
		for i, word := range s.events {
			for ; word != 0; word &= word - 1 {
				w := int32(i*64 + bits.TrailingZeros64(word))
				g.before(w, p) // p itself is refused by before
			}
		}
		for i, word := range s.precede {
			for ; word != 0; word &= word - 1 {
				g.before(p, int32(i*64+bits.TrailingZeros64(word)))
			}
		}
	}
}

// components returns the strongly connected components of the graph whose edges go from
// each node to its wholes (Tarjan's algorithm): each node's component, and the members of
// each, a component listed after every component its members are part of.
func components(wholes [][]int32) ([]int, [][]int32) {
	n := len(wholes)
	index, low := make([]int32, n), make([]int32, n)
	for i := range index {
		index[i] = -1
	}
	comp := make([]int, n)
	onStack := make([]bool, n)
	var stack []int32
	var members [][]int32
	next := int32(0)
	type frame struct {
		v int32
		i int // the next of v's wholes to visit
	}
	for root := range wholes {
		if index[root] >= 0 {
			continue
		}
		calls := []frame{{v: int32(root)}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			if f.i < len(wholes[f.v]) {
				w := wholes[f.v][f.i]
				f.i++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{v: w})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				u := calls[len(calls)-1].v
				low[u] = min(low[u], low[v])
			}
			if low[v] == index[v] {
				var m []int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = len(members)
					m = append(m, w)
					if w == v {
						break
					}
				}
				members = append(members, m)
			}
		}
	}
	// Tarjan's order puts a component after those it reaches, its wholes': as wanted.
	return comp, members
}

// maxMatrixEvents is the most events ordering keeps its edges in a bit matrix for: 16,384
// events make a matrix of 32 MB at most.
var maxMatrixEvents = 16384

// less orders events by (year, id).
func (g *eventOrder) less(a, b int32) bool {
	if g.year[a] != g.year[b] {
		return g.year[a] < g.year[b]
	}
	return g.ids[a] < g.ids[b]
}

// topological sorts the events by g, the earliest free event by (year, id) first.
func (g *eventOrder) topological() []int32 {
	indeg := append([]int(nil), g.indeg...)
	q := &eventQueue{g: g}
	for e := int32(0); int(e) < g.n; e++ {
		if indeg[e] == 0 {
			heap.Push(q, e)
		}
	}
	// Every event by (year, id), for breaking cycles: sorted once, walked once.
	var byKey []int32
	next := 0
	done := make([]bool, g.n)
	out := make([]int32, 0, g.n)
	for len(out) < g.n {
		if q.Len() == 0 {
			// A cycle: take the earliest event not yet placed.
			if byKey == nil {
				byKey = make([]int32, g.n)
				for i := range byKey {
					byKey[i] = int32(i)
				}
				sort.Slice(byKey, func(i, j int) bool { return g.less(byKey[i], byKey[j]) })
			}
			for done[byKey[next]] {
				next++
			}
			heap.Push(q, byKey[next])
		}
		e := heap.Pop(q).(int32)
		if done[e] {
			continue
		}
		done[e] = true
		out = append(out, e)
		for _, n := range g.after[e] {
			indeg[n]--
			if indeg[n] == 0 && !done[n] {
				heap.Push(q, n)
			}
		}
	}
	return out
}

// eventQueue is a min-heap of events by (year, id).
type eventQueue struct {
	ids []int32
	g   *eventOrder
}

func (q *eventQueue) Len() int           { return len(q.ids) }
func (q *eventQueue) Less(i, j int) bool { return q.g.less(q.ids[i], q.ids[j]) }
func (q *eventQueue) Swap(i, j int)      { q.ids[i], q.ids[j] = q.ids[j], q.ids[i] }
func (q *eventQueue) Push(x any)         { q.ids = append(q.ids, x.(int32)) }
func (q *eventQueue) Pop() any {
	x := q.ids[len(q.ids)-1]
	q.ids = q.ids[:len(q.ids)-1]
	return x
}

// orderEntry is one placed event of a partial order.
type orderEntry struct {
	event athar.ID
	rank  int        // the longest chain of events ordered before it
	after []athar.ID // the events directly before it, sorted
}

// partialOrder is the order the graph gives, and no more. Events that a relation (precedes,
// partOf, causes, respondsTo) or a year orders against at least one other event are placed:
// each with its rank (0 for the earliest; events of one rank are not ordered against each
// other) and the events directly before it, sorted by rank, then id. Dated events are
// ordered by year against each other: those of one year directly after those of the year
// before. The others are unplaced, sorted by id: nothing says where they go.
func partialOrder(events []athar.ID, byPredicate map[string][]*athar.Claim) ([]orderEntry, []athar.ID) {
	g := ordering(events, byPredicate)
	// Year edges between consecutive years.
	byYear := map[int][]int32{}
	var years []int
	for e := int32(0); int(e) < g.n; e++ {
		if y := g.year[e]; y != math.MaxInt {
			if byYear[y] == nil {
				years = append(years, y)
			}
			byYear[y] = append(byYear[y], e)
		}
	}
	sort.Ints(years)
	for i := 1; i < len(years); i++ {
		for _, a := range byYear[years[i-1]] {
			for _, b := range byYear[years[i]] {
				g.before(a, b)
			}
		}
	}
	before := make([][]int32, g.n)
	for a, bs := range g.after {
		for _, b := range bs {
			before[b] = append(before[b], int32(a))
		}
	}
	rank := make([]int, g.n)
	done := make([]bool, g.n)
	var placed []orderEntry
	var unplaced []athar.ID
	for _, e := range g.topological() {
		done[e] = true
		if len(g.after[e]) == 0 && len(before[e]) == 0 {
			unplaced = append(unplaced, g.ids[e])
			continue
		}
		r := 0
		for _, p := range before[e] {
			if done[p] { // in a cycle, only what came first counts
				r = max(r, rank[p]+1)
			}
		}
		rank[e] = r
		bs := make([]athar.ID, len(before[e]))
		for i, p := range before[e] {
			bs[i] = g.ids[p]
		}
		sort.Slice(bs, func(i, j int) bool { return bs[i] < bs[j] })
		placed = append(placed, orderEntry{event: g.ids[e], rank: r, after: bs})
	}
	sort.SliceStable(placed, func(i, j int) bool {
		if placed[i].rank != placed[j].rank {
			return placed[i].rank < placed[j].rank
		}
		return placed[i].event < placed[j].event
	})
	sort.Slice(unplaced, func(i, j int) bool { return unplaced[i] < unplaced[j] })
	return placed, unplaced
}
