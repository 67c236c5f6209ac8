package athar

// Entity is a person, group, event, place, concept, verse or narration, as the graph knows it
// from every narration that names it.
type Entity struct {
	ID          ID
	Type        EntityType
	Name        string   // the primary name (see Store for how it is chosen)
	Arabic      []string // names in Arabic script
	Aliases     []string // every other name, sorted; never includes Name
	Description string
	FormerIDs   []ID // ids of entities merged into this one (see Store.MergedInto), sorted
}

// Claim is one triple (subject, predicate, object-or-value) with every narration's
// attestation of it.
type Claim struct {
	ID           ID
	Subject      ID
	Predicate    string // vocabulary name, e.g. "advises"
	Object       ID     // set when the claim relates two entities
	Value        *Term  // set when the claim has a literal value
	Attestations []Attestation
	// Partial is set on a claim read with its first attestations only (Store.ClaimHeads):
	// AttestationTotal and NarrationTotal then count them all.
	Partial          bool
	AttestationTotal int
	NarrationTotal   int
	// Bare is set on a claim read with its parts only (Store.ClaimParts): it has no
	// attestations, and nothing says how many it has.
	Bare bool
}

// SortKey orders claims as every listing of them does: by subject, predicate, object or
// value, then id.
func (c *Claim) SortKey() string {
	return claimSortKey(c.Subject, c.Predicate, c.Object, c.Value, c.ID)
}

// ClaimRef is a claim as the plain triples give it, without loading its attestations:
// enough to count, sort and page a long list of claims, and then load only one page.
type ClaimRef struct {
	ID         ID
	Subject    ID
	Predicate  string
	Object     ID
	Value      *Term
	Narrations []ID // the narrations asserting the triple, sorted
}

// SortKey is the key of the claim (Claim.SortKey).
func (c *ClaimRef) SortKey() string {
	return claimSortKey(c.Subject, c.Predicate, c.Object, c.Value, c.ID)
}

func claimSortKey(subject ID, predicate string, object ID, value *Term, id ID) string {
	o := string(object)
	if value != nil {
		o = value.Key()
	}
	return string(subject) + "\x00" + predicate + "\x00" + o + "\x00" + string(id)
}

// Attestation is one narration's support for a claim: the exact words and where they are.
type Attestation struct {
	ID        ID
	Claim     ID
	Narration ID
	Evidence  string // the exact passage of the narration's text; empty when none is given
	Start     int    // code point offset of Evidence in the narration's text
	End       int    // exclusive end offset
	HasSpan   bool   // whether Start and End are set
	Note      string // the document's note on this claim, if any
	// Edition is the corpus edition whose text Start and End index, for an attestation a
	// corpus record makes (internal/hadith); empty for a document's (Narration.Text).
	Edition string
}

// Reference locates a narration in a source: collection, edition or numbering scheme, and
// number. Numbers are strings ("235a").
type Reference struct {
	Collection string
	Edition    string
	Number     string
	URL        string
}

// Narration is one report as stored: its text, where it is found, and who transmitted it.
type Narration struct {
	ID          ID
	Title       string
	Text        string
	Language    string
	Translation string
	References  []Reference
	Narrator    ID   // who reports it; empty when not given
	Chain       []ID // the isnad, nearest the compiler first: the first route
	// MoreRoutes are the further chains the narration gives (e.g. joined by "ح"), each
	// nearest the compiler first, in the document's order; Chain is the first route.
	MoreRoutes [][]ID
	// RecordRoutes are the routes the corpus record's Arabic text gives, as the import
	// extracted them (internal/hadith.Extract), nearest the compiler first, in the text's
	// order. When no document gives a chain, Chain and MoreRoutes are these.
	RecordRoutes [][]ID
	Gradings     []Grading
	// Texts are every text of the narration with where it comes from: the document's
	// (Text, when it has one) first, then a corpus record's, one per edition. When no
	// document gives a text, Text and Language are the record's English text (else its
	// first). Texts that differ are kept apart, each with its own offsets.
	Texts []NarrationText
	// Chapter is the collection's section the corpus record puts it in; empty when none.
	Chapter ID
	// Corpus is the key of the corpus record the narration carries (bukhari-3953); empty
	// when none.
	Corpus string
}

// NarrationText is one text of a narration.
type NarrationText struct {
	Language string
	Edition  string // the edition or translation it was read from: eng-bukhari
	Text     string
	Source   string // TextFromDocument or TextFromCorpus
}

// Where a narration's text comes from.
const (
	TextFromDocument = "document"
	TextFromCorpus   = "corpus"
)

// Chapter is a section (book, kitab) of a canonical collection.
type Chapter struct {
	ID         ID
	Collection string // as references name it: Sahih al-Bukhari
	Number     int
	Name       string // in English
	Arabic     string
}

// Edge is a plain triple between two entities, as neighbourhood and path queries see it,
// with the number of narrations that assert it.
type Edge struct {
	Source       ID
	Target       ID
	Predicate    string
	Attestations int
}
