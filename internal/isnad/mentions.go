package isnad

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/athar-hadith/athar/internal/athar"
)

// Mention is a passage of a text that names a known entity or cites Qur'an verses.
type Mention struct {
	// ID is the entity named, or the first verse cited (verse:8:67).
	ID athar.ID
	// Verses are the verses a citation names, in order ("[al Anfal 8:67-68]": 8:67 and
	// 8:68); empty for an entity.
	Verses     []athar.VerseRef
	Text       string
	Start, End int // code points
}

// verseCite matches a bracketed citation: "[23:51]", "(8:67)", "[al Anfal 8:67-68]",
// "(Al-Qur'an, Surat Najm 53:13)", "(V.9:34)", and Bukhari's "(74.1-5)". Group 1 is what
// precedes the numbers inside the bracket, 2 the surah, 3 the separator, 4 and 5 the verses.
var verseCite = regexp.MustCompile(`[\[(]([^\[\]()\d]{0,48}?)(\d{1,3})[ \t]*([:.])[ \t]*(\d{1,3})(?:[ \t]*[-–][ \t]*(\d{1,3}))?[ \t]*[\])]`)

// dotPrefix: with the "S.A" form (Bukhari's), which also numbers hadiths ("6.556"), only
// an empty prefix or one that says it is the Qur'an is accepted.
var dotPrefix = regexp.MustCompile(`^(?:(?:see|See|i\.e\.|V\.?|Qur'?an|the Qur'?an|Al-Qur'?an)[ \t,.]*)*$`)

// Mentions finds, in a hadith text, the verses it cites and the known entities it names
// (any entity given to the resolver: people, and events or places added with their names).
// lang is "ar" or "en". Names are matched on whole words, longest first; a one-word
// Arabic name counts only when it is a nisba (الزهري) or the Prophet (النبي), since most
// one-word names are also common words (سالم, مالك, نافع).
func Mentions(text, lang string, r *Resolver) []Mention {
	var out []Mention
	if lang != "ar" {
		out = verseMentions(text)
	}
	if r != nil {
		if lang == "ar" {
			out = append(out, r.arabicMentions(text)...)
		} else {
			out = append(out, r.latinMentions(text)...)
		}
	}
	return out
}

func verseMentions(text string) []Mention {
	var out []Mention
	for _, m := range verseCite.FindAllStringSubmatchIndex(text, -1) {
		prefix := text[m[2]:m[3]]
		if text[m[6]:m[7]] == "." && !dotPrefix.MatchString(strings.TrimSpace(prefix)) {
			continue
		}
		s, _ := strconv.Atoi(text[m[4]:m[5]])
		a, _ := strconv.Atoi(text[m[8]:m[9]])
		b := a
		if m[10] >= 0 {
			b, _ = strconv.Atoi(text[m[10]:m[11]])
		}
		ref := strconv.Itoa(s) + ":" + strconv.Itoa(a)
		if b != a {
			ref += "-" + strconv.Itoa(b)
		}
		vs, err := athar.ParseVerseRange(ref)
		if err != nil {
			continue // no such verse: a hadith number, a percentage, a date
		}
		if !surahNameFits(prefix, s) {
			continue
		}
		out = append(out, Mention{
			ID: vs[0].ID(), Verses: vs, Text: text[m[0]:m[1]],
			Start: utf8.RuneCountInString(text[:m[0]]), End: utf8.RuneCountInString(text[:m[1]]),
		})
	}
	return out
}

// surahNameFits: when the citation names a surah ("[al Anfal 8:67]"), the name must be the
// surah's; a prefix that names none (Qur'an, see, V.) is accepted.
func surahNameFits(prefix string, n int) bool {
	p := LatinKey(prefix)
	for _, w := range []string{"sura", "surat", "surah", "qur", "quran", "qura", "sa", "i", "v", "in", "referd", "to", "the", "as", "ia", "cf"} {
		p = strings.TrimSpace(strings.ReplaceAll(" "+p+" ", " "+w+" ", " "))
	}
	if p == "" {
		return true
	}
	s, ok := athar.TheQuran().Surah(n)
	if !ok {
		return false
	}
	name := LatinKey(s.Transliteration)
	// compare without the article and spaces: "anfal" / "al anfal" / "al-Anfal"
	strip := func(x string) string { return strings.ReplaceAll(x, " ", "") }
	return strings.Contains(strip(p), strip(name)) || strings.Contains(strip(name), strip(p)) || !looksLikeName(prefix)
}

// looksLikeName: a prefix with a capitalised word other than the Qur'an's own words is a
// surah name; anything else ("see also", "V") is not checked.
func looksLikeName(prefix string) bool {
	for _, w := range strings.FieldsFunc(prefix, func(c rune) bool { return c == ' ' || c == ',' || c == '-' }) {
		r, _ := utf8.DecodeRuneInString(w)
		if unicode.IsUpper(r) && !strings.HasPrefix(w, "Qur") && !strings.HasPrefix(w, "Sur") && w != "V" && w != "V." && w != "See" && w != "Al" {
			return true
		}
	}
	return false
}

type word struct {
	start, end int // code points
	bs, be     int // bytes
}

// arabicMentions matches known Arabic names on whole words, longest first (up to six).
func (r *Resolver) arabicMentions(text string) []Mention {
	toks := tokenize(text, 1<<30, nil)
	var ws []word
	for _, t := range toks {
		if t.kind == tWord {
			ws = append(ws, word{t.start, t.end, t.bs, t.be})
		}
	}
	// Each word is folded once (arabicFold): its comparison form answers the three
	// questions asked of it, and the forms of runs of words are put together from their
	// words' folds (arabicKeyOf) -- the same as ArabicKey of the run.
	folds := make([][]string, len(ws))
	keys := make([]string, len(ws))
	folded := make([]bool, len(ws))
	fold := func(i int) []string {
		if !folded[i] {
			folds[i] = arabicFold(text[ws[i].bs:ws[i].be])
			keys[i], folded[i] = arabicKeyOf(folds[i]), true
		}
		return folds[i]
	}
	key := func(i int) string {
		fold(i)
		return keys[i]
	}
	var run []string
	starts := func(i int) bool {
		k := key(i)
		switch k {
		case "", "ابي", "ابا":
			return true // ArabicKey folds these only before another word
		}
		return r.firstArabic[k]
	}
	particle := func(i int) bool { return arabicParticleKey(key(i)) }
	mid := func(i int) bool { return midParticleKey(key(i), text[ws[i].bs:ws[i].be]) }
	return r.matchWords(text, ws, starts, particle, mid, func(i, n int) []athar.ID {
		run = run[:0]
		for j := i; j < i+n; j++ {
			run = append(run, fold(j)...)
		}
		key := arabicKeyOf(run)
		if n == 1 && key != "النبي" && !(strings.HasPrefix(key, "ال") && strings.HasSuffix(key, "ي")) {
			return nil
		}
		return r.arabic[key]
	})
}

// latinMentions matches known English names on runs of words that begin with a capital.
func (r *Resolver) latinMentions(text string) []Mention {
	var ws []word
	ri := 0
	inWord := false
	var cur word
	for bi, c := range text {
		isW := (unicode.IsLetter(c) || unicode.IsMark(c)) && c < 0x0370 || c == '\'' || c == '`' || c == '‘' || c == '’' || c == '-' || c == 'ʿ' || c == 'ʾ' || (c == '.' && inWord && bi-cur.bs == 1)
		if isW && !inWord {
			cur = word{start: ri, bs: bi}
			inWord = true
		} else if !isW && inWord {
			cur.end, cur.be = ri, bi
			ws = append(ws, cur)
			inWord = false
		}
		ri++
	}
	if inWord {
		cur.end, cur.be = ri, len(text)
		ws = append(ws, cur)
	}
	word := func(i int) string { return text[ws[i].bs:ws[i].be] }
	starts := func(i int) bool {
		w := word(i)
		// A name is looked up only where its first letter is a capital (below): a word
		// that does not start with one starts none, without folding it.
		if first, _ := utf8.DecodeRuneInString(strings.TrimLeft(w, "'`‘’ʿʾ")); !unicode.IsUpper(first) {
			return false
		}
		k := LatinKey(trimLatinName(w))
		f, _, _ := strings.Cut(k, " ")
		return f == "" || r.firstLatin[f]
	}
	particle := func(i int) bool { return latinParticle(word(i)) }
	mid := func(i int) bool { return midParticle(word(i)) }
	return r.matchWords(text, ws, starts, particle, mid, func(i, n int) []athar.ID {
		k := text[ws[i].bs:ws[i+n-1].be]
		first, _ := utf8.DecodeRuneInString(strings.TrimLeft(k, "'`‘’ʿʾ"))
		if !unicode.IsUpper(first) {
			return nil
		}
		key := LatinKey(trimLatinName(k))
		if n == 1 && len(key) < 4 {
			return nil
		}
		return r.latin[key]
	})
}

// matchWords matches names on runs of up to six words separated by spaces only. A match
// that is part of a longer name (a particle such as بن / ibn / Abu before it, or بن / ibn
// after it) is not taken: "Malik" in "Ka'b bin Malik" is not Malik ibn Anas.
//
// starts reports whether word i can start a known name: positions where it cannot are
// skipped without looking anything up. particle and mid report whether word i is a
// particle, and one that continues a name (midParticle). look gives the people the n
// words from word i name.
func (r *Resolver) matchWords(text string, ws []word, starts, particle, mid func(i int) bool, look func(i, n int) []athar.ID) []Mention {
	var out []Mention
	// particle and mid are asked of the same words for every length tried: each answer
	// is kept.
	memo := make([]uint8, 2*len(ws)) // 0 not asked yet, 1 no, 2 yes
	is := func(i, k int, f func(int) bool) bool {
		m := &memo[2*i+k]
		if *m == 0 {
			*m = 1
			if f(i) {
				*m = 2
			}
		}
		return *m == 2
	}
	for i := 0; i < len(ws); {
		if !starts(i) {
			i++
			continue
		}
		matched := false
		for n := 6; n >= 1; n-- {
			if i+n > len(ws) || !spaced(text, ws[i:i+n]) {
				continue
			}
			if is(i, 1, mid) {
				break
			}
			if i > 0 && spaced(text, ws[i-1:i+1]) && is(i-1, 0, particle) {
				break
			}
			if i+n < len(ws) && spaced(text, ws[i+n-1:i+n+1]) && is(i+n, 0, particle) {
				continue
			}
			s := text[ws[i].bs:ws[i+n-1].be]
			ids := look(i, n)
			if len(ids) != 1 {
				continue
			}
			out = append(out, Mention{ID: ids[0], Text: s, Start: ws[i].start, End: ws[i+n-1].end})
			i += n
			matched = true
			break
		}
		if !matched {
			i++
		}
	}
	return out
}

// spaced reports whether the words are separated by white space only.
func spaced(text string, ws []word) bool {
	for k := 0; k+1 < len(ws); k++ {
		if strings.TrimSpace(text[ws[k].be:ws[k+1].bs]) != "" {
			return false
		}
	}
	return true
}

// arabicParticleKey reports whether a word whose ArabicKey is k is a particle of a name
// (بن, ابو, ام ...).
func arabicParticleKey(k string) bool {
	switch k {
	case "بن", "ابن", "بنت", "ابو", "ابي", "ابا", "ام":
		return true
	}
	return false
}

func latinParticle(w string) bool {
	switch strings.ToLower(w) {
	case "bin", "ibn", "b.", "b", "bint", "abu", "abi", "umm", "son", "daughter":
		return true
	}
	return false
}

// midParticle: a word that continues a name and cannot start one (بن, bin, b.).
func midParticle(w string) bool { return midParticleKey(ArabicKey(w), w) }

// midParticleKey is midParticle of w, whose ArabicKey is k.
func midParticleKey(k, w string) bool {
	switch k {
	case "بن", "بنت":
		return true
	}
	switch w {
	case "bin", "b.", "b", "bint":
		return true
	}
	return false
}
