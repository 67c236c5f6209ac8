package textindex

import (
	"context"

	"github.com/blevesearch/bleve/v2"
)

// SetDiffPage sets how many entries Diff reads a search, for the external tests; the
// returned function restores it.
func SetDiffPage(n int) (restore func()) {
	old := diffPage
	diffPage = n
	return func() { diffPage = old }
}

// pageSize is q's page size as Search reads it.
func pageSize(q Query) int {
	if q.First == 0 {
		return 20
	}
	return q.First
}

// SearchExactPhrases is Search's first pass with English phrases looked for as phrases of
// words instead of phrases of pairs (phraseQuery): its hits and total, without snippets,
// for TestPairsFindWhatPhrasesFind to compare.
func (ix *Index) SearchExactPhrases(ctx context.Context, q Query) (Page, error) {
	pl, err := buildQuery(q, ix.analyze, true)
	if err != nil {
		return Page{}, err
	}
	hits, _, total, err := ix.run(ctx, pl, pageSize(q), 0)
	if err != nil {
		return Page{}, err
	}
	p := Page{Total: total}
	for i, h := range hits {
		p.Hits = append(p.Hits, hitOf(h, nil, encodeCursor(i+1)))
	}
	return p, nil
}

// SearchBleveLocations is Search with its highlights found as Bleve finds them: the query
// run again over the page's texts with their term locations (how Search found them before
// its locators). TestHighlightsAgreeWithBleve compares the two.
func (ix *Index) SearchBleveLocations(ctx context.Context, q Query) (Page, error) {
	pl, err := buildQuery(q, ix.analyze, false)
	if err != nil {
		return Page{}, err
	}
	// The words side by side and the renderings as the phrases they are, for their
	// locations (the pairs fields have none).
	exact, err := buildQuery(q, ix.analyze, true)
	if err != nil {
		return Page{}, err
	}
	hits, _, total, err := ix.run(ctx, pl, pageSize(q), 0)
	if err != nil || len(hits) == 0 {
		return Page{}, err
	}
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	lreq := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(bleve.NewDocIDQuery(ids), exact.whole), len(ids), 0, false)
	lreq.IncludeLocations = true
	lres, err := ix.bx.SearchInContext(ctx, lreq)
	if err != nil {
		return Page{}, err
	}
	spans := map[string]map[string][]Span{}
	for _, h := range lres.Hits {
		spans[h.ID] = map[string][]Span{}
		for f, tl := range h.Locations {
			for _, locs := range tl {
				for _, l := range locs {
					spans[h.ID][f] = append(spans[h.ID][f], Span{int(l.Start), int(l.End)})
				}
			}
		}
	}
	p := Page{Total: total}
	for i, h := range hits {
		p.Hits = append(p.Hits, hitOf(h, spans[h.ID], encodeCursor(i+1)))
	}
	return p, nil
}
