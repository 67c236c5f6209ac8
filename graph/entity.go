package graph

import (
	"context"

	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
)

// relationField is one generated relation field (see relations_gen.go): Type.Field reads
// the claims of Predicate from the Direction side.
type relationField struct {
	Type      string
	Field     string
	Predicate string
	Direction model.Direction
}

// entityNarrations resolves Entity.narrations.
func (r *Resolver) entityNarrations(ctx context.Context, obj model.Entity) ([]*model.Narration, error) {
	var ids []athar.ID
	switch e := obj.(type) {
	case *model.Narration:
		// A narration's view carries no entity record: load it for the mentions.
		ent, err := r.loaders(ctx).entity.Load(ctx, e.N.ID)
		if err != nil {
			return nil, err
		}
		if ent != nil {
			ids = ent.Narrations
		}
	case interface{ Data() *athar.Entity }:
		ids = e.Data().Narrations
	}
	return r.narrations(ctx, ids)
}

// entityClaims resolves Entity.claims: the claims with the entity as subject or object.
func (r *Resolver) entityClaims(ctx context.Context, obj model.Entity, predicate *string, first *int, after *string) (*model.ClaimConnection, error) {
	claims, err := r.about(ctx, obj.EntityID(), predicate)
	if err != nil {
		return nil, err
	}
	return claimConnection(claims, first, after)
}

// entityRelations resolves Entity.relations.
func (r *Resolver) entityRelations(ctx context.Context, obj model.Entity, predicate *string, direction *model.Direction, first *int, after *string) (*model.RelationConnection, error) {
	dir := model.DirectionBoth
	if direction != nil {
		dir = *direction
	}
	rels, err := r.relations(ctx, obj.EntityID(), predicate, dir)
	if err != nil {
		return nil, err
	}
	return relationConnection(rels, first, after)
}

// namedRelations resolves a generated relation field (Event.participants).
func (r *Resolver) namedRelations(ctx context.Context, obj model.Entity, predicate string, dir model.Direction, first *int, after *string) (*model.RelationConnection, error) {
	rels, err := r.relations(ctx, obj.EntityID(), &predicate, dir)
	if err != nil {
		return nil, err
	}
	return relationConnection(rels, first, after)
}

// about returns the claims with id as subject or object, of one predicate when given.
func (r *Resolver) about(ctx context.Context, id athar.ID, predicate *string) ([]*athar.Claim, error) {
	if predicate != nil && *predicate != "" {
		if err := r.checkPredicate("predicate", *predicate); err != nil {
			return nil, err
		}
	}
	all, err := r.loaders(ctx).about.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	out := make([]*athar.Claim, 0, len(all))
	for _, c := range all {
		if predicate == nil || *predicate == "" || c.Predicate == *predicate {
			out = append(out, c)
		}
	}
	return out, nil
}

// relations reads the claims about id as relations from id's side.
func (r *Resolver) relations(ctx context.Context, id athar.ID, predicate *string, dir model.Direction) ([]*model.Relation, error) {
	claims, err := r.about(ctx, id, predicate)
	if err != nil {
		return nil, err
	}
	rels := make([]*model.Relation, 0, len(claims))
	for _, c := range claims {
		var value *string
		if c.Value != nil {
			v := c.Value.Literal
			value = &v
		}
		if c.Subject == id && dir != model.DirectionIncoming {
			rels = append(rels, &model.Relation{Predicate: c.Predicate, Name: c.Predicate, Direction: model.DirectionOutgoing, Value: value, Other: c.Object, C: c})
		}
		if c.Object == id && dir != model.DirectionOutgoing {
			name := c.Predicate
			if p, ok := r.vocab.Predicate(c.Predicate); ok && p.Inverse != "" {
				name = p.Inverse
			}
			rels = append(rels, &model.Relation{Predicate: c.Predicate, Name: name, Direction: model.DirectionIncoming, Other: c.Subject, C: c})
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
	return claimConnection(claims, first, after)
}
