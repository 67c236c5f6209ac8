package search

//go:generate go run gen_fold.go

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Normalize returns the folded form of s that the index compares: a name
// and a query match when the folded query occurs in the folded name. The
// same function is applied to both sides.
//
// Rune by rune, Normalize
//
//   - drops the marks transliterations differ by: ' ` ´ ʹ ʻ ʼ ʽ ʾ ʿ ‘ ’ ‛ ′
//     (so "ʿUmar", "'Umar" and "Umar" all fold to "umar");
//   - applies Unicode full case folding and compatibility decomposition
//     (NFKD), then drops nonspacing marks (category Mn): "Ḥadīth" → "hadith",
//     "Straße" → "strasse", "ﬁ" → "fi", "ｕｍａｒ" → "umar", Arabic
//     presentation forms → the plain letters. Marks already written as
//     separate combining characters are dropped too. The tables come from
//     Unicode 15.0.0 (see gen_fold.go); Hangul syllables are left composed;
//   - drops the Arabic harakat and Qur'anic marks (U+064B–U+065F, the
//     superscript alef U+0670 and the other nonspacing marks, by the rule
//     above), tatweel U+0640, enclosing marks (Me) and format characters
//     (Cf: zero-width joiners, direction marks, soft hyphen);
//   - folds Arabic letter variants: أ إ آ ٱ ٲ ٳ → ا, ى ی → ي, ة → ه,
//     ؤ → و, ئ → ي, ک → ك; and Arabic-Indic digits (U+0660–U+0669,
//     U+06F0–U+06F9) to ASCII digits;
//   - keeps letters, numbers and spacing marks (Mc); everything else
//     (spaces, hyphens, underscores, other punctuation, symbols, controls,
//     invalid UTF-8) separates words.
//
// Words are then joined by single ASCII spaces, with none at either end.
// Words are otherwise kept as written: "ibn", "bin" and "b." stay distinct.
//
// Normalize is idempotent (Normalize(Normalize(s)) == Normalize(s)), never
// panics, and its result is valid UTF-8. An already folded ASCII string is
// returned without allocating.
func Normalize(s string) string {
	if isFoldedASCII(s) {
		return s
	}
	n := normalizer{}
	n.b.Grow(len(s))
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			n.put(r)
		case isDropped(r):
			// Checked before the table: NFKD turns ´ into a space.
		default:
			if v, ok := foldRune(r); ok {
				for _, c := range v {
					n.put(c)
				}
			} else {
				n.put(r)
			}
		}
	}
	return n.b.String()
}

// isFoldedASCII reports whether s is already a folded ASCII string: words of
// [a-z0-9] separated by single spaces.
func isFoldedASCII(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == ' ' && s[i-1] != ' ':
		default:
			return false
		}
	}
	return true
}

// normalizer accumulates the folded output of Normalize.
type normalizer struct {
	b   strings.Builder
	sep bool // a word separator is pending
}

// put classifies one rune that has already been through the fold table
// (or needs none) and writes it, drops it, or records a word break.
func (n *normalizer) put(c rune) {
	if c < utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == '\'' || c == '`':
			return
		default:
			n.sep = true
			return
		}
		n.word(c)
		return
	}
	if isDropped(c) {
		return
	}
	if v, ok := arabicVariant(c); ok {
		n.word(v)
		return
	}
	switch {
	case c == '\u200B': // ZERO WIDTH SPACE is Cf, but means a word break.
		n.sep = true
	case unicode.In(c, unicode.Mn, unicode.Me, unicode.Cf):
	case unicode.In(c, unicode.L, unicode.N, unicode.Mc):
		n.word(c)
	default:
		n.sep = true
	}
}

// word writes c as part of a word, preceded by a single space if a
// separator came between it and the previous word.
func (n *normalizer) word(c rune) {
	if n.sep && n.b.Len() > 0 {
		n.b.WriteByte(' ')
	}
	n.sep = false
	n.b.WriteRune(c)
}

// isDropped reports whether r is one of the apostrophe-like marks that
// transliterations disagree on, or the Arabic tatweel. They are removed
// without breaking the word.
func isDropped(r rune) bool {
	switch r {
	case '\'', // APOSTROPHE
		'`',      // GRAVE ACCENT
		'\u00B4', // ´ ACUTE ACCENT
		'\u02B9', // ʹ MODIFIER LETTER PRIME
		'\u02BB', // ʻ MODIFIER LETTER TURNED COMMA
		'\u02BC', // ʼ MODIFIER LETTER APOSTROPHE
		'\u02BD', // ʽ MODIFIER LETTER REVERSED COMMA
		'\u02BE', // ʾ MODIFIER LETTER RIGHT HALF RING (hamza)
		'\u02BF', // ʿ MODIFIER LETTER LEFT HALF RING (ʿayn)
		'\u2018', // ‘ LEFT SINGLE QUOTATION MARK
		'\u2019', // ’ RIGHT SINGLE QUOTATION MARK
		'\u201B', // ‛ SINGLE HIGH-REVERSED-9 QUOTATION MARK
		'\u2032', // ′ PRIME
		'\u0640': // ـ ARABIC TATWEEL
		return true
	}
	return false
}

// arabicVariant maps Arabic letter and digit variants that have no Unicode
// decomposition to the form the index uses. (أ إ آ ؤ ئ decompose to a base
// letter plus a hamza or madda mark and are folded by the table.)
func arabicVariant(r rune) (rune, bool) {
	switch {
	case r == '\u0671', r == '\u0672', r == '\u0673': // ٱ ٲ ٳ
		return '\u0627', true // ا
	case r == '\u0649', r == '\u06CC': // ى ی
		return '\u064A', true // ي
	case r == '\u0629': // ة
		return '\u0647', true // ه
	case r == '\u06A9': // ک
		return '\u0643', true // ك
	case '\u0660' <= r && r <= '\u0669':
		return '0' + r - '\u0660', true
	case '\u06F0' <= r && r <= '\u06F9':
		return '0' + r - '\u06F0', true
	}
	return 0, false
}
