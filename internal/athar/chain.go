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

// Routes returns every route of transmission the narration gives, as people nearest the
// compiler first, in the order of Chains: each chain followed by the narrator when it does
// not already end with them; the narrator alone when no chain is given; nothing when
// neither is.
func (n *Narration) Routes() [][]ID {
	chains := n.Chains()
	if len(chains) == 0 {
		if r := n.Route(); len(r) > 0 {
			return [][]ID{r}
		}
		return nil
	}
	out := make([][]ID, 0, len(chains))
	for _, c := range chains {
		r := append([]ID(nil), c...)
		if n.Narrator != "" && (len(r) == 0 || r[len(r)-1] != n.Narrator) {
			r = append(r, n.Narrator)
		}
		out = append(out, r)
	}
	return out
}

// CommonLink is where the routes of several narrations converge: in hadith criticism the
// common link (madar), the transmitter from whom the routes of a report branch out.
//
// Definition: a narration that gives several routes (its chains, split where the text says
// ح) holds a person when any of its routes does, at the nearest position any of them gives.
// Of the people every narration holds, the common link is the one nearest the compilers.
// "Nearest" is the smallest greatest position over the narrations (ties: the smallest sum
// of positions, then the smaller id): where the routes agree on the order of the people they
// share, as chains of one report do, that is the shared person who comes first in every
// route. Everyone the narrations share after the common link is Shared; what differs,
// before it, are the branches.
type CommonLink struct {
	Person ID
	// Shared is the part of the route every narration shares, from the common link (first)
	// to the source, in route order.
	Shared []ID
	// Positions gives, per narration, the common link's 1-based position in its route
	// (1 = the compiler's own teacher); its route's first Positions-1 people are the
	// narration's own branch.
	Positions map[ID]int
	// Routes gives, per narration, which of its routes (0-based, in the order given) holds
	// the common link at that position: the first such route.
	Routes map[ID]int
}

// FindCommonLink returns the common link of the narrations' routes (narration -> its
// routes, each nearest the compiler first), and false when they share no one or there are
// none. A person repeated within one narration counts at their nearest position.
func FindCommonLink(routes map[ID][][]ID) (CommonLink, bool) {
	if len(routes) == 0 {
		return CommonLink{}, false
	}
	type stat struct{ count, max, sum int }
	stats := map[ID]*stat{}
	for _, rs := range routes {
		pos := map[ID]int{} // nearest position in any of this narration's routes
		for _, route := range rs {
			for i, p := range route {
				if q, ok := pos[p]; !ok || i+1 < q {
					pos[p] = i + 1
				}
			}
		}
		for p, i := range pos {
			s := stats[p]
			if s == nil {
				s = &stat{}
				stats[p] = s
			}
			s.count++
			s.max = max(s.max, i)
			s.sum += i
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
	cl := CommonLink{Person: shared[0], Shared: shared, Positions: map[ID]int{}, Routes: map[ID]int{}}
	for n, rs := range routes {
		for ri, route := range rs {
			for i, p := range route {
				if p == cl.Person {
					if q, ok := cl.Positions[n]; !ok || i+1 < q {
						cl.Positions[n], cl.Routes[n] = i+1, ri
					}
					break
				}
			}
		}
	}
	return cl, true
}
