// Package model holds the Go types behind the GraphQL types: thin views of the domain
// values (athar.Entity, athar.Claim, ...) whose exported methods gqlgen binds to fields.
// Fields that need the graph (a claim's subject, a narration's chain) have no method here:
// gqlgen leaves them to resolvers in package graph, which load them through per-request
// dataloaders. The plain types (connections, PageInfo, ...) are generated into
// models_gen.go.
package model

import (
	"fmt"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
)

// Entity is the Go side of the GraphQL Entity interface: one of *Person, *Group, *Event,
// *Place, *Concept, *Verse or *Narration.
type Entity interface {
	EntityID() athar.ID
}

// EntityData is what every entity type but Narration is made of: the entity as the store
// gives it.
type EntityData struct {
	E *athar.Entity
}

// EntityID returns the entity's id.
func (d EntityData) EntityID() athar.ID { return d.E.ID }

// Data returns the entity as the store gave it.
func (d EntityData) Data() *athar.Entity { return d.E }

// ID is the GraphQL id.
func (d EntityData) ID() string { return string(d.E.ID) }

// Type is the entity type's name.
func (d EntityData) Type() string { return string(d.E.Type) }

// Name is the primary name.
func (d EntityData) Name() string { return d.E.Name }

// Aliases are the other names, never nil.
func (d EntityData) Aliases() []string { return nonNil(d.E.Aliases) }

// Arabic are the names in Arabic script, never nil.
func (d EntityData) Arabic() []string { return nonNil(d.E.Arabic) }

// Description is the entity's description, nil when none is given.
func (d EntityData) Description() *string { return optional(d.E.Description) }

// FormerIds are the ids of the entities merged into this one, never nil.
func (d EntityData) FormerIds() []string { return ids(d.E.FormerIDs) }

// Person is a GraphQL Person.
type Person struct{ EntityData }

// Group is a GraphQL Group.
type Group struct{ EntityData }

// Event is a GraphQL Event.
type Event struct{ EntityData }

// Place is a GraphQL Place.
type Place struct{ EntityData }

// Concept is a GraphQL Concept.
type Concept struct{ EntityData }

// Verse is a GraphQL Verse: a verse of the Qur'an, known to the graph or not.
type Verse struct {
	EntityData
	V athar.VerseRef
}

// NewVerse returns the verse v as an entity that no narration mentions yet: named after its
// surah, with no claims.
func NewVerse(v athar.VerseRef) *Verse {
	e := &athar.Entity{ID: v.ID(), Type: athar.TypeVerse, Name: v.Name(), Arabic: []string{v.ArabicName()}}
	return &Verse{EntityData{e}, v}
}

func (v *Verse) surah() athar.Surah {
	s, _ := athar.TheQuran().Surah(v.V.Surah)
	return s
}

// Ref is surah:ayah.
func (v *Verse) Ref() string { return v.V.String() }

// Surah is the surah's number.
func (v *Verse) Surah() int { return v.V.Surah }

// Ayah is the verse's number in its surah.
func (v *Verse) Ayah() int { return v.V.Ayah }

// SurahName is the surah's name in transliteration.
func (v *Verse) SurahName() string { return v.surah().Transliteration }

// SurahNameArabic is the surah's name in Arabic.
func (v *Verse) SurahNameArabic() string { return v.surah().Arabic }

// SurahMeaning is the surah's name in English.
func (v *Verse) SurahMeaning() string { return v.surah().Meaning }

// SurahVerses is the number of verses in the surah.
func (v *Verse) SurahVerses() int { return v.surah().Verses }

// NewEntity returns the GraphQL view of e, by its type.
func NewEntity(e *athar.Entity) Entity {
	d := EntityData{e}
	switch e.Type {
	case athar.TypePerson:
		return &Person{d}
	case athar.TypeGroup:
		return &Group{d}
	case athar.TypeEvent:
		return &Event{d}
	case athar.TypePlace:
		return &Place{d}
	case athar.TypeConcept:
		return &Concept{d}
	case athar.TypeVerse:
		v, err := athar.ParseVerseRef(string(e.ID))
		if err != nil {
			return nil
		}
		return &Verse{d, v}
	}
	return nil
}

// Narration is a GraphQL Narration.
type Narration struct {
	N *athar.Narration
}

// EntityID returns the narration's id.
func (n *Narration) EntityID() athar.ID { return n.N.ID }

// ID is the GraphQL id.
func (n *Narration) ID() string { return string(n.N.ID) }

// Type is "Narration".
func (n *Narration) Type() string { return string(athar.TypeNarration) }

// Name is the narration's title.
func (n *Narration) Name() string { return n.N.Title }

// Title is the narration's title.
func (n *Narration) Title() string { return n.N.Title }

// Aliases is empty: narrations are named only by their title.
func (n *Narration) Aliases() []string { return []string{} }

// Arabic is empty: narrations are named only by their title.
func (n *Narration) Arabic() []string { return []string{} }

// Description is nil: a narration is described by its text.
func (n *Narration) Description() *string { return nil }

// FormerIds is empty: narrations are not merged.
func (n *Narration) FormerIds() []string { return []string{} }

// Gradings are the graders' verdicts, in the document's order.
func (n *Narration) Gradings() []*Grading {
	out := make([]*Grading, len(n.N.Gradings))
	for i, g := range n.N.Gradings {
		out[i] = &Grading{G: g, Narration: n.N.ID}
	}
	return out
}

// Text is the narration's text.
func (n *Narration) Text() string { return n.N.Text }

// Language is the text's language tag.
func (n *Narration) Language() *string { return optional(n.N.Language) }

// Translation says whose translation the text is.
func (n *Narration) Translation() *string { return optional(n.N.Translation) }

// References are where the narration is found.
func (n *Narration) References() []*Reference {
	out := make([]*Reference, len(n.N.References))
	for i, r := range n.N.References {
		out[i] = &Reference{Collection: r.Collection, Number: r.Number, Edition: optional(r.Edition), URL: optional(r.URL)}
	}
	return out
}

// Texts are every text of the narration, the document's first.
func (n *Narration) Texts() []*NarrationText {
	out := make([]*NarrationText, len(n.N.Texts))
	for i, t := range n.N.Texts {
		src := TextSourceDocument
		if t.Source == athar.TextFromCorpus {
			src = TextSourceCorpus
		}
		out[i] = &NarrationText{Language: t.Language, Edition: optional(t.Edition), Text: t.Text, Source: src}
	}
	return out
}

// CorpusRecord is the key of the corpus record the narration carries.
func (n *Narration) CorpusRecord() *string { return optional(n.N.Corpus) }

// Chapter is a GraphQL Chapter; its narrations are resolved in package graph.
type Chapter struct {
	C athar.Chapter
}

// ID is the chapter's id.
func (c *Chapter) ID() string { return string(c.C.ID) }

// Collection is the collection's name.
func (c *Chapter) Collection() string { return c.C.Collection }

// Number is the section's number.
func (c *Chapter) Number() int { return c.C.Number }

// Name is the English name.
func (c *Chapter) Name() *string { return optional(c.C.Name) }

// Arabic is the Arabic name.
func (c *Chapter) Arabic() *string { return optional(c.C.Arabic) }

// Grading is a GraphQL Grading. Its grader and graderName need the graph (the grader's
// name when given by id) and are resolved in package graph.
type Grading struct {
	G         athar.Grading
	Narration athar.ID // the narration graded
}

// Position is the grading's 1-based position in its document.
func (g *Grading) Position() int { return g.G.Position }

// Verdict is the verdict as stated.
func (g *Grading) Verdict() string { return g.G.Verdict }

// Grade is the normalised verdict, nil when not given.
func (g *Grading) Grade() *Grade {
	if g.G.Grade == "" {
		return nil
	}
	v := Grade(strings.ToUpper(strings.ReplaceAll(string(g.G.Grade), "-", "_")))
	return &v
}

// Scope is what the verdict judges.
func (g *Grading) Scope() GradingScope { return GradingScope(strings.ToUpper(string(g.G.Scope))) }

// Part says which part of the text, for scope PART.
func (g *Grading) Part() *string { return optional(g.G.Part) }

// StatedIn is where the verdict is stated, when given as a reference.
func (g *Grading) StatedIn() *Reference {
	r := g.G.StatedIn
	if r == nil {
		return nil
	}
	return &Reference{Collection: r.Collection, Number: r.Number, Edition: optional(r.Edition), URL: optional(r.URL)}
}

// StatedInText is where the verdict is stated, when given as text.
func (g *Grading) StatedInText() *string { return optional(g.G.StatedInText) }

// Note is the document's note on the grading.
func (g *Grading) Note() *string { return optional(g.G.Note) }

// Claim is a GraphQL Claim.
type Claim struct {
	C *athar.Claim
	// Subj and Obj are the claim's subject and object, read with the page of claims it is
	// on (graph's withEnds) so that gqlgen resolves them inline rather than in a goroutine
	// of their own each; Ends says they were read (nil then means not defined).
	Subj, Obj Entity
	Ends      bool
}

// Subject is the claim's subject entity.
func (c *Claim) Subject() (Entity, error) {
	return c.end(c.C.Subject, c.Subj)
}

// Object is the claim's object entity, nil for a literal-valued claim (value is set).
func (c *Claim) Object() (Entity, error) {
	if c.C.Object == "" {
		return nil, nil
	}
	return c.end(c.C.Object, c.Obj)
}

func (c *Claim) end(id athar.ID, e Entity) (Entity, error) {
	switch {
	case !c.Ends:
		return nil, fmt.Errorf("claim %s: its subject and object were not read with it", c.C.ID)
	case e == nil:
		return nil, fmt.Errorf("entity %s is referred to but not defined", id)
	}
	return e, nil
}

// ID is the claim's id.
func (c *Claim) ID() string { return string(c.C.ID) }

// Predicate is the vocabulary name.
func (c *Claim) Predicate() string { return c.C.Predicate }

// Value is the literal value, nil for claims between entities.
func (c *Claim) Value() *string {
	if c.C.Value == nil {
		return nil
	}
	v := c.C.Value.Literal
	return &v
}

// Attestations are the claim's first n attestations, in the store's order, and whether
// the claim was read with too few of them to say (it is Partial, and has more than it
// holds): the resolver then reads the claim whole.
func (c *Claim) Attestations(n int) ([]*Attestation, bool) {
	if c.C.Partial && n > len(c.C.Attestations) {
		return nil, false
	}
	out := make([]*Attestation, min(n, len(c.C.Attestations)))
	for i := range out {
		out[i] = &Attestation{A: c.C.Attestations[i]}
	}
	return out, true
}

// MaxList is the largest first a plain list field takes.
const MaxList = 1000

// First returns how many items a list field may return: first, or def when first is not
// given; INVALID_ARGUMENT for a first outside 0 to MaxList. The schema gives every list
// that grows with the data a first with a default, so that each is bounded and the
// complexity estimate knows by how much.
func First(first *int, def int) (int, error) {
	if first == nil {
		return def, nil
	}
	if *first < 0 || *first > MaxList {
		return 0, athar.E("", athar.Invalid, "first: %d is outside 0 to %d", *first, MaxList)
	}
	return *first, nil
}

// AttestationCount is the number of distinct narrations attesting the claim. A claim read
// with its parts only (Bare) cannot say: its loader reads them only for a selection that
// asks for no count.
func (c *Claim) AttestationCount() (int, error) {
	if c.C.Bare {
		return 0, fmt.Errorf("claim %s was read without its attestations, and cannot count them", c.C.ID)
	}
	if c.C.Partial {
		return c.C.NarrationTotal, nil
	}
	return len(Narrations(c.C)), nil
}

// Narrations returns the distinct narrations attesting c, in order; c must not be Partial.
func Narrations(c *athar.Claim) []athar.ID {
	var out []athar.ID
	seen := map[athar.ID]bool{}
	for _, a := range c.Attestations {
		if !seen[a.Narration] {
			seen[a.Narration] = true
			out = append(out, a.Narration)
		}
	}
	return out
}

// Attestation is a GraphQL Attestation.
type Attestation struct {
	A athar.Attestation
	// Narr is the attestation's narration, set by the resolver that returns the
	// attestation (whole, or its id alone when that is all the query selects).
	Narr *Narration
}

// Narration is the attestation's narration.
func (a *Attestation) Narration() *Narration { return a.Narr }

// ID is the attestation's id.
func (a *Attestation) ID() string { return string(a.A.ID) }

// Evidence is the exact passage, nil when none is given.
func (a *Attestation) Evidence() *string {
	if !a.A.HasSpan {
		return nil
	}
	return &a.A.Evidence
}

// Start is the passage's start offset in code points, nil when there is no passage.
func (a *Attestation) Start() *int {
	if !a.A.HasSpan {
		return nil
	}
	return &a.A.Start
}

// End is the passage's exclusive end offset in code points, nil when there is no passage.
func (a *Attestation) End() *int {
	if !a.A.HasSpan {
		return nil
	}
	return &a.A.End
}

// Note is the document's remark on the claim (its note field), nil when it gives none.
func (a *Attestation) Note() *string { return optional(a.A.Note) }

// Edition is the corpus edition whose text the offsets index, nil for a document's.
func (a *Attestation) Edition() *string { return optional(a.A.Edition) }

// Relation is a GraphQL Relation: one claim read from one of its ends.
type Relation struct {
	Predicate string
	Name      string
	Direction Direction
	Value     *string
	Other     athar.ID // the entity at the other end; empty for literal-valued claims
	Ref       *athar.ClaimRef
	Cl        *Claim // loaded for the relations of a page only
	// Ent is the entity at the other end, read with the page (graph's withOthers) so that
	// gqlgen resolves it inline; EntRead says it was read (nil then means not defined).
	Ent     Entity
	EntRead bool
}

// Claim is the relation's claim.
func (r *Relation) Claim() *Claim { return r.Cl }

// Entity is the entity at the other end, nil for a literal-valued claim (value is set).
func (r *Relation) Entity() (Entity, error) {
	switch {
	case r.Other == "":
		return nil, nil
	case !r.EntRead:
		return nil, fmt.Errorf("relation %s: the entity at its other end was not read with it", r.Ref.ID)
	case r.Ent == nil:
		return nil, fmt.Errorf("entity %s is referred to but not defined", r.Other)
	}
	return r.Ent, nil
}

// Edge is a GraphQL Edge.
type Edge struct {
	E athar.Edge
}

// Source is the subject's id.
func (e *Edge) Source() string { return string(e.E.Source) }

// Target is the object's id.
func (e *Edge) Target() string { return string(e.E.Target) }

// Predicate is the vocabulary name.
func (e *Edge) Predicate() string { return e.E.Predicate }

// Attestations is the number of narrations asserting the edge.
func (e *Edge) Attestations() int { return e.E.Attestations }

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func ids(in []athar.ID) []string {
	out := make([]string, len(in))
	for i, id := range in {
		out[i] = string(id)
	}
	return out
}

func nonNil(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}
