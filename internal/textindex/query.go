package textindex

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"

	"github.com/athar-hadith/athar/internal/athar"
	asearch "github.com/athar-hadith/athar/internal/search"
)

// Paging limits.
const (
	MaxFirst = 1000   // hits per page
	MaxDepth = 10_000 // how far paging may go: the first hit of a page is at most this far in
	// SnippetLength is about how many code points of a text a snippet shows.
	SnippetLength = 240
)

// Query is a search.
type Query struct {
	// Text is what to look for: words, and "quoted phrases" that must occur as written
	// (after folding). A text matches when it has any of the words or phrases, and ranks
	// higher the more it has and the rarer they are; with All, it must have every one.
	// Unquoted words another translation renders differently ("strike his neck", "cut off
	// his head": renderings.go) also find that rendering, unless All is set.
	Text string
	All  bool
	// Filters: a hit's narration must match every one given (empty matches all). Values
	// are compared folded, as names are: "sahih muslim" is "Sahih Muslim".
	Collection string
	Grade      string // normalised grade, e.g. "sahih" (athar.Grade)
	Grader     string // a grader's id or name
	Chapter    string // a chapter's id or name
	Language   string // the text's language, e.g. "ar"
	First      int    // hits per page, 1 to MaxFirst; 0 means 20
	After      string // a cursor from a previous page's hit; "" for the first page
}

// Page is one page of hits.
type Page struct {
	Hits  []Hit
	Total int  // texts matching, on every page
	More  bool // some follow this page
}

// Hit is one text that matches.
type Hit struct {
	Narration  string
	Position   int // which of the narration's texts (Doc.Texts index)
	Language   string
	Edition    string
	Title      string
	References []Reference
	Score      float64 // relevance within the hit's group (Match)
	Match      Match   // which group of hits it is in
	Snippet    Snippet
	Cursor     string // pass as Query.After for the hits after this one
}

// Match is what a hit has of the query, which orders the hits: every hit of one group
// comes before any of the next.
type Match int

const (
	// SideBySide: the unquoted words side by side, as typed, or another translation's
	// rendering of them.
	SideBySide Match = iota
	// EveryWord: every word and phrase of the query (every hit of a query of one word or
	// phrase, or with All).
	EveryWord
	// SomeWords: some of the words or phrases.
	SomeWords
)

func (m Match) String() string {
	switch m {
	case SideBySide:
		return "side by side"
	case EveryWord:
		return "every word"
	default:
		return "some words"
	}
}

// Snippet is a passage of the hit's text around what matched. Every offset is in Unicode
// code points into the whole text (not the snippet, not bytes), as attestations' offsets
// are: Text is text[Start:End] counted in code points.
type Snippet struct {
	Text       string
	Start, End int
	Highlights []Span // what matched, sorted, within Start..End
}

// Span is a range of code points, End exclusive.
type Span struct{ Start, End int }

// Search returns one page of the texts matching q, best first. A query Search cannot read (an unclosed quote, nothing to look for, a bad cursor
// or page size) is an Invalid error saying what is wrong.
func (ix *Index) Search(ctx context.Context, q Query) (Page, error) {
	const op = "search texts"
	first := q.First
	if first == 0 {
		first = 20
	}
	if first < 1 || first > MaxFirst {
		return Page{}, athar.E(op, athar.Invalid, "first: %d is outside 1 to %d", first, MaxFirst)
	}
	from, err := decodeCursor(q.After)
	if err != nil {
		return Page{}, athar.E(op, athar.Invalid, "after: %q is not a cursor this search gave", q.After)
	}
	if from > MaxDepth {
		return Page{}, athar.E(op, athar.Invalid, "after: paging stops at %d hits; narrow the search with words or filters", MaxDepth)
	}
	pl, err := buildQuery(q, ix.analyze, false)
	if err != nil {
		return Page{}, athar.E(op, athar.Invalid, err)
	}
	// The page first, scored over every match but without term positions (which would be
	// decoded for every match); then the locations of the query's terms in the page's
	// texts only, from which the locator finds what matched (highlight.go). Ties in score
	// keep the index's order, stable while it is unchanged.
	hits, groups, total, err := ix.run(ctx, pl, first, from)
	if err != nil {
		return Page{}, searchError(ctx, op, err)
	}
	spans, err := ix.highlights(ctx, hits, pl.loc)
	if err != nil {
		return Page{}, searchError(ctx, op, err)
	}
	p := Page{Total: total, Hits: make([]Hit, 0, len(hits))}
	for i, h := range hits {
		hit := hitOf(h, spans[h.ID], encodeCursor(from+i+1))
		hit.Match = groups[i]
		p.Hits = append(p.Hits, hit)
	}
	p.More = from+len(hits) < p.Total
	return p, nil
}

// run returns the hits of pl from from (at most first), scored, with the stored fields a
// hit shows, and how many texts match in all. The tiers are searched in turn, each for
// what the page still lacks, skipping the hits of the pages before: the first page of
// "Messenger of Allah said" scores the 1,373 texts with the words side by side, not the
// 31,283 with any of them, which it only counts (unscored, Bleve then ORs the words'
// posting lists). Each search reads the index as it is then; a write between two of one
// request's searches may shift that page, as it may shift the pages after it.
func (ix *Index) run(ctx context.Context, pl plan, first, from int) (hits search.DocumentMatchCollection, groups []Match, total int, err error) {
	for i, t := range pl.tiers {
		if len(hits) == first {
			break
		}
		res, err := ix.scored(ctx, t, first-len(hits), from)
		if err != nil {
			return nil, nil, 0, err
		}
		hits = append(hits, res.Hits...)
		for range res.Hits {
			groups = append(groups, pl.groups[i])
		}
		if len(pl.tiers) == 1 {
			return hits, groups, int(res.Total), nil // one tier counts its own texts
		}
		from = max(0, from-int(res.Total))
	}
	if total, err = ix.count(ctx, pl.countTerms); err != nil {
		return nil, nil, 0, err
	}
	if pl.countRest != nil {
		rest := pl.countRest
		if pl.countTerms != nil {
			rest = without(rest, pl.countTerms)
		}
		n, err := ix.count(ctx, rest)
		if err != nil {
			return nil, nil, 0, err
		}
		total += n
	}
	return hits, groups, total, nil
}

// count returns how many texts q matches, unscored: a disjunction of terms is then one OR
// of their posting lists (Bleve's "unadorned" searcher), where a disjunction of
// disjunctions steps through every text.
func (ix *Index) count(ctx context.Context, q query.Query) (int, error) {
	if q == nil {
		return 0, nil
	}
	req := bleve.NewSearchRequestOptions(q, 0, 0, false)
	req.Score = "none"
	res, err := ix.bx.SearchInContext(ctx, req)
	if err != nil {
		return 0, err
	}
	return int(res.Total), nil
}

// scored runs bq for the first hits from from, scored, with the stored fields a hit shows.
func (ix *Index) scored(ctx context.Context, bq query.Query, first, from int) (*bleve.SearchResult, error) {
	req := bleve.NewSearchRequestOptions(bq, first, from, false)
	req.Fields = []string{fieldNarration, fieldLanguage, fieldEdition, fieldPosition, fieldTitle, fieldRefs, fieldText, fieldTextAr}
	return ix.bx.SearchInContext(ctx, req)
}

// highlights returns, for each hit, the spans (bytes) of what the query matched, by field:
// the locations of the query's terms in the hits' texts, matched against the query's
// clauses by loc. An Arabic text's locations come from analyzing its stored text as the
// index did (the same analyzer, so the same tokens, positions and offsets): the Arabic
// analysis only folds, and reading the locations back from the index cost four times as
// much (the quoted eulogy's page: 3.0 ms against 0.75 ms). An English text's come from one
// search of the English texts alone, with their term locations: there the stemmer makes
// analysis the dearer (2.8 ms against 2.0 ms for "Messenger of Allah said").
func (ix *Index) highlights(ctx context.Context, hits search.DocumentMatchCollection, loc locator) (map[string]map[string][]Span, error) {
	out := map[string]map[string][]Span{}
	if len(hits) == 0 {
		return out, nil
	}
	set := map[string]map[string]bool{}
	loc.terms(set)
	var english []string
	for _, h := range hits {
		text, _ := h.Fields[fieldTextAr].(string)
		if text == "" {
			english = append(english, h.ID)
			continue
		}
		tl := search.FieldTermLocationMap{}
		if terms := set[fieldTextAr]; len(terms) > 0 {
			for _, tok := range ix.analyze(fieldTextAr, text) {
				if t := string(tok.Term); terms[t] {
					if tl[fieldTextAr] == nil {
						tl[fieldTextAr] = search.TermLocationMap{}
					}
					tl[fieldTextAr][t] = append(tl[fieldTextAr][t], &search.Location{Pos: uint64(tok.Position), Start: uint64(tok.Start), End: uint64(tok.End)})
				}
			}
		}
		spans := map[string][]Span{}
		loc.locate(tl, spans)
		out[h.ID] = spans
	}
	var tqs []query.Query
	for _, t := range slices.Sorted(maps.Keys(set[fieldText])) {
		tq := bleve.NewTermQuery(t)
		tq.SetField(fieldText)
		tqs = append(tqs, tq)
	}
	if len(english) == 0 || len(tqs) == 0 {
		return out, nil
	}
	req := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(bleve.NewDocIDQuery(english), bleve.NewDisjunctionQuery(tqs...)), len(english), 0, false)
	req.IncludeLocations = true
	res, err := ix.bx.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, h := range res.Hits {
		spans := map[string][]Span{}
		loc.locate(h.Locations, spans)
		out[h.ID] = spans
	}
	return out, nil
}

// analyze analyzes text as the index analyzes field.
func (ix *Index) analyze(field, text string) analysis.TokenStream {
	a := ix.bx.Mapping().AnalyzerNamed(analyzerOf[field])
	if a == nil {
		return nil
	}
	return a.Analyze([]byte(text))
}

func searchError(ctx context.Context, op string, err error) error {
	if c := athar.Stopped(ctx, op); c != nil {
		return c
	}
	return athar.E(op, athar.Internal, err)
}

func encodeCursor(next int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("t" + strconv.Itoa(next)))
}

func decodeCursor(c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) < 2 || b[0] != 't' {
		return 0, errors.New("bad cursor")
	}
	n, err := strconv.Atoi(string(b[1:]))
	if err != nil || n < 0 {
		return 0, errors.New("bad cursor")
	}
	return n, nil
}

// part is a word or a quoted phrase of a query.
type part struct {
	text   string
	phrase bool
}

// parseText splits a query's text into words and "quoted phrases" (straight or curly
// double quotes). Errors name the problem for the person who typed the query.
func parseText(s string) ([]part, error) {
	var parts []part
	word := func(w string) {
		if foldTerm(w) != "" {
			parts = append(parts, part{text: w})
		}
	}
	rs := []rune(s)
	var cur []rune
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '"' || r == '“' || r == '”':
			word(string(cur))
			cur = cur[:0]
			j := i + 1
			for j < len(rs) && rs[j] != '"' && rs[j] != '”' && rs[j] != '“' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("the quote at character %d is not closed", i+1)
			}
			phrase := strings.TrimSpace(string(rs[i+1 : j]))
			if asearch.Normalize(phrase) == "" {
				return nil, fmt.Errorf("the phrase at character %d has no words", i+1)
			}
			parts = append(parts, part{text: phrase, phrase: true})
			i = j
		case unicode.IsSpace(r):
			word(string(cur))
			cur = cur[:0]
		default:
			cur = append(cur, r)
		}
	}
	word(string(cur))
	if len(parts) == 0 {
		return nil, errors.New("the query has no words to search for")
	}
	return parts, nil
}

// plan is how Search finds a query's texts.
type plan struct {
	// tiers are the texts matching, in rank order, none in two: the words side by side as
	// typed (or another translation's rendering of them), then the texts with every word,
	// then those with any; each tier is ranked by its own score. A query of one word or
	// phrase, or with All, is one tier.
	tiers  []query.Query
	groups []Match // each tier's
	// With more than one tier, the texts matching are counted in two parts, unscored:
	// countTerms, the words that make a hit alone as one disjunction of their terms in
	// each field, and countRest, the phrases and renderings, without the texts countTerms
	// has. Either may be nil.
	countTerms, countRest query.Query
	// whole is the query as one: every clause of every tier, which the tests read and
	// compare (its hits are the union's).
	whole query.Query
	// loc mirrors whole's text clauses (not its filters), for the highlights (highlight.go).
	loc locator
}

// buildQuery turns q into Bleve's queries: each word or phrase is looked for in both text
// fields (each analyzed as its field is), and the filters are exact terms.
//
// Phrases -- quoted, the words side by side, the renderings -- are looked for as phrases
// of pairs of adjacent words (phraseQuery); with exact, as phrases of words, which
// the tests compare them with (TestHighlightsAgreeWithBleve, TestPairsFindWhatPhrasesFind).
func buildQuery(q Query, analyze analyzeFunc, exact bool) (plan, error) {
	parts, err := parseText(q.Text)
	if err != nil {
		return plan{}, err
	}
	// The words side by side are the words as typed; each word or phrase is one clause,
	// however often it is typed ("رسول الله صلى الله عليه وسلم" has الله twice): the same
	// texts, each posting list read once.
	words := bareWords(parts)
	parts = distinctParts(parts)
	var clauses []query.Query
	var clauseLocs []locator
	for _, p := range parts {
		var alts []query.Query
		var altLocs anyLoc
		for _, f := range []string{fieldText, fieldTextAr} {
			if p.phrase {
				alts = append(alts, phraseQuery(analyze, f, p.text, exact))
				altLocs = append(altLocs, phraseOf(analyze, f, p.text))
			} else {
				mq := bleve.NewMatchQuery(p.text)
				mq.SetField(f)
				alts = append(alts, mq)
				altLocs = append(altLocs, matchLoc(analyze, f, p.text))
			}
		}
		clauses = append(clauses, bleve.NewDisjunctionQuery(alts...))
		clauseLocs = append(clauseLocs, altLocs)
	}
	var equiv []string
	if !q.All {
		equiv = equivalents(words)
	}
	var pl plan
	if q.All || (len(clauses) == 1 && len(equiv) == 0) {
		pl.whole = bleve.NewConjunctionQuery(clauses...)
		pl.loc = allLoc(clauseLocs)
		pl.tiers, pl.groups = []query.Query{pl.whole}, []Match{EveryWord}
	} else {
		// Any word matches; texts with the words as written side by side come first, then
		// the texts with every word: "عكرمة بن عمار" ranks the chains naming him above the
		// many texts with بن alone. Another translation's rendering of the same words
		// (renderings.go) ranks as the words side by side do.
		all := bleve.NewConjunctionQuery(clauses...)
		var phrases, renderings []query.Query
		var locs anyLoc
		phrase := func(text string, fields ...string) []query.Query {
			var out []query.Query
			for _, f := range fields {
				out = append(out, phraseQuery(analyze, f, text, exact))
				locs = append(locs, phraseOf(analyze, f, text))
			}
			return out
		}
		if len(words) > 1 {
			phrases = phrase(strings.Join(words, " "), fieldText, fieldTextAr)
		}
		for _, e := range equiv {
			renderings = append(renderings, phrase(e, fieldText)...) // the renderings are English
		}
		// Every text with every word has one of the words that make a hit alone (all of
		// them count when all are stop words), and so has a text with the words side by
		// side: the texts matching are those of the words alone and the renderings, which
		// are counted as the terms of those words and the rest.
		var alone, terms, rest []query.Query
		var aloneLocs []locator
		for _, i := range anyOf(parts) {
			alone = append(alone, clauses[i])
			aloneLocs = append(aloneLocs, clauseLocs[i])
			if parts[i].phrase {
				rest = append(rest, clauses[i])
				continue
			}
			for _, f := range []string{fieldText, fieldTextAr} {
				for _, tok := range analyze(f, parts[i].text) {
					tq := bleve.NewTermQuery(string(tok.Term))
					tq.SetField(f)
					terms = append(terms, tq)
				}
			}
		}
		rest = append(rest, renderings...)
		side := slices.Concat(phrases, renderings)
		locs = append(locs, allLoc(clauseLocs))
		pl.loc = append(locs, aloneLocs...)
		if len(terms) > 0 {
			pl.countTerms = bleve.NewDisjunctionQuery(terms...)
		}
		if len(rest) > 0 {
			pl.countRest = bleve.NewDisjunctionQuery(rest...)
		}
		pl.whole = bleve.NewDisjunctionQuery(slices.Concat(side, []query.Query{all}, alone)...)
		if len(side) > 0 {
			first := bleve.NewDisjunctionQuery(side...)
			pl.tiers = []query.Query{first, without(all, first), without(bleve.NewDisjunctionQuery(alone...), all, first)}
			pl.groups = []Match{SideBySide, EveryWord, SomeWords}
		} else {
			pl.tiers = []query.Query{all, without(bleve.NewDisjunctionQuery(alone...), all)}
			pl.groups = []Match{EveryWord, SomeWords}
		}
	}
	var filters []query.Query
	for _, f := range []struct{ field, value string }{
		{fieldColl, q.Collection}, {fieldGrade, q.Grade}, {fieldGrader, q.Grader},
		{fieldChapter, q.Chapter}, {fieldLanguage, q.Language},
	} {
		if strings.TrimSpace(f.value) == "" {
			continue
		}
		tq := bleve.NewTermQuery(asearch.Normalize(f.value))
		tq.SetField(f.field)
		filters = append(filters, tq)
	}
	if len(filters) > 0 {
		filtered := func(q query.Query) query.Query {
			if q == nil {
				return nil
			}
			return bleve.NewConjunctionQuery(append([]query.Query{q}, filters...)...)
		}
		for i, t := range pl.tiers {
			pl.tiers[i] = filtered(t)
		}
		pl.countTerms, pl.countRest, pl.whole = filtered(pl.countTerms), filtered(pl.countRest), filtered(pl.whole)
	}
	return pl, nil
}

// without is the texts q matches but none of not does, scored as q scores them.
func without(q query.Query, not ...query.Query) query.Query {
	b := bleve.NewBooleanQuery()
	b.AddMust(q)
	b.AddMustNot(not...)
	return b
}

// phraseQuery finds the texts having text's words side by side in field: the phrase of
// the words' pairs in the field's pairs field (analysis.go). n words side by side are n-1
// pairs at consecutive positions there, the same texts as the words' phrase
// (TestPairsFindWhatPhrasesFind), but Bleve's phrase search then steps through the texts
// having every pair, not every word -- "of" and "allah" are in 20,000 texts, "of allah" in
// far fewer, and "messenger of allah said" in fewer still -- and of those pairs it reads
// every other one (alternatePairs). With exact, or a single word, it is the words' phrase.
func phraseQuery(analyze analyzeFunc, field, text string, exact bool) query.BoostableQuery {
	mq := bleve.NewMatchPhraseQuery(text)
	mq.SetField(field)
	pf, ok := pairsFieldOf[field]
	if exact || !ok {
		return mq
	}
	if len(analyze(field, text)) < 2 {
		return mq
	}
	pairs := analyze(pf, text)
	if len(pairs) == 1 {
		// Two words are one pair: the texts having it, without positions.
		tq := bleve.NewTermQuery(string(pairs[0].Term))
		tq.SetField(pf)
		return tq
	}
	if terms, ok := alternatePairs(pairs); ok {
		return query.NewMultiPhraseQuery(terms, pf)
	}
	// A mark the folding drops before the first word puts a filler pair ("_ abu") at the
	// first pair's position, as an alternative to it: the phrase still matches without it.
	pq := bleve.NewMatchPhraseQuery(text)
	pq.SetField(pf)
	pq.Analyzer = analyzerOf[pf]
	return pq
}

// alternatePairs returns the phrase of every other pair of a phrase's pairs (and the
// last), the pairs between left as placeholders: the first, third, fifth ... pair fix
// every word but maybe the last, which the last pair fixes, so the texts are the same as
// with every pair -- "a b" at position p and "c d" at p+2 put b at p+1 and c at p+2, which
// is the pair "b c" at p+1 -- and the phrase searcher reads about half the pairs' postings
// and positions. Only for pairs one per position, without gaps and without fillers (a
// word the folding dropped); ok is false otherwise, and for phrases of under four words,
// whose pairs all count.
func alternatePairs(pairs analysis.TokenStream) (terms [][]string, ok bool) {
	if len(pairs) < 3 {
		return nil, false
	}
	for i, t := range pairs {
		if t.Position != pairs[0].Position+i || slices.Contains(strings.Split(string(t.Term), " "), "_") {
			return nil, false
		}
	}
	terms = make([][]string, len(pairs))
	for i, t := range pairs {
		if i%2 == 0 || i == len(pairs)-1 {
			terms[i] = []string{string(t.Term)}
		} else {
			terms[i] = []string{""}
		}
	}
	return terms, true
}

// pairsFieldOf is the pairs field of each text field; analyzerOf the analyzer of every field
// a query analyzes its text for.
var (
	pairsFieldOf = map[string]string{fieldText: fieldTextPairs, fieldTextAr: fieldTextArPairs}
	analyzerOf   = map[string]string{
		fieldText: analyzerEnglish, fieldTextAr: analyzerArabic,
		fieldTextPairs: analyzerEnglishPairs, fieldTextArPairs: analyzerArabicPairs,
	}
)

// anyOf gives the indexes of the parts that make a hit on their own when any word may
// match: every phrase and every word but the commonest English ones (Snowball's stop
// words: "his", "off", "the", ...), which alone would make nearly every English text a
// hit -- "cut off his head" found 14,471 texts, most of them for "his" alone, and scoring
// them all was most of the search's time. Those words still count where they are part of
// the question: in the phrases, and in the texts with every word, which rank first. A
// query of such words only keeps them all.
func anyOf(parts []part) []int {
	var out []int
	for i, p := range parts {
		if p.phrase || !stopWords[asearch.Normalize(p.text)] {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		for i := range parts {
			out = append(out, i)
		}
	}
	return out
}

// stopWords are Bleve's English stop words (Snowball's list), folded as the index folds.
var stopWords = func() map[string]bool {
	m := analysis.NewTokenMap()
	if err := m.LoadBytes(en.EnglishStopWords); err != nil {
		panic(err) // the list is compiled in
	}
	out := make(map[string]bool, len(m))
	for w := range m {
		out[asearch.Normalize(w)] = true
	}
	return out
}()

// distinctParts returns parts without the repeats of a word or phrase (folded as names
// are), in the order they are first typed.
func distinctParts(parts []part) []part {
	seen := map[part]bool{}
	out := parts[:0:0]
	for _, p := range parts {
		k := part{text: asearch.Normalize(p.text), phrase: p.phrase}
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// bareWords returns the unquoted words of a query, in order.
func bareWords(parts []part) []string {
	var out []string
	for _, p := range parts {
		if !p.phrase {
			out = append(out, p.text)
		}
	}
	return out
}

func hitOf(h *search.DocumentMatch, spansOf map[string][]Span, cursor string) Hit {
	str := func(f string) string { s, _ := h.Fields[f].(string); return s }
	hit := Hit{
		Narration: str(fieldNarration),
		Language:  str(fieldLanguage),
		Edition:   str(fieldEdition),
		Title:     str(fieldTitle),
		Score:     h.Score,
		Cursor:    cursor,
	}
	hit.Position, _ = strconv.Atoi(str(fieldPosition))
	_ = json.Unmarshal([]byte(str(fieldRefs)), &hit.References)
	field := fieldText
	text := str(fieldText)
	if text == "" {
		field, text = fieldTextAr, str(fieldTextAr)
	}
	hit.Snippet = snippetOf(text, spansOf[field])
	return hit
}

// snippetOf cuts the passage of text (about SnippetLength code points) holding the most
// highlights, and converts the highlights from byte to code point offsets. Highlights of
// adjacent words (a phrase) are joined into one.
func snippetOf(text string, spans []Span) Snippet {
	sort.Slice(spans, func(i, j int) bool { return spans[i].Start < spans[j].Start })
	// Byte offsets to code point offsets, in one pass over the text.
	cp := byteToRune(text)
	var hl []Span
	var words []int // how many matched words each highlight joins
	for _, s := range spans {
		if s.Start < 0 || s.End > len(text) || s.Start >= s.End {
			continue
		}
		c := Span{cp[s.Start], cp[s.End]}
		if n := len(hl); n > 0 && c.Start <= hl[n-1].End {
			hl[n-1].End = max(hl[n-1].End, c.End)
			continue
		}
		if n := len(hl); n > 0 && onlySpace(text, hl[n-1].End, c.Start, cp) {
			hl[n-1].End = c.End
			words[n-1]++
			continue
		}
		hl = append(hl, c)
		words = append(words, 1)
	}
	runes := []rune(text)
	n := len(runes)
	if n <= SnippetLength {
		return Snippet{Text: text, Start: 0, End: n, Highlights: nonNil(hl)}
	}
	// The window starting a little before some highlight that covers the most highlights,
	// a phrase of k words counting as k*k single words: the passage where the words stand
	// together, as a phrase query asks, beats one where a common word of it recurs.
	const lead = 60
	start, best := 0, -1
	for i := range hl {
		s := max(0, hl[i].Start-lead)
		c := 0
		for j := i; j < len(hl) && hl[j].End <= s+SnippetLength; j++ {
			c += words[j] * words[j]
		}
		if c > best {
			start, best = s, c
		}
	}
	end := min(n, start+SnippetLength)
	if end == n {
		start = max(0, n-SnippetLength)
	}
	// Whole words at either end: forward to a word's start, back to a word's end.
	if start > 0 {
		for k := start; k < min(start+20, end); k++ {
			if unicode.IsSpace(runes[k-1]) && !unicode.IsSpace(runes[k]) {
				start = k
				break
			}
		}
	}
	if end < n {
		for k := end; k > max(end-20, start); k-- {
			if !unicode.IsSpace(runes[k-1]) && unicode.IsSpace(runes[k]) {
				end = k
				break
			}
		}
	}
	var in []Span
	for _, h := range hl {
		if h.Start >= start && h.End <= end {
			in = append(in, h)
		}
	}
	return Snippet{Text: string(runes[start:end]), Start: start, End: end, Highlights: nonNil(in)}
}

func nonNil(s []Span) []Span {
	if s == nil {
		return []Span{}
	}
	return s
}

// onlySpace reports whether the few code points between a and b are spaces and
// punctuation, no letter or digit (so two highlighted words separated by them, as in
// "al-Muttalib" or "يَحْيَى، بْنُ", read as one phrase).
func onlySpace(text string, a, b int, cp []int) bool {
	if b-a > 3 {
		return false
	}
	// The byte offset of code point a: cp is monotonic.
	i := sort.SearchInts(cp, a)
	for _, r := range text[i:] {
		if cp[i] >= b {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
		i += utf8.RuneLen(r)
	}
	return true
}

// byteToRune returns, for every byte offset of text (and len(text)), the code point offset
// of the character starting there (or containing it).
func byteToRune(text string) []int {
	cp := make([]int, len(text)+1)
	n := 0
	for i := 0; i < len(text); {
		_, size := utf8.DecodeRuneInString(text[i:])
		for k := range size {
			cp[i+k] = n
		}
		i += size
		n++
	}
	cp[len(text)] = n
	return cp
}
