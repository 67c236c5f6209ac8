package athar

import "slices"

// RouteCount is the number of independent routes among narrations: narrations are on one
// route when their routes of transmission (chain, then narrator) share a person who is not
// the narrator of both -- sharing only the source they report from leaves them independent;
// sharing anyone below it (a transmitter in both chains, or one narration's source who is a
// transmitter in the other) does not. A narration that records neither chain nor narrator
// shares no one, so it is a route of its own. A narration given through several chains
// (MoreRoutes) is one narration: it shares a person with another when any of its chains
// does, and it counts once however many chains it gives. See docs/linking.md, "Independent routes".
//
// It is the rule GraphQL's Claim.routeCount states (graph/routes.go holds the same rule
// for the resolver); the exports count with this one.
func RouteCount(ns []*Narration) int {
	parent := make([]int, len(ns))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	routes := make([][]ID, len(ns))
	for i, n := range ns {
		routes[i] = routeOf(n)
	}
	for i := range ns {
		for j := i + 1; j < len(ns); j++ {
			if dependentRoutes(ns[i], routes[i], ns[j], routes[j]) {
				parent[find(i)] = find(j)
			}
		}
	}
	count := 0
	for i := range ns {
		if find(i) == i {
			count++
		}
	}
	return count
}

// routeOf is a narration's route: its chain, then its narrator when the chain does not
// end with them, then everyone in its further routes (MoreRoutes) not already named: a
// narration given through several chains shares a transmitter with another when any of its
// chains does.
func routeOf(n *Narration) []ID {
	r := slices.Clone(n.Chain)
	for _, more := range n.MoreRoutes {
		for _, p := range more {
			if !slices.Contains(r, p) {
				r = append(r, p)
			}
		}
	}
	if n.Narrator != "" && !slices.Contains(r, n.Narrator) {
		r = append(r, n.Narrator)
	}
	return r
}

// routeSource is whom the narration reports from: its narrator, or the last of its chain.
func routeSource(n *Narration) ID {
	if n.Narrator != "" {
		return n.Narrator
	}
	if len(n.Chain) > 0 {
		return n.Chain[len(n.Chain)-1]
	}
	return ""
}

func dependentRoutes(a *Narration, ra []ID, b *Narration, rb []ID) bool {
	sa, sb := routeSource(a), routeSource(b)
	for _, p := range ra {
		if p == sa && p == sb {
			continue // the common source: two students of 'Umar are two routes
		}
		if slices.Contains(rb, p) {
			return true
		}
	}
	return false
}
