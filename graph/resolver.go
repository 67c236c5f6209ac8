package graph

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/athar-hadith/athar/graph/generated"
	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/search"
)

// reader is what the resolvers read the graph through; athar.Store satisfies it.
type reader interface {
	Entities(ctx context.Context, ids []athar.ID) ([]*athar.Entity, error)
	Mentions(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ID, error)
	EntityIDs(ctx context.Context, t athar.EntityType) ([]athar.ID, error)
	Narrations(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error)
	NarrationSummaries(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error)
	NarrationRoutes(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error)
	FindClaims(ctx context.Context, f athar.ClaimFilter) ([]*athar.Claim, error)
	Claims(ctx context.Context, ids []athar.ID) ([]*athar.Claim, error)
	ClaimHeads(ctx context.Context, ids []athar.ID, first int) ([]*athar.Claim, error)
	ClaimParts(ctx context.Context, ids []athar.ID) ([]*athar.Claim, error)
	ClaimsAbout(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ClaimRef, error)
	PageClaims(ctx context.Context, q athar.ClaimPageQuery) (athar.ClaimPage, error)
	PageEntities(ctx context.Context, q athar.EntityPageQuery) (athar.EntityPage, error)
	PageGradings(ctx context.Context, q athar.GradingPageQuery) (athar.GradingPage, error)
	Edges(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.Edge, error)
	WeightedEdges(ctx context.Context, id athar.ID, after string, n int) ([]athar.Edge, string, error)
	EdgesBetween(ctx context.Context, ids, others []athar.ID) ([]athar.Edge, error)
	MergedInto(ctx context.Context, ids []athar.ID) (map[athar.ID]athar.ID, error)
	QuadsAbout(ctx context.Context, subjects []athar.ID) ([]athar.Quad, error)
	NarrationQuads(ctx context.Context, narration athar.ID) ([]athar.Quad, error)
	QuadsTo(ctx context.Context, predicate string, object athar.Term) ([]athar.Quad, error)
}

// writer is the write path the mutations use; *ingest.Local satisfies it.
type writer interface {
	Import(ctx context.Context, d *narration.Document) (ingest.Result, error)
	Delete(ctx context.Context, id athar.ID) error
	Merge(ctx context.Context, keep, remove athar.ID) (ingest.MergeResult, error)
}

// finder finds entities by name, forgiving transliteration variants; *search.Index
// satisfies it.
type finder interface {
	Forgiving(text string, first int) []search.Hit
}

// Resolver is the root of the resolvers. It holds no request state: per-request loaders
// travel in the context.
type Resolver struct {
	store reader
	write writer
	vocab *athar.Vocabulary
	index finder
	texts textSearcher // nil when the server has no full-text index
	// timeline keeps the timeline's order between writes; nil orders on every request.
	timeline *TimelineCache
}

// Query returns the Query resolver.
func (r *Resolver) Query() generated.QueryResolver { return &queryResolver{r} }

// Mutation returns the Mutation resolver.
func (r *Resolver) Mutation() generated.MutationResolver { return &mutationResolver{r} }

// Claim returns the Claim resolver.
func (r *Resolver) Claim() generated.ClaimResolver { return &claimResolver{r} }

// Edge returns the Edge resolver.
func (r *Resolver) Edge() generated.EdgeResolver { return &edgeResolver{r} }

type claimResolver struct{ *Resolver }

// withEnds reads the subjects and objects of the claims the field being resolved returns,
// in one batch, and gives each claim its own (model.Claim's Subj and Obj): Claim.subject
// and Claim.object are then plain fields, which gqlgen resolves inline -- as resolvers it
// ran each in a goroutine of its own, two for every claim of a page, each waiting on the
// entity loader. Narrations among them are read as summaries when every subject and
// object asked for under the field asks only what a summary gives. When nothing under the
// field asks for a subject or an object, none is read (and the claims cannot give one).
func (r *Resolver) withEnds(ctx context.Context, cs []*model.Claim) error {
	want, summaries := selectionAsks(ctx, "Claim", "subject", "object")
	if !want || len(cs) == 0 {
		return nil
	}
	seen := map[athar.ID]bool{}
	var ids []athar.ID
	for _, c := range cs {
		for _, id := range [2]athar.ID{c.C.Subject, c.C.Object} {
			if id != "" && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	// A single claim's (claim(id:), an edge's) are batched with its siblings'.
	byID, err := r.entitiesByID(ctx, ids, summaries, len(cs) == 1)
	if err != nil {
		return err
	}
	for _, c := range cs {
		c.Subj, c.Ends = byID[c.C.Subject], true
		if c.C.Object != "" {
			c.Obj = byID[c.C.Object]
		}
	}
	return nil
}

// withOthers reads the entities at the other end of the relations the field being
// resolved returns, in one batch, when anything under it asks for one (Relation.entity),
// as withEnds does for claims.
func (r *Resolver) withOthers(ctx context.Context, rels []*model.Relation) error {
	want, summaries := selectionAsks(ctx, "Relation", "entity")
	if !want || len(rels) == 0 {
		return nil
	}
	seen := map[athar.ID]bool{}
	var ids []athar.ID
	for _, rel := range rels {
		if rel.Other != "" && !seen[rel.Other] {
			seen[rel.Other] = true
			ids = append(ids, rel.Other)
		}
	}
	byID, err := r.entitiesByID(ctx, ids, summaries, len(rels) == 1)
	if err != nil {
		return err
	}
	for _, rel := range rels {
		rel.Ent, rel.EntRead = byID[rel.Other], true
	}
	return nil
}

// entitiesByID reads the entities of ids by id (absent where undefined). The ids of a
// page are all known: they are read at once. One item's (lone) and those of a list inside
// a list go through the loaders, which batch them with their siblings'.
func (r *Resolver) entitiesByID(ctx context.Context, ids []athar.ID, summaries, lone bool) (map[athar.ID]model.Entity, error) {
	read := r.entitiesNow
	if lone || inList(ctx) {
		read = r.entitiesAs
	}
	es, err := read(ctx, ids, summaries)
	if err != nil {
		return nil, err
	}
	byID := make(map[athar.ID]model.Entity, len(ids))
	for i, id := range ids {
		if es[i] != nil {
			byID[id] = es[i]
		}
	}
	return byID, nil
}

// inList reports whether the field being resolved is part of an element of a list: one of
// siblings resolved side by side.
func inList(ctx context.Context) bool {
	for fc := graphql.GetFieldContext(ctx); fc != nil; fc = fc.Parent {
		if fc.Index != nil {
			return true
		}
	}
	return false
}

// selectionAsks reports whether the selection under the field being resolved asks, at any
// depth and through fragments, for one of the fields names of the type typeName (a
// Claim's subject or object, a Relation's entity), and whether every one it asks for asks
// only what a narration's summary gives (true, false outside a GraphQL request).
func selectionAsks(ctx context.Context, typeName string, names ...string) (want, summaries bool) {
	fields, ok := selectedFields(ctx)
	if !ok {
		return true, false
	}
	op := graphql.GetOperationContext(ctx)
	summaries = true
	for _, f := range fields {
		if slices.Contains(names, f.Name) && (f.ObjectDefinition == nil || f.ObjectDefinition.Name == typeName) {
			want = true
			summaries = summaries && summaryOnly(op, f.SelectionSet)
		}
	}
	return want, summaries
}

// selectedFields returns every field selected under the field being resolved, at any
// depth, fragments expanded (each named one once) and @skip and @include ignored: what the
// query may ask. ok is false outside a GraphQL request, or when a fragment cannot be found.
func selectedFields(ctx context.Context) (fields []*ast.Field, ok bool) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !graphql.HasOperationContext(ctx) {
		return nil, false
	}
	frags := graphql.GetOperationContext(ctx).Doc.Fragments
	seen := map[string]bool{}
	ok = true
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				fields = append(fields, s)
				walk(s.SelectionSet)
			case *ast.InlineFragment:
				walk(s.SelectionSet)
			case *ast.FragmentSpread:
				if seen[s.Name] {
					continue
				}
				seen[s.Name] = true
				if f := frags.ForName(s.Name); f != nil {
					walk(f.SelectionSet)
				} else {
					ok = false
				}
			}
		}
	}
	walk(fc.Field.Selections)
	return fields, ok
}

// claimModels gives the claims their GraphQL views, with their subjects and objects
// (withEnds); nil claims are left out.
func (r *Resolver) claimModels(ctx context.Context, cs []*athar.Claim) ([]*model.Claim, error) {
	out := make([]*model.Claim, 0, len(cs))
	for _, c := range cs {
		if c != nil {
			out = append(out, &model.Claim{C: c})
		}
	}
	return out, r.withEnds(ctx, out)
}

// claimConn gives a connection's claims their subjects and objects (withEnds).
func (r *Resolver) claimConn(ctx context.Context, conn *model.ClaimConnection, err error) (*model.ClaimConnection, error) {
	if err != nil {
		return nil, err
	}
	if err := r.withEnds(ctx, conn.Nodes); err != nil {
		return nil, err
	}
	return conn, nil
}

// withNarrations gives each attestation its narration (Attestation.narration is a plain
// field: as a resolver gqlgen ran it in a goroutine of its own for every attestation --
// some 400 a variants page at 100,000 narrations, with their stacks grown -- to return the
// id it already had). When the selection asks the narration for its id alone, that is all
// it gets: an attestation's narration always exists (its quads carry the narration's
// label). Otherwise the narrations are read in one batch.
func (r *Resolver) withNarrations(ctx context.Context, as []*model.Attestation) ([]*model.Attestation, error) {
	if len(as) == 0 {
		return as, nil
	}
	if !narrationsWanted(ctx) {
		for _, a := range as {
			a.Narr = &model.Narration{N: &athar.Narration{ID: a.A.Narration}}
		}
		return as, nil
	}
	seen := map[athar.ID]bool{}
	var ids []athar.ID
	for _, a := range as {
		if !seen[a.A.Narration] {
			seen[a.A.Narration] = true
			ids = append(ids, a.A.Narration)
		}
	}
	ns, err := r.loaders(ctx).narration.LoadAll(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[athar.ID]*athar.Narration, len(ns))
	for _, n := range ns {
		if n != nil {
			byID[n.ID] = n
		}
	}
	for _, a := range as {
		n := byID[a.A.Narration]
		if n == nil {
			return nil, fmt.Errorf("attestation %s: narration %s is not in the graph", a.A.ID, a.A.Narration)
		}
		a.Narr = &model.Narration{N: n}
	}
	return as, nil
}

// narrationsWanted reports whether the attestations being resolved are asked for more of
// their narration than its id: a narration field selecting anything but id and __typename
// as plain fields (a fragment there may ask for more, so it counts).
func narrationsWanted(ctx context.Context) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return true
	}
	// Attestation implements no interface: collecting its fields resolves every fragment
	// (and @skip/@include) on it exactly.
	for _, f := range graphql.CollectFields(graphql.GetOperationContext(ctx), fc.Field.Selections, []string{"Attestation"}) {
		if f.Name == "narration" && !selectsOnlyID(f.Selections) {
			return true
		}
	}
	return false
}

type edgeResolver struct{ *Resolver }

func (r *edgeResolver) Claim(ctx context.Context, obj *model.Edge) (*model.Claim, error) {
	id := athar.ClaimID(obj.E.Source, obj.E.Predicate, athar.IRITerm(obj.E.Target.IRI()))
	c, err := r.loaders(ctx).claimHead.Load(ctx, id)
	if err != nil || c == nil {
		return nil, err
	}
	cs, err := r.claimModels(ctx, []*athar.Claim{c})
	if err != nil {
		return nil, err
	}
	return cs[0], nil
}

// entity returns the entity with the given id, or nil when the graph does not define it.
// A verse the graph does not know yet is still returned: every verse of the Qur'an exists.
func (r *Resolver) entity(ctx context.Context, id athar.ID) (model.Entity, error) {
	es, err := r.entities(ctx, []athar.ID{id})
	if err != nil {
		return nil, err
	}
	return es[0], nil
}

// entities returns the entities with the given ids, in order, nil where undefined. Ids of
// every kind are loaded together, so that a list costs one Entities and one Narrations
// call.
func (r *Resolver) entities(ctx context.Context, ids []athar.ID) ([]model.Entity, error) {
	return r.entitiesAs(ctx, ids, asksSummaryOnly(ctx))
}

// entitiesAs is entities, reading narrations as summaries when summaries is set: for a
// field that shows them by id and title only, or to know which are defined.
func (r *Resolver) entitiesAs(ctx context.Context, ids []athar.ID, summaries bool) ([]model.Entity, error) {
	l := r.loaders(ctx)
	plain, narrations := splitNarrations(ids)
	entityThunk := l.entity.LoadAllThunk(ctx, plain)
	narrationLoader := l.narration
	if len(narrations) > 0 && summaries {
		// A narration shown by its id and title (a claim's object { id name }): its
		// summary, not the narration whole with its texts, references and chain.
		narrationLoader = l.narrationSummary
	}
	narrationThunk := narrationLoader.LoadAllThunk(ctx, narrations)
	es, err := entityThunk()
	if err != nil {
		return nil, err
	}
	ns, err := narrationThunk()
	if err != nil {
		return nil, err
	}
	return entityViews(ids, es, ns), nil
}

// entitiesNow is entitiesAs for ids that are all known at once (a page's subjects and
// objects): it reads them from the store straight away rather than through the loaders,
// which wait for other fields' keys to batch them (DefaultLoaderWait, on the page's
// critical path), and primes the loaders with what it read.
func (r *Resolver) entitiesNow(ctx context.Context, ids []athar.ID, summaries bool) ([]model.Entity, error) {
	l := r.loaders(ctx)
	plain, narrations := splitNarrations(ids)
	var es []*athar.Entity
	if len(plain) > 0 {
		var err error
		if es, err = r.store.Entities(ctx, plain); err != nil {
			return nil, fmt.Errorf("load entities: %w", err)
		}
		for i, id := range plain {
			l.entity.Prime(id, es[i])
		}
	}
	var ns []*athar.Narration
	if len(narrations) > 0 {
		read, loader := r.store.Narrations, l.narration
		if summaries {
			read, loader = r.store.NarrationSummaries, l.narrationSummary
		}
		var err error
		if ns, err = read(ctx, narrations); err != nil {
			return nil, fmt.Errorf("load narrations: %w", err)
		}
		for i, id := range narrations {
			loader.Prime(id, ns[i])
		}
	}
	return entityViews(ids, es, ns), nil
}

// splitNarrations splits ids into the narrations' and the others', each in order.
func splitNarrations(ids []athar.ID) (plain, narrations []athar.ID) {
	for _, id := range ids {
		if id.Prefix() == athar.TypeNarration.Prefix() {
			narrations = append(narrations, id)
		} else {
			plain = append(plain, id)
		}
	}
	return plain, narrations
}

// entityViews gives the entities of ids their GraphQL views, nil where undefined: es are
// the entities of the ids that are not narrations, ns the narrations', each in order.
func entityViews(ids []athar.ID, es []*athar.Entity, ns []*athar.Narration) []model.Entity {
	out := make([]model.Entity, len(ids))
	for i, id := range ids {
		if id.Prefix() == athar.TypeNarration.Prefix() {
			n := ns[0]
			ns = ns[1:]
			if n != nil {
				out[i] = &model.Narration{N: n}
			}
			continue
		}
		e := es[0]
		es = es[1:]
		switch {
		case e != nil:
			out[i] = model.NewEntity(e)
		case id.Prefix() == athar.TypeVerse.Prefix():
			if v, err := athar.ParseVerseRef(id.Local()); err == nil {
				out[i] = model.NewVerse(v)
			}
		}
	}
	return out
}

// mustEntity is entity for ids the graph refers to (a claim's subject): their absence is
// a broken graph, not a missing answer.
func (r *Resolver) mustEntity(ctx context.Context, id athar.ID) (model.Entity, error) {
	e, err := r.entity(ctx, id)
	if err == nil && e == nil {
		err = fmt.Errorf("entity %s is referred to but not defined", id)
	}
	return e, err
}

// narration returns the narration, or nil when absent.
func (r *Resolver) narration(ctx context.Context, id athar.ID) (*model.Narration, error) {
	n, err := r.loaders(ctx).narration.Load(ctx, id)
	if err != nil || n == nil {
		return nil, err
	}
	return &model.Narration{N: n}, nil
}

func (r *Resolver) narrations(ctx context.Context, ids []athar.ID) ([]*model.Narration, error) {
	ns, err := r.loaders(ctx).narration.LoadAll(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Narration, 0, len(ns))
	for _, n := range ns {
		if n != nil {
			out = append(out, &model.Narration{N: n})
		}
	}
	return out, nil
}

func (r *Resolver) persons(ctx context.Context, ids []athar.ID) ([]*model.Person, error) {
	es, err := r.entities(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Person, 0, len(es))
	for i, e := range es {
		p, ok := e.(*model.Person)
		if !ok {
			return nil, fmt.Errorf("%s is not a defined person", ids[i])
		}
		out = append(out, p)
	}
	return out, nil
}

// parseID checks an entity id given as an argument. Verse ids must name a verse that
// exists.
func parseID(arg, s string) (athar.ID, error) {
	id, _, err := athar.ParseEntityID(strings.TrimSpace(s))
	if err != nil {
		return "", athar.E("", athar.Invalid, "%s: %v", arg, err)
	}
	return id, nil
}

// parseNarrationID checks a narration id given as an argument.
func parseNarrationID(arg, s string) (athar.ID, error) {
	id, err := parseID(arg, s)
	if err == nil && id.Prefix() != athar.TypeNarration.Prefix() {
		err = athar.E("", athar.Invalid, "%s: %q is not a narration id (expected narration:...)", arg, s)
	}
	return id, err
}

// checkPredicate checks a predicate name given as an argument against the vocabulary.
func (r *Resolver) checkPredicate(arg, name string) error {
	if _, ok := r.vocab.Predicate(name); !ok {
		return athar.E("", athar.Invalid, "%s: unknown predicate %q: expected one of %s", arg, name, strings.Join(r.vocab.Names(), ", "))
	}
	return nil
}

// onlyID reports whether the field being resolved selects nothing but id and __typename,
// written as plain fields (a fragment may ask for more, so it does not count).
func onlyID(ctx context.Context) bool {
	fc := graphql.GetFieldContext(ctx)
	return fc != nil && selectsOnlyID(fc.Field.Selections)
}

// selectsOnlyID reports whether set is not empty and holds nothing but id and __typename,
// as plain fields.
func selectsOnlyID(set ast.SelectionSet) bool {
	if len(set) == 0 {
		return false
	}
	for _, sel := range set {
		f, ok := sel.(*ast.Field)
		if !ok || f.Name != "id" && f.Name != "__typename" {
			return false
		}
	}
	return true
}
