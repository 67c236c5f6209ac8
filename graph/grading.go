package graph

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/athar-hadith/athar/graph/generated"
	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/search"
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

func (r *gradingResolver) Narration(ctx context.Context, obj *model.Grading) (*model.Narration, error) {
	if onlyID(ctx) {
		return &model.Narration{N: &athar.Narration{ID: obj.Narration}}, nil
	}
	n, err := r.narration(ctx, obj.Narration)
	if err == nil && n == nil {
		err = fmt.Errorf("grading %d of %s: the narration is not in the graph", obj.G.Position, obj.Narration)
	}
	return n, err
}

// Gradings lists every narration's gradings that match the filters, by narration id and
// position. It reads every narration: costed as a scan (scanFields).
func (r *queryResolver) Gradings(ctx context.Context, grader *string, graderName *string, grade *model.Grade, verdict *string, scope *model.GradingScope, first *int) ([]*model.Grading, error) {
	n, err := model.First(first, 100)
	if err != nil {
		return nil, err
	}
	var graderID athar.ID
	if grader != nil {
		id, err := parseID("grader", *grader)
		if err != nil {
			return nil, err
		}
		if graderID, err = r.resolve(ctx, id); err != nil {
			return nil, err
		}
	}
	ids, err := r.store.EntityIDs(ctx, athar.TypeNarration)
	if err != nil {
		return nil, err
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	ns, err := r.store.Narrations(ctx, ids)
	if err != nil {
		return nil, err
	}
	// Names and aliases of graders given by id, for graderName: read once.
	names := map[athar.ID][]string{}
	if graderName != nil {
		var pids []athar.ID
		for _, nar := range ns {
			if nar == nil {
				continue
			}
			for _, g := range nar.Gradings {
				if g.Grader != "" {
					pids = append(pids, g.Grader)
				}
			}
		}
		es, err := r.store.Entities(ctx, pids)
		if err != nil {
			return nil, err
		}
		for i, e := range es {
			if e != nil {
				names[pids[i]] = append([]string{e.Name}, e.Aliases...)
			}
		}
	}
	out := []*model.Grading{}
	for _, nar := range ns {
		if nar == nil {
			continue
		}
		for _, g := range nar.Gradings {
			if len(out) >= n {
				return out, nil
			}
			if grader != nil && g.Grader != graderID {
				continue
			}
			if graderName != nil {
				known := []string{g.GraderName}
				if g.Grader != "" {
					known = names[g.Grader]
				}
				if !slices.ContainsFunc(known, func(n string) bool { return search.Normalize(n) == search.Normalize(*graderName) }) {
					continue
				}
			}
			if grade != nil && (g.Grade == "" || *(&model.Grading{G: g}).Grade() != *grade) {
				continue
			}
			if verdict != nil && !strings.EqualFold(strings.TrimSpace(g.Verdict), strings.TrimSpace(*verdict)) {
				continue
			}
			if scope != nil && model.GradingScope(strings.ToUpper(string(g.Scope))) != *scope {
				continue
			}
			out = append(out, &model.Grading{G: g, Narration: nar.ID})
		}
	}
	return out, nil
}
