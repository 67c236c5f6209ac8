package graph

import (
	"container/heap"
	"math"
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
	g.year = make([]int, g.n)
	seen := make([]int32, all) // seen[w] == p+1 once p's walk reached w
	var queue []int32
	for p := int32(0); int(p) < g.n; p++ {
		// Walk up every whole p is (transitively) part of.
		seen[p] = p + 1
		queue = append(queue[:0], wholes[p]...)
		inherited, found := math.MaxInt, false
		if y, ok := years[p]; ok {
			inherited, found = y, true
		}
		for len(queue) > 0 {
			w := queue[0]
			queue = queue[1:]
			if seen[w] == p+1 {
				continue
			}
			seen[w] = p + 1
			g.before(w, p)
			for _, y := range precededBy[w] {
				g.before(p, y)
			}
			if y, ok := years[w]; ok && !found {
				inherited, found = y, true
			}
			queue = append(queue, wholes[w]...)
		}
		g.year[p] = inherited
	}
	return g
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
