package isnad

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/search"
)

// Person is a known person the resolver can resolve names to. Any entity with names may
// be given (an event, a place: its id's prefix says which); Mentions finds them all.
type Person struct {
	ID      athar.ID
	Name    string   // English display name
	Aliases []string // other English (Latin) names
	Arabic  []string // Arabic names; "@name" resolves only as a route's last link
}

// Resolution is what a written name resolves to.
type Resolution struct {
	// ID is the person meant, empty when the name is unknown or ambiguous.
	ID athar.ID
	// Candidates are the people the name could be when it is ambiguous (ID empty).
	Candidates []athar.ID
	// Key is the name's comparison form (the gloss's when the text identifies the
	// narrator): two unresolved links with the same Key are the same new person.
	Key string
	// By says how the name was resolved: "name", "gloss", "context", "" when unresolved.
	By string
}

// Resolver resolves written names (Arabic or English) to known people. It is not safe for
// concurrent use while Add or Learn run; Resolve alone may be called concurrently.
type Resolver struct {
	arabic   map[string][]athar.ID // folded Arabic form -> people
	lastOnly map[string][]athar.ID // forms valid only as the last link
	latin    map[string][]athar.ID // folded Latin form -> people
	context  map[ctxKey]athar.ID
	pairs    map[[2]athar.ID]int // (student, teacher) seen in resolved routes
	people   map[athar.ID]Person
	// the first words of the keys of arabic and latin: Mentions looks names up only
	// where one of them starts
	firstArabic, firstLatin map[string]bool
}

type ctxKey struct {
	form, side string
	neighbour  athar.ID
}

//go:embed data/people.tsv
var peopleTSV string

//go:embed data/context.tsv
var contextTSV string

// BuiltinPeople returns the built-in table of frequent transmitters (data/people.tsv).
func BuiltinPeople() []Person {
	var out []Person
	for i, line := range strings.Split(peopleTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			panic(fmt.Sprintf("people.tsv:%d: want 4 fields, got %d", i+1, len(f)))
		}
		out = append(out, Person{ID: athar.ID(f[0]), Name: f[1], Aliases: splitList(f[2]), Arabic: splitList(f[3])})
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ";") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// NewResolver returns a resolver that knows the built-in table and the given people (the
// names already in the graph).
func NewResolver(people ...Person) *Resolver {
	return newResolver(true, people)
}

// NewBareResolver is NewResolver without the built-in table: it knows only the people
// given (and the context table).
func NewBareResolver(people ...Person) *Resolver {
	return newResolver(false, people)
}

func newResolver(builtin bool, people []Person) *Resolver {
	r := &Resolver{
		arabic: map[string][]athar.ID{}, lastOnly: map[string][]athar.ID{}, latin: map[string][]athar.ID{},
		context: map[ctxKey]athar.ID{}, pairs: map[[2]athar.ID]int{}, people: map[athar.ID]Person{},
		firstArabic: map[string]bool{}, firstLatin: map[string]bool{},
	}
	if builtin {
		for _, p := range BuiltinPeople() {
			r.Add(p)
		}
	}
	for _, p := range people {
		r.Add(p)
	}
	for i, line := range strings.Split(contextTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || (f[1] != "student" && f[1] != "teacher") {
			panic(fmt.Sprintf("context.tsv:%d: bad line %q", i+1, line))
		}
		r.context[ctxKey{ArabicKey(f[0]), f[1], athar.ID(f[2])}] = athar.ID(f[3])
	}
	return r
}

func addID(m map[string][]athar.ID, k string, id athar.ID) {
	if k == "" {
		return
	}
	for _, x := range m[k] {
		if x == id {
			return
		}
	}
	m[k] = append(m[k], id)
}

// Add makes a person known (or adds names to one already known).
func (r *Resolver) Add(p Person) {
	old := r.people[p.ID]
	old.ID = p.ID
	if old.Name == "" {
		old.Name = p.Name
	}
	old.Aliases = append(old.Aliases, p.Aliases...)
	old.Arabic = append(old.Arabic, p.Arabic...)
	r.people[p.ID] = old
	for _, a := range p.Arabic {
		if strings.HasPrefix(a, "@") {
			addID(r.lastOnly, ArabicKey(a[1:]), p.ID)
		} else {
			r.addArabic(ArabicKey(a), p.ID)
		}
	}
	for _, n := range append([]string{p.Name}, p.Aliases...) {
		if isArabicScript(n) {
			r.addArabic(ArabicKey(n), p.ID)
		} else {
			k := LatinKey(n)
			addID(r.latin, k, p.ID)
			if f, _, _ := strings.Cut(k, " "); f != "" {
				r.firstLatin[f] = true
			}
		}
	}
}

func (r *Resolver) addArabic(k string, id athar.ID) {
	addID(r.arabic, k, id)
	if f, _, _ := strings.Cut(k, " "); f != "" {
		r.firstArabic[f] = true
	}
}

// Person returns a known person.
func (r *Resolver) Person(id athar.ID) (Person, bool) {
	p, ok := r.people[id]
	return p, ok
}

func isArabicScript(s string) bool {
	for _, c := range s {
		if c >= 0x0600 && c <= 0x06FF {
			return true
		}
	}
	return false
}

// ArabicKey is the comparison form of an Arabic name: search.Normalize (no diacritics,
// alef and hamza forms unified, taa marbuta and alef maqsura folded), then the case forms
// of the kunya and the patronymic unified (أبي / أبا → أبو, ابن → بن) and the accusative
// alef of tanween dropped (أَنَسًا → أنس).
func ArabicKey(s string) string { return arabicKeyOf(arabicFold(s)) }

// arabicFold is s folded by search.Normalize, without the accusative alef of tanween, as
// words: ArabicKey before its case forms. The folding never joins or splits across white
// space (Normalize breaks words at every space character, and the alef of tanween is
// within a word), so the folded words of a run of words are its words' folded words one
// after the other -- which lets Mentions fold each word of a text once (arabicMentions).
func arabicFold(s string) []string {
	s = strings.ReplaceAll(s, "\u064Bا", "")
	s = strings.ReplaceAll(s, "ا\u064B", "")
	return strings.Fields(search.Normalize(s))
}

// arabicKeyOf is ArabicKey of folded words (arabicFold): the case forms of the kunya and
// the patronymic unified, which depend on the word's place (أبي before another word, ابن
// after one). words is not changed.
func arabicKeyOf(words []string) string {
	var b strings.Builder
	for i, w := range words {
		switch w {
		case "ابي", "ابا":
			if i+1 < len(words) {
				w = "ابو"
			}
		case "ابن":
			if i > 0 {
				w = "بن"
			}
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// LatinKey is the comparison form of a transliterated name: search.Normalize, then the
// spelling variants of transliteration folded (b./bin/ibn, Abu/Abi, the article, doubled
// letters, y/i, ee/i, oo/u, a final h).
func LatinKey(s string) string {
	words := strings.Fields(search.Normalize(s))
	out := make([]string, 0, len(words)+2)
	for _, w := range words {
		switch w {
		case "b", "bin", "ibn", "bn", "son":
			w = "ibn"
		case "abi", "aba", "abu":
			w = "abu"
		case "al", "el", "as", "ad", "az", "ash", "an", "ar", "at", "ath", "ul", "of":
			continue
		}
		// abuhurayrah -> abu hurayrah
		if strings.HasPrefix(w, "abu") && len(w) > 5 && w != "abubakr" {
			out = append(out, "abu")
			w = w[3:]
		}
		out = append(out, latinSkeleton(w))
	}
	return strings.Join(out, " ")
}

var skeletonFolds = strings.NewReplacer("ee", "i", "oo", "u", "ou", "u", "ay", "ai", "ey", "ei", "aa", "a")

func latinSkeleton(w string) string {
	if w == "ibn" || w == "abu" {
		return w
	}
	w = skeletonFolds.Replace(w)
	var b strings.Builder
	var prev rune
	for _, c := range w {
		switch c {
		case 'y':
			c = 'i'
		case 'o':
			c = 'u'
		case 'e':
			c = 'a'
		}
		if c == prev {
			continue
		}
		b.WriteRune(c)
		prev = c
	}
	out := strings.TrimSuffix(b.String(), "h")
	if len(out) == 0 {
		return w
	}
	return out
}

// Resolve resolves one written name, Arabic or English, without context.
func (r *Resolver) Resolve(name string) Resolution {
	return r.resolve(name, false)
}

func (r *Resolver) resolve(name string, last bool) Resolution {
	if isArabicScript(name) {
		k := ArabicKey(name)
		res := Resolution{Key: k}
		ids := r.arabic[k]
		if len(ids) == 0 && last {
			ids = r.lastOnly[k]
		}
		return pick(res, ids)
	}
	k := LatinKey(trimLatinName(name))
	return pick(Resolution{Key: k}, r.latin[k])
}

func pick(res Resolution, ids []athar.ID) Resolution {
	switch len(ids) {
	case 0:
	case 1:
		res.ID, res.By = ids[0], "name"
	default:
		res.Candidates = append([]athar.ID(nil), ids...)
		sort.Slice(res.Candidates, func(i, j int) bool { return res.Candidates[i] < res.Candidates[j] })
	}
	return res
}

// trimLatinName drops what surrounds a name in an English opening: honorifics in
// brackets, "the Mother of the Believers", trailing punctuation.
func trimLatinName(s string) string {
	if i := strings.IndexAny(s, "(["); i > 0 {
		s = s[:i]
	}
	return strings.TrimRightFunc(s, func(c rune) bool { return !unicode.IsLetter(c) })
}

// ResolveRoute resolves each link of a route, in order: by its name; else by its gloss
// (هو / يعني ...); else by the context of its neighbours (the built-in table of teachers
// and students, and the pairs seen in routes given to Learn). Short names that are only
// unambiguous in a companion's place ("@" forms) are tried for the last link.
func (r *Resolver) ResolveRoute(rt Route) []Resolution {
	out := make([]Resolution, len(rt.Links))
	last := len(rt.Links) - 1
	for last > 0 && rt.Links[last].Parallel {
		last--
	}
	for i, l := range rt.Links {
		res := r.resolve(l.Name.Text, i == last)
		if res.ID == "" && !l.Gloss.Empty() {
			g := r.resolve(l.Gloss.Text, i == last)
			if g.ID != "" {
				res = Resolution{ID: g.ID, Key: g.Key, By: "gloss"}
			} else if g.Key != "" {
				res.Key = g.Key
			}
		}
		out[i] = res
	}
	// context: two passes so that a resolution can help its neighbour
	for pass := 0; pass < 2; pass++ {
		for i, l := range rt.Links {
			if out[i].ID != "" {
				continue
			}
			form := ArabicKey(l.Name.Text)
			var student, teacher athar.ID
			if s := prevChain(rt, i); s >= 0 {
				student = out[s].ID
			}
			if t := nextChain(rt, i); t >= 0 {
				teacher = out[t].ID
			}
			if id := r.byContext(form, student, teacher, out[i].Candidates); id != "" {
				out[i].ID, out[i].By, out[i].Candidates = id, "context", nil
			}
		}
	}
	return out
}

func prevChain(rt Route, i int) int {
	for j := i - 1; j >= 0; j-- {
		if !rt.Links[j].Parallel {
			return j
		}
	}
	return -1
}

func nextChain(rt Route, i int) int {
	for j := i + 1; j < len(rt.Links); j++ {
		if !rt.Links[j].Parallel {
			return j
		}
	}
	return -1
}

func (r *Resolver) byContext(form string, student, teacher athar.ID, candidates []athar.ID) athar.ID {
	var a, b athar.ID
	if student != "" {
		a = r.context[ctxKey{form, "student", student}]
	}
	if teacher != "" {
		b = r.context[ctxKey{form, "teacher", teacher}]
	}
	switch {
	case a != "" && b != "" && a != b:
		return "" // the two sides disagree: report, do not guess
	case a != "":
		return a
	case b != "":
		return b
	}
	// learned pairs: a candidate seen with this student or teacher, and only one
	var hit athar.ID
	for _, c := range candidates {
		if (student != "" && r.pairs[[2]athar.ID{student, c}] > 0) || (teacher != "" && r.pairs[[2]athar.ID{c, teacher}] > 0) {
			if hit != "" {
				return ""
			}
			hit = c
		}
	}
	return hit
}

// Learn records the teacher-student pairs of a resolved route, for later context.
func (r *Resolver) Learn(rt Route, res []Resolution) {
	for i := range rt.Links {
		t := nextChain(rt, i)
		if t < 0 || rt.Links[i].Parallel || res[i].ID == "" || res[t].ID == "" {
			continue
		}
		r.pairs[[2]athar.ID{res[i].ID, res[t].ID}]++
	}
}

// ResolveIsnad resolves every route of a hadith. Links the text identifies with each other
// (a gloss in one route naming a link of another: أَبُو زُمَيْلٍ - هُوَ سِمَاكٌ الْحَنَفِيُّ -)
// share their resolution, so that they become one person.
func (r *Resolver) ResolveIsnad(is Isnad) [][]Resolution {
	out := make([][]Resolution, len(is.Routes))
	byKey := map[string]athar.ID{}
	for i, rt := range is.Routes {
		out[i] = r.ResolveRoute(rt)
		for j, l := range rt.Links {
			res := out[i][j]
			if res.ID == "" {
				continue
			}
			byKey[ArabicKey(l.Name.Text)] = res.ID
			if !l.Gloss.Empty() {
				byKey[ArabicKey(l.Gloss.Text)] = res.ID
			}
		}
	}
	for i, rt := range is.Routes {
		for j, l := range rt.Links {
			if out[i][j].ID != "" {
				continue
			}
			for _, k := range []string{out[i][j].Key, ArabicKey(l.Name.Text)} {
				if id := byKey[k]; id != "" {
					out[i][j].ID, out[i][j].By, out[i][j].Candidates = id, "gloss", nil
					break
				}
			}
		}
	}
	return out
}

// ResolveHadith resolves a hadith's routes and its narrator of record together, each
// helping the other where it alone is not enough:
//   - an English narrator of record that does not resolve by itself ("Narrated 'Abdullah")
//     is taken to be the person every route's last link resolved to, when all routes agree
//     and the English name is the start of one of that person's names (Ibn Mas'ud is
//     "'Abdullah bin Mas'ud");
//   - a route's unresolved last link is taken to be the narrator of record when its name is
//     the start of one of the narrator's Arabic names ("عَبْدِ اللَّهِ" for عبد الله بن مسعود).
//
// narrator is the name NarratorOfRecord gave ("" when none).
func (r *Resolver) ResolveHadith(is Isnad, narrator string) ([][]Resolution, Resolution) {
	links := r.ResolveIsnad(is)
	var nar Resolution
	if narrator != "" {
		nar = r.Resolve(narrator)
	}
	var last athar.ID
	agree := true
	for i, rt := range is.Routes {
		j := lastChain(rt)
		if j < 0 {
			continue
		}
		id := links[i][j].ID
		if id == "" || (last != "" && id != last) {
			agree = false
			continue
		}
		last = id
	}
	if nar.ID == "" && narrator != "" && agree && last != "" {
		p := r.people[last]
		k := LatinKey(trimLatinName(narrator))
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			if isArabicScript(n) {
				continue
			}
			if nk := LatinKey(n); nk == k || strings.HasPrefix(nk, k+" ") {
				nar = Resolution{ID: last, Key: k, By: "chain"}
				break
			}
		}
	}
	if nar.ID != "" {
		p := r.people[nar.ID]
		for i, rt := range is.Routes {
			j := lastChain(rt)
			if j < 0 || links[i][j].ID != "" {
				continue
			}
			k := ArabicKey(rt.Links[j].Name.Text)
			for _, a := range p.Arabic {
				ak := ArabicKey(strings.TrimPrefix(a, "@"))
				if ak == k || strings.HasPrefix(ak, k+" ") {
					links[i][j] = Resolution{ID: nar.ID, Key: k, By: "narrator"}
					break
				}
			}
		}
	}
	return links, nar
}

func lastChain(rt Route) int {
	for j := len(rt.Links) - 1; j >= 0; j-- {
		if !rt.Links[j].Parallel {
			return j
		}
	}
	return -1
}
