package graph

import (
	"context"

	"github.com/athar-hadith/athar/graph/generated"
	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
)

// Grading returns the Grading resolver.
func (r *Resolver) Grading() generated.GradingResolver { return &gradingResolver{r} }

type gradingResolver struct{ *Resolver }

func (r *gradingResolver) Grader(ctx context.Context, obj *model.Grading) (*model.Person, error) {
	if obj.G.Grader == "" {
		return nil, nil // named in text, not as a person of the graph
	}
	ps, err := r.persons(ctx, []athar.ID{obj.G.Grader})
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

func (r *gradingResolver) GraderName(ctx context.Context, obj *model.Grading) (string, error) {
	if obj.G.Grader == "" {
		return obj.G.GraderName, nil
	}
	p, err := r.Grader(ctx, obj)
	if err != nil {
		return "", err
	}
	return p.Name(), nil
}
