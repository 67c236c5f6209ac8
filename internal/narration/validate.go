package narration

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
)

// Graph is what validation needs to know of the current graph: which narrations define
// each id, which ids were merged into which entities, and the ids it defines (to suggest
// the closest when a document names one that does not exist). A Store satisfies it.
type Graph interface {
	DefinedBy(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ID, error)
	MergedInto(ctx context.Context, ids []athar.ID) (map[athar.ID]athar.ID, error)
	EntityIDs(ctx context.Context, t athar.EntityType) ([]athar.ID, error)
}

// Checked is a document that passed validation: ids parsed, verse ranges expanded and
// evidence located. Compile turns it into quads.
type Checked struct {
	ID          athar.ID
	Title       string
	Text        string
	Language    string
	Translation string
	References  []athar.Reference
	Narrator    athar.ID
	Chain       []athar.ID
	MoreRoutes  [][]athar.ID // further chains (the document's routes), after Chain
	Entities    []CheckedEntity
	Claims      []CheckedClaim
	Gradings    []athar.Grading
	Verses      []athar.VerseRef // every verse the document uses, sorted
	Uses        []athar.ID       // entity ids used but defined elsewhere in the graph, sorted
	// Merged lists the ids the document wrote that a merge retired, each with the entity
	// it was merged into; everything above already names the entities they were merged into.
	Merged map[athar.ID]athar.ID
}

// CheckedEntity is an entity definition with its type resolved.
type CheckedEntity struct {
	ID          athar.ID
	Type        athar.EntityType
	Name        string
	Arabic      []string
	Aliases     []string
	Description string
	FormerIDs   []athar.ID // ids merged into this entity, recorded as its former ids
}

// CheckedClaim is one claim (a verse range in the document gives one per verse) with the
// exact evidence passage and its offsets in the text.
type CheckedClaim struct {
	Index     int // position in the document's claims list
	Subject   athar.ID
	Predicate *athar.Predicate
	Object    athar.ID    // set for entity-valued claims
	Value     *athar.Term // set for literal-valued claims
	Evidence  string      // the passage exactly as the text writes it; empty for derived claims
	Start     int
	End       int
	HasSpan   bool
	Note      string // the document's note on this claim, stored on the attestation
}

// Validate checks d against every rule of the narration format: id syntax and prefixes,
// verses that exist, ids defined in the document or in g, predicates in the vocabulary with
// fitting domain and range, exactly one of object or value, evidence that is a passage of
// the text, and gradings with a grader, a verdict and a scope. It returns every problem at
// once. g may be nil: ids defined outside the document are then unknown.
//
// An id that a merge retired (Importer.Merge) is read as the id of the entity it was merged
// into, exactly as the merge rewrote the narrations that used it: a document written before
// the merge imports to what the merge made of it.
func Validate(ctx context.Context, d *Document, vocab *athar.Vocabulary, g Graph) (*Checked, error) {
	p, err := Prepare(ctx, d, vocab)
	if err != nil {
		return nil, err
	}
	return p.Check(ctx, g)
}

// Prepared is a document checked for everything that needs no graph: ids parsed, entities
// and gradings checked, and every claim's evidence located in the text (the costly part,
// linear in the document's size). The write path prepares documents before it takes its
// write lock, so that a large document does not hold up other writes while it is matched.
type Prepared struct {
	v    *validator
	refs []claimRef
}

// Prepare runs the checks of Validate that need no graph. Problems are kept for Check,
// which reports them with the graph's; the error is only for a done ctx (DEADLINE_EXCEEDED
// or CANCELLED, never a verdict on the document).
func Prepare(ctx context.Context, d *Document, vocab *athar.Vocabulary) (*Prepared, error) {
	op := "validate " + d.Source
	if err := athar.Stopped(ctx, op); err != nil {
		return nil, err
	}
	v := &validator{doc: d, vocab: vocab, c: &Checked{}, types: map[athar.ID]athar.EntityType{}, verses: map[athar.VerseRef]bool{}}
	v.header()
	v.entities()
	v.gradings()
	refs := v.claimIDs()
	if err := athar.Stopped(ctx, op); err != nil {
		return nil, err
	}
	if err := v.locateEvidence(ctx); err != nil {
		return nil, err
	}
	return &Prepared{v: v, refs: refs}, nil
}

// Check finishes the validation p began, against g. A prepared document is checked once.
func (p *Prepared) Check(ctx context.Context, g Graph) (*Checked, error) {
	v, d := p.v, p.v.doc
	if err := athar.Stopped(ctx, "validate "+d.Source); err != nil {
		return nil, err
	}
	if err := v.resolveExternal(ctx, g); err != nil {
		return nil, err
	}
	v.claims(p.refs)
	if len(v.problems) == 0 && len(v.c.Merged) > 0 {
		for _, p := range renameIDs(v.c, v.c.Merged) {
			path := "claims"
			if p.claim >= 0 {
				path = fmt.Sprintf("claims[%d]", p.claim)
			}
			v.fail(path, "%s", p.msg)
		}
	}
	if len(v.problems) > 0 {
		return nil, &athar.ValidationError{Document: d.Source, Problems: v.problems}
	}
	for vr := range v.verses {
		v.c.Verses = append(v.c.Verses, vr)
	}
	sort.Slice(v.c.Verses, func(i, j int) bool {
		a, b := v.c.Verses[i], v.c.Verses[j]
		return a.Surah < b.Surah || a.Surah == b.Surah && a.Ayah < b.Ayah
	})
	return v.c, nil
}

type validator struct {
	doc      *Document
	vocab    *athar.Vocabulary
	c        *Checked
	problems []athar.Problem
	types    map[athar.ID]athar.EntityType // ids known so far: defined here, verses, external
	verses   map[athar.VerseRef]bool
	external map[athar.ID]string // id used but not defined here -> first field path using it
	// candidates caches, per type, the local parts of the ids suggestions are drawn from.
	candidates map[athar.EntityType][]string
	found      []evidenceFound // per claim, where its evidence is in the text
	text       *textIndex      // the text, indexed for finding evidence
}

// evidenceFound is where one claim's evidence occurs in the text: every occurrence, or
// too many to list (more than MaxEvidenceOccurrences).
type evidenceFound struct {
	spans   []span
	tooMany bool
}

// locateEvidence finds every claim's evidence in the text, through one index of the text
// built once: linear in the text and the evidence, however many claims there are.
func (v *validator) locateEvidence(ctx context.Context) error {
	v.found = make([]evidenceFound, len(v.doc.Claims))
	for i, c := range v.doc.Claims {
		if strings.TrimSpace(c.Evidence) == "" {
			continue
		}
		if i%256 == 0 {
			if err := athar.Stopped(ctx, "validate "+v.doc.Source); err != nil {
				return err
			}
		}
		if v.text == nil {
			v.text = newTextIndex(v.c.Text)
		}
		spans, ok := v.text.find(c.Evidence, MaxEvidenceOccurrences)
		v.found[i] = evidenceFound{spans: spans, tooMany: !ok}
	}
	return nil
}

func (v *validator) fail(path, format string, args ...any) {
	v.problems = append(v.problems, athar.Problem{Path: path, Line: v.doc.Line(path), Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) header() {
	h := v.doc.Narration
	id, t, err := athar.ParseEntityID(h.ID)
	switch {
	case err != nil:
		v.fail("narration.id", "%v", err)
	case t != athar.TypeNarration:
		v.fail("narration.id", "%q must start with narration: (e.g. narration:ahmad-208)", h.ID)
	default:
		v.c.ID = id
		v.types[id] = athar.TypeNarration
	}
	v.c.Title = strings.TrimSpace(h.Title)
	if v.c.Title == "" {
		v.fail("narration.title", "the title is empty")
	}
	v.c.Text = h.Text
	if strings.TrimSpace(h.Text) == "" {
		v.fail("narration.text", "the text is empty: claims need a text to quote their evidence from")
	}
	v.c.Language = strings.TrimSpace(h.Language)
	if v.c.Language != "" && !validLang(v.c.Language) {
		v.fail("narration.language", "%q is not a language tag: expected e.g. en, ar, ur", h.Language)
	}
	v.c.Translation = strings.TrimSpace(h.Translation)
	if len(h.References) == 0 {
		v.fail("narration.references", "at least one reference is needed (collection and number), so that readers can find the text")
	}
	seen := map[athar.Reference]bool{}
	for i, r := range h.References {
		ref := athar.Reference{Collection: strings.TrimSpace(r.Collection), Edition: strings.TrimSpace(r.Edition), Number: strings.TrimSpace(r.Number), URL: strings.TrimSpace(r.URL)}
		if seen[ref] {
			v.fail(fmt.Sprintf("narration.references[%d]", i), "the same reference is listed twice")
		}
		seen[ref] = true
		v.c.References = append(v.c.References, ref)
	}
	if h.Narrator != "" {
		v.c.Narrator = v.personRef(h.Narrator, "narration.narrator")
	}
	for i, p := range h.Chain {
		v.c.Chain = append(v.c.Chain, v.personRef(p, fmt.Sprintf("narration.chain[%d]", i)))
	}
	if len(h.Routes) > 0 && len(h.Chain) == 0 {
		v.fail("narration.routes", "routes are the chains after the first: give the first in chain")
	}
	seenRoute := map[string]string{strings.Join(h.Chain, " "): "narration.chain"}
	for i, r := range h.Routes {
		path := fmt.Sprintf("narration.routes[%d]", i)
		if len(r) == 0 {
			v.fail(path, "empty route: list its transmitters, nearest the compiler first")
			continue
		}
		key := strings.Join(r, " ")
		if prev, ok := seenRoute[key]; ok {
			v.fail(path, "the same route as %s: routes lists only the chains after the first (chain), each once", prev)
		}
		seenRoute[key] = path
		route := make([]athar.ID, 0, len(r))
		for j, p := range r {
			route = append(route, v.personRef(p, fmt.Sprintf("%s[%d]", path, j)))
		}
		v.c.MoreRoutes = append(v.c.MoreRoutes, route)
	}
}

func validLang(s string) bool {
	for i, part := range strings.Split(s, "-") {
		if len(part) < 2 || len(part) > 8 || (i == 0 && len(part) > 3) {
			return false
		}
		for _, r := range part {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return false
			}
		}
	}
	return true
}

// personRef parses an id that must name a person, remembering it for the graph lookup.
func (v *validator) personRef(s, path string) athar.ID {
	id, t, err := athar.ParseEntityID(s)
	if err != nil {
		v.fail(path, "%v", err)
		return ""
	}
	if t != athar.TypePerson {
		v.fail(path, "%q is a %s: expected a person: id", s, t)
		return ""
	}
	v.use(id, path)
	return id
}

func (v *validator) use(id athar.ID, path string) {
	if _, ok := v.types[id]; ok {
		return
	}
	if v.external == nil {
		v.external = map[athar.ID]string{}
	}
	if _, ok := v.external[id]; !ok {
		v.external[id] = path
	}
}

func (v *validator) entities() {
	defined := map[athar.ID]int{}
	for i, e := range v.doc.Entities {
		path := fmt.Sprintf("entities[%d]", i)
		id, t, err := athar.ParseEntityID(e.ID)
		if err != nil {
			v.fail(path+".id", "%v", err)
			continue
		}
		if e.Type != "" && athar.EntityType(e.Type) != t {
			if !athar.EntityType(e.Type).Valid() {
				v.fail(path+".type", "unknown type %q: expected one of Person, Group, Event, Place, Concept, Verse", e.Type)
			} else {
				v.fail(path+".type", "type %s does not match the id's prefix %q (a %s id starts with %s:)", e.Type, id.Prefix(), e.Type, athar.EntityType(e.Type).Prefix())
			}
			continue
		}
		if t == athar.TypeNarration {
			v.fail(path+".id", "%s: narrations are defined by their own document's narration block, not as entities", id)
			continue
		}
		if j, dup := defined[id]; dup {
			v.fail(path+".id", "%s is defined twice (also at entities[%d]); give every name in one entry", id, j)
			continue
		}
		defined[id] = i
		name := strings.TrimSpace(e.Name)
		if name == "" && t != athar.TypeVerse {
			v.fail(path+".name", "missing: %s needs a name", id)
		}
		ce := CheckedEntity{ID: id, Type: t, Name: name, Description: strings.TrimSpace(e.Description)}
		for j, a := range e.Arabic {
			if a = strings.TrimSpace(a); a == "" {
				v.fail(fmt.Sprintf("%s.arabic[%d]", path, j), "empty name")
				continue
			}
			ce.Arabic = append(ce.Arabic, a)
		}
		for j, a := range e.Aliases {
			if a = strings.TrimSpace(a); a == "" {
				v.fail(fmt.Sprintf("%s.aliases[%d]", path, j), "empty alias")
				continue
			}
			ce.Aliases = append(ce.Aliases, a)
		}
		if t == athar.TypeVerse {
			vr, _ := athar.ParseVerseRef(string(id))
			v.verses[vr] = true
		}
		v.types[id] = t
		v.c.Entities = append(v.c.Entities, ce)
	}
	// Ids used in the header before the entities were known are not external after all.
	for id := range v.external {
		if _, ok := v.types[id]; ok {
			delete(v.external, id)
		}
	}
}

// claimRef is one claim's parsed subject and object ids (verse ranges expanded).
type claimRef struct {
	subjects []athar.ID
	objects  []athar.ID
	ok       bool
}

// claimIDs parses every id the claims use, so that the graph can be asked about them all
// at once.
func (v *validator) claimIDs() []claimRef {
	out := make([]claimRef, len(v.doc.Claims))
	for i, c := range v.doc.Claims {
		path := fmt.Sprintf("claims[%d]", i)
		r := claimRef{ok: true}
		if c.Subject == "" {
			v.fail(path+".subject", "missing: a claim needs a subject id")
			r.ok = false
		} else if ids, ok := v.ref(c.Subject, path+".subject"); ok {
			r.subjects = ids
		} else {
			r.ok = false
		}
		if c.Object != "" {
			if ids, ok := v.ref(c.Object, path+".object"); ok {
				r.objects = ids
			} else {
				r.ok = false
			}
		}
		out[i] = r
	}
	return out
}

// ref parses an entity id or verse range used by a claim.
func (v *validator) ref(s, path string) ([]athar.ID, bool) {
	if strings.HasPrefix(s, "verse:") {
		vs, err := athar.ParseVerseRange(s)
		if err != nil {
			v.fail(path, "%v", err)
			return nil, false
		}
		ids := make([]athar.ID, len(vs))
		for i, vr := range vs {
			v.verses[vr] = true
			ids[i] = vr.ID()
			v.types[ids[i]] = athar.TypeVerse
		}
		return ids, true
	}
	id, _, err := athar.ParseEntityID(s)
	if err != nil {
		v.fail(path, "%v", err)
		return nil, false
	}
	v.use(id, path)
	return []athar.ID{id}, true
}

// resolveExternal asks the graph about every id not defined in the document, and about
// every id the document uses or defines that a merge may have retired. An id counts as
// defined only if some narration other than this one defines it (or the id it was merged
// into): a new version of a narration cannot lean on what its old version defined. An
// undefined id is reported with the closest ids the graph and the document define.
func (v *validator) resolveExternal(ctx context.Context, g Graph) error {
	if g != nil {
		var ask []athar.ID
		for id, t := range v.types {
			if t != athar.TypeVerse && t != athar.TypeNarration {
				ask = append(ask, id)
			}
		}
		for id := range v.external {
			ask = append(ask, id)
		}
		if len(ask) > 0 {
			sort.Slice(ask, func(i, j int) bool { return ask[i] < ask[j] })
			merged, err := g.MergedInto(ctx, ask)
			if err != nil {
				return fmt.Errorf("validate %s: %w", v.doc.Source, err)
			}
			if len(merged) > 0 {
				v.c.Merged = merged
			}
		}
	}
	if len(v.external) == 0 {
		return nil
	}
	ids := make([]athar.ID, 0, len(v.external))
	for id := range v.external {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	target := func(id athar.ID) athar.ID {
		if t, ok := v.c.Merged[id]; ok {
			return t
		}
		return id
	}
	var defs map[athar.ID][]athar.ID
	if g != nil {
		lookup := make([]athar.ID, len(ids))
		for i, id := range ids {
			lookup[i] = target(id)
		}
		var err error
		if defs, err = g.DefinedBy(ctx, uniq(lookup)); err != nil {
			return fmt.Errorf("validate %s: %w", v.doc.Source, err)
		}
	}
	for _, id := range ids {
		to := target(id)
		_, here := v.types[to] // merged into an entity this document defines
		by := without(defs[to], v.c.ID)
		if len(by) == 0 && !here {
			switch {
			case len(defs[to]) > 0:
				v.fail(v.external[id], "%s is defined only by the previous version of this narration; define it in this document's entities", to)
			case to != id:
				v.fail(v.external[id], "%s was merged into %s, which is not defined in this document's entities or in the graph", id, to)
			default:
				hint, err := v.closestIDs(ctx, g, id)
				if err != nil {
					return err
				}
				v.fail(v.external[id], "%s is not defined in this document's entities or in the graph%s", id, hint)
			}
			continue
		}
		t, _ := athar.TypeOfPrefix(id.Prefix())
		v.types[id] = t
		if !here {
			v.c.Uses = append(v.c.Uses, to)
		}
	}
	v.c.Uses = uniq(v.c.Uses)
	return nil
}

// closestIDs returns " (did you mean X or Y?)" naming the ids of the same type, defined in
// the graph or in this document, closest to id, or "" when none is close.
func (v *validator) closestIDs(ctx context.Context, g Graph, id athar.ID) (string, error) {
	t, _ := athar.TypeOfPrefix(id.Prefix())
	if v.candidates == nil {
		v.candidates = map[athar.EntityType][]string{}
	}
	cands, ok := v.candidates[t]
	if !ok {
		seen := map[string]bool{}
		add := func(c athar.ID) {
			if c.Prefix() == id.Prefix() && !seen[c.Local()] {
				seen[c.Local()] = true
				cands = append(cands, c.Local())
			}
		}
		if g != nil {
			ids, err := g.EntityIDs(ctx, t)
			if err != nil {
				return "", fmt.Errorf("validate %s: %w", v.doc.Source, err)
			}
			for _, c := range ids {
				add(c)
			}
		}
		for c, ct := range v.types {
			if ct == t {
				add(c)
			}
		}
		sort.Strings(cands)
		v.candidates[t] = cands
	}
	best := Closest(id.Local(), cands, 3)
	if len(best) == 0 {
		return "", nil
	}
	for i, b := range best {
		best[i] = id.Prefix() + ":" + b
	}
	return " (did you mean " + strings.Join(best, " or ") + "?)", nil
}

// gradings checks the document's gradings: a grader (a person: id, or a name), a verdict,
// a scope (with the part it covers for scope part), a known grade when one is given.
func (v *validator) gradings() {
	seen := map[athar.Grading]int{}
	for i, g := range v.doc.Gradings {
		path := fmt.Sprintf("gradings[%d]", i)
		gr := athar.Grading{
			Position: i + 1,
			Verdict:  strings.TrimSpace(g.Verdict),
			Part:     strings.TrimSpace(g.Part),
			Note:     strings.TrimSpace(g.Note),
		}
		grader := strings.TrimSpace(g.Grader)
		if prefix, _, ok := strings.Cut(grader, ":"); ok && !strings.ContainsAny(grader, " \t") {
			if _, known := athar.TypeOfPrefix(prefix); known {
				gr.Grader = v.personRef(grader, path+".grader")
			} else {
				gr.GraderName = grader
			}
		} else {
			gr.GraderName = grader
		}
		if g.Grade != "" {
			grade, ok := athar.ParseGrade(g.Grade)
			if !ok {
				names := make([]string, 0, len(athar.Grades()))
				for _, x := range athar.Grades() {
					names = append(names, string(x))
				}
				v.fail(path+".grade", "unknown grade %q: expected one of %s (or leave grade out: the verdict is kept as stated)", g.Grade, strings.Join(names, ", "))
			}
			gr.Grade = grade
		}
		scope := athar.GradingScope(strings.ToLower(strings.TrimSpace(g.Scope)))
		switch {
		case g.Scope == "":
			// Parse reported it missing.
		case !scope.Valid():
			v.fail(path+".scope", "unknown scope %q: expected chain (the isnad only), text (the report as a whole) or part (one part of the text, described in part)", g.Scope)
		case scope == athar.ScopePart && gr.Part == "":
			v.fail(path+".part", "missing: scope part needs part, saying which part of the text the verdict covers")
		case scope != athar.ScopePart && gr.Part != "":
			v.fail(path+".part", "part is only for scope part (this grading's scope is %s)", scope)
		}
		gr.Scope = scope
		if s := g.StatedIn; s != nil {
			if r := s.Reference; r != nil {
				gr.StatedIn = &athar.Reference{Collection: strings.TrimSpace(r.Collection), Edition: strings.TrimSpace(r.Edition), Number: strings.TrimSpace(r.Number), URL: strings.TrimSpace(r.URL)}
			} else {
				gr.StatedInText = strings.TrimSpace(s.Text)
			}
		}
		key := gr
		key.Position, key.Grade, key.StatedIn, key.StatedInText, key.Note = 0, "", nil, "", ""
		if j, dup := seen[key]; dup {
			v.fail(path, "the same grading (grader, verdict, scope) is already at gradings[%d]", j)
		}
		seen[key] = i
		v.c.Gradings = append(v.c.Gradings, gr)
	}
}

func without(ids []athar.ID, x athar.ID) []athar.ID {
	var out []athar.ID
	for _, id := range ids {
		if id != x {
			out = append(out, id)
		}
	}
	return out
}

func (v *validator) claims(refs []claimRef) {
	seen := map[string]int{}
	for i, c := range v.doc.Claims {
		path := fmt.Sprintf("claims[%d]", i)
		r := refs[i]
		p, ok := v.vocab.Predicate(c.Predicate)
		if !ok {
			if c.Predicate == "" {
				v.fail(path+".predicate", "missing: a claim needs a predicate from the vocabulary")
			} else {
				v.fail(path+".predicate", "unknown predicate %q%s (see docs/vocabulary.md)", c.Predicate, suggest(c.Predicate, v.vocab.Names()))
			}
			r.ok = false
		}
		switch {
		case c.Object != "" && c.Value != nil:
			v.fail(path, "a claim has exactly one of object and value, not both")
			r.ok = false
		case c.Object == "" && c.Value == nil:
			v.fail(path, "a claim needs an object (an entity id) or a value (a number or text)")
			r.ok = false
		}
		var value *athar.Term
		if ok && r.ok {
			value = v.fitClaim(path, p, c, r)
			if p.Literal == "" && value != nil || p.Literal != "" && value == nil {
				r.ok = false
			}
		}
		if strings.TrimSpace(c.Evidence) == "" {
			v.fail(path+".evidence", "missing: every claim needs the exact words of the text that support it")
			continue
		}
		spans := v.found[i].spans
		var sp span
		switch {
		case v.found[i].tooMany && c.Occurrence > 0:
			v.fail(path+".occurrence", "the evidence occurs more than %d times in the text (the limit for occurrence, MaxEvidenceOccurrences): quote more words", MaxEvidenceOccurrences)
			continue
		case v.found[i].tooMany:
			v.fail(path+".evidence", "%q occurs more than %d times in the text: quote more words", shorten(c.Evidence), MaxEvidenceOccurrences)
			continue
		case len(spans) == 0:
			v.fail(path+".evidence", "%q is not a passage of narration.text (only whitespace may differ; quotes and apostrophes must match the text)", shorten(c.Evidence))
			continue
		case c.Occurrence > len(spans):
			v.fail(path+".occurrence", "the evidence occurs %d time(s) in the text, so there is no occurrence %d", len(spans), c.Occurrence)
			continue
		case c.Occurrence > 0:
			sp = spans[c.Occurrence-1]
		case len(spans) > 1:
			v.fail(path+".evidence", "%q occurs %d times in the text: quote more words, or add occurrence: N (1 to %d)", shorten(c.Evidence), len(spans), len(spans))
			continue
		default:
			sp = spans[0]
		}
		if !r.ok {
			continue
		}
		evidence := v.text.passage(sp)
		for _, s := range r.subjects {
			objs := r.objects
			if value != nil {
				objs = []athar.ID{""}
			}
			for _, o := range objs {
				cc := CheckedClaim{Index: i, Subject: s, Predicate: p, Object: o, Value: value, Evidence: evidence, Start: sp.start, End: sp.end, HasSpan: true, Note: strings.TrimSpace(c.Note)}
				if p.Symmetric && o != "" && o < s {
					cc.Subject, cc.Object = o, s
				}
				key := fmt.Sprintf("%s|%s|%s|%v|%d|%d", cc.Subject, p.Name, cc.Object, value, sp.start, sp.end)
				if j, dup := seen[key]; dup {
					v.fail(path, "the same claim with the same evidence is already at claims[%d]", j)
					continue
				}
				seen[key] = i
				v.c.Claims = append(v.c.Claims, cc)
			}
		}
	}
}

// fitClaim checks the claim's subject and object or value against the predicate's domain
// and range, and returns the literal term for literal-valued predicates.
func (v *validator) fitClaim(path string, p *athar.Predicate, c ClaimDef, r claimRef) *athar.Term {
	// An id without a type was not found, and is reported as such already.
	for _, s := range r.subjects {
		if t, known := v.types[s]; known && !p.AllowsSubject(t) {
			v.fail(path+".subject", "%s is a %s, but %s takes a subject of type %s", s, t, p.Name, typeList(p.Domain))
			return nil
		}
	}
	if p.Literal == "" {
		if c.Value != nil {
			v.fail(path+".value", "%s relates entities: give an object (an id of type %s), not a value", p.Name, typeList(p.Range))
			return nil
		}
		for _, o := range r.objects {
			if t, known := v.types[o]; known && !p.AllowsObject(t) {
				v.fail(path+".object", "%s is a %s, but %s takes an object of type %s", o, t, p.Name, typeList(p.Range))
				return nil
			}
		}
		for _, s := range r.subjects {
			for _, o := range r.objects {
				if s == o {
					v.fail(path+".object", "%s %s itself: subject and object are the same", s, p.Name)
				}
			}
		}
		return nil
	}
	if c.Object != "" {
		v.fail(path+".object", "%s takes a value (%s), not an object", p.Name, p.Literal)
		return nil
	}
	switch p.Literal {
	case athar.RangeInteger, athar.RangeYear:
		if !c.Value.IsInteger {
			v.fail(path+".value", "%s takes a whole number, got %q", p.Name, c.Value.Text)
			return nil
		}
		// Every integer-valued predicate is a count (killedCount, capturedCount); a year is
		// hijri and may precede the Hijra.
		if p.Literal == athar.RangeInteger && strings.HasPrefix(c.Value.Text, "-") {
			v.fail(path+".value", "%s is a count and cannot be negative, got %s", p.Name, c.Value.Text)
			return nil
		}
		return &athar.Term{Literal: c.Value.Text, Datatype: athar.XSDInteger}
	default:
		if strings.TrimSpace(c.Value.Text) == "" {
			v.fail(path+".value", "the value is empty")
			return nil
		}
		return &athar.Term{Literal: c.Value.Text}
	}
}

func typeList(ts []athar.EntityType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, " or ")
}

func shorten(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}
