package isnad

import "strings"

// Span is a passage of the text: as written (diacritics kept) and where it is.
type Span struct {
	Text       string
	Start, End int // code points, end exclusive
}

// Empty reports whether the span holds nothing.
func (s Span) Empty() bool { return s.Text == "" }

// Link is one narrator of a route, with the transmission term that introduces them.
type Link struct {
	Name Span // the name as written, trimmed: "عِكْرِمَةَ بْنِ عَمَّارٍ"
	Term Span // the term before it: "حَدَّثَنَا", "عَنْ", "أَنَّ", ... (empty when none)
	// Gloss is the text's own identification of the narrator, after هو / يعني:
	// "سِمَاكٌ الْحَنَفِيُّ" for "أَبُو زُمَيْلٍ - هُوَ سِمَاكٌ الْحَنَفِيُّ -".
	Gloss Span
	// Parallel marks a narrator who stands beside the previous link, in the same
	// generation (حدثنا فلان وفلان قالا ...): the route goes on through both.
	Parallel bool
}

// Route is one chain of narrators, nearest the compiler first.
type Route struct {
	Links []Link
	// Prophet is the mention of the Prophet that ends the route ("النَّبِيِّ",
	// "رَسُولَ اللَّهِ"), empty when the route stops at a companion or later.
	Prophet Span
}

// Reference is a chain given by reference to another's: "بِهَذَا الإِسْنَادِ", "بِمِثْلِهِ",
// "نَحْوَهُ", ... The route the hadith gives ends where the referenced one is to be joined
// (usually the previous hadith's route, at the same narrator).
type Reference struct {
	Phrase Span
	Kind   string // "isnad" (بهذا الإسناد, بإسناده), "mithl" (مثله), "nahw" (نحوه), "maana" (بمعناه)
}

// Isnad is what Segment finds at the start of an Arabic hadith text.
type Isnad struct {
	Routes []Route
	// MatnStart is where the text proper begins: the offset of the first word after the
	// last route (the whole text is matn when no route is found: 0).
	MatnStart int
	Ref       *Reference
}

// Links counts the links over every route.
func (is Isnad) Links() int {
	n := 0
	for _, r := range is.Routes {
		n += len(r.Links)
	}
	return n
}

// Chain returns the route's narrators in order, skipping parallel links.
func (r Route) Chain() []Link {
	out := make([]Link, 0, len(r.Links))
	for _, l := range r.Links {
		if !l.Parallel {
			out = append(out, l)
		}
	}
	return out
}

// maxWords bounds how much of a text Segment reads: isnads are short, a few chains with
// route switches run to a couple of hundred words.
const maxWords = 400

// Segment finds the chains of narrators at the start of an Arabic hadith text.
func Segment(arabic string) Isnad {
	s := segmenter{text: arabic}
	s.toks = tokenize(arabic, maxWords, make([]token, 0, 128))
	s.run()
	return s.out
}

type segmenter struct {
	text string
	toks []token
	out  Isnad
	cur  *Route
}

func (s *segmenter) span(from, to int) Span { // tokens [from, to)
	if from >= to {
		return Span{}
	}
	a, b := s.toks[from], s.toks[to-1]
	return Span{Text: s.text[a.bs:b.be], Start: a.start, End: b.end}
}

func (s *segmenter) word(i int) string {
	if i < len(s.toks) && s.toks[i].kind == tWord {
		return s.toks[i].sk
	}
	return ""
}

func (s *segmenter) newRoute() {
	if s.cur != nil && len(s.cur.Links) == 0 && s.cur.Prophet.Empty() {
		return
	}
	s.out.Routes = append(s.out.Routes, Route{})
	s.cur = &s.out.Routes[len(s.out.Routes)-1]
}

func (s *segmenter) addLink(l Link) {
	if s.cur == nil {
		s.newRoute()
	}
	s.cur.Links = append(s.cur.Links, l)
}

func (s *segmenter) run() {
	i := 0
	matn := -1
	for i < len(s.toks) {
		t := s.toks[i]
		if t.kind != tWord {
			if t.kind == tQuote || (t.kind == tDash && s.cur != nil && len(s.cur.Links) > 0) {
				if t.kind == tDash {
					if j, ok := s.dashGroup(i, -1); ok {
						i = j
						continue
					}
				}
				matn = i
				if j, ok := s.nextRoute(i); ok {
					i = j
					continue
				}
				break
			}
			i++
			continue
		}
		sk := t.sk
		if sk == "ح" {
			s.newRoute()
			i++
			continue
		}
		if term, prefixed := isTerm(sk); term {
			if prefixed && strings.HasPrefix(sk, "و") && s.cur != nil && len(s.cur.Links) > 0 && !isAn(strip(sk)) && strip(sk) != "عن" && !s.afterConnector(i) {
				s.newRoute() // وحدثنا after a chain: another route
			}
			if s.cur == nil {
				s.newRoute()
			}
			termTok := i
			i++
			j, ended := s.afterTerm(termTok, i)
			if j < 0 { // not a name after all: the matn starts at the term
				matn = termTok
				if k, ok := s.nextRoute(termTok + 1); ok {
					i = k
					continue
				}
				break
			}
			i = j
			if ended && s.cur != nil && !s.cur.Prophet.Empty() {
				// "... عَنِ النَّبِيِّ صلى الله عليه وسلم ‏.‏ حَدَّثَنَا بِذَلِكَ ...": another route
				k := i
				for k < len(s.toks) && (s.toks[k].kind == tStop || s.toks[k].kind == tComma) {
					k++
				}
				if ok, _ := isTerm(s.word(k)); ok && s.word(k) != "ان" && s.word(k) != "عن" {
					s.newRoute()
					i = k
					continue
				}
			}
			if ended {
				matn = i
				if k, ok := s.nextRoute(i); ok {
					i = k
					continue
				}
				break
			}
			continue
		}
		if (sk == "روي" || sk == "وروي") && s.word(i+1) == "هذا" && s.word(i+2) == "الحديث" {
			// "وَرَوَى هَذَا الْحَدِيثَ أَبُو الزِّنَادِ، عَنْ ...": a route named in passing
			if e := s.nameEnd(i + 3); e > i+3 {
				s.newRoute()
				s.addLink(Link{Name: s.span(i+3, e), Term: s.span(i, i+1)})
				i = s.afterName(e)
				continue
			}
		}
		if isConnector(sk) {
			j := i
			for j < len(s.toks) && (s.toks[j].kind != tWord || isConnector(s.toks[j].sk)) && s.toks[j].kind != tQuote {
				j++
			}
			if w := s.word(j); w != "" && s.cur != nil {
				if ok, _ := isTerm(w); ok || w == "ح" {
					i = j
					continue
				}
			}
		}
		if sk == "يبلغ" && s.word(i+1) == "به" && s.cur != nil {
			if p, j := s.prophet(i + 2); p {
				s.cur.Prophet = s.span(i+2, j)
				i = s.skipEulogy(j)
				continue
			}
		}
		if ref, j := s.refPhrase(i); ref != nil && s.cur != nil {
			k := j
			for k < len(s.toks) && s.toks[k].kind == tComma {
				k++
			}
			if ok, _ := isTerm(s.word(k)); ok {
				i = k // "بِمَعْنَاهُ أَنَّ اللَّيْثَ حَدَّثَهُمْ": the chain goes on
				continue
			}
			s.out.Ref = ref
			i = j
			matn = i
			break
		}
		if (sk == "قال" || sk == "وقال") && (s.cur == nil || len(s.cur.Links) == 0) {
			// a chain given without the compiler's own link (Bukhari's ta'liq):
			// "قَالَ أَبُو عَبْدِ اللَّهِ وَقَالَ اللَّيْثُ حَدَّثَنِي يُونُسُ"
			if s.word(i+1) == "ابو" && s.word(i+2) == "عبد" && s.word(i+3) == "الله" {
				i += 4
				continue
			}
			if e := s.nameEnd(i + 1); e > i+1 {
				k := e
				for k < len(s.toks) && s.toks[k].kind == tComma {
					k++
				}
				if ok, _ := isTerm(s.word(k)); ok {
					if s.cur == nil {
						s.newRoute()
					}
					s.addLink(Link{Name: s.span(i+1, e), Term: s.span(i, i+1)})
					i = k
					continue
				}
			}
		}
		matn = i
		if j, ok := s.nextRoute(i); ok {
			i = j
			continue
		}
		break
	}
	// drop empty routes
	rs := s.out.Routes[:0]
	for _, r := range s.out.Routes {
		if len(r.Links) > 0 || !r.Prophet.Empty() {
			rs = append(rs, r)
		}
	}
	s.out.Routes = rs
	if len(rs) == 0 {
		s.out.Routes = nil
		s.out.MatnStart = 0
		return
	}
	if matn < 0 || matn >= len(s.toks) {
		s.out.MatnStart = utf8Len(s.text)
		if len(s.toks) > 0 && matn >= 0 {
			s.out.MatnStart = s.toks[len(s.toks)-1].end
		}
	} else {
		s.out.MatnStart = s.toks[matn].start
	}
	if s.out.Ref == nil {
		// a reference phrase may follow the chain closely: "... عَنْ أَبِي هُرَيْرَةَ، مِثْلَهُ"
		for k := matn; k >= 0 && k < len(s.toks) && k < matn+6; k++ {
			if ref, _ := s.refPhrase(k); ref != nil {
				s.out.Ref = ref
				break
			}
		}
	}
}

func utf8Len(s string) int {
	n := 0
	for range s {
		n++
	}
	return n
}

// nextRoute looks a little way past a matn boundary for a route switch (ح followed by a
// term): Muslim gives a first route up to the first words of the matn, then ح and the next.
func (s *segmenter) nextRoute(i int) (int, bool) {
	words := 0
	for j := i; j < len(s.toks) && words < 20; j++ {
		if s.toks[j].kind != tWord {
			continue
		}
		words++
		if s.toks[j].sk == "ح" {
			if ok, _ := isTerm(s.word(j + 1)); ok {
				s.newRoute()
				return j + 1, true
			}
		}
	}
	return 0, false
}

// afterTerm reads what follows a transmission term at token i: a name (with its gloss,
// nisba, parallels) or the Prophet. It returns the next token index, or -1 when what
// follows is no name, and whether the chain has ended (the Prophet, a reference).
func (s *segmenter) afterTerm(termTok, i int) (int, bool) {
	term := s.span(termTok, termTok+1)
	// skip punctuation between term and name ("قال: حدثنا")
	for i < len(s.toks) && (s.toks[i].kind == tColon || s.toks[i].kind == tComma) {
		i++
	}
	w := s.word(i)
	if w == "" {
		return i, false
	}
	if ok, _ := isTerm(w); ok || w == "ح" { // "وحدثني عن مالك": the speaker is omitted
		return i, false
	}
	if p, j := s.prophet(i); p {
		if s.cur == nil {
			s.newRoute()
		}
		s.cur.Prophet = s.span(i, j)
		j = s.skipEulogy(j)
		return j, true
	}
	if ref, j := s.refPhrase(i); ref != nil {
		s.out.Ref = ref
		return j, true
	}
	if w == "بذلك" || w == "به" {
		i++ // "حَدَّثَنَا بِذَلِكَ الْحَسَنُ ..."
		for i < len(s.toks) && s.toks[i].kind == tComma {
			i++
		}
		w = s.word(i)
	}
	ts := termSk(s.toks[termTok].sk)
	an := isAn(ts)
	heard := ts == "سمعت" || ts == "سمع" || ts == "سمعا" || ts == "سمعنا"
	// after أنّ and سمعت a name is a link only when the chain goes on after it: "سَمِعْتُ
	// ابْنَ عَبَّاسٍ، يَقُولُ" is, "سَمِعْتُ هِشَامَ بْنَ حَكِيمٍ يَقْرَأُ" is the matn.
	if isConnector(w) || (an || heard) && (isNonName(w) || !s.plausibleAfterAn(i)) {
		return -1, false
	}
	j := s.nameEnd(i)
	if j == i {
		return -1, false
	}
	l := Link{Name: s.span(i, j), Term: term}
	s.addLink(l)
	return s.afterName(j), false
}

// plausibleAfterAn: after أنّ, a narrator is followed (past a comma, an honorific or a
// description) by a term or a connector: "أَنَّ أَبَا عَيَّاشٍ، أَخْبَرَهُ", "أَنَّ أَنَسًا،
// حَدَّثَهُمْ". "أَنَّ طَارِقَ بْنَ سُوَيْدٍ، سَأَلَ" and "أَنَّ رَجُلاً" are the matn.
func (s *segmenter) plausibleAfterAn(i int) bool {
	j := s.nameEnd(i)
	if j == i || j-i > 7 {
		return false
	}
	for j < len(s.toks) {
		t := s.toks[j]
		switch t.kind {
		case tComma:
			j++
			continue
		case tDash:
			if k, ok := s.dashGroup(j, -1); ok {
				j = k
				continue
			}
			return false
		case tWord:
			if s.honorific(j) {
				j = s.skipHonorific(j)
				continue
			}
			if ok, _ := isTerm(t.sk); ok {
				return true
			}
			return isConnector(t.sk) || descriptors[t.sk] || t.sk == "ح" || strings.HasPrefix(t.sk, "و") && len(t.sk) > 2
		}
		return false
	}
	return false
}

// nameEnd returns the end (exclusive token index) of the name starting at word i.
func (s *segmenter) nameEnd(i int) int {
	j := i
	for j < len(s.toks) && j-i < 9 {
		t := s.toks[j]
		if t.kind == tComma && j > i && j+1 < len(s.toks) && s.toks[j+1].kind == tWord && openName(s.toks[j-1].sk) {
			j++ // "وَابْنُ، بَشَّارٍ": a comma inside the name
			continue
		}
		if t.kind != tWord {
			break
		}
		if j > i {
			if ok, _ := isTerm(t.sk); ok {
				break
			}
			if t.sk == "ح" || isConnector(t.sk) || s.honorific(j) || isGlossWord(t.sk) || t.sk == "صلي" || isRefStart(t.sk) || t.sk == "واللفظ" {
				break
			}
			if strings.HasPrefix(t.sk, "و") && len(t.sk) > 2 && !startsNameWord(t.sk) && j > i {
				break // "وفلان": a parallel narrator, or the matn
			}
		}
		j++
	}
	return j
}

// startsNameWord: words that begin with و but are names (وكيع، وهب، واصل، وائل...), as
// opposed to the conjunction. Only checked after the first word of a name.
func startsNameWord(sk string) bool {
	switch sk {
	case "وهب", "وكيع", "واصل", "وايل", "وبره", "وقاص", "وابصه", "وهيب", "وردان", "وضاح":
		return true
	}
	return false
}

// afterName handles what may follow a name before the next term: a comma, a nisba cut off
// by a comma, a gloss, a parenthesis, an honorific, parallel narrators.
func (s *segmenter) afterName(j int) int {
	for j < len(s.toks) {
		t := s.toks[j]
		switch t.kind {
		case tComma:
			if k, ok := s.apposition(j + 1); ok {
				j = k
				continue
			}
			// "سِمَاكٌ، الْحَنَفِيُّ": a nisba after the comma belongs to the name
			if w := s.word(j + 1); isNisba(w) && len(s.cur.Links) > 0 {
				l := &s.cur.Links[len(s.cur.Links)-1]
				nt := s.toks[j+1]
				if l.Gloss.Empty() {
					l.Name = Span{Text: s.text[s.byteOf(l.Name.Start):nt.be], Start: l.Name.Start, End: nt.end}
				}
				j += 2
				continue
			}
			j++
			continue
		case tDash:
			if k, ok := s.dashGroup(j, len(s.cur.Links)-1); ok {
				j = k
				continue
			}
			return j
		case tWord:
			if isGlossWord(t.sk) {
				j = s.gloss(j+1, len(s.cur.Links)-1, -1)
				continue
			}
			if s.honorific(j) {
				j = s.skipHonorific(j)
				continue
			}
			if t.sk == "واللفظ" {
				j = s.skipUntilBoundary(j + 1)
				continue
			}
			if t.sk == "ح" {
				return j
			}
			if strings.HasPrefix(t.sk, "و") && len(t.sk) > 2 {
				if ok, _ := isTerm(t.sk); ok {
					return j
				}
				if k, ok := s.parallel(j); ok {
					j = k
					continue
				}
			}
			return j
		default:
			return j
		}
	}
	return j
}

// byteOf returns the byte offset of code point offset cp (which is a token start).
func (s *segmenter) byteOf(cp int) int {
	for _, t := range s.toks {
		if t.start == cp {
			return t.bs
		}
	}
	return 0
}

// parallel reads "وفلان" after a name: accepted as a parallel narrator when the names are
// followed by a term or قالا/قالوا/كلاهما.
func (s *segmenter) parallel(j int) (int, bool) {
	t := s.toks[j]
	end := s.nameEnd(j)
	// the span without the conjunction و and its vowel
	_, n := firstRune(s.text[t.bs:])
	bs := t.bs + n
	cp := t.start + 1
	for bs < t.be {
		r, n := firstRune(s.text[bs:])
		if !isMark(r) {
			break
		}
		bs += n
		cp++
	}
	if bs >= t.be {
		return 0, false
	}
	k := end
	for k < len(s.toks) && (s.toks[k].kind == tComma || s.toks[k].kind == tDash) {
		if s.toks[k].kind == tDash {
			if m, ok := s.dashGroup(k, -1); ok {
				k = m
				continue
			}
		}
		k++
	}
	w := s.word(k)
	if w == "" {
		return 0, false
	}
	ok, _ := isTerm(w)
	if ref, _ := s.refPhrase(k); !ok && !isConnector(w) && !(strings.HasPrefix(w, "و") && len(w) > 2) && ref == nil {
		return 0, false
	}
	if w == "انه" || w == "انها" {
		return 0, false
	}
	last := s.toks[end-1]
	name := Span{Text: s.text[bs:last.be], Start: cp, End: last.end}
	s.cur.Links = append(s.cur.Links, Link{Name: name, Parallel: true})
	return s.afterName(end), true
}

// dashGroup handles "- ... -" (or ـ ... ـ) at token j: a gloss "- يعني فلان -" attached to
// link li, or a parenthesis ("- وَاللَّفْظُ لَهُ -", "ـ رضى الله عنه ـ") skipped.
func (s *segmenter) dashGroup(j, li int) (int, bool) {
	w := s.word(j + 1)
	if w == "" {
		return 0, false
	}
	if isGlossWord(w) && li >= 0 {
		return s.gloss(j+2, li, j), true
	}
	if s.honorific(j + 1) {
		k := s.skipHonorific(j + 1)
		if k < len(s.toks) && s.toks[k].kind == tDash {
			k++
		}
		return k, true
	}
	// a closing dash within a few words: a parenthesis
	for k := j + 1; k < len(s.toks) && k < j+10; k++ {
		if s.toks[k].kind == tDash {
			return k + 1, true
		}
		if s.toks[k].kind == tQuote {
			break
		}
	}
	return 0, false
}

// gloss reads the gloss words from token j to a closing dash, comma or term, attaches them
// to link li, and returns the index after it.
func (s *segmenter) gloss(j, li, dash int) int {
	k := j
	for k < len(s.toks) && k-j < 10 {
		t := s.toks[k]
		if t.kind != tWord {
			break
		}
		if ok, _ := isTerm(t.sk); ok {
			break
		}
		if isConnector(t.sk) || s.honorific(k) || t.sk == "ح" {
			break
		}
		k++
	}
	if li >= 0 && li < len(s.cur.Links) && k > j {
		s.cur.Links[li].Gloss = s.span(j, k)
	}
	if dash >= 0 && k < len(s.toks) && s.toks[k].kind == tDash {
		k++
	}
	return k
}

func (s *segmenter) skipHonorific(j int) int {
	// رضي الله عنه / عنها / عنهما / عنهم ; عليه السلام
	for k := j; k < len(s.toks) && k < j+5; k++ {
		if s.toks[k].kind != tWord {
			continue
		}
		switch s.toks[k].sk {
		case "عنه", "عنها", "عنهما", "عنهم", "عنهن", "السلام":
			return k + 1
		}
	}
	return j + 1
}

func (s *segmenter) skipUntilBoundary(j int) int {
	for j < len(s.toks) {
		t := s.toks[j]
		if t.kind == tComma || t.kind == tDash {
			return j + 1
		}
		if t.kind == tWord {
			if ok, _ := isTerm(t.sk); ok {
				return j
			}
		}
		j++
	}
	return j
}

// prophet reports whether the words at i name the Prophet, and where that mention ends.
func (s *segmenter) prophet(i int) (bool, int) {
	switch s.word(i) {
	case "النبي", "نبي":
		if s.word(i) == "نبي" && s.word(i+1) != "الله" {
			return false, i
		}
		if s.word(i) == "نبي" {
			return true, i + 2
		}
		return true, i + 1
	case "رسول":
		if s.word(i+1) == "الله" || s.word(i+1) == "لله" {
			return true, i + 2
		}
	}
	return false, i
}

// skipEulogy skips "صلى الله عليه وسلم" (and its variants) at j.
func (s *segmenter) skipEulogy(j int) int {
	k := j
	for k < len(s.toks) && s.toks[k].kind != tWord {
		if s.toks[k].kind == tQuote {
			return j
		}
		k++
	}
	if s.word(k) != "صلي" {
		return j
	}
	for m := k; m < len(s.toks) && m < k+8; m++ {
		switch s.word(m) {
		case "وسلم", "سلم":
			m++
			for m < len(s.toks) && s.toks[m].kind == tDash {
				m++
			}
			return m
		}
	}
	return j
}

// refPhrase recognises a chain given by reference at word i.
func (s *segmenter) refPhrase(i int) (*Reference, int) {
	w := s.word(i)
	kind := ""
	end := i + 1
	switch w {
	case "بهذا", "وبهذا", "فيهذا":
		n := s.word(i + 1)
		if n == "الاسناد" || n == "الحديث" || n == "الاسنادين" {
			kind, end = "isnad", i+2
		}
	case "باسناد", "وباسناده":
		if s.word(i+1) == "" {
			return nil, i
		}
		kind, end = "isnad", i+2
	case "باسناده", "باسنادهما", "باسنادها", "باسنادهم", "باسنادهن", "بالاسناد", "باسنادهما،":
		kind = "isnad"
	case "مثله", "بمثله", "مثلها", "بمثلها", "بمثل", "مثل":
		if w == "بمثل" || w == "مثل" {
			if n := s.word(i + 1); n != "حديث" && n != "ذلك" && n != "هذا" {
				return nil, i
			}
			end = i + 2
		}
		kind = "mithl"
	case "نحوه", "بنحوه", "نحوها", "بنحوها", "نحو", "بنحو":
		if w == "نحو" || w == "بنحو" {
			if n := s.word(i + 1); n != "حديث" && n != "ذلك" && n != "هذا" {
				return nil, i
			}
			end = i + 2
		}
		kind = "nahw"
	case "بمعناه", "بمعني", "معناه":
		kind = "maana"
	}
	if kind == "" {
		return nil, i
	}
	// "بهذا الإسناد مثله": one phrase
	for {
		k := end
		for k < len(s.toks) && s.toks[k].kind == tComma {
			k++
		}
		switch s.word(k) {
		case "مثله", "بمثله", "نحوه", "بنحوه", "بمعناه", "مثلها", "نحوها":
			end = k + 1
			continue
		}
		break
	}
	return &Reference{Phrase: s.span(i, end), Kind: kind}, end
}

func isRefStart(sk string) bool {
	switch sk {
	case "بهذا", "وبهذا", "باسناده", "باسنادهما", "مثله", "بمثله", "نحوه", "بنحوه", "بمعناه":
		return true
	}
	return false
}

func firstRune(s string) (rune, int) {
	for _, r := range s {
		n := len(string(r))
		return r, n
	}
	return 0, 0
}

// openName: a name word that cannot end a name ("ابن", "أبي", "عبد"), so a comma after it
// is a slip of the text.
func openName(sk string) bool {
	switch sk {
	case "بن", "ابن", "عبد", "بنت", "وابن":
		return true
	}
	return false
}

// apposition reads a description after a name and its comma ("مَوْلَى عُمَرَ بْنِ
// عُبَيْدِ اللَّهِ", "زَوْجِ النَّبِيِّ صلى الله عليه وسلم", "إِبْرَاهِيمُ بْنُ مُحَمَّدِ بْنِ
// سُفْيَانَ") up to the next term, and attaches it to the last link as its gloss. It is
// accepted only when a term (or a connector such as أنها) follows.
func (s *segmenter) apposition(j int) (int, bool) {
	w := s.word(j)
	if w == "" || s.cur == nil || len(s.cur.Links) == 0 {
		return 0, false
	}
	if ok, _ := isTerm(w); ok || isConnector(w) || isGlossWord(w) || w == "ح" || isHonorific(w) || strings.HasPrefix(w, "و") && !startsNameWord(w) {
		return 0, false
	}
	hasBin := descriptors[w] || kinTerm(ArabicKey(s.cur.Links[len(s.cur.Links)-1].Name.Text))
	k := j
	for k < len(s.toks) && k-j < 10 {
		t := s.toks[k]
		if t.kind != tWord {
			break
		}
		if ok, _ := isTerm(t.sk); ok || isConnector(t.sk) {
			break
		}
		if t.sk == "صلي" {
			if e := s.skipEulogy(k); e > k {
				k = e
				continue
			}
		}
		if t.sk == "بن" || t.sk == "بنت" {
			hasBin = true
		}
		k++
	}
	if !hasBin || k == j {
		return 0, false
	}
	m := k
	for m < len(s.toks) && s.toks[m].kind == tComma {
		m++
	}
	n := s.word(m)
	if ok, _ := isTerm(n); !ok && !isConnector(n) {
		return 0, false
	}
	l := &s.cur.Links[len(s.cur.Links)-1]
	if l.Gloss.Empty() {
		l.Gloss = s.span(j, k)
	}
	return k, true
}

// honorific reports whether an honorific formula starts at token j: رضي الله عنه, عليه السلام.
func (s *segmenter) honorific(j int) bool {
	w := s.word(j)
	if isHonorific(w) {
		return true
	}
	return (w == "عليه" || w == "عليها" || w == "عليهما") && s.word(j+1) == "السلام"
}

// afterConnector reports whether the word before token i is a connector (قال), so that a
// term with و continues the chain rather than starting a route: "قَالَ وَأَخْبَرَنَا".
func (s *segmenter) afterConnector(i int) bool {
	for j := i - 1; j >= 0; j-- {
		if s.toks[j].kind == tWord {
			return isConnector(s.toks[j].sk)
		}
	}
	return false
}

// kinTerm: a link written as a kinship term ("عَنْ أَبِيهِ"), which the text may name next:
// "عَنْ أَبِيهِ، وَائِلٍ الْحَضْرَمِيِّ".
func kinTerm(key string) bool {
	switch key {
	case "ابيه", "جده", "عمه", "امه", "اخيه", "ابي", "جدي", "عمي", "امي", "خاله", "جدته", "عمته", "خالته", "مولاه":
		return true
	}
	return false
}
