package narration

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
)

// Decompile reads a narration's stored quads (Store.NarrationQuads) back into the checked
// form Compile made them from: its header, references, chain and gradings, the entities it
// defines with their names, and one claim per attestation. It is the inverse of Compile,
// and it checks that: when Compile of the result does not give back exactly the quads
// (a narration restored from hand-made N-Quads, say), it fails rather than lose a quad.
//
// The claims the narrator and chain compile to (narrates and transmits without evidence)
// are read as the narrator and chain, not as claims of their own.
func Decompile(id athar.ID, quads []athar.Quad, vocab *athar.Vocabulary) (*Checked, error) {
	d := decompiler{id: id, vocab: vocab, about: map[string][]athar.Quad{}}
	for _, q := range quads {
		if q.Label != id.IRI() {
			return nil, fmt.Errorf("decompile %s: quad %s is labelled with another graph", id, q.Key())
		}
		d.about[q.Subject] = append(d.about[q.Subject], q)
	}
	// the claim nodes' predicates and objects, which their plain triples say
	for _, q := range athar.ImpliedClaimParts(quads) {
		d.about[q.Subject] = append(d.about[q.Subject], q)
	}
	c, err := d.run()
	if err != nil {
		return nil, fmt.Errorf("decompile %s: %w", id, err)
	}
	// A store written before the types and evidence were left implied states them:
	// compared without them, as a load of its documents would hold it.
	if err := sameQuads(Compile(c), athar.DropImplied(slices.Clone(quads))); err != nil {
		return nil, fmt.Errorf("decompile %s: the stored quads are not what a narration document compiles to (%v); re-import its document", id, err)
	}
	return c, nil
}

type decompiler struct {
	id    athar.ID
	vocab *athar.Vocabulary
	about map[string][]athar.Quad // subject IRI -> its quads
}

// props returns the first object of each predicate of the node.
func (d *decompiler) props(node string) map[string]athar.Term {
	m := map[string]athar.Term{}
	for _, q := range d.about[node] {
		if _, ok := m[q.Predicate]; !ok {
			m[q.Predicate] = q.Object
		}
	}
	return m
}

func position(t athar.Term) int {
	n, _ := strconv.Atoi(t.Literal)
	return n
}

func (d *decompiler) run() (*Checked, error) {
	c := &Checked{ID: d.id}
	n := d.id.IRI()
	var refs, links, gradings []string
	for _, q := range d.about[n] {
		switch q.Predicate {
		case athar.RDFSLabel:
			c.Title = q.Object.Literal
		case athar.PredText:
			c.Text = q.Object.Literal
		case athar.PredLanguage:
			c.Language = q.Object.Literal
		case athar.PredTranslation:
			c.Translation = q.Object.Literal
		case athar.PredReference:
			refs = append(refs, q.Object.IRI)
		case athar.PredChainLink:
			links = append(links, q.Object.IRI)
		case athar.PredGrading:
			gradings = append(gradings, q.Object.IRI)
		}
	}
	sortByPosition := func(nodes []string) {
		sort.Slice(nodes, func(i, j int) bool {
			return position(d.props(nodes[i])[athar.PredPosition]) < position(d.props(nodes[j])[athar.PredPosition])
		})
	}
	sortByPosition(refs)
	for _, r := range refs {
		m := d.props(r)
		c.References = append(c.References, athar.Reference{
			Collection: m[athar.PredCollection].Literal, Edition: m[athar.PredEdition].Literal,
			Number: m[athar.PredNumber].Literal, URL: m[athar.PredURL].Literal,
		})
	}
	sortByPosition(links)
	for _, l := range links {
		m := d.props(l)
		p, ok := athar.ParseIRI(m[athar.PredNarrator].IRI)
		if !ok {
			return nil, fmt.Errorf("chain link %s names no narrator", l)
		}
		route := 1
		if t, ok := m[athar.PredRoute]; ok {
			route = position(t)
		}
		switch {
		case route == 1:
			c.Chain = append(c.Chain, p)
		case route >= 2:
			for len(c.MoreRoutes) < route-1 {
				c.MoreRoutes = append(c.MoreRoutes, nil)
			}
			c.MoreRoutes[route-2] = append(c.MoreRoutes[route-2], p)
		default:
			return nil, fmt.Errorf("chain link %s has route %d", l, route)
		}
	}
	sortByPosition(gradings)
	for _, g := range gradings {
		m := d.props(g)
		gr := athar.Grading{
			Position: position(m[athar.PredPosition]), GraderName: m[athar.PredGraderName].Literal,
			Verdict: m[athar.PredVerdict].Literal, Grade: athar.Grade(m[athar.PredGrade].Literal),
			Scope: athar.GradingScope(m[athar.PredScope].Literal), Part: m[athar.PredPart].Literal,
			Note: m[athar.RDFSComment].Literal,
		}
		if p, ok := athar.ParseIRI(m[athar.PredGrader].IRI); ok {
			gr.Grader = p
		}
		gr.StatedIn = statedIn(m)
		gr.StatedInText = m[athar.PredStatedIn].Literal
		c.Gradings = append(c.Gradings, gr)
	}
	if err := d.entities(c); err != nil {
		return nil, err
	}
	if err := d.claims(c); err != nil {
		return nil, err
	}
	return c, nil
}

// statedIn reads the reference a grading node holds, nil when it holds none.
func statedIn(m map[string]athar.Term) *athar.Reference {
	r := athar.Reference{Collection: m[athar.PredCollection].Literal, Edition: m[athar.PredEdition].Literal,
		Number: m[athar.PredNumber].Literal, URL: m[athar.PredURL].Literal}
	if r == (athar.Reference{}) {
		return nil
	}
	return &r
}

// entities reads the entities the narration defines (gives a type), and the verses it uses.
func (d *decompiler) entities(c *Checked) error {
	subjects := make([]string, 0, len(d.about))
	for s := range d.about {
		subjects = append(subjects, s)
	}
	sort.Strings(subjects)
	for _, s := range subjects {
		id, ok := athar.ParseIRI(s)
		if !ok {
			continue
		}
		t, isEntity := athar.TypeOfPrefix(id.Prefix())
		if !isEntity || t == athar.TypeNarration || !d.typed(s, t.IRI()) {
			continue
		}
		e := CheckedEntity{ID: id, Type: t}
		var auto map[string]bool // the names Compile gives every verse
		if t == athar.TypeVerse {
			v, err := athar.ParseVerseRef(id.Local())
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			c.Verses = append(c.Verses, v)
			auto = map[string]bool{v.Name(): true, "@ar " + v.ArabicName(): true}
		}
		extra := false
		for _, q := range d.about[s] {
			o := q.Object
			switch q.Predicate {
			case athar.RDFSLabel:
				if o.Lang == "ar" {
					if !auto["@ar "+o.Literal] {
						e.Arabic = append(e.Arabic, o.Literal)
						extra = true
					}
					continue
				}
				if auto[o.Literal] {
					continue
				}
				if e.Name != "" {
					return fmt.Errorf("%s has two names in one narration (%q and %q)", id, e.Name, o.Literal)
				}
				e.Name, extra = o.Literal, true
			case athar.SKOSAltLbl:
				e.Aliases, extra = append(e.Aliases, o.Literal), true
			case athar.RDFSComment:
				e.Description, extra = o.Literal, true
			case athar.PredFormerID:
				e.FormerIDs, extra = append(e.FormerIDs, athar.ID(o.Literal)), true
			}
		}
		if t != athar.TypeVerse || extra {
			c.Entities = append(c.Entities, e)
		}
	}
	sort.Slice(c.Verses, func(i, j int) bool {
		a, b := c.Verses[i], c.Verses[j]
		return a.Surah < b.Surah || a.Surah == b.Surah && a.Ayah < b.Ayah
	})
	return nil
}

func (d *decompiler) typed(s, class string) bool {
	for _, q := range d.about[s] {
		if q.Predicate == athar.RDFType && q.Object.IRI == class {
			return true
		}
		if c, ok := athar.ImpliedClass(q.Predicate); ok && c == class {
			return true // the store leaves claims' and attestations' types implied
		}
	}
	return false
}

// claims reads one CheckedClaim per attestation; the derived narrates and transmits
// claims (no evidence, about this narration) give the narrator instead.
func (d *decompiler) claims(c *Checked) error {
	type claimNode struct {
		subject, object athar.ID
		predicate       *athar.Predicate
		value           *athar.Term
	}
	nodes := map[string]*claimNode{}
	var atts []string
	for s := range d.about {
		switch {
		case d.typed(s, athar.ClassClaim):
			m := d.props(s)
			cn := &claimNode{}
			cn.subject, _ = athar.ParseIRI(m[athar.PredSubject].IRI)
			pi := m[athar.PredPredicate].IRI
			p, ok := d.vocab.PredicateByIRI(pi)
			if !ok {
				p = &athar.Predicate{Name: strings.TrimPrefix(pi, athar.VocabBase)}
			}
			cn.predicate = p
			if v, ok := m[athar.PredValue]; ok {
				cn.value = &v
			} else {
				cn.object, _ = athar.ParseIRI(m[athar.PredObject].IRI)
			}
			nodes[s] = cn
		case d.typed(s, athar.ClassAttestation):
			atts = append(atts, s)
		}
	}
	sort.Strings(atts)
	for _, a := range atts {
		m := d.props(a)
		cn, ok := nodes[m[athar.PredClaim].IRI]
		if !ok {
			return fmt.Errorf("attestation %s is of no claim of this narration", a)
		}
		_, hasSpan := m[athar.PredStart]
		derived := !hasSpan && cn.object == d.id && (cn.predicate.Name == "narrates" || cn.predicate.Name == "transmits")
		if derived {
			if cn.predicate.Name == "narrates" {
				c.Narrator = cn.subject
			}
			continue
		}
		cc := CheckedClaim{
			Index: len(c.Claims), Subject: cn.subject, Predicate: cn.predicate, Object: cn.object, Value: cn.value,
			Evidence: m[athar.PredEvidence].Literal, Note: m[athar.RDFSComment].Literal, HasSpan: hasSpan,
		}
		if hasSpan {
			cc.Start, cc.End = position(m[athar.PredStart]), position(m[athar.PredEnd])
			if _, stated := m[athar.PredEvidence]; !stated {
				cc.Evidence, _ = athar.Passage(c.Text, cc.Start, cc.End) // left implied (Compile)
			}
		}
		c.Claims = append(c.Claims, cc)
	}
	return nil
}

// sameQuads reports the first difference (in key order) between two sets of quads.
func sameQuads(a, b []athar.Quad) error {
	ka, kb := quadKeys(a), quadKeys(b)
	for _, k := range sortedKeys(kb) {
		if !ka[k] {
			return fmt.Errorf("%s would be lost", k)
		}
	}
	for _, k := range sortedKeys(ka) {
		if !kb[k] {
			return fmt.Errorf("%s would be added", k)
		}
	}
	return nil
}

func quadKeys(qs []athar.Quad) map[string]bool {
	m := make(map[string]bool, len(qs))
	for _, q := range qs {
		m[q.Key()] = true
	}
	return m
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
