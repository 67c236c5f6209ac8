package graph

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/traverse"
)

// Limits on the graph walks, so that one request cannot walk the whole graph.
const (
	MaxNeighbourhoodDepth = 3
	MaxPathLength         = 10
	// maxVisited caps the entities one neighbourhood or path search may reach.
	maxVisited = 5000
	// MaxSearch is the most hits search returns.
	MaxSearch = 100
)

type queryResolver struct{ *Resolver }

func (r *queryResolver) Entity(ctx context.Context, id string) (model.Entity, error) {
	eid, err := parseID("id", id)
	if err != nil {
		return nil, err
	}
	e, err := r.entity(ctx, eid)
	if err != nil || e != nil {
		return e, err
	}
	// An id a merge retired resolves to the entity it was merged into.
	to, err := r.resolve(ctx, eid)
	if err != nil || to == eid {
		return nil, err
	}
	return r.entity(ctx, to)
}

func (r *queryResolver) Search(ctx context.Context, text string, first *int) ([]model.Entity, error) {
	n := 20
	if first != nil {
		n = *first
	}
	if n < 0 || n > MaxSearch {
		return nil, athar.E("", athar.Invalid, "first: %d is out of range: expected 0 to %d", n, MaxSearch)
	}
	hits := r.index.Forgiving(text, n)
	ids := make([]athar.ID, len(hits))
	for i, h := range hits {
		ids[i] = athar.ID(h.ID)
	}
	es, err := r.entities(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]model.Entity, 0, len(es))
	for _, e := range es {
		if e != nil { // the index may briefly name an entity just deleted
			out = append(out, e)
		}
	}
	return out, nil
}

func (r *queryResolver) Verse(ctx context.Context, ref string) (*model.Verse, error) {
	v, err := athar.ParseVerseRef(ref)
	if err != nil {
		return nil, athar.E("", athar.Invalid, "ref: %v", err)
	}
	e, err := r.entity(ctx, v.ID())
	if err != nil {
		return nil, err
	}
	return e.(*model.Verse), nil
}

func (r *queryResolver) Narration(ctx context.Context, id string) (*model.Narration, error) {
	nid, err := parseNarrationID("id", id)
	if err != nil {
		return nil, err
	}
	n, err := r.narration(ctx, nid)
	if err != nil || n != nil {
		return n, err
	}
	// A corpus record's own id, when a document's narration carries the record.
	if on, err := r.corpusNarration(ctx, nid); err != nil || on == "" {
		return nil, err
	} else {
		return r.narration(ctx, on)
	}
}

func (r *queryResolver) Claims(ctx context.Context, subject, predicate, object, narrationID *string, minAttestations, first *int, after *string, minRoutes *int) (*model.ClaimConnection, error) {
	var f athar.ClaimFilter
	var err error
	if subject != nil {
		if f.Subject, err = parseID("subject", *subject); err != nil {
			return nil, err
		}
		if f.Subject, err = r.resolve(ctx, f.Subject); err != nil {
			return nil, err
		}
	}
	if object != nil {
		if f.Object, err = parseID("object", *object); err != nil {
			return nil, err
		}
		if f.Object, err = r.resolve(ctx, f.Object); err != nil {
			return nil, err
		}
	}
	if narrationID != nil {
		if f.Narration, err = parseNarrationID("narration", *narrationID); err != nil {
			return nil, err
		}
	}
	if predicate != nil {
		if err := r.checkPredicate("predicate", *predicate); err != nil {
			return nil, err
		}
		f.Predicate = *predicate
	}
	if minAttestations != nil {
		if *minAttestations < 0 {
			return nil, athar.E("", athar.Invalid, "minAttestations: %d is negative", *minAttestations)
		}
		f.MinAttestations = *minAttestations
	}
	if minRoutes != nil && *minRoutes < 0 {
		return nil, athar.E("", athar.Invalid, "minRoutes: %d is negative", *minRoutes)
	}
	if minRoutes != nil && *minRoutes > f.MinAttestations {
		f.MinAttestations = *minRoutes // n routes need at least n narrations
	}
	if f == (athar.ClaimFilter{Predicate: f.Predicate}) && f.Predicate != "" {
		// Every claim of a predicate: a page of the store's sorted list.
		return r.claimRefPage(ctx, athar.ClaimPageQuery{Predicate: f.Predicate}, first, after)
	}
	if f == (athar.ClaimFilter{Subject: f.Subject, Predicate: f.Predicate}) && f.Subject != "" {
		// What one entity does, by one predicate or all ('Umar's advice, al-Zuhri's 3,600
		// transmissions): a range of the subject's sorted list, in the same order and with
		// the same cursors as the filter below, which reads every matching claim whole
		// before paging them (1.3 s for al-Zuhri over the corpus).
		return r.claimRefPage(ctx, athar.ClaimPageQuery{Entity: f.Subject, Predicate: f.Predicate, AsSubject: true}, first, after)
	}
	if f == (athar.ClaimFilter{Subject: f.Subject, Object: f.Object, Predicate: f.Predicate}) && f.Object != "" {
		return r.entityClaimPage(ctx, f, first, after)
	}
	claims, err := r.store.FindClaims(ctx, f)
	if err != nil {
		return nil, err
	}
	// The store counts attestations; a narration that says a thing twice is still one
	// narration, and minAttestations counts narrations.
	kept := claims[:0]
	for _, c := range claims {
		if len(model.Narrations(c)) >= f.MinAttestations {
			kept = append(kept, c)
		}
	}
	if minRoutes != nil && *minRoutes > 1 {
		routes, err := r.claimRoutes(ctx, kept)
		if err != nil {
			return nil, err
		}
		k := kept[:0]
		for _, c := range kept {
			if routes[c.ID] >= *minRoutes {
				k = append(k, c)
			}
		}
		kept = k
	}
	conn, err := claimConnection(kept, first, after)
	return r.claimConn(ctx, conn, err)
}

// entityClaimPage answers a filter of an object, with a subject or a predicate or not,
// from a sorted list: the subject's claims (one range of its list) when a subject is
// given, else every claim about the object; the references kept when their object is the
// one asked for, paged by sort key like the filter's claims, and only the page's claims
// loaded. The filter (FindClaims) reads every matching claim whole first: the claims with
// the Prophet as object of transmits took 2 s over the corpus, for none.
func (r *queryResolver) entityClaimPage(ctx context.Context, f athar.ClaimFilter, first *int, after *string) (*model.ClaimConnection, error) {
	q := athar.ClaimPageQuery{Entity: f.Object, Predicate: f.Predicate, First: -1, SkipNarrations: true, SkipTotal: true}
	if f.Subject != "" {
		q.Entity, q.AsSubject = f.Subject, true
	}
	all, err := r.store.PageClaims(ctx, q)
	if err != nil {
		return nil, err
	}
	refs := all.Refs[:0]
	for _, ref := range all.Refs {
		if ref.Object == f.Object {
			refs = append(refs, ref)
		}
	}
	key := func(i int) string { return refs[i].SortKey() }
	w, err := paginate(len(refs), key, first, after)
	if err != nil {
		return nil, err
	}
	ids := make([]athar.ID, 0, w.to-w.from)
	for _, ref := range refs[w.from:w.to] {
		ids = append(ids, ref.ID)
	}
	claims, err := r.loadClaims(ctx, ids)
	if err != nil {
		return nil, err
	}
	return r.claimConn(ctx, claimPage(w, key, claims), nil)
}

func (r *queryResolver) Claim(ctx context.Context, id string) (*model.Claim, error) {
	cid := athar.ID(strings.TrimSpace(id))
	if cid.Prefix() != athar.ClaimPrefix {
		return nil, athar.E("", athar.Invalid, "id: %q is not a claim id (expected claim:...)", id)
	}
	c, err := r.loaders(ctx).claimHead.Load(ctx, cid)
	if err != nil || c == nil {
		return nil, err
	}
	cs, err := r.claimModels(ctx, []*athar.Claim{c})
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// DefaultNeighbourhoodFirst is how many ranked entities a neighbourhood returns when first
// is not given.
const DefaultNeighbourhoodFirst = 200

// DefaultNeighbourhoodMaxEdges bounds the edges of a neighbourhood slice when maxEdges is not
// given, MaxNeighbourhoodEdges when it is. On the corpus 200 entities around Badr or the
// Prophet are joined by about 350 edges; on dense graphs by tens of thousands (21,736
// among the first 200 around the densest hub of the generated 10k benchmark), more than a
// drawing can show or a response should carry: gqlgen marshals about 200 edges a
// millisecond on the benchmark machine (2 cores), so at 10k narrations a slice of 1,000
// edges took 11 ms at p50 and 24 ms at p99, one of 500 about 7 and 13.
const (
	DefaultNeighbourhoodMaxEdges = 500
	MaxNeighbourhoodEdges        = 10_000
)

// neighbourhoodCursor is the cursor key of a neighbourhood slice: the rank the next slice
// starts at.
const neighbourhoodCursor = "rank:"

func (r *queryResolver) Neighbourhood(ctx context.Context, id string, depth *int, predicates, excludePredicates []string, first *int, after *string, maxEdges *int) (*model.Subgraph, error) {
	start, err := r.walkEnd(ctx, "id", id)
	if err != nil {
		return nil, err
	}
	d := 1
	if depth != nil {
		d = *depth
	}
	if d < 0 || d > MaxNeighbourhoodDepth {
		return nil, athar.E("", athar.Invalid, "depth: %d is out of range: expected 0 to %d", d, MaxNeighbourhoodDepth)
	}
	opt, err := r.walkOptions(predicates, excludePredicates)
	if err != nil {
		return nil, err
	}
	n, err := model.First(first, DefaultNeighbourhoodFirst)
	if err != nil {
		return nil, err
	}
	from := 0
	if after != nil && *after != "" {
		key, err := decodeCursor(*after)
		if err != nil {
			return nil, err
		}
		from, err = strconv.Atoi(strings.TrimPrefix(key, neighbourhoodCursor))
		if err != nil || !strings.HasPrefix(key, neighbourhoodCursor) || from < 0 {
			return nil, athar.E("", athar.Invalid, "after: %q is not a neighbourhood cursor", *after)
		}
	}
	opt.MaxVisited = maxVisited
	opt.MaxEdges = DefaultNeighbourhoodMaxEdges
	if maxEdges != nil {
		opt.MaxEdges = *maxEdges
	}
	if opt.MaxEdges < 1 || opt.MaxEdges > MaxNeighbourhoodEdges {
		return nil, athar.E("", athar.Invalid, "maxEdges: %d is out of range: expected 1 to %d", opt.MaxEdges, MaxNeighbourhoodEdges)
	}
	p, err := traverse.Ranked(ctx, r.store, start, d, from, n, opt)
	if err != nil {
		return nil, err
	}
	out, err := r.subgraph(ctx, traverse.Subgraph{Nodes: p.Nodes, Edges: p.Edges, Truncated: p.Truncated})
	if err != nil {
		return nil, err
	}
	out.Reached = p.Reached
	out.PageInfo.HasNextPage = p.HasNext
	if len(p.Nodes) > 0 {
		c := encodeCursor(neighbourhoodCursor + strconv.Itoa(p.Offset+len(p.Nodes)))
		out.PageInfo.EndCursor = &c
	}
	return out, nil
}

func (r *queryResolver) ShortestPath(ctx context.Context, from, to string, maxLength *int, predicates, excludePredicates []string) (*model.Subgraph, error) {
	a, err := r.walkEnd(ctx, "from", from)
	if err != nil {
		return nil, err
	}
	b, err := r.walkEnd(ctx, "to", to)
	if err != nil {
		return nil, err
	}
	n := 6
	if maxLength != nil {
		n = *maxLength
	}
	if n < 1 || n > MaxPathLength {
		return nil, athar.E("", athar.Invalid, "maxLength: %d is out of range: expected 1 to %d", n, MaxPathLength)
	}
	opt, err := r.walkOptions(predicates, excludePredicates)
	if err != nil {
		return nil, err
	}
	sg, found, err := traverse.ShortestPath(ctx, r.store, a, b, n, opt)
	if errors.Is(err, traverse.ErrTooLarge) {
		return nil, athar.E("", athar.Invalid, "shortestPath: %v; lower maxLength or restrict predicates", err)
	}
	if err != nil || !found {
		return nil, err
	}
	return r.subgraph(ctx, sg)
}

// walkEnd checks that id names an entity a walk can start from (a retired id names the
// entity it was merged into).
func (r *queryResolver) walkEnd(ctx context.Context, arg, id string) (athar.ID, error) {
	eid, err := parseID(arg, id)
	if err != nil {
		return "", err
	}
	e, err := r.Entity(ctx, string(eid))
	if err != nil {
		return "", err
	}
	if e == nil {
		return "", athar.E("", athar.NotFound, "%s: no entity %s", arg, eid)
	}
	return e.EntityID(), nil
}

func (r *queryResolver) walkOptions(predicates, exclude []string) (traverse.Options, error) {
	only := map[string]bool{}
	skip := map[string]bool{}
	for _, p := range predicates {
		if err := r.checkPredicate("predicates", p); err != nil {
			return traverse.Options{}, err
		}
		only[p] = true
	}
	for _, p := range exclude {
		if err := r.checkPredicate("excludePredicates", p); err != nil {
			return traverse.Options{}, err
		}
		skip[p] = true
	}
	opt := traverse.Options{MaxVisited: maxVisited}
	if len(only) > 0 || len(skip) > 0 {
		opt.Follow = func(e athar.Edge) bool {
			return (len(only) == 0 || only[e.Predicate]) && !skip[e.Predicate]
		}
	}
	return opt, nil
}

// subgraph loads the nodes of sg; edges whose ends the graph does not define are dropped.
func (r *queryResolver) subgraph(ctx context.Context, sg traverse.Subgraph) (*model.Subgraph, error) {
	es, err := r.entitiesAs(ctx, sg.Nodes, nodesAskSummaryOnly(ctx))
	if err != nil {
		return nil, err
	}
	out := &model.Subgraph{Nodes: []model.Entity{}, Edges: []*model.Edge{}, Truncated: sg.Truncated, PageInfo: &model.PageInfo{}}
	defined := map[athar.ID]bool{}
	for i, e := range es {
		if e != nil {
			defined[sg.Nodes[i]] = true
			out.Nodes = append(out.Nodes, e)
		}
	}
	out.Reached = len(out.Nodes)
	// A neighbourhood slice's edges may join its nodes to those of earlier slices: check
	// that those are defined too.
	inSlice := make(map[athar.ID]bool, len(sg.Nodes))
	for _, n := range sg.Nodes {
		inSlice[n] = true
	}
	var earlier []athar.ID
	for _, e := range sg.Edges {
		for _, n := range []athar.ID{e.Source, e.Target} {
			if !inSlice[n] {
				inSlice[n] = true
				earlier = append(earlier, n)
			}
		}
	}
	if len(earlier) > 0 {
		// Only whether they are defined: summaries answer that.
		es, err := r.entitiesAs(ctx, earlier, true)
		if err != nil {
			return nil, err
		}
		for i, e := range es {
			if e != nil {
				defined[earlier[i]] = true
			}
		}
	}
	for _, e := range sg.Edges {
		if defined[e.Source] && defined[e.Target] {
			out.Edges = append(out.Edges, &model.Edge{E: e})
		}
	}
	return out, nil
}

// timelineInputs are what the timeline and the chronology order: every event, and the
// claims of the timeline's predicates -- each claim's subject, object and value, the
// references the store keeps sorted per predicate, not the claims with their attestations.
func (r *Resolver) timelineInputs(ctx context.Context) ([]athar.ID, map[string][]*athar.Claim, error) {
	events, err := r.store.EntityIDs(ctx, athar.TypeEvent)
	if err != nil {
		return nil, nil, err
	}
	byPredicate := map[string][]*athar.Claim{}
	for _, p := range timelinePredicates {
		page, err := r.store.PageClaims(ctx, athar.ClaimPageQuery{Predicate: p, First: -1, SkipNarrations: true})
		if err != nil {
			return nil, nil, err
		}
		for _, ref := range page.Refs {
			byPredicate[p] = append(byPredicate[p], &athar.Claim{ID: ref.ID, Subject: ref.Subject, Predicate: ref.Predicate, Object: ref.Object, Value: ref.Value})
		}
	}
	return events, byPredicate, nil
}

// chronologyOrder orders every event of the graph (chronology).
func (r *Resolver) chronologyOrder(ctx context.Context) ([]athar.ID, error) {
	events, byPredicate, err := r.timelineInputs(ctx)
	if err != nil {
		return nil, err
	}
	return chronology(events, byPredicate), nil
}

// partialOrdering is the chronology's answer before its page is cut: partialOrder's.
type partialOrdering struct {
	placed   []orderEntry
	unplaced []athar.ID
}

func (r *Resolver) partialOrdering(ctx context.Context) (partialOrdering, error) {
	events, byPredicate, err := r.timelineInputs(ctx)
	if err != nil {
		return partialOrdering{}, err
	}
	placed, unplaced := partialOrder(events, byPredicate)
	return partialOrdering{placed, unplaced}, nil
}

func (r *queryResolver) Timeline(ctx context.Context, first *int) ([]*model.Event, error) {
	n, err := model.First(first, model.MaxList)
	if err != nil {
		return nil, err
	}
	order, err := get(ctx, r.timeline, "timeline", r.chronologyOrder)
	if err != nil {
		return nil, err
	}
	es, err := r.entities(ctx, order[:min(n, len(order))])
	if err != nil {
		return nil, err
	}
	out := make([]*model.Event, 0, len(es))
	for _, e := range es {
		if ev, ok := e.(*model.Event); ok {
			out = append(out, ev)
		}
	}
	return out, nil
}

func (r *queryResolver) Chronology(ctx context.Context, first *int) (*model.Chronology, error) {
	n, err := model.First(first, model.MaxList)
	if err != nil {
		return nil, err
	}
	ordering, err := get(ctx, r.timeline, "chronology", r.partialOrdering)
	if err != nil {
		return nil, err
	}
	placed, unplaced := ordering.placed, ordering.unplaced
	placed, unplaced = placed[:min(n, len(placed))], unplaced[:min(n, len(unplaced))]
	ids := make([]athar.ID, 0, len(placed)+len(unplaced))
	for _, p := range placed {
		ids = append(ids, p.event)
	}
	ids = append(ids, unplaced...)
	es, err := r.entities(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := &model.Chronology{Placed: []*model.ChronologyEntry{}, Unplaced: []*model.Event{}}
	for i, e := range es {
		ev, ok := e.(*model.Event)
		if !ok {
			continue
		}
		if i >= len(placed) {
			out.Unplaced = append(out.Unplaced, ev)
			continue
		}
		after := make([]string, len(placed[i].after))
		for j, a := range placed[i].after {
			after[j] = string(a)
		}
		out.Placed = append(out.Placed, &model.ChronologyEntry{Event: ev, Rank: placed[i].rank, After: after})
	}
	return out, nil
}

func (r *queryResolver) Predicates(ctx context.Context) ([]*model.Predicate, error) {
	out := make([]*model.Predicate, len(r.vocab.Predicates))
	for i, p := range r.vocab.Predicates {
		out[i] = predicate(p)
	}
	return out, nil
}

func (r *queryResolver) Predicate(ctx context.Context, name string) (*model.Predicate, error) {
	p, ok := r.vocab.Predicate(name)
	if !ok {
		return nil, nil
	}
	return predicate(p), nil
}

func predicate(p *athar.Predicate) *model.Predicate {
	out := &model.Predicate{
		Name: p.Name, Description: p.Description, Single: p.Single, Symmetric: p.Symmetric,
		Domain: typeNames(p.Domain), Range: typeNames(p.Range), Align: append([]string{}, p.Align...),
	}
	if p.Literal != "" {
		l := p.Literal
		out.Literal = &l
	}
	if p.Inverse != "" {
		inv := p.Inverse
		out.Inverse = &inv
	}
	return out
}

func typeNames(ts []athar.EntityType) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = string(t)
	}
	return out
}

func (r *queryResolver) Entities(ctx context.Context, typ *string, first *int, afterArg *string) (*model.EntityConnection, error) {
	var t athar.EntityType
	if typ != nil && *typ != "" {
		t = athar.EntityType(*typ)
		if !t.Valid() {
			return nil, athar.E("", athar.Invalid, "type: unknown entity type %q: expected one of %s", *typ, strings.Join(typeNames(athar.EntityTypes()), ", "))
		}
	}
	size, after, err := pageArgs(first, afterArg)
	if err != nil {
		return nil, err
	}
	page, err := r.store.PageEntities(ctx, athar.EntityPageQuery{Type: t, After: athar.ID(after), First: size})
	if err != nil {
		return nil, err
	}
	conn := &model.EntityConnection{Edges: []*model.EntityEdge{}, Nodes: []model.Entity{}, PageInfo: &model.PageInfo{HasNextPage: page.More}, TotalCount: page.Total}
	if len(page.IDs) > 0 {
		c := encodeCursor(string(page.IDs[len(page.IDs)-1]))
		conn.PageInfo.EndCursor = &c
	}
	if !selectsItems(ctx) {
		return conn, nil
	}
	es, err := r.entities(ctx, page.IDs)
	if err != nil {
		return nil, err
	}
	for i, e := range es {
		if e == nil {
			continue
		}
		conn.Edges = append(conn.Edges, &model.EntityEdge{Cursor: encodeCursor(string(page.IDs[i])), Node: e})
		conn.Nodes = append(conn.Nodes, e)
	}
	return conn, nil
}

type mutationResolver struct{ *Resolver }

// documentSource names API input in validation problems.
const documentSource = "document"

func (r *mutationResolver) ImportNarration(ctx context.Context, document string) (*model.ImportResult, error) {
	d, err := narration.Parse(documentSource, []byte(document))
	if err != nil {
		return nil, err
	}
	res, err := r.write.Import(ctx, d)
	if err != nil {
		return nil, err
	}
	n, err := r.narration(ctx, res.Narration)
	if err == nil && n == nil {
		err = errors.New("the imported narration cannot be read back")
	}
	if err != nil {
		return nil, err
	}
	return &model.ImportResult{
		Narration: n, ClaimsAdded: res.ClaimsAdded, EntitiesAdded: res.EntitiesAdded,
		Changed: res.Changed, QuadsAdded: res.QuadsAdded, QuadsRemoved: res.QuadsRemoved,
	}, nil
}

func (r *mutationResolver) MergeEntities(ctx context.Context, keep string, remove string) (*model.MergeResult, error) {
	k, err := parseID("keep", keep)
	if err != nil {
		return nil, err
	}
	rm, err := parseID("remove", remove)
	if err != nil {
		return nil, err
	}
	res, err := r.write.Merge(ctx, k, rm)
	if err != nil {
		return nil, err
	}
	e, err := r.mustEntity(ctx, k)
	if err != nil {
		return nil, err
	}
	ns, err := r.narrations(ctx, res.Narrations)
	if err != nil {
		return nil, err
	}
	return &model.MergeResult{
		Entity: e, Removed: string(rm), Narrations: ns, Changed: res.Changed,
		QuadsAdded: res.QuadsAdded, QuadsRemoved: res.QuadsRemoved,
	}, nil
}

func (r *mutationResolver) DeleteNarration(ctx context.Context, id string) (bool, error) {
	nid, err := parseNarrationID("id", id)
	if err != nil {
		return false, err
	}
	if err := r.write.Delete(ctx, nid); err != nil {
		return false, err
	}
	return true, nil
}
