package hadith

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/isnad"
)

// Record is one hadith of a collection with every edition of it an import pairs: the
// unit the corpus import writes, one changeset each.
type Record struct {
	Collection   string  // the collection's slug (CollectionBySlug)
	Number       string  // the edition's hadithnumber, the record's identity
	ArabicNumber string  // hadith-api's arabicnumber, when the edition has one
	Section      int     // reference.book: the chapter (section) number; 0 when none
	InSection    int     // reference.hadith: its position in the section; 0 when none
	Chapter      Chapter // the section's names
	Texts        []Text  // one per edition, in the order the editions were given (sorted by language by Pair)
	Grades       []Grade
	// Previous are the routes of the hadith before it in its collection (Routes of that
	// record), set by the import that streams a collection in order: a chain given by
	// reference (بهذا الإسناد، مثله ...) is joined to the one of them it refers to. Empty
	// when the record is imported without the hadith before it (a one-hadith file): the
	// chain is then only what its own text gives.
	Previous []isnad.Route `json:",omitempty"`
	// NoChains leaves out what the texts say about their transmission and what they name
	// (Extract): the record is compiled as Compile compiles it, without chains, narrator
	// of record, people created from names or mentions, and replaces a record stored with
	// them. Set by `athar corpus import --chains=false`, to measure what extraction costs;
	// carried in the log entry so that every replica compiles the same.
	NoChains bool `json:",omitempty"`
}

// Text is one edition's text of a hadith.
type Text struct {
	Language string // BCP 47: en, ar
	Edition  string // the edition it was read from: eng-bukhari
	Text     string
}

// Grade is one grader's verdict as the edition writes it.
type Grade struct {
	Grader  string
	Verdict string
}

// Chapter is a collection's section (book, kitab), as the editions' metadata names it.
type Chapter struct {
	Number int
	Name   string // in English (eng- edition's sections)
	Arabic string // in Arabic (ara- edition's section_details name_native)
}

// Key is the record's stable key: collection slug and number, "bukhari-3953".
func (r *Record) Key() string { return r.Collection + "-" + r.Number }

// ID is the narration id the record has when no document sits on it:
// narration:bukhari-3953.
func (r *Record) ID() athar.ID { return athar.ID("narration:" + r.Key()) }

// AsideID is the narration id a record has when a document that is not about it holds
// its own id (hadith-api's Muslim 1763 beside the seed narration:muslim-1763, which is
// 'Abd al-Baqi's 1763): narration:muslim-1763-hadith-api.
func AsideID(key string) athar.ID { return athar.ID("narration:" + key + "-hadith-api") }

// Label is the graph label of the record's changeset: corpus:bukhari-3953, whose IRI
// is https://w3id.org/athar/corpus/bukhari-3953. It is the record's own, apart from the
// narration's (a document sitting on the same narration keeps its label), so that
// importing either replaces only what it asserted.
func (r *Record) Label() athar.ID { return LabelOf(r.Key()) }

// LabelPrefix is the id prefix of corpus records' labels.
const LabelPrefix = "corpus"

// LabelOf is the label of the record with the key.
func LabelOf(key string) athar.ID { return athar.ID(LabelPrefix + ":" + key) }

// IsLabel reports whether label (an IRI) is a corpus record's label.
func IsLabel(label string) bool { return strings.HasPrefix(label, athar.Base+LabelPrefix+"/") }

// SplitKey splits a record's key, bukhari-3953, into its collection and number.
func SplitKey(key string) (collection, number string, ok bool) {
	i := strings.LastIndexByte(key, '-')
	if i <= 0 || i == len(key)-1 {
		return "", "", false
	}
	return key[:i], key[i+1:], true
}

// KeyOfLabel returns the key of a corpus record's label IRI.
func KeyOfLabel(label string) (string, bool) {
	return strings.CutPrefix(label, athar.Base+LabelPrefix+"/")
}

// ChapterID is the id of a collection's section: chapter:bukhari-64.
func ChapterID(collection string, number int) athar.ID {
	return athar.ID(fmt.Sprintf("chapter:%s-%d", collection, number))
}

// Numbering schemes of the references a record carries (Reference.Edition).
const (
	SchemeHadithAPI = "hadith-api hadithnumber"
	SchemeArabic    = "hadith-api arabicnumber ('Abd al-Baqi's numbering for Sahih Muslim)"
	SchemeSection   = "hadith-api section and position in it"
)

var numberRE = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+)?[a-z]?$`)

// Check returns the first problem of a record, naming the field: an unknown collection,
// a number that is not one, a text without its language or edition, a grade without a
// grader or verdict. A record with a problem is not stored.
func (r *Record) Check() error {
	if _, ok := CollectionBySlug(r.Collection); !ok {
		return fmt.Errorf("collection: unknown collection %q (known: %s; docs/corpus.md says how to add one)", r.Collection, Slugs())
	}
	if !numberRE.MatchString(r.Number) {
		return fmt.Errorf("hadithnumber: %q is not a hadith number", r.Number)
	}
	if r.ArabicNumber != "" && !numberRE.MatchString(r.ArabicNumber) {
		return fmt.Errorf("arabicnumber: %q is not a hadith number", r.ArabicNumber)
	}
	if len(r.Texts) == 0 {
		return fmt.Errorf("text: no text")
	}
	for i, t := range r.Texts {
		if t.Language == "" || t.Edition == "" {
			return fmt.Errorf("texts[%d]: a text needs its language and edition", i)
		}
	}
	for i, g := range r.Grades {
		if strings.TrimSpace(g.Grader) == "" {
			return fmt.Errorf("grades[%d].name: a grade without a grader (verdict %q)", i, g.Verdict)
		}
		if _, ok := GraderFor(g.Grader); !ok {
			return fmt.Errorf("grades[%d].name: %q names no grader", i, g.Grader)
		}
		if strings.TrimSpace(g.Verdict) == "" {
			return fmt.Errorf("grades[%d].grade: grader %q gives no verdict", i, g.Grader)
		}
	}
	return nil
}

// Title is the narration's title the record gives: "Sahih al-Bukhari 3953".
func (r *Record) Title() string {
	c, _ := CollectionBySlug(r.Collection)
	return c.Name + " " + r.Number
}

// The structural vocabulary of records is athar's (athar.PredHasText, PredChapter,
// PredCorpusRecord, ClassText, ClassChapter): the store reads it.
const (
	ClassText        = athar.ClassText
	ClassChapter     = athar.ClassChapter
	PredHasText      = athar.PredHasText
	PredChapter      = athar.PredChapter
	PredCorpusRecord = athar.PredCorpusRecord
)

// Compile returns the quads the record asserts about narration node, labelled with the
// record's Label, sorted. node is the record's own ID unless a document sits on it (then
// the document's id); the quads are otherwise the same, and Rebind moves them from one
// node to the other: Compile(r, b) == Rebind(Compile(r, a), a, b), which makes the graph
// the same whichever of record and document is imported first.
func Compile(r *Record, node athar.ID) []athar.Quad {
	return CompileWith(r, node, nil)
}

// CompileWith is Compile with what the record's texts say about its transmission and
// what they name, when x is not nil (Extract): its routes, narrator of record, the people
// created from names as written, and its mentions, with their passages, under the same
// label. Rebind still moves them from one node to another.
func CompileWith(r *Record, node athar.ID, x *Extractor) []athar.Quad {
	label := r.Label()
	e := emitter{label: label.IRI()}
	n := node.IRI()
	base := label.IRI() + "/"
	col, _ := CollectionBySlug(r.Collection)
	e.iri(n, athar.RDFType, athar.TypeNarration.IRI())
	e.lit(n, athar.RDFSLabel, athar.StringTerm(r.Title()))
	e.iri(n, PredCorpusRecord, label.IRI())
	refs := []athar.Reference{{Collection: col.Name, Edition: SchemeHadithAPI, Number: r.Number}}
	if r.ArabicNumber != "" {
		refs = append(refs, athar.Reference{Collection: col.Name, Edition: SchemeArabic, Number: r.ArabicNumber})
	}
	if r.Section > 0 {
		refs = append(refs, athar.Reference{Collection: col.Name, Edition: SchemeSection, Number: fmt.Sprintf("Book %d, Hadith %d", r.Section, r.InSection)})
	}
	for i, ref := range refs {
		node := fmt.Sprintf("%sreference/%d", base, i+1)
		e.iri(n, athar.PredReference, node)
		e.iri(node, athar.RDFType, athar.ClassReference)
		e.lit(node, athar.PredPosition, athar.IntTerm(i+1))
		e.lit(node, athar.PredCollection, athar.StringTerm(ref.Collection))
		e.lit(node, athar.PredEdition, athar.StringTerm(ref.Edition))
		e.lit(node, athar.PredNumber, athar.StringTerm(ref.Number))
	}
	for i, t := range r.Texts {
		node := fmt.Sprintf("%stext/%s", base, t.Edition)
		e.iri(n, PredHasText, node)
		e.iri(node, athar.RDFType, ClassText)
		e.lit(node, athar.PredPosition, athar.IntTerm(i+1))
		e.lit(node, athar.PredText, athar.StringTerm(t.Text))
		e.lit(node, athar.PredLanguage, athar.StringTerm(t.Language))
		e.lit(node, athar.PredEdition, athar.StringTerm(t.Edition))
	}
	if r.Section > 0 {
		ch := ChapterID(r.Collection, r.Section).IRI()
		e.iri(n, PredChapter, ch)
		e.iri(ch, athar.RDFType, ClassChapter)
		e.lit(ch, athar.PredCollection, athar.StringTerm(col.Name))
		e.lit(ch, athar.PredNumber, athar.IntTerm(r.Section))
		if r.Chapter.Name != "" {
			e.lit(ch, athar.RDFSLabel, athar.StringTerm(r.Chapter.Name))
		}
		if r.Chapter.Arabic != "" {
			e.lit(ch, athar.RDFSLabel, athar.Term{Literal: r.Chapter.Arabic, Lang: "ar"})
		}
		e.lit(n, athar.PredPosition, athar.IntTerm(r.InSection))
	}
	for i, g := range r.Grades {
		gr, _ := GraderFor(g.Grader)
		node := fmt.Sprintf("%sgrading/%d", base, i+1)
		grade, scope := Normalise(g.Verdict)
		e.iri(n, athar.PredGrading, node)
		e.iri(node, athar.RDFType, athar.ClassGrading)
		e.lit(node, athar.PredPosition, athar.IntTerm(i+1))
		e.iri(node, athar.PredGrader, gr.ID.IRI())
		e.lit(node, athar.PredVerdict, athar.StringTerm(strings.TrimSpace(g.Verdict)))
		if grade != "" {
			e.lit(node, athar.PredGrade, athar.StringTerm(string(grade)))
		}
		e.lit(node, athar.PredScope, athar.StringTerm(string(scope)))
		e.lit(node, athar.PredStatedIn, athar.StringTerm("hadith-api edition "+r.editions()))
		p := gr.ID.IRI()
		e.iri(p, athar.RDFType, athar.TypePerson.IRI())
		e.lit(p, athar.RDFSLabel, athar.StringTerm(gr.Name))
		if gr.Arabic != "" {
			e.lit(p, athar.RDFSLabel, athar.Term{Literal: gr.Arabic, Lang: "ar"})
		}
	}
	if x != nil && x.Resolver != nil {
		ex := x.Extraction
		if ex == nil {
			ex = Extract(r, x)
		}
		x.emit(&e, r, node, ex)
	}
	return athar.SortUniqueQuads(e.quads)
}

func (r *Record) editions() string {
	s := make([]string, len(r.Texts))
	for i, t := range r.Texts {
		s[i] = t.Edition
	}
	return strings.Join(s, ", ")
}

// Rebind returns qs with node from replaced by node to wherever it is a subject or an
// IRI object, the ids of the claims and attestations about it recomputed, sorted.
func Rebind(qs []athar.Quad, from, to athar.ID) []athar.Quad {
	return renameQuads(qs, map[string]string{from.IRI(): to.IRI()})
}

// NodeOf returns the narration node a record's quads are about (the subject of its
// PredCorpusRecord quad), or "" when qs holds none.
func NodeOf(qs []athar.Quad) athar.ID {
	for _, q := range qs {
		if q.Predicate == PredCorpusRecord {
			if id, ok := athar.ParseIRI(q.Subject); ok {
				return id
			}
		}
	}
	return ""
}

var apiURL = regexp.MustCompile(`/editions/[a-z]{3}-([a-z]+)/([0-9]+(?:\.[0-9]+)?[a-z]?)(?:\.min)?\.json$`)

// DocumentKey returns the key of the record a narration document sits on, from its
// references alone (so the rule needs no graph and gives the same answer whichever is
// imported first): the first reference in hadith-api's own numbering -- an URL of one of
// its edition files (.../editions/eng-muslim/4588.json), or an edition naming hadith-api
// with a collection the corpus knows. Other numberings (Muslim 1763 in 'Abd al-Baqi's)
// are not matched: the same number in another scheme is often another hadith. "" when
// none.
func DocumentKey(refs []athar.Reference) string {
	for _, r := range refs {
		if m := apiURL.FindStringSubmatch(r.URL); m != nil {
			if _, ok := CollectionBySlug(m[1]); ok {
				return m[1] + "-" + m[2]
			}
		}
		if strings.Contains(strings.ToLower(r.Edition), "hadith-api") && numberRE.MatchString(r.Number) {
			if c, ok := CollectionByName(r.Collection); ok {
				return c.Slug + "-" + r.Number
			}
		}
	}
	return ""
}

type emitter struct {
	label string
	quads []athar.Quad
}

func (e *emitter) iri(s, p, o string) {
	e.quads = append(e.quads, athar.Quad{Subject: s, Predicate: p, Object: athar.IRITerm(o), Label: e.label})
}

func (e *emitter) lit(s, p string, o athar.Term) {
	e.quads = append(e.quads, athar.Quad{Subject: s, Predicate: p, Object: o, Label: e.label})
}

// SortKey orders hadith numbers as text the way they order as numbers: the integer part
// zero-padded, then the rest ("235a" after "235", "1000" after "999").
func SortKey(number string) string {
	i := 0
	for i < len(number) && number[i] >= '0' && number[i] <= '9' {
		i++
	}
	return fmt.Sprintf("%012s%s", number[:i], number[i:])
}

// ChapterOf reads a chapter from the quads about it (Store.QuadsAbout); nil when they do
// not declare one.
func ChapterOf(id athar.ID, qs []athar.Quad) *athar.Chapter {
	c := &athar.Chapter{ID: id}
	found := false
	for _, q := range qs {
		if q.Subject != id.IRI() {
			continue
		}
		switch q.Predicate {
		case athar.RDFType:
			found = found || q.Object.IRI == ClassChapter
		case athar.PredCollection:
			c.Collection = q.Object.Literal
		case athar.PredNumber:
			c.Number, _ = strconv.Atoi(q.Object.Literal)
		case athar.RDFSLabel:
			if q.Object.Lang == "ar" {
				c.Arabic = q.Object.Literal
			} else if q.Object.Lang == "" {
				c.Name = q.Object.Literal
			}
		}
	}
	if !found {
		return nil
	}
	return c
}
