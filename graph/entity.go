package graph

import (
	"context"
	"sort"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/hadith"
)

// relationField is one generated relation field (see relations_gen.go): Type.Field reads
// the claims of Predicate from the Direction side.
type relationField struct {
	Type      string
	Field     string
	Predicate string
	Direction model.Direction
}

// entityNarrations resolves Entity.narrations: the narrations that define, mention or make
// claims about the entity.
func (r *Resolver) entityNarrations(ctx context.Context, obj model.Entity, first *int) ([]*model.Narration, error) {
	n, err := model.First(first, model.MaxList)
	if err != nil {
		return nil, err
	}
	ids, err := r.loaders(ctx).mentions.Load(ctx, obj.EntityID())
	if err != nil {
		return nil, err
	}
	return r.narrationList(ctx, ids[:min(n, len(ids))])
}

// entityNarrationCount resolves Entity.narrationCount: what entityNarrations would return
// without first.
func (r *Resolver) entityNarrationCount(ctx context.Context, obj model.Entity) (int, error) {
	ids, err := r.loaders(ctx).mentions.Load(ctx, obj.EntityID())
	return len(ids), err
}

// entityClaims resolves Entity.claims: the claims with the entity as subject or object.
// The store reads the page's references and the count, not the entity's every claim;
// only the page's own claims are loaded.
func (r *Resolver) entityClaims(ctx context.Context, obj model.Entity, predicate *string, first *int, after *string) (*model.ClaimConnection, error) {
	q := athar.ClaimPageQuery{Entity: obj.EntityID()}
	if predicate != nil && *predicate != "" {
		if err := r.checkPredicate("predicate", *predicate); err != nil {
			return nil, err
		}
		q.Predicate = *predicate
	}
	return r.claimRefPage(ctx, q, first, after)
}

// claimRefPage reads one page of claim references (Store.PageClaims) and loads their
// claims.
func (r *Resolver) claimRefPage(ctx context.Context, q athar.ClaimPageQuery, first *int, after *string) (*model.ClaimConnection, error) {
	size, k, err := pageArgs(first, after)
	if err != nil {
		return nil, err
	}
	q.First, q.After, q.SkipNarrations = size, k, true
	page, err := r.store.PageClaims(ctx, q)
	if err != nil {
		return nil, err
	}
	refs := page.Refs
	ids := make([]athar.ID, len(refs))
	for i := range refs {
		ids[i] = refs[i].ID
	}
	claims, err := r.loadClaims(ctx, ids)
	if err != nil {
		return nil, err
	}
	key := func(i int) string { return refs[i].SortKey() }
	return r.claimConn(ctx, claimPage(window{from: 0, to: len(refs), total: page.Total, more: page.More}, key, claims), nil)
}

// loadClaims loads the claims by id that the field being resolved returns, nil where
// absent: each with the attestations a page shows (headAttestations), or with its parts
// only when nothing under the field asks for attestations or their counts (a corpus
// claim's attestation is a passage of its hadith's text, read to be shown);
// loadFullClaims loads them whole.
func (r *Resolver) loadClaims(ctx context.Context, ids []athar.ID) ([]*athar.Claim, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if !attestationsWanted(ctx) {
		return r.loaders(ctx).claimParts.LoadAll(ctx, ids)
	}
	return r.loaders(ctx).claimHead.LoadAll(ctx, ids)
}

// claimAttestationFields are the fields of Claim that read its attestations.
var claimAttestationFields = map[string]bool{"attestations": true, "attestationCount": true, "routeCount": true}

// attestationsWanted reports whether the selection under the field being resolved has a
// field named as one of claimAttestationFields at any depth, through fragments, whatever
// its type and whether or not @skip or @include drop it: when it has none, the claims
// returned need no attestation (true outside a GraphQL request).
func attestationsWanted(ctx context.Context) bool {
	fields, ok := selectedFields(ctx)
	if !ok {
		return true
	}
	for _, f := range fields {
		if claimAttestationFields[f.Name] {
			return true
		}
	}
	return false
}

func (r *Resolver) loadFullClaims(ctx context.Context, ids []athar.ID) ([]*athar.Claim, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return r.loaders(ctx).claim.LoadAll(ctx, ids)
}

// headAttestations is how many attestations a claim is read with for a page of claims: the
// default first of Claim.attestations. A request for more reads the claim whole.
const headAttestations = 20

func (r *claimResolver) Attestations(ctx context.Context, obj *model.Claim, first *int) ([]*model.Attestation, error) {
	n, err := model.First(first, headAttestations)
	if err != nil {
		return nil, err
	}
	if obj.C.Bare { // read with its parts only: read it as a page shows it
		c, err := r.loaders(ctx).claimHead.Load(ctx, obj.C.ID)
		if err != nil {
			return nil, err
		}
		if c == nil { // deleted since the page was read
			return []*model.Attestation{}, nil
		}
		obj = &model.Claim{C: c}
	}
	if as, ok := obj.Attestations(n); ok {
		return r.withNarrations(ctx, as)
	}
	c, err := r.loaders(ctx).claim.Load(ctx, obj.C.ID)
	if err != nil {
		return nil, err
	}
	if c == nil { // deleted since the page was read
		return []*model.Attestation{}, nil
	}
	as, _ := (&model.Claim{C: c}).Attestations(n)
	return r.withNarrations(ctx, as)
}

// entityRelations resolves Entity.relations.
func (r *Resolver) entityRelations(ctx context.Context, obj model.Entity, predicate *string, direction *model.Direction, first *int, after *string) (*model.RelationConnection, error) {
	dir := model.DirectionBoth
	if direction != nil {
		dir = *direction
	}
	return r.relationPage(ctx, obj.EntityID(), predicate, dir, first, after)
}

// namedRelations resolves a generated relation field (Event.participants).
func (r *Resolver) namedRelations(ctx context.Context, obj model.Entity, predicate string, dir model.Direction, first *int, after *string) (*model.RelationConnection, error) {
	return r.relationPage(ctx, obj.EntityID(), &predicate, dir, first, after)
}

// relationPage pages the relations of id and loads the claims of that page only.
func (r *Resolver) relationPage(ctx context.Context, id athar.ID, predicate *string, dir model.Direction, first *int, after *string) (*model.RelationConnection, error) {
	if predicate != nil && selectsOnlyTotal(ctx) {
		if n, ok, err := r.relationCount(ctx, id, *predicate, dir); err != nil || ok {
			if _, _, perr := pageArgs(first, after); perr != nil {
				return nil, perr
			}
			return &model.RelationConnection{Edges: []*model.RelationEdge{}, Nodes: []*model.Relation{}, PageInfo: &model.PageInfo{}, TotalCount: n}, err
		}
	}
	rels, err := r.relations(ctx, id, predicate, dir)
	if err != nil {
		return nil, err
	}
	conn, err := relationConnection(rels, first, after)
	if err != nil {
		return nil, err
	}
	if !selectsItems(ctx) {
		// only totalCount or pageInfo asked: the page's claims are not read (a person of
		// the corpus is the subject of thousands of narrates and transmits claims)
		return conn, nil
	}
	ids := make([]athar.ID, len(conn.Nodes))
	for i, rel := range conn.Nodes {
		ids[i] = rel.Ref.ID
	}
	claims, err := r.loadClaims(ctx, ids)
	if err != nil {
		return nil, err
	}
	kept := conn.Edges[:0]
	conn.Nodes = conn.Nodes[:0]
	for i, e := range conn.Edges {
		if claims[i] == nil {
			continue // removed by a write between the two reads
		}
		e.Node.Cl = &model.Claim{C: claims[i]}
		kept = append(kept, e)
		conn.Nodes = append(conn.Nodes, e.Node)
	}
	conn.Edges = kept
	cs := make([]*model.Claim, len(conn.Nodes))
	for i, rel := range conn.Nodes {
		cs[i] = rel.Cl
	}
	if err := r.withEnds(ctx, cs); err != nil {
		return nil, err
	}
	if err := r.withOthers(ctx, conn.Nodes); err != nil {
		return nil, err
	}
	return conn, nil
}

// selectsOnlyTotal reports whether the connection field being resolved asks for its
// totalCount alone (false outside a GraphQL request).
func selectsOnlyTotal(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) || graphql.GetFieldContext(ctx) == nil {
		return false
	}
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name != "totalCount" && f.Name != "__typename" {
			return false
		}
	}
	return true
}

// onlySubject reports whether the vocabulary puts id on the subject side of every claim
// of the predicate it is part of (a person is never a narrates claim's object).
func (r *Resolver) onlySubject(id athar.ID, predicate string) bool {
	p, known := r.vocab.Predicate(predicate)
	t, typed := athar.TypeOfPrefix(id.Prefix())
	return known && typed && (p.Literal != "" || len(p.Range) > 0 && !p.AllowsObject(t))
}

// relationCount counts the relations of id by predicate in direction dir from the store's
// count of the entity's claims of the predicate, when the vocabulary says every one of them
// has id on the side dir asks for (Person.narrates: a person is never a narrates claim's
// object), or from its count of the claims with id as subject for the outgoing ones; ok is
// false when it cannot say so, and the relations are then counted one by one.
func (r *Resolver) relationCount(ctx context.Context, id athar.ID, predicate string, dir model.Direction) (n int, ok bool, err error) {
	p, known := r.vocab.Predicate(predicate)
	t, typed := athar.TypeOfPrefix(id.Prefix())
	if !known || !typed {
		return 0, false, nil
	}
	neverObject := p.Literal != "" || len(p.Range) > 0 && !p.AllowsObject(t)
	neverSubject := len(p.Domain) > 0 && !p.AllowsSubject(t)
	switch {
	case neverObject && neverSubject:
		return 0, true, nil
	case neverObject && dir == model.DirectionIncoming, neverSubject && dir == model.DirectionOutgoing:
		return 0, true, nil
	case dir == model.DirectionOutgoing:
		// the store counts the claims with the entity as subject
		page, err := r.store.PageClaims(ctx, athar.ClaimPageQuery{Entity: id, Predicate: predicate, First: 0, AsSubject: true})
		return page.Total, err == nil, err
	case !neverObject && !neverSubject:
		return 0, false, nil
	}
	page, err := r.store.PageClaims(ctx, athar.ClaimPageQuery{Entity: id, Predicate: predicate, First: 0})
	return page.Total, err == nil, err
}

// selectsItems reports whether the connection field being resolved selects its edges or
// nodes (true outside a GraphQL request).
func selectsItems(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) || graphql.GetFieldContext(ctx) == nil {
		return true
	}
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name != "totalCount" && f.Name != "pageInfo" && f.Name != "__typename" {
			return true
		}
	}
	return false
}

// about returns the claims with id as subject or object, of one predicate when given, as
// references sorted by SortKey.
func (r *Resolver) about(ctx context.Context, id athar.ID, predicate *string) ([]athar.ClaimRef, error) {
	if predicate != nil && *predicate != "" {
		if err := r.checkPredicate("predicate", *predicate); err != nil {
			return nil, err
		}
	}
	all, err := r.loaders(ctx).about.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	if predicate == nil || *predicate == "" {
		return all, nil
	}
	out := make([]athar.ClaimRef, 0, len(all))
	for _, c := range all {
		if c.Predicate == *predicate {
			out = append(out, c)
		}
	}
	return out, nil
}

// relations reads the claims about id as relations from id's side. Their claims (C) are
// not loaded: relationPage loads those of one page.
func (r *Resolver) relations(ctx context.Context, id athar.ID, predicate *string, dir model.Direction) ([]*model.Relation, error) {
	refs, err := r.about(ctx, id, predicate)
	if err != nil {
		return nil, err
	}
	rels := make([]*model.Relation, 0, len(refs))
	for i := range refs {
		c := &refs[i]
		var value *string
		if c.Value != nil {
			v := c.Value.Literal
			value = &v
		}
		if c.Subject == id && dir != model.DirectionIncoming {
			rels = append(rels, &model.Relation{Predicate: c.Predicate, Name: c.Predicate, Direction: model.DirectionOutgoing, Value: value, Other: c.Object, Ref: c})
		}
		if c.Object == id && dir != model.DirectionOutgoing {
			name := c.Predicate
			if p, ok := r.vocab.Predicate(c.Predicate); ok && p.Inverse != "" {
				name = p.Inverse
			}
			rels = append(rels, &model.Relation{Predicate: c.Predicate, Name: name, Direction: model.DirectionIncoming, Other: c.Subject, Ref: c})
		}
	}
	return rels, nil
}

// Narration-only fields.

func (r *narrationResolver) Narrator(ctx context.Context, obj *model.Narration) (*model.Person, error) {
	if obj.N.Narrator == "" {
		return nil, nil
	}
	ps, err := r.persons(ctx, []athar.ID{obj.N.Narrator})
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

func (r *narrationResolver) Chain(ctx context.Context, obj *model.Narration) ([]*model.Person, error) {
	return r.persons(ctx, obj.N.Chain)
}

func (r *narrationResolver) Routes(ctx context.Context, obj *model.Narration) ([][]*model.Person, error) {
	return r.routes(ctx, obj.N.Chains())
}

func (r *narrationResolver) RecordRoutes(ctx context.Context, obj *model.Narration) ([][]*model.Person, error) {
	return r.routes(ctx, obj.N.RecordRoutes)
}

func (r *narrationResolver) routes(ctx context.Context, chains [][]athar.ID) ([][]*model.Person, error) {
	var all []athar.ID // one batch for every route
	for _, c := range chains {
		all = append(all, c...)
	}
	ps, err := r.persons(ctx, all)
	if err != nil {
		return nil, err
	}
	out := make([][]*model.Person, 0, len(chains))
	for _, c := range chains {
		out = append(out, ps[:len(c):len(c)])
		ps = ps[len(c):]
	}
	return out, nil
}

func (r *narrationResolver) AttestedClaims(ctx context.Context, obj *model.Narration, predicate *string, first *int, after *string) (*model.ClaimConnection, error) {
	f := athar.ClaimFilter{Narration: obj.N.ID}
	if predicate != nil && *predicate != "" {
		if err := r.checkPredicate("predicate", *predicate); err != nil {
			return nil, err
		}
		f.Predicate = *predicate
	}
	claims, err := r.store.FindClaims(ctx, f)
	if err != nil {
		return nil, err
	}
	conn, err := claimConnection(claims, first, after)
	return r.claimConn(ctx, conn, err)
}

// TextMentions reads the mention nodes of the narration's corpus record (corpus/K/mention/N:
// entity, edition, start, end), in N's order, with the passage cut from the edition's text.
func (r *narrationResolver) TextMentions(ctx context.Context, obj *model.Narration, first *int) ([]*model.Mention, error) {
	limit, err := model.First(first, model.MaxList)
	if err != nil {
		return nil, err
	}
	if obj.N.Corpus == "" || limit == 0 {
		return []*model.Mention{}, nil
	}
	own, err := r.loaders(ctx).quads.Load(ctx, obj.N.ID)
	if err != nil {
		return nil, err
	}
	label := hadith.LabelOf(obj.N.Corpus).IRI()
	var nodes []athar.ID
	for _, q := range own {
		if q.Predicate == athar.PredMention && q.Label == label {
			if id, ok := athar.ParseIRI(q.Object.IRI); ok {
				nodes = append(nodes, id)
			}
		}
	}
	if len(nodes) == 0 {
		return []*model.Mention{}, nil
	}
	qs, err := r.store.QuadsAbout(ctx, nodes)
	if err != nil {
		return nil, err
	}
	type mention struct {
		pos        int
		ids        []athar.ID
		edition    string
		start, end int
	}
	prefix := hadith.LabelOf(obj.N.Corpus).IRI() + "/mention/"
	byNode := map[string]*mention{}
	for _, q := range qs {
		rest, ok := strings.CutPrefix(q.Subject, prefix)
		if !ok {
			continue
		}
		m := byNode[q.Subject]
		if m == nil {
			m = &mention{}
			m.pos, _ = strconv.Atoi(rest)
			byNode[q.Subject] = m
		}
		switch q.Predicate {
		case athar.PredEntity:
			if id, ok := athar.ParseIRI(q.Object.IRI); ok {
				m.ids = append(m.ids, id)
			}
		case athar.PredEdition:
			m.edition = q.Object.Literal
		case athar.PredStart:
			m.start, _ = strconv.Atoi(q.Object.Literal)
		case athar.PredEnd:
			m.end, _ = strconv.Atoi(q.Object.Literal)
		}
	}
	ms := make([]*mention, 0, len(byNode))
	for _, m := range byNode {
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].pos < ms[j].pos })
	ms = ms[:min(limit, len(ms))]
	var ids []athar.ID
	for _, m := range ms {
		ids = append(ids, m.ids...)
	}
	es, err := r.entities(ctx, ids)
	if err != nil {
		return nil, err
	}
	texts := map[string][]rune{}
	for _, t := range obj.N.Texts {
		if t.Source == athar.TextFromCorpus {
			texts[t.Edition] = []rune(t.Text)
		}
	}
	out := make([]*model.Mention, 0, len(ms))
	for _, m := range ms {
		v := &model.Mention{Edition: m.edition, Start: m.start, End: m.end, Entities: []model.Entity{}}
		if t := texts[m.edition]; m.start >= 0 && m.start <= m.end && m.end <= len(t) {
			v.Text = string(t[m.start:m.end])
		}
		for range m.ids {
			if es[0] != nil {
				v.Entities = append(v.Entities, es[0])
			}
			es = es[1:]
		}
		out = append(out, v)
	}
	return out, nil
}
