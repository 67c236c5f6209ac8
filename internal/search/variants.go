package search

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Skeleton folds a Normalized name further, to the form that common transliteration
// variants share, so that a query written one way finds a name written another:
//
//   - the article as a word of its own is dropped: al, el, as, ash, ad, adh, at, ath, ar,
//     az, an, ul, ud, ur, us ("Abu Bakr as-Siddiq" and "Abu Bakr al-Siddiq" are both
//     "abu bakr siddiq"), unless the name is nothing else;
//   - bin and b (as in "b. al-Khattab") are ibn; abdul, abdel, abdal, abdur, abdus,
//     abdun, abdush and abdur are abd (so "Abdul Muttalib" is "'Abd al-Muttalib");
//   - in Latin words, ee is i and oo is u, then o is u and e is i ("Omar" is "Umar",
//     "Aqeel" is "Aqil"), then doubled letters are single ("Muttalib" is "Mutalib"), and a
//     final ah is a ("Hamzah" is "Hamza").
//
// Words in other scripts are kept as Normalize leaves them. Skeleton is applied to names
// and queries alike; it is a second, looser pass (Index.Forgiving), never a replacement
// for Normalize.
func Skeleton(norm string) string {
	words := strings.Fields(norm)
	out := make([]string, 0, len(words))
	for _, w := range words {
		if !isASCIIWord(w) {
			out = append(out, w)
			continue
		}
		if articles[w] && len(words) > 1 {
			continue
		}
		switch w {
		case "bin", "b":
			w = "ibn"
		case "abdul", "abdel", "abdal", "abdur", "abdus", "abdun", "abdush", "abdud", "abduz":
			w = "abd"
		}
		out = append(out, vowels(w))
	}
	if len(out) == 0 {
		return norm
	}
	return strings.Join(out, " ")
}

var articles = map[string]bool{
	"al": true, "el": true, "as": true, "ash": true, "ad": true, "adh": true, "at": true,
	"ath": true, "ar": true, "az": true, "an": true, "ul": true, "ud": true, "ur": true, "us": true,
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// vowels folds one Latin word: ee, oo, o, e; doubled letters; a final ah.
func vowels(w string) string {
	w = strings.NewReplacer("ee", "i", "oo", "u").Replace(w)
	b := make([]byte, 0, len(w))
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch c {
		case 'o':
			c = 'u'
		case 'e':
			c = 'i'
		}
		if len(b) > 0 && b[len(b)-1] == c && c >= 'a' && c <= 'z' {
			continue
		}
		b = append(b, c)
	}
	if n := len(b); n > 2 && b[n-2] == 'a' && b[n-1] == 'h' {
		b = b[:n-1]
	}
	return string(b)
}

// skel is a name's Skeleton, kept per document for Forgiving.
type skel struct {
	norm  str // in Index.strs
	f     filter
	runes int32
	idx   int32 // index of the name as given among its document's
}

func skeletonsOf(given []string) []skelOf {
	var out []skelOf
	for i, g := range given {
		s := Skeleton(Normalize(g))
		if s == "" || slices.ContainsFunc(out, func(x skelOf) bool { return x.norm == s }) {
			continue
		}
		out = append(out, skelOf{norm: s, f: filterOf(s), runes: int32(utf8.RuneCountInString(s)), idx: int32(i)})
	}
	return out
}

// skelOf is a skel before the index stores it.
type skelOf struct {
	norm  string
	f     filter
	runes int32
	idx   int32
}

// Forgiving is Search, then, when that finds fewer than first documents, the documents
// whose names match the query by Skeleton (transliteration variants: "Omar" finds 'Umar,
// "Abu Bakr as-Siddiq" finds Abu Bakr al-Siddiq), after Search's hits, each ranked as it
// matches by skeleton, then by the matching name's length and id.
func (ix *Index) Forgiving(text string, first int) []Hit {
	hits := ix.Search(text, first)
	if len(hits) >= first {
		return hits
	}
	q := Skeleton(Normalize(text))
	if q == "" {
		return hits
	}
	qf := filterOf(q)
	seen := make(map[string]bool, len(hits))
	for _, h := range hits {
		seen[h.ID] = true
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var ms []match
	for slot := range ix.docs {
		d := &ix.docs[slot]
		if !d.alive || seen[ix.strs.get(d.id)] {
			continue
		}
		best := match{slot: int32(slot), rank: -1}
		for _, s := range ix.skels[d.skels : d.skels+d.nskels] {
			if !s.f.covers(qf) {
				continue
			}
			r, ok := rankOf(ix.strs.get(s.norm), q)
			if ok && (best.rank < 0 || r < best.rank || r == best.rank && s.runes < best.runes) {
				best.rank, best.runes, best.idx = r, s.runes, s.idx
			}
		}
		if best.rank >= 0 {
			ms = append(ms, best)
		}
	}
	slices.SortFunc(ms, func(a, b match) int {
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		if c := cmp.Compare(a.runes, b.runes); c != 0 {
			return c
		}
		return strings.Compare(ix.idOf(a.slot), ix.idOf(b.slot))
	})
	for _, m := range ms {
		if len(hits) >= first {
			break
		}
		hits = append(hits, ix.hit(m))
	}
	return hits
}
