package textindex

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/search"
)

// A locator says, for one text, whether a clause of a query matches it and where: the
// spans Bleve's own searcher would report as the match's locations, computed from the
// locations of the clause's terms in that text alone.
//
// Search finds a page's highlights this way instead of running the query again over the
// page's texts with locations: Bleve's phrase searcher, once advanced to a text where its
// phrase is not, reads on through every later text having all its words until it finds
// one -- for "cut off his head" (a phrase of the words side by side and five renderings of
// common words) that second pass cost as much as the search itself. The locations of each
// term in the page's texts are cheap to read; the phrases are then matched here the way
// Bleve matches them (findPhrasePaths without slop: consecutive positions, an empty slot
// standing for any word). TestHighlightsAgreeWithBleve checks the two agree.
type locator interface {
	// locate appends to out the spans (bytes) of what the clause matches in a text whose
	// term locations are tl, by field, and reports whether it matches.
	locate(tl search.FieldTermLocationMap, out map[string][]Span) bool
	// terms adds the clause's terms to set, by field.
	terms(set map[string]map[string]bool)
}

// analyzeFunc analyzes text as field is analyzed at indexing.
type analyzeFunc func(field, text string) analysis.TokenStream

// termsLoc is a match query: any of the terms of a word as analyzed (Bleve ORs them).
type termsLoc struct {
	field string
	words []string
}

func (l termsLoc) locate(tl search.FieldTermLocationMap, out map[string][]Span) bool {
	found := false
	for _, w := range l.words {
		for _, loc := range tl[l.field][w] {
			out[l.field] = append(out[l.field], Span{int(loc.Start), int(loc.End)})
			found = true
		}
	}
	return found
}

func (l termsLoc) terms(set map[string]map[string]bool) { addTerms(set, l.field, l.words) }

// phraseLoc is a phrase: the terms at each position in turn (Bleve's tokenStreamToPhrase;
// an empty position, left by a token the analyzer dropped, matches any word).
type phraseLoc struct {
	field string
	slots [][]string
}

func (l phraseLoc) locate(tl search.FieldTermLocationMap, out map[string][]Span) bool {
	tlm := tl[l.field]
	found := false
	var path []*search.Location
	var walk func(prev uint64, slots [][]string)
	walk = func(prev uint64, slots [][]string) {
		if len(slots) == 0 {
			for _, loc := range path {
				out[l.field] = append(out[l.field], Span{int(loc.Start), int(loc.End)})
			}
			found = true
			return
		}
		if len(slots[0]) == 0 { // never the first: phraseOf starts at a token
			walk(prev+1, slots[1:])
			return
		}
		for _, term := range slots[0] {
			for _, loc := range tlm[term] {
				if prev != 0 && loc.Pos != prev+1 {
					continue
				}
				path = append(path, loc)
				walk(loc.Pos, slots[1:])
				path = path[:len(path)-1]
			}
		}
	}
	walk(0, l.slots)
	return found
}

func (l phraseLoc) terms(set map[string]map[string]bool) {
	for _, s := range l.slots {
		addTerms(set, l.field, s)
	}
}

// allLoc matches when every clause does (a conjunction), with all their spans.
type allLoc []locator

func (l allLoc) locate(tl search.FieldTermLocationMap, out map[string][]Span) bool {
	mine := map[string][]Span{}
	for _, c := range l {
		if !c.locate(tl, mine) {
			return false
		}
	}
	for f, s := range mine {
		out[f] = append(out[f], s...)
	}
	return len(l) > 0
}

func (l allLoc) terms(set map[string]map[string]bool) {
	for _, c := range l {
		c.terms(set)
	}
}

// anyLoc matches when some clause does (a disjunction), with the spans of those that do.
type anyLoc []locator

func (l anyLoc) locate(tl search.FieldTermLocationMap, out map[string][]Span) bool {
	found := false
	for _, c := range l {
		if c.locate(tl, out) {
			found = true
		}
	}
	return found
}

func (l anyLoc) terms(set map[string]map[string]bool) {
	for _, c := range l {
		c.terms(set)
	}
}

func addTerms(set map[string]map[string]bool, field string, terms []string) {
	if len(terms) == 0 {
		return
	}
	if set[field] == nil {
		set[field] = map[string]bool{}
	}
	for _, t := range terms {
		set[field][t] = true
	}
}

// matchLoc is the locator of bleve.NewMatchQuery(text) on field.
func matchLoc(analyze analyzeFunc, field, text string) locator {
	var words []string
	for _, t := range analyze(field, text) {
		words = append(words, string(t.Term))
	}
	return termsLoc{field: field, words: words}
}

// phraseOf is the locator of bleve.NewMatchPhraseQuery(text) on field.
func phraseOf(analyze analyzeFunc, field, text string) locator {
	tokens := analyze(field, text)
	if len(tokens) == 0 {
		return termsLoc{field: field} // matches nothing, as Bleve's MatchNone
	}
	first, last := tokens[0].Position, tokens[0].Position
	for _, t := range tokens {
		first, last = min(first, t.Position), max(last, t.Position)
	}
	slots := make([][]string, last-first+1)
	for _, t := range tokens {
		slots[t.Position-first] = append(slots[t.Position-first], string(t.Term))
	}
	return phraseLoc{field: field, slots: slots}
}
