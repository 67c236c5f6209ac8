package graph

import (
	"context"

	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
)

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
		out[c.ID] = athar.RouteCount(cn)
	}
	return out, nil
}

// RouteCount is the number of independent routes among the narrations attesting the claim.
func (r *claimResolver) RouteCount(ctx context.Context, obj *model.Claim) (int, error) {
	c := obj.C
	if c.Partial || c.Bare { // every narration attesting it counts
		full, err := r.loaders(ctx).claim.Load(ctx, c.ID)
		if err != nil || full == nil {
			return 0, err
		}
		c = full
	}
	m, err := r.claimRoutes(ctx, []*athar.Claim{c})
	if err != nil {
		return 0, err
	}
	return m[c.ID], nil
}
