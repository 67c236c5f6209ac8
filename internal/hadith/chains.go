package hadith

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/isnad"
)

// Extractor is what compiling a record's chains, narrator and mentions needs besides the
// record (CompileWith): the resolver of names (the built-in table and the entities the
// graph's documents define), and the ids merged away (Store.MergedInto), each mapped to
// the id kept, so that a re-import keeps a merge.
type Extractor struct {
	Resolver *isnad.Resolver
	Merged   map[athar.ID]athar.ID
	// Extraction, when set, is Extract's result for the record being compiled (so that
	// the caller can look its ids up in Merged first without extracting twice).
	Extraction *Extraction
}

// WrittenPrefix starts the local part of the id of a person created from a name as
// written (a chain link or an English opening that resolves to no known person):
// person:w.3krmh-bn-3mar. The rest is the name's comparison form (isnad.ArabicKey or
// isnad.LatinKey) spelled in ASCII, so that the same name always gives the same person and
// a re-import the same ids. Such people are candidates for mergeEntities.
const WrittenPrefix = "w."

// Routes returns the routes the record's Arabic text gives (isnad.Segment), a chain given
// by reference (بهذا الإسناد، مثله، نحوه ...) joined to the route of r.Previous it refers
// to (isnad.Join: own links first, then the referenced route's after the narrator where
// they meet). own[i] is how many of routes[i]'s links are read from this record's text;
// the others come from the previous hadith's.
func Routes(r *Record) (routes []isnad.Route, own []int, is isnad.Isnad) {
	ar := r.text("ar")
	if ar == "" {
		return nil, nil, isnad.Isnad{}
	}
	is = isnad.Segment(ar)
	for _, rt := range is.Routes {
		n := len(rt.Links)
		if is.Ref != nil {
			for _, prev := range r.Previous {
				if j, ok := isnad.Join(rt, prev); ok {
					rt = j
					break
				}
			}
		}
		routes = append(routes, rt)
		own = append(own, n)
	}
	return routes, own, is
}

func (r *Record) text(lang string) string {
	for _, t := range r.Texts {
		if t.Language == lang {
			return t.Text
		}
	}
	return ""
}

func (r *Record) edition(lang string) string {
	for _, t := range r.Texts {
		if t.Language == lang {
			return t.Edition
		}
	}
	return ""
}

// Extraction is what a record's texts say about its transmission and what they name.
type Extraction struct {
	// Routes are the chains, nearest the compiler first, each link a person (parallel
	// narrators left out of the order: they transmit, but are no one's teacher here).
	Routes [][]ExtractedLink
	// Parallel are the narrators who stand beside a link (فلان وفلان قالا).
	Parallel []ExtractedLink
	// Narrator is the narrator of record, from the English opening (nil when none).
	Narrator *ExtractedLink
	// People are the people created from names as written, by id.
	People map[athar.ID]CreatedPerson
	// Mentions are the known entities and verse citations the texts name.
	Mentions []ExtractedMention
}

// ExtractedLink is a person read from a text, with the passage (Start < 0 when it was
// read from another hadith's text, the one a chain by reference refers to).
type ExtractedLink struct {
	ID         athar.ID
	Written    string
	Edition    string
	Start, End int
}

// CreatedPerson is a person the import creates for a name no known person has.
type CreatedPerson struct {
	Name   string
	Arabic bool
}

// ExtractedMention is an entity or verses named at a passage of one edition's text.
type ExtractedMention struct {
	IDs        []athar.ID
	Verses     []athar.VerseRef
	Edition    string
	Text       string
	Start, End int
}

// Extract reads the record's chains, narrator of record and mentions. It is deterministic:
// the same record, previous routes and extractor give the same extraction.
func Extract(r *Record, x *Extractor) *Extraction {
	out := &Extraction{People: map[athar.ID]CreatedPerson{}}
	routes, own, is := Routes(r)
	en := r.text("en")
	name, ns, ne, hasName := isnad.NarratorOfRecord(en)
	if !hasName {
		name = ""
	}
	is.Routes = routes
	links, nar := x.Resolver.ResolveHadith(is, name)
	arEd := r.edition("ar")
	for i, rt := range routes {
		var route []ExtractedLink
		for j, l := range rt.Links {
			id := x.person(links[i][j], l.Name.Text, r.Key(), out)
			if id == "" {
				continue
			}
			el := ExtractedLink{ID: id, Written: l.Name.Text, Edition: arEd, Start: l.Name.Start, End: l.Name.End}
			if j >= own[i] {
				el.Edition, el.Start, el.End = "", -1, -1
			}
			if l.Parallel {
				out.Parallel = append(out.Parallel, el)
				continue
			}
			route = append(route, el)
		}
		if len(route) > 0 {
			out.Routes = append(out.Routes, route)
		}
	}
	if hasName {
		if id := x.person(nar, name, r.Key(), out); id != "" {
			out.Narrator = &ExtractedLink{ID: id, Written: name, Edition: r.edition("en"), Start: ns, End: ne}
		}
	}
	for _, t := range r.Texts {
		if t.Language != "ar" && t.Language != "en" {
			continue
		}
		for _, m := range isnad.Mentions(t.Text, t.Language, x.Resolver) {
			if t.Language == "ar" && m.Start < is.MatnStart && len(m.Verses) == 0 {
				continue // a name of the isnad: a chain link already says where it is
			}
			em := ExtractedMention{Edition: t.Edition, Text: m.Text, Start: m.Start, End: m.End, Verses: m.Verses}
			if len(m.Verses) > 0 {
				for _, v := range m.Verses {
					em.IDs = append(em.IDs, v.ID())
				}
			} else {
				em.IDs = []athar.ID{m.ID}
			}
			out.Mentions = append(out.Mentions, em)
		}
	}
	return out
}

func (x *Extractor) merged(id athar.ID) athar.ID {
	for range 8 { // a merge of a merge
		into, ok := x.Merged[id]
		if !ok || into == id {
			break
		}
		id = into
	}
	return id
}

// person returns the person a resolution gives, or the person created for the name as
// written (recorded in out.People); "" when the name gives no id. A link written as a
// kinship term ("عن أبيه", his father) is a person of this record alone: its id ends with
// the record's key (person:w.abyh.muslim-4591), since every narrator has a father.
func (x *Extractor) person(res isnad.Resolution, written, key string, out *Extraction) athar.ID {
	if res.ID != "" && res.ID.Prefix() == athar.TypePerson.Prefix() {
		return res.ID
	}
	id, ok := WrittenID(res.Key, written)
	if !ok {
		return ""
	}
	if Relative(written) {
		id += athar.ID("." + key)
	}
	if _, done := out.People[id]; !done {
		out.People[id] = CreatedPerson{Name: plainName(written), Arabic: isArabic(written)}
	}
	return id
}

// IDs returns every id the extraction names (people and mentioned entities), unsorted,
// for the look-up of merged ids (Extractor.Merged).
func (ex *Extraction) IDs() []athar.ID {
	var out []athar.ID
	for _, rt := range ex.Routes {
		for _, l := range rt {
			out = append(out, l.ID)
		}
	}
	for _, l := range ex.Parallel {
		out = append(out, l.ID)
	}
	if ex.Narrator != nil {
		out = append(out, ex.Narrator.ID)
	}
	for _, m := range ex.Mentions {
		if len(m.Verses) == 0 {
			out = append(out, m.IDs...)
		}
	}
	return out
}

// WrittenID is the id of the person created for a name as written: person:w. and the
// name's comparison form key (isnad.ArabicKey or LatinKey of written when key is empty) in
// ASCII, at most 60 characters, cut at a word. ok is false when nothing is left.
func WrittenID(key, written string) (athar.ID, bool) {
	arabic := isArabic(written)
	if key == "" {
		if arabic {
			key = isnad.ArabicKey(written)
		} else {
			key = isnad.LatinKey(written)
		}
	}
	var b strings.Builder
	for _, r := range key {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(unicode.ToLower(r))
		default:
			if s, ok := arabicASCII[r]; ok {
				b.WriteString(s)
			} else {
				b.WriteByte('-')
			}
		}
	}
	slug := strings.Trim(collapseDashes(b.String()), "-")
	for len(slug) > 60 {
		i := strings.LastIndexByte(slug[:60], '-')
		if i <= 0 {
			slug = slug[:60]
			break
		}
		slug = slug[:i]
	}
	if slug == "" {
		return "", false
	}
	id := athar.ID("person:" + WrittenPrefix + slug)
	if _, _, err := athar.ParseEntityID(string(id)); err != nil {
		return "", false
	}
	return id, true
}

func collapseDashes(s string) string {
	for strings.Contains(s, "--") {
		s = strings.ReplaceAll(s, "--", "-")
	}
	return s
}

// arabicASCII spells each letter of a folded Arabic name (after search.Normalize: one alef,
// taa marbuta as haa, alef maqsura as yaa) with one ASCII character, in the manner of the
// Arabic chat alphabet, so that two different names never share an id.
var arabicASCII = map[rune]string{
	'ا': "a", 'ب': "b", 'ت': "t", 'ث': "v", 'ج': "j", 'ح': "7", 'خ': "x", 'د': "d", 'ذ': "5",
	'ر': "r", 'ز': "z", 'س': "s", 'ش': "c", 'ص': "9", 'ض': "8", 'ط': "6", 'ظ': "4", 'ع': "3",
	'غ': "g", 'ف': "f", 'ق': "q", 'ك': "k", 'ل': "l", 'م': "m", 'ن': "n", 'ه': "h", 'و': "w",
	'ي': "y", 'ء': "2", 'ة': "h", 'ى': "y", 'أ': "a", 'إ': "a", 'آ': "a", 'ؤ': "w", 'ئ': "y",
}

// Relative reports whether a name as written is a kinship term that names someone only
// relative to the link before it: أبيه، جده، عمه، أمه، أخيه، أبي، مولاه ...
func Relative(written string) bool {
	k := strings.NewReplacer("أ", "ا", "إ", "ا", "آ", "ا", "ة", "ه", "ى", "ي").Replace(plainName(written))
	switch k {
	case "ابيه", "جده", "عمه", "امه", "اخيه", "ابي", "جدي", "عمي", "امي", "خاله", "جدته", "عمته", "خالته", "مولاه", "ابيها", "امها", "جدها", "عمها", "اخيها", "اخي", "ابيهما", "ابيهم":
		return true
	}
	return false
}

func isArabic(s string) bool {
	for _, r := range s {
		if unicode.Is(unicode.Arabic, r) {
			return true
		}
	}
	return false
}

// plainName is a name as written without its vowel marks and tatweel.
func plainName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 0x064B && r <= 0x065F || r == 0x0670 || r == 0x0640 {
			continue
		}
		b.WriteRune(r)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// emit adds the extraction's quads about narration node n: the routes' chainLink nodes
// (corpus/K/route/R/I, with route number R from 1 on each, so that they are told from a
// document's), a transmits claim per person with the passage of the first link naming
// them, a narrates claim with the English opening's passage, the created people and the
// mentions.
func (x *Extractor) emit(e *emitter, r *Record, node athar.ID, ex *Extraction) {
	n := node.IRI()
	base := r.Label().IRI() + "/"
	first := map[athar.ID]bool{}
	transmit := func(l ExtractedLink) {
		l.ID = x.merged(l.ID)
		if first[l.ID] {
			return
		}
		first[l.ID] = true
		e.claim(node, l.ID, "transmits", l)
	}
	for ri, route := range ex.Routes {
		for i, l := range route {
			// no rdf:type (vocab#chainLink says what the node is), and no vocab#route on
			// the first route's links (a record's link without one is on route 1: the
			// reader tells a record's links from a document's by their IRI)
			link := fmt.Sprintf("%sroute/%d/%d", base, ri+1, i+1)
			e.iri(n, athar.PredChainLink, link)
			if ri > 0 {
				e.lit(link, athar.PredRoute, athar.IntTerm(ri+1))
			}
			e.lit(link, athar.PredPosition, athar.IntTerm(i+1))
			e.iri(link, athar.PredNarrator, x.merged(l.ID).IRI())
			if l.Start >= 0 { // the name as written is the Arabic text at [start, end)
				e.lit(link, athar.PredStart, athar.IntTerm(l.Start))
				e.lit(link, athar.PredEnd, athar.IntTerm(l.End))
			} else {
				e.lit(link, athar.PredWritten, athar.Term{Literal: l.Written, Lang: "ar"})
			}
			transmit(l)
		}
	}
	for _, l := range ex.Parallel {
		transmit(l)
	}
	if ex.Narrator != nil {
		e.claim(node, x.merged(ex.Narrator.ID), "narrates", *ex.Narrator)
	}
	ids := make([]athar.ID, 0, len(ex.People))
	for id := range ex.People {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		p := ex.People[id]
		keep := x.merged(id)
		s := keep.IRI()
		e.iri(s, athar.RDFType, athar.TypePerson.IRI())
		if keep == id {
			e.lit(s, athar.RDFSLabel, athar.StringTerm(p.Name))
		} else {
			// merged (mergeEntities): the name becomes an alias of the person kept, who
			// records the id (as Merge rewrites a record: renameQuads)
			e.lit(s, athar.SKOSAltLbl, athar.StringTerm(p.Name))
			e.lit(s, athar.PredFormerID, athar.StringTerm(string(id)))
		}
		if p.Arabic {
			e.lit(s, athar.RDFSLabel, athar.Term{Literal: p.Name, Lang: "ar"})
		}
	}
	for i, m := range ex.Mentions {
		// corpus/K/mention/N: the passage is the edition's text at [start, end), which
		// the record holds; five quads a mention (a record holds several)
		mn := fmt.Sprintf("%smention/%d", base, i+1)
		e.iri(n, athar.PredMention, mn)
		for _, id := range m.IDs {
			e.iri(mn, athar.PredEntity, x.merged(id).IRI())
		}
		e.lit(mn, athar.PredEdition, athar.StringTerm(m.Edition))
		e.lit(mn, athar.PredStart, athar.IntTerm(m.Start))
		e.lit(mn, athar.PredEnd, athar.IntTerm(m.End))
		for _, v := range m.Verses {
			s := v.ID().IRI()
			e.iri(s, athar.RDFType, athar.TypeVerse.IRI())
			e.lit(s, athar.RDFSLabel, athar.StringTerm(v.Name()))
			e.lit(s, athar.RDFSLabel, athar.Term{Literal: v.ArabicName(), Lang: "ar"})
			e.lit(s, athar.PredSurah, athar.IntTerm(v.Surah))
			e.lit(s, athar.PredAyah, athar.IntTerm(v.Ayah))
		}
	}
}

// claim emits a claim (subject predicate narration) with its attestation by the
// narration, as narration documents do (narration.Compile), the evidence being the
// passage l was read from (none when it was read from another hadith's text). As a
// document's, the claim and the attestation carry no rdf:type (athar.ImpliedClass: their
// predicates say what they are) and the claim node no predicate or object (its plain
// triple says them, athar.ImpliedClaimParts); unlike a document's, the attestation carries no
// vocab#evidence: its passage is the edition's text at [start, end), which the record
// holds, and the store reads it from there (Attestation.Evidence).
func (e *emitter) claim(narration, subject athar.ID, pred string, l ExtractedLink) {
	obj := athar.IRITerm(narration.IRI())
	s := subject.IRI()
	p := athar.VocabBase + pred
	e.iri(s, p, obj.IRI)
	id := athar.ClaimID(subject, pred, obj)
	ci := id.IRI()
	e.iri(ci, athar.PredSubject, s) // its predicate and object are the plain triple's (athar.ImpliedClaimParts)
	start, end := -1, -1
	if l.Start >= 0 {
		start, end = l.Start, l.End
	}
	ai := athar.AttestationID(id, narration, start, end).IRI()
	e.iri(ai, athar.PredClaim, ci)
	e.iri(ai, athar.PredNarration, narration.IRI())
	if l.Start >= 0 {
		e.lit(ai, athar.PredStart, athar.IntTerm(l.Start))
		e.lit(ai, athar.PredEnd, athar.IntTerm(l.End))
		e.lit(ai, athar.PredEdition, athar.StringTerm(l.Edition))
	}
}

// renameQuads returns qs with the ids of rename replaced (subjects and IRI objects), the
// ids of claims and attestations recomputed from what they say (they are hashes of their
// subject, object and narration), a renamed person's plain name made an alias of the
// person kept, who records the id merged away (PredFormerID), sorted and without
// duplicates. It is how a record's stored quads follow a merge or move to another
// narration node, giving what CompileWith gives with the rename applied.
func renameQuads(qs []athar.Quad, rename map[string]string) []athar.Quad {
	// The claims' parts the store leaves implied are stated for the renaming, which
	// recomputes the claims' ids from them, and left out again at the end.
	qs = append(slices.Clone(qs), athar.ImpliedClaimParts(qs)...)
	out := make([]athar.Quad, 0, len(qs))
	formers := map[string]athar.Quad{}
	for _, q := range qs {
		if to, ok := rename[q.Subject]; ok {
			if q.Predicate == athar.RDFSLabel && q.Object.Lang == "" && q.Object.Literal != "" && athar.IsCorpusLabel(q.Label) {
				if from, ok := athar.ParseIRI(q.Subject); ok && from.Prefix() == athar.TypePerson.Prefix() {
					q.Predicate = athar.SKOSAltLbl
					f := athar.Quad{Subject: to, Predicate: athar.PredFormerID, Object: athar.StringTerm(string(from)), Label: q.Label}
					formers[f.Key()] = f
				}
			}
			q.Subject = to
		}
		if to, ok := rename[q.Object.IRI]; ok {
			q.Object.IRI = to
		}
		out = append(out, q)
	}
	for _, f := range formers {
		out = append(out, f)
	}
	// claims and attestations: their ids are hashes of what they say
	type claimParts struct{ s, p string }
	claims := map[string]*claimParts{}
	objects := map[string]athar.Term{}
	for _, q := range out {
		if !strings.HasPrefix(q.Subject, athar.Base+athar.ClaimPrefix+"/") {
			continue
		}
		c := claims[q.Subject]
		if c == nil {
			c = &claimParts{}
			claims[q.Subject] = c
		}
		switch q.Predicate {
		case athar.PredSubject:
			c.s = q.Object.IRI
		case athar.PredPredicate:
			c.p = q.Object.IRI
		case athar.PredObject:
			objects[q.Subject] = q.Object
		case athar.PredValue:
			objects[q.Subject] = q.Object
		}
	}
	newID := map[string]string{}
	for iri, c := range claims {
		s, ok := athar.ParseIRI(c.s)
		if !ok {
			continue
		}
		id := athar.ClaimID(s, strings.TrimPrefix(c.p, athar.VocabBase), objects[iri]).IRI()
		if id != iri {
			newID[iri] = id
		}
	}
	type attParts struct {
		claim, narration string
		start, end       int
	}
	atts := map[string]*attParts{}
	for _, q := range out {
		if !strings.HasPrefix(q.Subject, athar.Base+athar.AttestationPrefix+"/") {
			continue
		}
		a := atts[q.Subject]
		if a == nil {
			a = &attParts{start: -1, end: -1}
			atts[q.Subject] = a
		}
		switch q.Predicate {
		case athar.PredClaim:
			a.claim = q.Object.IRI
		case athar.PredNarration:
			a.narration = q.Object.IRI
		case athar.PredStart:
			fmt.Sscan(q.Object.Literal, &a.start)
		case athar.PredEnd:
			fmt.Sscan(q.Object.Literal, &a.end)
		}
	}
	for iri, a := range atts {
		c := a.claim
		if to, ok := newID[c]; ok {
			c = to
		}
		cid, ok1 := athar.ParseIRI(c)
		nid, ok2 := athar.ParseIRI(a.narration)
		if !ok1 || !ok2 {
			continue
		}
		if id := athar.AttestationID(cid, nid, a.start, a.end).IRI(); id != iri {
			newID[iri] = id
		}
	}
	if len(newID) > 0 {
		for i, q := range out {
			if to, ok := newID[q.Subject]; ok {
				out[i].Subject = to
			}
			if to, ok := newID[q.Object.IRI]; ok {
				out[i].Object.IRI = to
			}
		}
	}
	return athar.DropImplied(athar.SortUniqueQuads(out))
}

// Rename returns a record's stored quads with the ids of rename (merged away -> kept)
// replaced as CompileWith replaces them when the extractor's Merged holds them: see
// renameQuads.
func Rename(qs []athar.Quad, rename map[athar.ID]athar.ID) []athar.Quad {
	m := make(map[string]string, len(rename))
	for f, t := range rename {
		m[f.IRI()] = t.IRI()
	}
	return renameQuads(qs, m)
}
