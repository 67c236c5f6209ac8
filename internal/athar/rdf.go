package athar

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
)

// Standard namespaces used by the stored quads.
const (
	RDFType     = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
	RDFSLabel   = "http://www.w3.org/2000/01/rdf-schema#label"
	RDFSComment = "http://www.w3.org/2000/01/rdf-schema#comment"
	SKOSAltLbl  = "http://www.w3.org/2004/02/skos/core#altLabel"
	XSDInteger  = "http://www.w3.org/2001/XMLSchema#integer"
	XSDString   = "http://www.w3.org/2001/XMLSchema#string"

	DCTermsTitle   = "http://purl.org/dc/terms/title"
	DCTermsSource  = "http://purl.org/dc/terms/source"
	DCTermsLicense = "http://purl.org/dc/terms/license"
	DCTermsRights  = "http://purl.org/dc/terms/rights"
)

// Structural vocabulary: the shape of claims, attestations and narrations. These are not
// predicates documents may use in claims (those are in schema/vocabulary.yaml).
const (
	ClassClaim       = VocabBase + "Claim"
	ClassAttestation = VocabBase + "Attestation"
	ClassReference   = VocabBase + "Reference"
	ClassChainLink   = VocabBase + "ChainLink"

	PredSubject     = VocabBase + "subject"     // claim -> entity
	PredPredicate   = VocabBase + "predicate"   // claim -> predicate IRI
	PredObject      = VocabBase + "object"      // claim -> entity
	PredValue       = VocabBase + "value"       // claim -> literal
	PredClaim       = VocabBase + "claim"       // attestation -> claim
	PredNarration   = VocabBase + "narration"   // attestation -> narration
	PredEvidence    = VocabBase + "evidence"    // attestation -> string: the exact passage
	PredStart       = VocabBase + "start"       // attestation -> integer: code point offset
	PredEnd         = VocabBase + "end"         // attestation -> integer: code point offset (exclusive)
	PredText        = VocabBase + "text"        // narration -> string
	PredLanguage    = VocabBase + "language"    // narration -> BCP 47 tag
	PredReference   = VocabBase + "reference"   // narration -> reference
	PredCollection  = VocabBase + "collection"  // reference -> string
	PredEdition     = VocabBase + "edition"     // reference -> string
	PredNumber      = VocabBase + "number"      // reference -> string
	PredURL         = VocabBase + "url"         // reference -> string
	PredPosition    = VocabBase + "position"    // reference or chain link -> integer, 1-based
	PredChainLink   = VocabBase + "chainLink"   // narration -> chain link
	PredNarrator    = VocabBase + "narrator"    // chain link -> person
	PredRoute       = VocabBase + "route"       // chain link -> integer: its route, 2 on (none: the first, the chain)
	PredTranslation = VocabBase + "translation" // narration -> string: whose translation the text is
	PredSurah       = VocabBase + "surah"       // verse -> integer
	PredAyah        = VocabBase + "ayah"        // verse -> integer

	// Gradings: a narration's verdicts by graders (see Grading).
	ClassGrading   = VocabBase + "Grading"
	PredGrading    = VocabBase + "grading"    // narration -> grading
	PredGrader     = VocabBase + "grader"     // grading -> person, when named by id
	PredGraderName = VocabBase + "graderName" // grading -> string, when named as text
	PredVerdict    = VocabBase + "verdict"    // grading -> string: the verdict as stated
	PredGrade      = VocabBase + "grade"      // grading -> string: one of the Grade values
	PredScope      = VocabBase + "scope"      // grading -> string: one of the GradingScope values
	PredPart       = VocabBase + "part"       // grading -> string: which part, for ScopePart
	PredStatedIn   = VocabBase + "statedIn"   // grading -> string: where the verdict is stated, as text
	// A grading stated in a reference holds it itself: PredCollection, PredEdition,
	// PredNumber and PredURL on the grading node.

	// PredFormerID records, on the entity an entity was merged into, the id the merged
	// entity had: <keep> formerId "person:old" (see ingest.Local.Merge).
	PredFormerID = VocabBase + "formerId" // entity -> string: an id merged into it

	// Verse texts, under the reserved graph QuranGraph (not a narration).
	ClassTextSource      = VocabBase + "TextSource"
	PredVerseText        = VocabBase + "verseText"        // verse -> string@ar: the Arabic text
	PredVerseTranslation = VocabBase + "verseTranslation" // verse -> string@en: a translation
	PredTranslator       = VocabBase + "translator"       // text source -> string

	// The canonical collections (internal/hadith, docs/corpus.md): a corpus record gives
	// its narration texts (one per edition), a chapter and the record it comes from.
	ClassText        = VocabBase + "Text"
	ClassChapter     = VocabBase + "Chapter"
	PredHasText      = VocabBase + "hasText"      // narration -> text node (text, language, edition, position)
	PredChapter      = VocabBase + "chapter"      // narration -> chapter (collection, number, names)
	PredCorpusRecord = VocabBase + "corpusRecord" // narration -> the corpus record's label IRI

	// What the corpus import extracts from a record's texts (internal/hadith, internal/isnad):
	// mention nodes, each naming an entity (or the verses a citation gives) at a passage of
	// one edition's text (PredEdition, PredStart, PredEnd); on chain links, the passage of
	// the Arabic they were read from (PredStart, PredEnd), or the name as written
	// (PredWritten) for a link a chain by reference takes from another hadith's text.
	PredMention = VocabBase + "mention" // narration -> mention node
	PredEntity  = VocabBase + "entity"  // mention -> the entity (or verse) named
	PredWritten = VocabBase + "written" // chain link -> string@ar: the name as the text writes it
)

// PeopleGraph is the reserved label of the isnad resolver's built-in people
// (internal/isnad/data/people.tsv): their names in both scripts, written by the corpus
// import so that the people its records resolve chains to exist once, not once per record.
const PeopleGraph ID = "graph:isnad-people"

// QuranGraph is the reserved label of the Qur'an's texts: the Arabic text and translation
// of each verse (athar verses import) with their attribution, as quads about the verses
// and about the graph's own IRI (https://w3id.org/athar/graph/quran). It is not a
// narration: no narration asserts these texts, importing or deleting narrations never
// touches them, and Store.Mentions never lists it.
const QuranGraph ID = "graph:quran"

// CorpusPrefix is the id prefix of a corpus record's label (corpus:bukhari-3953, IRI
// https://w3id.org/athar/corpus/bukhari-3953): a hadith of a canonical collection is
// its own changeset, apart from any narration document about the same narration
// (internal/hadith, docs/corpus.md). It is not a narration's label: the narration it is
// about is the subject of its PredCorpusRecord quad, which is what Mentions lists for
// the record's quads.
const CorpusPrefix = "corpus"

// IsCorpusLabel reports whether label (an IRI) is a corpus record's.
func IsCorpusLabel(label string) bool { return strings.HasPrefix(label, Base+CorpusPrefix+"/") }

// IsReservedGraph reports whether label is the IRI of a reserved graph (not a narration).
func IsReservedGraph(label string) bool {
	return label == QuranGraph.IRI() || label == PeopleGraph.IRI()
}

// Term is an RDF term in a quad's object position: an IRI, or a literal with an optional
// datatype IRI or language tag.
type Term struct {
	IRI      string // set for IRIs
	Literal  string // the lexical form, for literals
	Datatype string // for typed literals, e.g. XSDInteger; empty for plain strings
	Lang     string // for language-tagged strings, e.g. "ar"
}

// IRITerm returns an IRI term.
func IRITerm(iri string) Term { return Term{IRI: iri} }

// StringTerm returns a plain string literal.
func StringTerm(s string) Term { return Term{Literal: s} }

// IntTerm returns an xsd:integer literal.
func IntTerm(n int) Term { return Term{Literal: strconv.Itoa(n), Datatype: XSDInteger} }

// IsIRI reports whether t is an IRI.
func (t Term) IsIRI() bool { return t.IRI != "" }

// Key is a canonical string form of the term (N-Triples-like), used for hashing and sorting.
func (t Term) Key() string {
	if t.IRI != "" {
		return "<" + t.IRI + ">"
	}
	s := "\"" + literalEscaper.Replace(t.Literal) + "\""
	switch {
	case t.Lang != "":
		s += "@" + t.Lang
	case t.Datatype != "" && t.Datatype != XSDString:
		s += "^^<" + t.Datatype + ">"
	}
	return s
}

// Quad is one stored statement: subject and predicate are IRIs, the object a term, and the
// label the IRI of the narration that asserts it.
type Quad struct {
	Subject   string
	Predicate string
	Object    Term
	Label     string
}

// Key is a canonical string form of the quad, used to compare and sort quads.
func (q Quad) Key() string {
	return "<" + q.Subject + "> <" + q.Predicate + "> " + q.Object.Key() + " <" + q.Label + ">"
}

// SortQuads sorts quads by their canonical form, so that exports are deterministic.
func SortQuads(qs []Quad) {
	sortKeyed(qs)
}

// SortUniqueQuads sorts quads by their canonical form and drops repeats, reusing qs.
func SortUniqueQuads(qs []Quad) []Quad {
	keys := sortKeyed(qs)
	out := qs[:0]
	for i, q := range qs {
		if i > 0 && keys[i] == keys[i-1] {
			continue
		}
		out = append(out, q)
	}
	return out
}

// sortKeyed sorts qs by their keys, computing each key once (building keys in the
// comparison dominated compile time), and returns the keys in the new order.
func sortKeyed(qs []Quad) []string {
	keys := make([]string, len(qs))
	for i, q := range qs {
		keys[i] = q.Key()
	}
	sort.Sort(byKey{qs, keys})
	return keys
}

type byKey struct {
	qs   []Quad
	keys []string
}

func (b byKey) Len() int           { return len(b.qs) }
func (b byKey) Less(i, j int) bool { return b.keys[i] < b.keys[j] }
func (b byKey) Swap(i, j int) {
	b.qs[i], b.qs[j] = b.qs[j], b.qs[i]
	b.keys[i], b.keys[j] = b.keys[j], b.keys[i]
}

// literalEscaper escapes a literal for Term.Key. A Replacer is safe for concurrent use.
var literalEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`)

// Changeset is one narration's change to the graph: quads to remove and quads to add, all
// labelled with that narration. Applying it is all or nothing.
type Changeset struct {
	Narration ID
	Remove    []Quad
	Add       []Quad
}

// Empty reports whether applying cs would change nothing.
func (cs Changeset) Empty() bool { return len(cs.Remove) == 0 && len(cs.Add) == 0 }

// Diff returns the changeset that turns the quads in have into the quads in want (both for
// the same narration). Equal sets give an empty changeset.
func Diff(narration ID, have, want []Quad) Changeset {
	// each key computed once, and kept to sort the changes by
	haveKeys := make([]string, len(have))
	hk := make(map[string]bool, len(have))
	for i, q := range have {
		haveKeys[i] = q.Key()
		hk[haveKeys[i]] = true
	}
	wk := make(map[string]bool, len(want))
	cs := Changeset{Narration: narration}
	var addKeys, removeKeys []string
	for _, q := range want {
		k := q.Key()
		if wk[k] {
			continue
		}
		wk[k] = true
		if !hk[k] {
			cs.Add = append(cs.Add, q)
			addKeys = append(addKeys, k)
		}
	}
	for i, q := range have {
		if !wk[haveKeys[i]] {
			cs.Remove = append(cs.Remove, q)
			removeKeys = append(removeKeys, haveKeys[i])
		}
	}
	sort.Sort(byKey{cs.Add, addKeys})
	sort.Sort(byKey{cs.Remove, removeKeys})
	return cs
}

// hashID returns a short, stable hex digest of the parts.
func hashID(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:20]
}

// ClaimID is the deterministic id of the claim (subject, predicate, object-or-value): the
// same claim made by two narrations is one claim node.
func ClaimID(subject ID, predicate string, object Term) ID {
	return ID(ClaimPrefix + ":" + hashID(subject.IRI(), VocabBase+predicate, object.Key()))
}

// AttestationID is the deterministic id of one narration's attestation of a claim with the
// evidence at [start, end).
func AttestationID(claim, narration ID, start, end int) ID {
	return ID(AttestationPrefix + ":" + hashID(claim.IRI(), narration.IRI(), strconv.Itoa(start), strconv.Itoa(end)))
}

var structural = map[string]bool{
	PredSubject: true, PredPredicate: true, PredObject: true, PredValue: true, PredClaim: true,
	PredNarration: true, PredEvidence: true, PredStart: true, PredEnd: true, PredText: true,
	PredLanguage: true, PredReference: true, PredCollection: true, PredEdition: true,
	PredNumber: true, PredURL: true, PredPosition: true, PredChainLink: true, PredNarrator: true, PredRoute: true,
	PredTranslation: true, PredSurah: true, PredAyah: true,
	PredGrading: true, PredGrader: true, PredGraderName: true, PredVerdict: true, PredGrade: true,
	PredScope: true, PredPart: true, PredStatedIn: true, PredFormerID: true,
	PredVerseText: true, PredVerseTranslation: true, PredTranslator: true,
	PredHasText: true, PredChapter: true, PredCorpusRecord: true,
	PredMention: true, PredEntity: true, PredWritten: true,
}

// IsStructural reports whether the predicate IRI belongs to the structural vocabulary (claim,
// attestation and narration records) rather than to the relations between entities.
func IsStructural(iri string) bool { return structural[iri] }
