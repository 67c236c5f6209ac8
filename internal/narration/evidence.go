package narration

import (
	"index/suffixarray"
	"slices"
	"unicode"
	"unicode/utf8"
)

// span is a passage of a text in code points, [start, end), and in bytes, [bstart, bend).
type span struct{ start, end, bstart, bend int }

// MaxEvidenceOccurrences bounds how many occurrences of one claim's evidence validation
// looks at: a passage that occurs more often is refused (quote more words), so that the
// work per claim stays bounded however repetitive the text.
const MaxEvidenceOccurrences = 1000

// textIndex is a narration's text prepared once for finding evidence in it, whatever the
// number of claims: the text without its whitespace, where each of its code points lies
// in the text, and a suffix array of it. Finding one passage then costs about its length
// times the logarithm of the text's, plus its occurrences -- not the text's length, as a
// scan of the text per claim did (a 3.9 MB document held the write lock for a minute).
type textIndex struct {
	text   string
	valid  bool    // text is valid UTF-8 (Parse checks it), so bytes slice it as code points do
	hay    string  // text without whitespace
	runeAt []int32 // runeAt[b]: for a byte offset b of hay where a code point starts, its index
	pos    []int32 // pos[i]: code point offset in text of hay's i-th code point
	bpos   []int32 // bpos[i]: byte offset in text of hay's i-th code point
	sa     *suffixarray.Index
}

// newTextIndex prepares text. Its cost is linear in the text's length.
func newTextIndex(text string) *textIndex {
	ix := &textIndex{text: text, valid: utf8.ValidString(text)}
	hay := make([]byte, 0, len(text))
	i := 0
	for b, r := range text {
		if !unicode.IsSpace(r) {
			ix.pos = append(ix.pos, int32(i))
			ix.bpos = append(ix.bpos, int32(b))
			hay = utf8.AppendRune(hay, r)
		}
		i++
	}
	ix.hay = string(hay)
	ix.runeAt = make([]int32, len(hay)+1)
	k := int32(0)
	for b := range ix.hay {
		ix.runeAt[b] = k
		k++
	}
	ix.runeAt[len(hay)] = k
	ix.sa = suffixarray.New(hay)
	return ix
}

// stripSpace returns s without its whitespace.
func stripSpace(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if !unicode.IsSpace(r) {
			out = utf8.AppendRune(out, r)
		}
	}
	return string(out)
}

// find returns every place where evidence occurs in the text when all whitespace is
// ignored on both sides, in order, and true; or, when it occurs more than max times (max
// >= 0), nil and false. Offsets are in code points of the text and cover the passage
// exactly as the text writes it, from its first to its last non-space character.
//
// Matching the UTF-8 bytes of the stripped evidence against the stripped text finds exactly
// the matches of their code points: a match can only start and end where code points do.
func (ix *textIndex) find(evidence string, max int) ([]span, bool) {
	needle := stripSpace(evidence)
	if needle == "" {
		return nil, true
	}
	limit := -1
	if max >= 0 {
		limit = max + 1
	}
	at := ix.sa.Lookup([]byte(needle), limit)
	if max >= 0 && len(at) > max {
		return nil, false
	}
	slices.Sort(at)
	n := utf8.RuneCountInString(needle)
	out := make([]span, len(at))
	for i, b := range at {
		first, last := int(ix.runeAt[b]), int(ix.runeAt[b])+n-1
		_, size := utf8.DecodeRuneInString(ix.text[ix.bpos[last]:])
		out[i] = span{start: int(ix.pos[first]), end: int(ix.pos[last]) + 1, bstart: int(ix.bpos[first]), bend: int(ix.bpos[last]) + size}
	}
	return out, true
}

// passage returns the text of sp exactly as the text writes it.
func (ix *textIndex) passage(sp span) string {
	if !ix.valid {
		return sliceRunes(ix.text, sp.start, sp.end) // invalid bytes read as U+FFFD
	}
	return ix.text[sp.bstart:sp.bend]
}

// findEvidence returns every place where evidence occurs in text when all whitespace is
// ignored on both sides (see textIndex.find). It indexes text for this one search: callers
// with several passages to find in one text build a textIndex once.
func findEvidence(text, evidence string) []span {
	spans, _ := newTextIndex(text).find(evidence, -1)
	return spans
}

// sliceRunes returns text[start:end] in code points.
func sliceRunes(text string, start, end int) string {
	return string([]rune(text)[start:end])
}
