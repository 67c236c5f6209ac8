package isnad

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// A name in an English opening: capitalised words (with the transliteration marks ' ` ‘ ’
// ʿ ʾ), the patronymic particles (bin, b., ibn, bint) and articles written with a hyphen
// (al-, as-, ad-, ...).
const nameWord = `(?:[\p{Lu}'‘’\x60ʿʾ´][\p{L}\p{M}'‘’\x60ʿʾ´-]*\.?|b\.|bin|ibn|bint|[a-z]{1,3}-[\p{L}'‘’\x60ʿʾ´-]+)`
const name = `(` + nameWord + `(?:[ \t]+` + nameWord + `){0,7})`

// openings are the English openings that name the narrator of record, in the order they are
// tried; the counts over the ten eng-* collections are in docs/corpus.md.
var openings = []*regexp.Regexp{
	// Bukhari, Abu Dawud, Tirmidhi: "Narrated 'Umar bin Al-Khattab:"
	regexp.MustCompile(`^Narrated[ \t]+` + name + `[ \t]*(?:\(|:|,|that|who|from)`),
	// Nawawi, Qudsi: "On the authority of Abu Hurayrah (may Allah be pleased with him)"
	regexp.MustCompile(`^(?:Also[ \t]+)?[Oo]n the authority of[ \t]+` + name),
	// Muslim: "It has been narrated on the authority of ...", "This hadith has been narrated on the authority of Ibn Umar through ..."
	regexp.MustCompile(`^(?:It|This [Hh]adith|This tradition|A hadith like this)[ \t]+(?:has[ \t]+been|is|was|had[ \t]+been)[ \t]+(?:narrated|reported|transmitted)[ \t]+(?:on the authority of|from|by|through)[ \t]+` + name),
	// Nasa'i, Ibn Majah: "It was narrated that Abu Hurairah said:", "It was narrated from 'Aishah that"
	regexp.MustCompile(`^(?:It|lt)[ \t]+was[ \t]+(?:narrated|reported)[ \t]+(?:from|that|by)[ \t]+` + name),
	// Muslim, Abu Dawud, Tirmidhi: "Abu Huraira reported:", "Jabir b. Samurah said:", "Anas bin Malik narrated:"
	regexp.MustCompile(`^` + name + `[ \t]*(?:\([^)]{0,80}\)[ \t]*)?(?:,[^,:]{0,60},[ \t]*)?(?:reported|narrated|said|reports|narrates|related|says|transmitted|stated)\b`),
}

// The Muwatta's openings give a chain: "Yahya related to me from Malik from Ibn Shihab from
// Salim that ..."; the narrator of record is its last named link.
var (
	relatedTo = regexp.MustCompile(`^(?:Yahya|Malik|ahya)[ \t]+related[ \t]+(?:to me[ \t]+)?(?:from|that)`)
	fromName  = regexp.MustCompile(`(?:\bfrom|\bthat|\bheard)[ \t]+` + name)
)

// fromChain continues an opening that gives a chain: ": from Abu Tamimah", ", from Jabir".
var fromChain = regexp.MustCompile(`^(?:[ \t]*(?:\([^)]{0,60}\)|narrated|reported|[:,]))*[ \t]*from[ \t]+` + name)

// skipName: what the name pattern may catch that is no narrator.
var notNames = map[string]bool{
	"The": true, "A": true, "He": true, "She": true, "They": true, "We": true, "I": true, "This": true, "That": true,
	"It": true, "Allah": true, "Allah's": true, "Messenger": true, "Prophet": true, "The Prophet": true, "One": true,
	"In": true, "When": true, "There": true, "My": true, "His": true, "Her": true, "Some": true, "A man": true,
	"Narrated": true, "Also": true, "On": true, "If": true, "Abu": true, "Umm": true, "Ibn": true, "Yahya": true, "Malik": true,
}

// NarratorOfRecord finds the narrator named in the opening of an English translation
// ("Narrated 'Umar bin Al-Khattab:", "It has been narrated on the authority of ...",
// "... reported:", "On the authority of ...") and returns the name as written with its
// code-point offsets in english. ok is false when the opening names no narrator.
func NarratorOfRecord(english string) (name string, start, end int, ok bool) {
	name, start, end, _, ok = narratorOfRecord(english)
	return
}

// openingKinds name the patterns, for the coverage counts: openings[i] is
// openingKinds[i]; the Muwatta's chains are "related to me".
var openingKinds = []string{"Narrated X:", "On the authority of X", "It/This hadith has been narrated on the authority of X", "It was narrated that/from X", "X reported/narrated/said", "related to me from ... X"}

func narratorOfRecord(english string) (name string, start, end, kind int, ok bool) {
	head := english
	if len(head) > 600 {
		head = head[:600]
		for !utf8.ValidString(head) {
			head = head[:len(head)-1]
		}
	}
	// leading whitespace and quotes
	lead := len(head) - len(strings.TrimLeft(head, " \t\r\n\"“'"))
	if lead > 0 && (head[lead-1] == '\'') {
		lead-- // keep 'Umar's apostrophe
	}
	body := head[lead:]
	if relatedTo.MatchString(body) {
		name, start, end, ok = muwattaNarrator(english, lead, body)
		return name, start, end, len(openings), ok
	}
	for kind, re := range openings {
		m := re.FindStringSubmatchIndex(body)
		if m == nil {
			continue
		}
		s, e := m[2]+lead, m[3]+lead
		n := cleanName(english[s:e])
		if n == "" || notNames[n] {
			continue
		}
		e = s + len(n)
		// "Khalid narrated from Dawud bin Abi Hind, from Abu Az-Zubair, from Jabir, who
		// said": the narrator of record is the last of the chain the opening gives.
		for {
			fm := fromChain.FindStringSubmatchIndex(english[e:min(len(english), e+200)])
			if fm == nil {
				break
			}
			fn := cleanName(english[e+fm[2] : e+fm[3]])
			if fn == "" || notNames[fn] {
				break
			}
			s, n = e+fm[2], fn
			e = s + len(fn)
		}
		return n, utf8.RuneCountInString(english[:s]), utf8.RuneCountInString(english[:e]), kind, true
	}
	return "", 0, 0, -1, false
}

// muwattaNarrator takes the last "from X" / "that X" of a Muwatta opening's chain, up to
// the first quotation or full stop.
func muwattaNarrator(english string, lead int, body string) (string, int, int, bool) {
	stop := len(body)
	if i := strings.IndexAny(body, "\"“"); i >= 0 && i < stop {
		stop = i
	}
	if i := strings.Index(body, ". "); i >= 0 && i < stop {
		stop = i
	}
	best := -1
	var bs, be int
	for _, m := range fromName.FindAllStringSubmatchIndex(body[:stop], -1) {
		n := cleanName(body[m[2]:m[3]])
		if n == "" || notNames[n] || n == "Malik" || n == "Yahya" {
			continue
		}
		best, bs, be = m[2], m[2], m[2]+len(n)
	}
	if best < 0 {
		return "", 0, 0, false
	}
	s, e := bs+lead, be+lead
	return english[s:e], utf8.RuneCountInString(english[:s]), utf8.RuneCountInString(english[:e]), true
}

// cleanName trims what the pattern may take beyond the name: a trailing particle or
// article, a trailing full stop, words that begin the matn.
func cleanName(n string) string {
	words := strings.Fields(n)
	for len(words) > 0 {
		w := words[len(words)-1]
		switch {
		case w == "bin" || w == "ibn" || w == "b." || w == "bint" || w == "The" || w == "He" || w == "I" || w == "We":
			words = words[:len(words)-1]
			continue
		}
		break
	}
	if len(words) == 0 {
		return ""
	}
	out := strings.Join(words, " ")
	// keep the span exact: the words were separated by single spaces in the text only if
	// joining reproduces a prefix of it; otherwise return the raw prefix up to the last word
	if !strings.HasPrefix(n, out) {
		last := words[len(words)-1]
		i := strings.LastIndex(n, last)
		out = n[:i+len(last)]
	}
	out = strings.TrimRight(out, ".,")
	if strings.HasSuffix(out, " b") {
		out += "."
	}
	return out
}
