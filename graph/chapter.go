package graph

import (
	"context"
	"sort"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/athar-hadith/athar/graph/generated"
	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/hadith"
)

// Chapter returns the Chapter resolver.
func (r *Resolver) Chapter() generated.ChapterResolver { return &chapterResolver{r} }

type chapterResolver struct{ *Resolver }

// chapter reads a chapter of a canonical collection; nil when the graph has none.
func (r *Resolver) chapter(ctx context.Context, id athar.ID) (*model.Chapter, error) {
	if id.Prefix() != "chapter" {
		return nil, nil
	}
	qs, err := r.store.QuadsAbout(ctx, []athar.ID{id})
	if err != nil {
		return nil, err
	}
	c := hadith.ChapterOf(id, qs)
	if c == nil {
		return nil, nil
	}
	return &model.Chapter{C: *c}, nil
}

func (r *queryResolver) Chapter(ctx context.Context, id string) (*model.Chapter, error) {
	return r.chapter(ctx, athar.ID(id))
}

func (r *narrationResolver) Chapter(ctx context.Context, obj *model.Narration) (*model.Chapter, error) {
	if obj.N.Chapter == "" {
		return nil, nil
	}
	if obj.N.Corpus != "" {
		// Every record of the chapter repeats its quads under its own label (Bukhari's
		// chapter 64: 488 times): the narration's own record says the same, read from
		// the record's quads alone.
		qs, err := r.store.NarrationQuads(ctx, hadith.LabelOf(obj.N.Corpus))
		if err != nil {
			return nil, err
		}
		if c := hadith.ChapterOf(obj.N.Chapter, qs); c != nil {
			return &model.Chapter{C: *c}, nil
		}
	}
	return r.chapter(ctx, obj.N.Chapter)
}

// Narrations pages the chapter's narrations by hadith number: the corpus records that put
// a narration in it (each record's label gives its number), read through the store's
// object index.
func (r *chapterResolver) Narrations(ctx context.Context, obj *model.Chapter, first *int, after *string) (*model.NarrationConnection, error) {
	qs, err := r.store.QuadsTo(ctx, athar.PredChapter, athar.IRITerm(obj.C.ID.IRI()))
	if err != nil {
		return nil, err
	}
	type member struct {
		key string
		id  athar.ID
	}
	var ms []member
	for _, q := range qs {
		k, ok := hadith.KeyOfLabel(q.Label)
		id, ok2 := athar.ParseIRI(q.Subject)
		if !ok || !ok2 {
			continue
		}
		_, num, _ := hadith.SplitKey(k)
		ms = append(ms, member{hadith.SortKey(num) + "\x00" + string(id), id})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	key := func(i int) string { return ms[i].key }
	w, err := paginate(len(ms), key, first, after)
	if err != nil {
		return nil, err
	}
	ids := make([]athar.ID, 0, w.to-w.from)
	for _, m := range ms[w.from:w.to] {
		ids = append(ids, m.id)
	}
	var ns []*model.Narration
	if selectsSummaries(ctx) {
		// Titles only (the chapter page): one index range per narration, not its
		// references, chain, gradings and texts.
		sums, err := r.store.NarrationSummaries(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, n := range sums {
			if n != nil {
				ns = append(ns, &model.Narration{N: n})
			}
		}
	} else if ns, err = r.narrations(ctx, ids); err != nil {
		return nil, err
	}
	byID := map[athar.ID]*model.Narration{}
	for _, n := range ns {
		byID[n.N.ID] = n
	}
	conn := &model.NarrationConnection{Edges: []*model.NarrationEdge{}, PageInfo: pageInfo(w, key), TotalCount: w.total}
	for i := w.from; i < w.to; i++ {
		if n := byID[ms[i].id]; n != nil {
			conn.Edges = append(conn.Edges, &model.NarrationEdge{Cursor: encodeCursor(ms[i].key), Node: n})
		}
	}
	return conn, nil
}

// corpusNarration finds the narration a corpus record's own id (narration:muslim-4588)
// names when a document sits on it under another id; "" when none.
func (r *Resolver) corpusNarration(ctx context.Context, id athar.ID) (athar.ID, error) {
	n, _, err := athar.NarrationNamed(ctx, r.store, id)
	if n == id {
		return "", err // a narration of its own: the caller found none by this id
	}
	return n, err
}

// narrationList loads the narrations of a list field: their summaries when the field asks
// for nothing more (Person.narrated(first: 20) { id }), else whole; absent ones left out.
func (r *Resolver) narrationList(ctx context.Context, ids []athar.ID) ([]*model.Narration, error) {
	if !asksSummaryOnly(ctx) {
		return r.narrations(ctx, ids)
	}
	sums, err := r.store.NarrationSummaries(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*model.Narration, 0, len(sums))
	for _, n := range sums {
		if n != nil {
			out = append(out, &model.Narration{N: n})
		}
	}
	return out, nil
}

// asksSummaryOnly reports whether the field being resolved asks of the narrations it gives
// only what their summaries answer (false outside a GraphQL request).
func asksSummaryOnly(ctx context.Context) bool {
	return graphql.HasOperationContext(ctx) && graphql.GetFieldContext(ctx) != nil &&
		summaryOnly(graphql.GetOperationContext(ctx), graphql.GetFieldContext(ctx).Field.Selections)
}

// nodesAskSummaryOnly reports whether the Subgraph field being resolved (neighbourhood,
// shortestPath) asks of its nodes only what narrations' summaries answer: a depth-2
// neighbourhood of Badr over the corpus holds some 120 narrations, which read whole (two
// texts each, references, gradings, chain) were most of its time. False outside a
// GraphQL request.
func nodesAskSummaryOnly(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) || graphql.GetFieldContext(ctx) == nil {
		return false
	}
	op := graphql.GetOperationContext(ctx)
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		if f.Name == "nodes" && !summaryOnly(op, f.Selections) {
			return false
		}
	}
	return true
}

// summaryOnly reports whether a selection of a Narration asks only for what its summary
// gives.
func summaryOnly(op *graphql.OperationContext, set ast.SelectionSet) bool {
	for _, f := range graphql.CollectFields(op, set, []string{"Narration", "Entity"}) {
		if !summaryFields[f.Name] {
			return false
		}
	}
	return true
}

// summaryFields are the Narration fields a summary (Store.NarrationSummaries) answers.
var summaryFields = map[string]bool{"id": true, "title": true, "name": true, "type": true, "corpusRecord": true, "__typename": true}

// selectsSummaries reports whether the narration connection being resolved asks of its
// narrations only what their summaries give (false outside a GraphQL request).
func selectsSummaries(ctx context.Context) bool {
	if !graphql.HasOperationContext(ctx) || graphql.GetFieldContext(ctx) == nil {
		return false
	}
	op := graphql.GetOperationContext(ctx)
	summary := func(set ast.SelectionSet) bool { return summaryOnly(op, set) }
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		switch f.Name {
		case "totalCount", "pageInfo", "__typename":
		case "edges":
			for _, e := range graphql.CollectFields(op, f.Selections, nil) {
				if e.Name == "node" && !summary(e.Selections) || e.Name != "node" && e.Name != "cursor" && e.Name != "__typename" {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}
