package graph

import (
	"context"
	"slices"

	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
)

// routeCount is the number of independent routes among narrations: narrations are on one
// route when their routes of transmission (chain, then narrator) share a person who is not
// the narrator of both -- sharing only the source they report from leaves them independent;
// sharing anyone below it (a transmitter in both chains, or one narration's source who is a
// transmitter in the other) does not. A narration that records neither chain nor narrator
// shares no one, so it is a route of its own. See docs/linking.md, "Independent routes".
func routeCount(ns []*athar.Narration) int {
	parent := make([]int, len(ns))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	routes := make([][]athar.ID, len(ns))
	for i, n := range ns {
		routes[i] = routeOf(n)
	}
	for i := range ns {
		for j := i + 1; j < len(ns); j++ {
			if dependent(ns[i], routes[i], ns[j], routes[j]) {
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
// end with them.
func routeOf(n *athar.Narration) []athar.ID {
	r := slices.Clone(n.Chain)
	if n.Narrator != "" && !slices.Contains(r, n.Narrator) {
		r = append(r, n.Narrator)
	}
	return r
}

// source is whom the narration reports from: its narrator, or the last of its chain.
func source(n *athar.Narration, route []athar.ID) athar.ID {
	if n.Narrator != "" {
		return n.Narrator
	}
	if len(route) > 0 {
		return route[len(route)-1]
	}
	return ""
}

func dependent(a *athar.Narration, ra []athar.ID, b *athar.Narration, rb []athar.ID) bool {
	sa, sb := source(a, ra), source(b, rb)
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

// claimRoutes computes the independent routes of each claim, loading their narrations in one
// batch.
func (r *Resolver) claimRoutes(ctx context.Context, claims []*athar.Claim) (map[athar.ID]int, error) {
	var ids []athar.ID
	seen := map[athar.ID]bool{}
	for _, c := range claims {
		for _, n := range model.Narrations(c) {
			if !seen[n] {
				seen[n] = true
				ids = append(ids, n)
			}
		}
	}
	ns, err := r.loaders(ctx).narration.LoadAll(ctx, ids)
	if err != nil {
		return nil, err
	}
	by := map[athar.ID]*athar.Narration{}
	for i, n := range ns {
		if n == nil {
			n = &athar.Narration{ID: ids[i]} // deleted meanwhile: a route of its own
		}
		by[ids[i]] = n
	}
	out := map[athar.ID]int{}
	for _, c := range claims {
		var cn []*athar.Narration
		for _, id := range model.Narrations(c) {
			cn = append(cn, by[id])
		}
		out[c.ID] = routeCount(cn)
	}
	return out, nil
}

// RouteCount is the number of independent routes among the narrations attesting the claim.
func (r *claimResolver) RouteCount(ctx context.Context, obj *model.Claim) (int, error) {
	m, err := r.claimRoutes(ctx, []*athar.Claim{obj.C})
	if err != nil {
		return 0, err
	}
	return m[obj.C.ID], nil
}
