package textindex

import (
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/token/shingle"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/athar-hadith/athar/internal/search"
)

// The analyzers, by the names the index mapping stores.
//
// Both text analyzers split words with Unicode's word boundaries (UAX #29), then fold each
// word with search.Normalize -- the same folding the name index applies, so a name and a
// text are forgiving of the same things: case, transliteration marks (' ` ʿ ʾ ’), Latin
// diacritics ("Muṭṭalib" is "muttalib"), Arabic harakat, superscript alef and tatweel, and
// the Arabic letter variants (أ إ آ ٱ are ا, ة is ه, ى is ي, ؤ is و, ئ is ي). Folding
// changes a token's term, never its offsets, so highlights point at the text as written.
//
//   - analyzerEnglish (every text not in Arabic) then applies Porter's stemmer: "prisoners"
//     finds "prisoner", and a phrase still matches, both sides being stemmed alike. No stop
//     words are dropped: "his" in "strike his neck" counts (the query keeps it from making a
//     hit alone: anyOf, query.go).
//   - analyzerArabic stops there: no stemmer and no stop words. Bleve's "ar" analyzer's
//     light stemmer strips affixes that are often part of names (عمران becomes عمر, the
//     final ه of عكرمه goes), so a name search would find other people; and the particles
//     it drops as stop words (بن, عن) are what a chain is made of.
//
// Every text is also indexed as its pairs of adjacent words (analyzerEnglishPairs,
// analyzerArabicPairs: the same words, then Bleve's shingle filter; a word the folding
// dropped leaves "_" in its place), each at the position of its first word, in a field of
// its own. A phrase -- quoted, the words side by side, another translation's rendering
// (query.go) -- is looked up there as the phrase of its pairs: the same texts, but Bleve's
// phrase search decodes the positions of its terms in every text having them all, and
// texts having every pair are far fewer than texts having every word -- "Messenger of
// Allah said" took 111 ms, most of it in four phrases of words that 15,000 texts have;
// the quoted eulogy "قال رسول الله صلى الله عليه وسلم", 71-81 ms as words, 15 ms as pairs.
// The pairs about double the time the corpus's index takes to build (42 s with English
// pairs alone, 95 s with both, docs/search.md).
const (
	analyzerEnglish      = "athar_en"
	analyzerArabic       = "athar_ar"
	analyzerEnglishPairs = "athar_en_pairs"
	analyzerArabicPairs  = "athar_ar_pairs"
	foldFilter           = "athar_fold"
	pairsFilter          = "athar_pairs"
)

func init() {
	// Bleve finds token filters by name in a process-wide registry: this registration is
	// the only way to give an analyzer a filter of our own, and it is done once, here.
	registry.RegisterTokenFilter(foldFilter, func(map[string]interface{}, *registry.Cache) (analysis.TokenFilter, error) {
		return foldTokens{}, nil
	})
}

// foldTokens folds each token's term with search.Normalize, dropping a token that folds to
// nothing (marks alone). A token Normalize would split (it has inner punctuation the word
// segmenter kept, as in "Ka'b" or "3:165") is joined again, so one token stays one term.
type foldTokens struct{}

func (foldTokens) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := in[:0]
	for _, t := range in {
		f := foldTerm(string(t.Term))
		if f == "" {
			continue
		}
		t.Term = []byte(f)
		out = append(out, t)
	}
	return out
}

func foldTerm(s string) string {
	return strings.ReplaceAll(search.Normalize(s), " ", "")
}

// Field names of an indexed text.
const (
	fieldNarration = "narration"
	fieldText      = "text"    // a text in any language but Arabic (analyzerEnglish)
	fieldTextAr    = "text_ar" // an Arabic text (analyzerArabic)
	// An English text's pairs of adjacent words (analyzerEnglishPairs): indexed from the
	// same property as fieldText, with positions, not stored.
	fieldTextPairs = "text_pairs"
	// An Arabic text's pairs of adjacent words (analyzerArabicPairs), as fieldTextPairs.
	fieldTextArPairs = "text_ar_pairs"
	fieldLanguage    = "language"
	fieldEdition     = "edition"
	fieldPosition    = "position"
	fieldTitle       = "title"
	fieldRefs        = "refs"
	fieldColl        = "collection"
	fieldChapter     = "chapter"
	fieldGrade       = "grade"
	fieldGrader      = "grader"
	// A narration's entry (textindex.go): fieldKind is kindEntry, and no text field.
	fieldKind  = "kind"
	fieldHash  = "hash"
	fieldTexts = "texts"
	kindEntry  = "entry"
)

// newMapping is the index's schema: one document per text, with the text in the field of
// its language and the narration's filters as folded keywords.
func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	if err := im.AddCustomAnalyzer(analyzerEnglish, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{foldFilter, porter.Name},
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerArabic, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{foldFilter},
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomTokenFilter(pairsFilter, map[string]interface{}{
		"type": shingle.Name, "min": 2.0, "max": 2.0, "output_original": false,
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerEnglishPairs, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{foldFilter, porter.Name, pairsFilter},
	}); err != nil {
		return nil, err
	}
	if err := im.AddCustomAnalyzer(analyzerArabicPairs, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     unicode.Name,
		"token_filters": []string{foldFilter, pairsFilter},
	}); err != nil {
		return nil, err
	}

	text := func(analyzer string) *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = true // the snippet is cut from it
		f.IncludeTermVectors = true
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	pairs := func(name, analyzer string) *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Name = name
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeTermVectors = true // for phrases of pairs
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	keywords := func(store bool) *mapping.FieldMapping {
		f := mapping.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Store = store
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}
	storedOnly := func() *mapping.FieldMapping {
		f := mapping.NewTextFieldMapping()
		f.Index = false
		f.Store = true
		f.IncludeTermVectors = false
		f.IncludeInAll = false
		f.DocValues = false
		return f
	}

	dm := mapping.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(fieldText, text(analyzerEnglish), pairs(fieldTextPairs, analyzerEnglishPairs))
	dm.AddFieldMappingsAt(fieldTextAr, text(analyzerArabic), pairs(fieldTextArPairs, analyzerArabicPairs))
	dm.AddFieldMappingsAt(fieldNarration, keywords(true))
	dm.AddFieldMappingsAt(fieldLanguage, keywords(true))
	dm.AddFieldMappingsAt(fieldEdition, storedOnly())
	dm.AddFieldMappingsAt(fieldPosition, storedOnly())
	dm.AddFieldMappingsAt(fieldTitle, storedOnly())
	dm.AddFieldMappingsAt(fieldRefs, storedOnly())
	dm.AddFieldMappingsAt(fieldKind, keywords(false))
	dm.AddFieldMappingsAt(fieldHash, storedOnly())
	dm.AddFieldMappingsAt(fieldTexts, storedOnly())
	for _, f := range []string{fieldColl, fieldChapter, fieldGrade, fieldGrader} {
		dm.AddFieldMappingsAt(f, keywords(false))
	}
	im.DefaultMapping = dm
	im.DefaultAnalyzer = analyzerEnglish
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false
	return im, nil
}
