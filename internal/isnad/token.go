package isnad

import "unicode/utf8"

// tokKind classifies a token of an Arabic text.
type tokKind uint8

const (
	tWord  tokKind = iota
	tComma         // ، or ,
	tDash          // - or a standalone tatweel ـ (Bukhari's parenthesis)
	tStop          // . ; ! ? and the like
	tColon         // :
	tQuote         // " « » “ ” and brackets { } ( ) [ ]
)

// token is one word or punctuation mark, with code-point and byte offsets into the text.
type token struct {
	kind       tokKind
	start, end int // code points
	bs, be     int // bytes
	sk         string
}

// isMark reports whether r is an Arabic diacritic (harakat, shadda, sukun, Qur'anic marks,
// superscript alef): part of the word it follows, ignored when comparing.
func isMark(r rune) bool {
	return (r >= 0x064B && r <= 0x065F) || r == 0x0670 || (r >= 0x06D6 && r <= 0x06ED) || (r >= 0x0610 && r <= 0x061A)
}

// isLetter reports whether r is a letter of an Arabic word (Arabic block letters, and Latin
// letters and digits so that stray Latin is one word rather than many).
func isLetter(r rune) bool {
	switch {
	case r >= 0x0621 && r <= 0x063F, r >= 0x0641 && r <= 0x064A, r >= 0x0671 && r <= 0x06D3, r == 0x06D5, r >= 0x06FA && r <= 0x06FF:
		return true
	case r >= 0x0660 && r <= 0x0669, r >= 0x06F0 && r <= 0x06F9:
		return true
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	case r >= 0x08A0 && r <= 0x08FF, r >= 0xFB50 && r <= 0xFDFF, r >= 0xFE70 && r <= 0xFEFF:
		return true
	}
	return false
}

// foldLetter is the comparison form of an Arabic letter: alef and hamza seats unified, alef
// maqsura as yaa, taa marbuta as haa. The resolver uses search.Normalize; this is only for
// recognising the transmission vocabulary quickly.
func foldLetter(r rune) rune {
	switch r {
	case 'أ', 'إ', 'آ', 'ٱ':
		return 'ا'
	case 'ى', 'ی':
		return 'ي'
	case 'ة':
		return 'ه'
	case 'ؤ':
		return 'و'
	case 'ئ':
		return 'ي'
	case 'ک':
		return 'ك'
	}
	return r
}

// tokenize splits text into tokens, stopping after max word tokens (the isnad is at the
// start; the rest of a long matn need not be read). buf is reused for skeletons.
func tokenize(text string, max int, toks []token) []token {
	words := 0
	ri := 0 // rune index
	var sk []byte
	for bi := 0; bi < len(text); {
		r, n := utf8.DecodeRuneInString(text[bi:])
		if isLetter(r) {
			// a word: letters, marks, and tatweel between letters
			ws, wbs := ri, bi
			sk = sk[:0]
			for bi < len(text) {
				r, n = utf8.DecodeRuneInString(text[bi:])
				if isLetter(r) {
					sk = utf8.AppendRune(sk, foldLetter(r))
				} else if isMark(r) || r == 0x200C || r == 0x200D {
					// diacritic or joiner: part of the word
				} else if r == 'ـ' && bi+n < len(text) && startsLetterRun(text[bi+n:]) {
					// tatweel inside a word
				} else {
					break
				}
				bi += n
				ri++
			}
			toks = append(toks, token{kind: tWord, start: ws, end: ri, bs: wbs, be: bi, sk: string(sk)})
			words++
			if words >= max {
				return toks
			}
			continue
		}
		k, punct := punctKind(r)
		if punct {
			toks = append(toks, token{kind: k, start: ri, end: ri + 1, bs: bi, be: bi + n})
		}
		bi += n
		ri++
	}
	return toks
}

func startsLetterRun(s string) bool {
	for _, r := range s {
		if isLetter(r) {
			return true
		}
		if !isMark(r) {
			return false
		}
	}
	return false
}

func punctKind(r rune) (tokKind, bool) {
	switch r {
	case '،', ',', '٬':
		return tComma, true
	case '-', 'ـ', '–', '—':
		return tDash, true
	case '.', '؛', ';', '!', '?', '؟', '۔':
		return tStop, true
	case ':':
		return tColon, true
	case '"', '«', '»', '“', '”', '{', '}', '(', ')', '[', ']', '﴿', '﴾':
		return tQuote, true
	}
	return 0, false
}
