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
	after, indeg, year := ordering(events, byPredicate)
	return topological(events, after, indeg, year)
}

// ordering builds the "happened before" relation chronology sorts: after[a] holds the events
// directly after a, indeg[b] how many come directly before b; year is each event's own or
// inherited year (math.MaxInt when none).
func ordering(events []athar.ID, byPredicate map[string][]*athar.Claim) (map[athar.ID]map[athar.ID]bool, map[athar.ID]int, map[athar.ID]int) {
	isEvent := make(map[athar.ID]bool, len(events))
	for _, e := range events {
		isEvent[e] = true
	}
	after := map[athar.ID]map[athar.ID]bool{} // a -> events that come after a
	indeg := map[athar.ID]int{}
	before := func(a, b athar.ID) {
		if a == b || !isEvent[a] || !isEvent[b] || after[a][b] {
			return
		}
		if after[a] == nil {
			after[a] = map[athar.ID]bool{}
		}
		after[a][b] = true
		indeg[b]++
	}
	wholes := map[athar.ID][]athar.ID{} // part -> the wholes it is directly part of
	for _, c := range byPredicate[predPartOf] {
		wholes[c.Subject] = append(wholes[c.Subject], c.Object)
	}
	precedes := map[athar.ID][]athar.ID{}
	for _, c := range byPredicate[predPrecedes] {
		precedes[c.Subject] = append(precedes[c.Subject], c.Object)
		before(c.Subject, c.Object)
	}
	for _, c := range byPredicate[predCauses] {
		before(c.Subject, c.Object)
	}
	for _, c := range byPredicate[predRespondsTo] {
		before(c.Object, c.Subject)
	}
	years := map[athar.ID]int{}
	for _, c := range byPredicate[predYear] {
		if c.Value == nil {
			continue
		}
		y, err := strconv.Atoi(c.Value.Literal)
		if err != nil {
			continue
		}
		if old, ok := years[c.Subject]; !ok || y < old {
			years[c.Subject] = y
		}
	}
	year := make(map[athar.ID]int, len(events))
	for _, p := range events {
		// Walk up every whole p is (transitively) part of.
		seen := map[athar.ID]bool{p: true}
		queue := append([]athar.ID(nil), wholes[p]...)
		inherited, found := math.MaxInt, false
		if y, ok := years[p]; ok {
			inherited, found = y, true
		}
		for len(queue) > 0 {
			w := queue[0]
			queue = queue[1:]
			if seen[w] {
				continue
			}
			seen[w] = true
			before(w, p)
			for _, y := range precedes[w] {
				before(p, y)
			}
			if y, ok := years[w]; ok && !found {
				inherited, found = y, true
			}
			queue = append(queue, wholes[w]...)
		}
		year[p] = inherited
	}
	return after, indeg, year
}

// topological sorts events by after, the earliest free event by (year, id) first.
func topological(events []athar.ID, after map[athar.ID]map[athar.ID]bool, indeg0 map[athar.ID]int, year map[athar.ID]int) []athar.ID {
	indeg := make(map[athar.ID]int, len(indeg0))
	for k, v := range indeg0 {
		indeg[k] = v
	}
	q := &eventQueue{year: year}
	for _, e := range events {
		if indeg[e] == 0 {
			heap.Push(q, e)
		}
	}
	done := make(map[athar.ID]bool, len(events))
	out := make([]athar.ID, 0, len(events))
	for len(out) < len(events) {
		if q.Len() == 0 {
			// A cycle: take the earliest event not yet placed.
			for _, e := range q.sorted(events, done) {
				heap.Push(q, e)
				break
			}
		}
		e := heap.Pop(q).(athar.ID)
		if done[e] {
			continue
		}
		done[e] = true
		out = append(out, e)
		for n := range after[e] {
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
	ids  []athar.ID
	year map[athar.ID]int
}

func (q *eventQueue) less(a, b athar.ID) bool {
	if q.year[a] != q.year[b] {
		return q.year[a] < q.year[b]
	}
	return a < b
}

func (q *eventQueue) Len() int           { return len(q.ids) }
func (q *eventQueue) Less(i, j int) bool { return q.less(q.ids[i], q.ids[j]) }
func (q *eventQueue) Swap(i, j int)      { q.ids[i], q.ids[j] = q.ids[j], q.ids[i] }
func (q *eventQueue) Push(x any)         { q.ids = append(q.ids, x.(athar.ID)) }
func (q *eventQueue) Pop() any {
	x := q.ids[len(q.ids)-1]
	q.ids = q.ids[:len(q.ids)-1]
	return x
}

// sorted returns the events not done, earliest first.
func (q *eventQueue) sorted(events []athar.ID, done map[athar.ID]bool) []athar.ID {
	var rest []athar.ID
	for _, e := range events {
		if !done[e] {
			rest = append(rest, e)
		}
	}
	for i := 1; i < len(rest); i++ {
		for j := i; j > 0 && q.less(rest[j], rest[j-1]); j-- {
			rest[j], rest[j-1] = rest[j-1], rest[j]
		}
	}
	return rest
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
	after, indeg, year := ordering(events, byPredicate)
	// Year edges between consecutive years.
	byYear := map[int][]athar.ID{}
	var years []int
	for _, e := range events {
		if y := year[e]; y != math.MaxInt {
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
				if a == b || after[a][b] {
					continue
				}
				if after[a] == nil {
					after[a] = map[athar.ID]bool{}
				}
				after[a][b] = true
				indeg[b]++
			}
		}
	}
	before := map[athar.ID][]athar.ID{}
	for a, bs := range after {
		for b := range bs {
			before[b] = append(before[b], a)
		}
	}
	rank := map[athar.ID]int{}
	done := map[athar.ID]bool{}
	var placed []orderEntry
	var unplaced []athar.ID
	for _, e := range topological(events, after, indeg, year) {
		done[e] = true
		if len(after[e]) == 0 && len(before[e]) == 0 {
			unplaced = append(unplaced, e)
			continue
		}
		r := 0
		for _, p := range before[e] {
			if done[p] { // in a cycle, only what came first counts
				r = max(r, rank[p]+1)
			}
		}
		rank[e] = r
		bs := append([]athar.ID(nil), before[e]...)
		sort.Slice(bs, func(i, j int) bool { return bs[i] < bs[j] })
		placed = append(placed, orderEntry{event: e, rank: r, after: bs})
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
