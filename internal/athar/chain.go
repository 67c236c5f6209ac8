package athar

import "sort"

// Route returns the narration's route of transmission as people, nearest the compiler
// first: its chain, followed by its narrator when the chain does not already end with them
// (a document may give the narrator without repeating them in the chain). It is empty when
// the document gave neither.
func (n *Narration) Route() []ID {
	out := append([]ID(nil), n.Chain...)
	if n.Narrator != "" && (len(out) == 0 || out[len(out)-1] != n.Narrator) {
		out = append(out, n.Narrator)
	}
	return out
}

// Chains returns every chain the narration gives: Chain first, then MoreRoutes. It is
// empty when the narration records no chain.
func (n *Narration) Chains() [][]ID {
	if len(n.Chain) == 0 && len(n.MoreRoutes) == 0 {
		return nil
	}
	return append([][]ID{n.Chain}, n.MoreRoutes...)
}

// CommonLink is where the routes of several narrations converge: in hadith criticism the
// common link (madar), the transmitter from whom the routes of a report branch out.
//
// Definition: of the people found in every route, the one nearest the compilers. "Nearest"
// is the smallest greatest position over the routes (ties: the smallest sum of positions,
// then the smaller id): where the routes agree on the order of the people they share, as
// chains of one report do, that is the shared person who comes first in every route.
// Everyone the routes share after the common link is Shared; what differs, before it, are
// the branches.
type CommonLink struct {
	Person ID
	// Shared is the part of the route every narration shares, from the common link (first)
	// to the source, in route order.
	Shared []ID
	// Positions gives, per narration, the common link's 1-based position in its route
	// (1 = the compiler's own teacher); its route's first Positions-1 people are the
	// narration's own branch.
	Positions map[ID]int
}

// FindCommonLink returns the common link of the routes (narration -> route, nearest the
// compiler first), and false when the routes share no one or there are none. A person
// repeated within one route counts at their first position.
func FindCommonLink(routes map[ID][]ID) (CommonLink, bool) {
	if len(routes) == 0 {
		return CommonLink{}, false
	}
	type stat struct{ count, max, sum int }
	stats := map[ID]*stat{}
	for _, route := range routes {
		seen := map[ID]bool{}
		for i, p := range route {
			if seen[p] {
				continue
			}
			seen[p] = true
			s := stats[p]
			if s == nil {
				s = &stat{}
				stats[p] = s
			}
			s.count++
			s.max = max(s.max, i+1)
			s.sum += i + 1
		}
	}
	var shared []ID
	for p, s := range stats {
		if s.count == len(routes) {
			shared = append(shared, p)
		}
	}
	if len(shared) == 0 {
		return CommonLink{}, false
	}
	sort.Slice(shared, func(i, j int) bool {
		a, b := stats[shared[i]], stats[shared[j]]
		if a.max != b.max {
			return a.max < b.max
		}
		if a.sum != b.sum {
			return a.sum < b.sum
		}
		return shared[i] < shared[j]
	})
	cl := CommonLink{Person: shared[0], Shared: shared, Positions: map[ID]int{}}
	for n, route := range routes {
		for i, p := range route {
			if p == cl.Person {
				cl.Positions[n] = i + 1
				break
			}
		}
	}
	return cl, true
}
