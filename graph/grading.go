package graph

import (
	"context"
	"fmt"
	"slices"
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
// position: a page of the store's list of the grader and grade, filtered by the others.
func (r *queryResolver) Gradings(ctx context.Context, grader *string, graderName *string, grade *model.Grade, verdict *string, scope *model.GradingScope, first *int, after *string) ([]*model.Grading, error) {
	n, err := model.First(first, 100)
	if err != nil {
		return nil, err
	}
	f, err := r.gradingFilter(ctx, grader, graderName, grade, verdict, scope, after)
	if err != nil {
		return nil, err
	}
	page, err := r.pageGradings(ctx, f, n, false)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Grading, 0, len(page.Gradings))
	for _, g := range page.Gradings {
		out = append(out, &model.Grading{G: g.Grading, Narration: g.Narration})
	}
	return out, nil
}

// GradingConnection is Gradings as a connection.
func (r *queryResolver) GradingConnection(ctx context.Context, grader *string, graderName *string, grade *model.Grade, verdict *string, scope *model.GradingScope, first *int, after *string) (*model.GradingConnection, error) {
	n, err := model.First(first, 100)
	if err != nil {
		return nil, err
	}
	f, err := r.gradingFilter(ctx, grader, graderName, grade, verdict, scope, after)
	if err != nil {
		return nil, err
	}
	page, err := r.pageGradings(ctx, f, n, true)
	if err != nil {
		return nil, err
	}
	conn := &model.GradingConnection{Edges: []*model.GradingEdge{}, PageInfo: &model.PageInfo{HasNextPage: page.More}, TotalCount: page.Total}
	for _, g := range page.Gradings {
		conn.Edges = append(conn.Edges, &model.GradingEdge{Cursor: encodeCursor(g.Key), Node: &model.Grading{G: g.Grading, Narration: g.Narration}})
	}
	if len(conn.Edges) > 0 {
		conn.PageInfo.EndCursor = &conn.Edges[len(conn.Edges)-1].Cursor
	}
	return conn, nil
}

// gradingFilter is what the gradings queries select: the store's list (grader and grade)
// and the filters read over it.
type gradingFilter struct {
	list       athar.GradingPageQuery
	graderName *string
	verdict    *string
	scope      *model.GradingScope
}

// filtered reports whether the filter reads more than a page of the list.
func (f gradingFilter) filtered() bool {
	return f.graderName != nil || f.verdict != nil || f.scope != nil
}

func (r *queryResolver) gradingFilter(ctx context.Context, grader *string, graderName *string, grade *model.Grade, verdict *string, scope *model.GradingScope, after *string) (gradingFilter, error) {
	f := gradingFilter{graderName: graderName, verdict: verdict, scope: scope}
	if grader != nil {
		id, err := parseID("grader", *grader)
		if err != nil {
			return f, err
		}
		if f.list.Grader, err = r.resolve(ctx, id); err != nil {
			return f, err
		}
	}
	if grade != nil {
		f.list.Grade = athar.Grade(strings.ReplaceAll(strings.ToLower(string(*grade)), "_", "-"))
	}
	if after != nil && *after != "" {
		k, err := decodeCursor(*after)
		if err != nil {
			return f, err
		}
		f.list.After = k
	}
	return f, nil
}

// gradingChunk is how many gradings a filtered query reads from the store at a time.
const gradingChunk = 500

// pageGradings reads first gradings matching f, with whether more follow and, when count
// is set, how many match in all (with filters beyond the list, by reading all of it).
func (r *queryResolver) pageGradings(ctx context.Context, f gradingFilter, first int, count bool) (athar.GradingPage, error) {
	if !f.filtered() {
		q := f.list
		q.First = first
		return r.store.PageGradings(ctx, q)
	}
	out := athar.GradingPage{Gradings: []athar.NarrationGrading{}}
	names := map[athar.ID][]string{} // a grader's name and aliases, for graderName
	q := f.list
	q.First = gradingChunk
	for {
		page, err := r.store.PageGradings(ctx, q)
		if err != nil {
			return athar.GradingPage{}, err
		}
		if f.graderName != nil {
			var pids []athar.ID
			for _, g := range page.Gradings {
				if id := g.Grading.Grader; id != "" && names[id] == nil {
					pids = append(pids, id)
					names[id] = []string{}
				}
			}
			if len(pids) > 0 {
				es, err := r.store.Entities(ctx, pids)
				if err != nil {
					return athar.GradingPage{}, err
				}
				for i, e := range es {
					if e != nil {
						names[pids[i]] = append([]string{e.Name}, e.Aliases...)
					}
				}
			}
		}
		for _, ng := range page.Gradings {
			if !f.match(ng.Grading, names) {
				continue
			}
			if len(out.Gradings) == first {
				out.More = true
				if !count {
					return out, nil
				}
			} else {
				out.Gradings = append(out.Gradings, ng)
			}
			out.Total++
		}
		if !page.More || len(page.Gradings) == 0 {
			return out, nil
		}
		q.After = page.Gradings[len(page.Gradings)-1].Key
	}
}

// match reports whether g passes the filters beyond the list.
func (f gradingFilter) match(g athar.Grading, names map[athar.ID][]string) bool {
	if f.graderName != nil {
		known := []string{g.GraderName}
		if g.Grader != "" {
			known = names[g.Grader]
		}
		want := search.Normalize(*f.graderName)
		if !slices.ContainsFunc(known, func(n string) bool { return search.Normalize(n) == want }) {
			return false
		}
	}
	if f.verdict != nil && !strings.EqualFold(strings.TrimSpace(g.Verdict), strings.TrimSpace(*f.verdict)) {
		return false
	}
	return f.scope == nil || model.GradingScope(strings.ToUpper(string(g.Scope))) == *f.scope
}
