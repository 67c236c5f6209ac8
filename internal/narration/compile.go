package narration

import (
	"fmt"
	"unicode/utf8"

	"github.com/athar-hadith/athar/internal/athar"
)

// Compile returns every quad the checked narration asserts, all labelled with its IRI,
// sorted. It is deterministic and pure: the same document always gives the same quads, so
// re-importing changes nothing and an export reloaded elsewhere is identical.
//
// Besides the plain triple of each claim (subject predicate object), it emits a claim node
// (deterministic id from subject, predicate and object or value, shared by every narration
// that makes the claim) and an attestation node carrying the evidence's offsets (and the
// evidence itself only when it is not the text's passage at them: athar.DropImplied). The
// narrator and chain become narrates and transmits claims without evidence; each grading
// becomes a grading node (gradingIRI) linked from the narration.
func Compile(c *Checked) []athar.Quad {
	e := emitter{label: c.ID.IRI(), text: c.Text, textOK: utf8.ValidString(c.Text)}
	n := c.ID.IRI()
	e.iri(n, athar.RDFType, athar.TypeNarration.IRI())
	e.lit(n, athar.RDFSLabel, athar.StringTerm(c.Title))
	e.lit(n, athar.PredText, athar.StringTerm(c.Text))
	if c.Language != "" {
		e.lit(n, athar.PredLanguage, athar.StringTerm(c.Language))
	}
	if c.Translation != "" {
		e.lit(n, athar.PredTranslation, athar.StringTerm(c.Translation))
	}
	for i, r := range c.References {
		ref := fmt.Sprintf("%sreference/%s/%d", athar.Base, c.ID.Local(), i+1)
		e.iri(n, athar.PredReference, ref)
		e.iri(ref, athar.RDFType, athar.ClassReference)
		e.lit(ref, athar.PredPosition, athar.IntTerm(i+1))
		e.lit(ref, athar.PredCollection, athar.StringTerm(r.Collection))
		e.lit(ref, athar.PredNumber, athar.StringTerm(r.Number))
		if r.Edition != "" {
			e.lit(ref, athar.PredEdition, athar.StringTerm(r.Edition))
		}
		if r.URL != "" {
			e.lit(ref, athar.PredURL, athar.StringTerm(r.URL))
		}
	}
	for i, p := range c.Chain {
		link := fmt.Sprintf("%schain/%s/%d", athar.Base, c.ID.Local(), i+1)
		e.iri(n, athar.PredChainLink, link)
		e.lit(link, athar.PredPosition, athar.IntTerm(i+1))
		e.iri(link, athar.PredNarrator, p.IRI())
		e.claim(c.ID, CheckedClaim{Subject: p, Predicate: &athar.Predicate{Name: "transmits"}, Object: c.ID})
	}
	// Further routes: links like the chain's, each also carrying its route's number (2 on),
	// and a transmits claim for whoever the chain and earlier routes did not already name.
	transmits := map[athar.ID]bool{}
	for _, p := range c.Chain {
		transmits[p] = true
	}
	for k, route := range c.MoreRoutes {
		for i, p := range route {
			link := fmt.Sprintf("%sroute/%s/%d/%d", athar.Base, c.ID.Local(), k+2, i+1)
			e.iri(n, athar.PredChainLink, link)
			e.lit(link, athar.PredRoute, athar.IntTerm(k+2))
			e.lit(link, athar.PredPosition, athar.IntTerm(i+1))
			e.iri(link, athar.PredNarrator, p.IRI())
			if !transmits[p] {
				transmits[p] = true
				e.claim(c.ID, CheckedClaim{Subject: p, Predicate: &athar.Predicate{Name: "transmits"}, Object: c.ID})
			}
		}
	}
	if c.Narrator != "" {
		e.claim(c.ID, CheckedClaim{Subject: c.Narrator, Predicate: &athar.Predicate{Name: "narrates"}, Object: c.ID})
	}
	for _, g := range c.Gradings {
		node := gradingIRI(c.ID, g.Position)
		e.iri(n, athar.PredGrading, node)
		e.iri(node, athar.RDFType, athar.ClassGrading)
		e.lit(node, athar.PredPosition, athar.IntTerm(g.Position))
		if g.Grader != "" {
			e.iri(node, athar.PredGrader, g.Grader.IRI())
		} else {
			e.lit(node, athar.PredGraderName, athar.StringTerm(g.GraderName))
		}
		e.lit(node, athar.PredVerdict, athar.StringTerm(g.Verdict))
		if g.Grade != "" {
			e.lit(node, athar.PredGrade, athar.StringTerm(string(g.Grade)))
		}
		e.lit(node, athar.PredScope, athar.StringTerm(string(g.Scope)))
		if g.Part != "" {
			e.lit(node, athar.PredPart, athar.StringTerm(g.Part))
		}
		// Where the verdict is stated: a reference is held by the grading node itself
		// (collection, edition, number, url, as on a reference node), free text by statedIn.
		if r := g.StatedIn; r != nil {
			for p, v := range map[string]string{athar.PredCollection: r.Collection, athar.PredEdition: r.Edition, athar.PredNumber: r.Number, athar.PredURL: r.URL} {
				if v != "" {
					e.lit(node, p, athar.StringTerm(v))
				}
			}
		} else if g.StatedInText != "" {
			e.lit(node, athar.PredStatedIn, athar.StringTerm(g.StatedInText))
		}
		if g.Note != "" {
			e.lit(node, athar.RDFSComment, athar.StringTerm(g.Note))
		}
	}
	for _, ent := range c.Entities {
		s := ent.ID.IRI()
		e.iri(s, athar.RDFType, ent.Type.IRI())
		if ent.Name != "" {
			e.lit(s, athar.RDFSLabel, athar.StringTerm(ent.Name))
		}
		for _, a := range ent.Arabic {
			e.lit(s, athar.RDFSLabel, athar.Term{Literal: a, Lang: "ar"})
		}
		for _, a := range ent.Aliases {
			e.lit(s, athar.SKOSAltLbl, athar.StringTerm(a))
		}
		if ent.Description != "" {
			e.lit(s, athar.RDFSComment, athar.StringTerm(ent.Description))
		}
		for _, f := range ent.FormerIDs {
			e.lit(s, athar.PredFormerID, athar.StringTerm(string(f)))
		}
	}
	// Every narration that uses a verse defines it: verses exist by the Qur'an, not by
	// any one narration, so deleting a narration never strands a verse another one uses.
	for _, v := range c.Verses {
		s := v.ID().IRI()
		e.iri(s, athar.RDFType, athar.TypeVerse.IRI())
		e.lit(s, athar.RDFSLabel, athar.StringTerm(v.Name()))
		e.lit(s, athar.RDFSLabel, athar.Term{Literal: v.ArabicName(), Lang: "ar"})
		e.lit(s, athar.PredSurah, athar.IntTerm(v.Surah))
		e.lit(s, athar.PredAyah, athar.IntTerm(v.Ayah))
	}
	for _, cl := range c.Claims {
		e.claim(c.ID, cl)
	}
	return athar.SortUniqueQuads(e.quads)
}

// Defines returns the entities the narration defines: what DefinedEntities returns of
// Compile(c) -- its entities and the verses it uses, sorted -- without compiling it, so
// that a batch can validate the next document while this one compiles.
func (c *Checked) Defines() []athar.ID {
	ids := make([]athar.ID, 0, len(c.Entities)+len(c.Verses))
	for _, ent := range c.Entities {
		if definable(ent.ID) {
			ids = append(ids, ent.ID)
		}
	}
	for _, v := range c.Verses {
		if id := v.ID(); definable(id) {
			ids = append(ids, id)
		}
	}
	return uniq(ids)
}

// gradingIRI is the node of the narration's grading at the 1-based position.
func gradingIRI(narration athar.ID, position int) string {
	return fmt.Sprintf("%sgrading/%s/%d", athar.Base, narration.Local(), position)
}

type emitter struct {
	label  string
	text   string // the narration's text
	textOK bool   // whether text is valid UTF-8: only then is evidence left implied
	quads  []athar.Quad
}

func (e *emitter) iri(s, p, o string) {
	e.quads = append(e.quads, athar.Quad{Subject: s, Predicate: p, Object: athar.IRITerm(o), Label: e.label})
}

func (e *emitter) lit(s, p string, o athar.Term) {
	e.quads = append(e.quads, athar.Quad{Subject: s, Predicate: p, Object: o, Label: e.label})
}

func (e *emitter) claim(narration athar.ID, cl CheckedClaim) {
	pred := athar.VocabBase + cl.Predicate.Name
	var obj athar.Term
	if cl.Value != nil {
		obj = *cl.Value
	} else {
		obj = athar.IRITerm(cl.Object.IRI())
	}
	s := cl.Subject.IRI()
	e.lit(s, pred, obj)

	id := athar.ClaimID(cl.Subject, cl.Predicate.Name, obj)
	ci := id.IRI()
	// The claim node's vocab:predicate and vocab:object (or vocab:value) are the plain
	// triple's, left implied (athar.ImpliedClaimParts): exports state them.
	e.iri(ci, athar.PredSubject, s)

	start, end := -1, -1
	if cl.HasSpan {
		start, end = cl.Start, cl.End
	}
	ai := athar.AttestationID(id, narration, start, end).IRI()
	e.iri(ai, athar.PredClaim, ci)
	if narration.IRI() != e.label {
		// In the narration's own label the label says whose attestation it is
		// (athar.ImpliedNarrations): exports state it.
		e.iri(ai, athar.PredNarration, narration.IRI())
	}
	if cl.HasSpan {
		// The evidence is left implied when it is the text's passage at its offsets, as
		// validation makes it (athar.DropImplied): exports state it.
		if p, ok := athar.Passage(e.text, cl.Start, cl.End); !ok || !e.textOK || p != cl.Evidence {
			e.lit(ai, athar.PredEvidence, athar.StringTerm(cl.Evidence))
		}
		e.lit(ai, athar.PredStart, athar.IntTerm(cl.Start))
		e.lit(ai, athar.PredEnd, athar.IntTerm(cl.End))
	}
	if cl.Note != "" {
		e.lit(ai, athar.RDFSComment, athar.StringTerm(cl.Note))
	}
}
