package graph

import (
	"context"

	"github.com/athar-hadith/athar/graph/generated"
	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/textindex"
)

// TextSearcher searches narration texts: *textindex.Index and *BackgroundTextIndex are.
type TextSearcher = textSearcher

// textSearcher searches narration texts; *textindex.Index satisfies it.
type textSearcher interface {
	Search(ctx context.Context, q textindex.Query) (textindex.Page, error)
}

// Full-text search paging.
const (
	// MaxSearchTexts is the most hits one page of searchTexts returns.
	MaxSearchTexts = textindex.MaxFirst
	// defaultSearchTexts is searchTexts' first when not given (the schema's default).
	defaultSearchTexts = 20
)

func (r *queryResolver) SearchTexts(ctx context.Context, query string, collection, grade, grader, chapter, language *string, all *bool, first *int, after *string) (*model.TextHitConnection, error) {
	if r.texts == nil {
		return nil, athar.E("", athar.Unavailable, "full-text search is not configured on this server")
	}
	q := textindex.Query{Text: query, First: defaultSearchTexts,
		Collection: deref(collection), Grade: deref(grade), Grader: deref(grader),
		Chapter: deref(chapter), Language: deref(language), After: deref(after)}
	if all != nil {
		q.All = *all
	}
	if first != nil {
		if *first < 1 || *first > MaxSearchTexts {
			return nil, athar.E("", athar.Invalid, "first: %d is outside 1 to %d", *first, MaxSearchTexts)
		}
		q.First = *first
	}
	if q.Grade != "" {
		g, ok := athar.ParseGrade(q.Grade)
		if !ok {
			return nil, athar.E("", athar.Invalid, "grade: %q is not one of sahih, hasan-sahih, hasan, daif, mawdu", q.Grade)
		}
		q.Grade = string(g)
	}
	p, err := r.texts.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	conn := &model.TextHitConnection{TotalCount: p.Total, Edges: make([]*model.TextHitEdge, len(p.Hits)),
		PageInfo: &model.PageInfo{HasNextPage: p.More}}
	for i, h := range p.Hits {
		conn.Edges[i] = &model.TextHitEdge{Cursor: h.Cursor, Node: &model.TextHit{H: h}}
	}
	if n := len(p.Hits); n > 0 {
		conn.PageInfo.EndCursor = &p.Hits[n-1].Cursor
	}
	return conn, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// TextHit returns the TextHit resolver.
func (r *Resolver) TextHit() generated.TextHitResolver { return &textHitResolver{r} }

type textHitResolver struct{ *Resolver }

// Narration loads the hit's narration through the request's loader. The index may briefly
// name a narration just deleted: that is NOT_FOUND on this hit only.
func (r *textHitResolver) Narration(ctx context.Context, obj *model.TextHit) (*model.Narration, error) {
	var n *model.Narration
	var err error
	if asksSummaryOnly(ctx) {
		// A hit's narration shown by id or title: its summary, not the narration whole with
		// its texts (two per corpus hadith), references and chain -- a page of 20 hits read
		// whole was a third of searchTexts over the corpus.
		var s *athar.Narration
		if s, err = r.loaders(ctx).narrationSummary.Load(ctx, athar.ID(obj.H.Narration)); s != nil {
			n = &model.Narration{N: s}
		}
	} else {
		n, err = r.narration(ctx, athar.ID(obj.H.Narration))
	}
	if err == nil && n == nil {
		err = athar.E("", athar.NotFound, "narration %s is no longer in the graph", obj.H.Narration)
	}
	return n, err
}
