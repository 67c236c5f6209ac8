package graph

import (
	"context"
	"sort"

	"github.com/99designs/gqlgen/graphql"

	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
)

// How narrations link to each other: parallels (shared claims), variants (different values
// of a single-valued predicate), chains read from the transmitter's side, and the common
// link of several chains.

// Limits of the linking fields.
const (
	// MaxParallels is the most parallels Narration.parallels returns.
	MaxParallels = 100
	// MaxCommonLink is the most narrations commonLink takes.
	MaxCommonLink = 200
)

func (r *narrationResolver) Parallels(ctx context.Context, obj *model.Narration, first *int) ([]*model.Parallel, error) {
	n := 20
	if first != nil {
		n = *first
	}
	if n < 1 || n > MaxParallels {
		return nil, athar.E("", athar.Invalid, "first: %d is out of range: expected 1 to %d", n, MaxParallels)
	}
	self := obj.N.ID
	own, err := r.store.FindClaims(ctx, athar.ClaimFilter{Narration: self})
	if err != nil {
		return nil, err
	}
	type parallel struct {
		id       athar.ID
		shared   []*athar.Claim
		variants []*athar.Claim
	}
	byID := map[athar.ID]*parallel{}
	mine := map[athar.ID]bool{}
	for _, c := range own {
		mine[c.ID] = true
		for _, other := range model.Narrations(c) {
			if other == self {
				continue
			}
			p := byID[other]
			if p == nil {
				p = &parallel{id: other}
				byID[other] = p
			}
			p.shared = append(p.shared, c)
		}
	}
	seen := map[[2]athar.ID]bool{}
	for _, c := range own {
		vs, err := r.variantsOf(ctx, c, true) // their narrations are counted
		if err != nil {
			return nil, err
		}
		for _, v := range vs {
			if mine[v.ID] {
				continue // this narration gives both values
			}
			for _, other := range model.Narrations(v) {
				if other == self || seen[[2]athar.ID{other, v.ID}] {
					continue
				}
				seen[[2]athar.ID{other, v.ID}] = true
				p := byID[other]
				if p == nil { // a narration that only differs from this one
					p = &parallel{id: other}
					byID[other] = p
				}
				p.variants = append(p.variants, v)
			}
		}
	}
	ranked := make([]*parallel, 0, len(byID))
	for _, p := range byID {
		ranked = append(ranked, p)
	}
	sort.Slice(ranked, func(i, j int) bool {
		a, b := ranked[i], ranked[j]
		if len(a.shared) != len(b.shared) {
			return len(a.shared) > len(b.shared)
		}
		if len(a.variants) != len(b.variants) {
			return len(a.variants) > len(b.variants)
		}
		return a.id < b.id
	})
	ranked = ranked[:min(n, len(ranked))]
	ids := make([]athar.ID, len(ranked))
	for i, p := range ranked {
		ids[i] = p.id
	}
	ns, err := r.loaders(ctx).narration.LoadAll(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Parallel, 0, len(ranked))
	var all []*model.Claim
	for i, p := range ranked {
		if ns[i] == nil {
			continue
		}
		par := &model.Parallel{
			Narration: &model.Narration{N: ns[i]}, SharedClaims: len(p.shared),
			Claims: claimViews(p.shared), Variants: claimViews(p.variants),
		}
		all = append(append(all, par.Claims...), par.Variants...)
		out = append(out, par)
	}
	return out, r.withEnds(ctx, all)
}

// claimViews gives the claims their GraphQL views, without their subjects and objects
// (see withEnds).
func claimViews(cs []*athar.Claim) []*model.Claim {
	out := make([]*model.Claim, len(cs))
	for i, c := range cs {
		out[i] = &model.Claim{C: c}
	}
	return out
}

// single reports whether the predicate has one true value per subject.
func (r *Resolver) single(predicate string) bool {
	p, ok := r.vocab.Predicate(predicate)
	return ok && p.Single
}

// variantsOf returns the other claims with c's subject and predicate when the predicate is
// single-valued, and nothing otherwise: whole when full, else with the attestations a page
// shows.
func (r *Resolver) variantsOf(ctx context.Context, c *athar.Claim, full bool) ([]*athar.Claim, error) {
	if !r.single(c.Predicate) {
		return nil, nil
	}
	all, err := r.loaders(ctx).about.Load(ctx, c.Subject)
	if err != nil {
		return nil, err
	}
	var ids []athar.ID
	for _, o := range all {
		if o.Subject == c.Subject && o.Predicate == c.Predicate && o.ID != c.ID {
			ids = append(ids, o.ID)
		}
	}
	load := r.loadClaims
	if full {
		load = r.loadFullClaims
	}
	claims, err := load(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := claims[:0]
	for _, o := range claims {
		if o != nil {
			out = append(out, o)
		}
	}
	return out, nil
}

func (r *claimResolver) Variants(ctx context.Context, obj *model.Claim, first *int) ([]*model.Claim, error) {
	n, err := model.First(first, model.MaxList)
	if err != nil {
		return nil, err
	}
	vs, err := r.variantsOf(ctx, obj.C, false)
	if err != nil {
		return nil, err
	}
	return r.claimModels(ctx, vs[:min(n, len(vs))])
}

func (r *queryResolver) Variants(ctx context.Context, subject string, predicate string, first *int) ([]*model.Claim, error) {
	n, err := model.First(first, model.MaxList)
	if err != nil {
		return nil, err
	}
	id, err := parseID("subject", subject)
	if err != nil {
		return nil, err
	}
	if id, err = r.resolve(ctx, id); err != nil {
		return nil, err
	}
	if err := r.checkPredicate("predicate", predicate); err != nil {
		return nil, err
	}
	if !r.single(predicate) {
		return nil, athar.E("", athar.Invalid, "predicate: %s is not single-valued, so its claims are not variants of one another; ask claims(subject:, predicate:) for them", predicate)
	}
	// The subject's claims of the predicate: one range of the store's sorted list (a hub's
	// other claims, and those it is the object of, are not read), then the page's claims
	// with their first attestations.
	page, err := r.store.PageClaims(ctx, athar.ClaimPageQuery{Entity: id, Predicate: predicate, First: n, SkipNarrations: true, AsSubject: true, SkipTotal: true})
	if err != nil {
		return nil, err
	}
	ids := make([]athar.ID, len(page.Refs))
	for i, ref := range page.Refs {
		ids[i] = ref.ID
	}
	cs, err := r.loadClaims(ctx, ids)
	if err != nil {
		return nil, err
	}
	return r.claimModels(ctx, cs)
}

// chainNarrations returns the narrations a person is the subject of predicate (transmits
// or narrates) for, sorted by id.
func (r *personResolver) chainNarrations(ctx context.Context, obj *model.Person, predicate string, first *int) ([]*model.Narration, error) {
	n, err := model.First(first, model.MaxList)
	if err != nil {
		return nil, err
	}
	if r.onlySubject(obj.EntityID(), predicate) {
		// The person is the subject of every such claim, and they come sorted by object:
		// the first n are a page of the store's list, not the whole of it (Abu
		// Hurayrah narrates over 4,000).
		var ids []athar.ID
		q := athar.ClaimPageQuery{Entity: obj.EntityID(), Predicate: predicate, First: n, SkipNarrations: true, AsSubject: true, SkipTotal: true}
		for len(ids) < n {
			page, err := r.store.PageClaims(ctx, q)
			if err != nil {
				return nil, err
			}
			for _, c := range page.Refs {
				if c.Subject == obj.EntityID() && c.Object.Prefix() == athar.TypeNarration.Prefix() && len(ids) < n {
					ids = append(ids, c.Object)
				}
			}
			if !page.More || len(page.Refs) == 0 {
				break
			}
			q.After = page.Refs[len(page.Refs)-1].SortKey()
		}
		return r.narrationList(ctx, ids)
	}
	claims, err := r.about(ctx, obj.EntityID(), &predicate)
	if err != nil {
		return nil, err
	}
	var ids []athar.ID
	for _, c := range claims {
		if c.Subject == obj.EntityID() && c.Object.Prefix() == athar.TypeNarration.Prefix() {
			ids = append(ids, c.Object)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return r.narrationList(ctx, ids[:min(n, len(ids))])
}

func (r *personResolver) Transmitted(ctx context.Context, obj *model.Person, first *int) ([]*model.Narration, error) {
	return r.chainNarrations(ctx, obj, "transmits", first)
}

func (r *personResolver) Narrated(ctx context.Context, obj *model.Person, first *int) ([]*model.Narration, error) {
	return r.chainNarrations(ctx, obj, "narrates", first)
}

func (r *queryResolver) CommonLink(ctx context.Context, narrations []string) (*model.CommonLink, error) {
	var ids []athar.ID
	seen := map[athar.ID]bool{}
	for _, s := range narrations {
		id, err := parseNarrationID("narrations", s)
		if err != nil {
			return nil, err
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) < 2 || len(ids) > MaxCommonLink {
		return nil, athar.E("", athar.Invalid, "narrations: %d distinct narrations given: expected 2 to %d", len(ids), MaxCommonLink)
	}
	// Routes only: reading each narration whole (texts, references, gradings) was most of
	// the time over 100 narrations of the corpus.
	ns, err := r.store.NarrationRoutes(ctx, ids)
	if err != nil {
		return nil, err
	}
	routes := map[athar.ID][][]athar.ID{}
	for i, n := range ns {
		if n == nil {
			return nil, athar.E("", athar.NotFound, "narrations: no narration %s", ids[i])
		}
		if routes[n.ID] = n.Routes(); len(routes[n.ID]) == 0 {
			return nil, athar.E("", athar.Invalid, "narrations: %s records no chain or narrator", n.ID)
		}
	}
	cl, ok := athar.FindCommonLink(routes)
	if !ok {
		return nil, nil
	}
	if !positionsAskIDsOnly(ctx) {
		// The answer shows more of its narrations than their ids: read them whole.
		full, err := r.loaders(ctx).narration.LoadAll(ctx, ids)
		if err != nil {
			return nil, err
		}
		for i, n := range full {
			if n != nil {
				ns[i] = n
			}
		}
	}
	// Every person of the answer in one batch: a load per narration's branch waited for
	// its own batch, 100 of them in turn (1.7 ms each over 100 narrations of the corpus).
	all := append([]athar.ID{cl.Person}, cl.Shared...)
	for _, n := range ns {
		pos, route := cl.Positions[n.ID], cl.Routes[n.ID]
		all = append(all, routes[n.ID][route][:pos-1]...)
	}
	people, err := r.persons(ctx, all)
	if err != nil {
		return nil, err
	}
	k := 1 + len(cl.Shared)
	out := &model.CommonLink{Person: people[0], SharedRoute: people[1:k:k]}
	people = people[k:]
	for i, n := range ns {
		pos, route := cl.Positions[n.ID], cl.Routes[n.ID]
		branch := people[: pos-1 : pos-1]
		people = people[pos-1:]
		out.Positions = append(out.Positions, &model.ChainPosition{Narration: &model.Narration{N: ns[i]}, Route: route + 1, Position: pos, Branch: branch})
	}
	return out, nil
}

// resolve returns the id an argument names now: the id of the entity it was merged into
// when a merge retired it, or the id itself.
func (r *Resolver) resolve(ctx context.Context, id athar.ID) (athar.ID, error) {
	m, err := r.store.MergedInto(ctx, []athar.ID{id})
	if err != nil {
		return "", err
	}
	if to, ok := m[id]; ok {
		return to, nil
	}
	return id, nil
}

// positionsAskIDsOnly reports whether the commonLink being resolved asks of the narrations
// of its positions their ids at most (as the routes-only reads answer them).
func positionsAskIDsOnly(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) || graphql.GetFieldContext(ctx) == nil {
		return false
	}
	op := graphql.GetOperationContext(ctx)
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name != "positions" {
			continue
		}
		for _, p := range graphql.CollectFields(op, f.Selections, nil) {
			if p.Name != "narration" {
				continue
			}
			for _, n := range graphql.CollectFields(op, p.Selections, []string{"Narration", "Entity"}) {
				if n.Name != "id" && n.Name != "__typename" {
					return false
				}
			}
		}
	}
	return true
}
