package ingest

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/hadith"
)

// HadithResult is the outcome of one record of ImportHadiths.
type HadithResult struct {
	Key          string   // bukhari-3953
	Narration    athar.ID // the narration it is (a document's id when one sits on it)
	Changed      bool     // false when the same record was already stored
	QuadsAdded   int
	QuadsRemoved int
	// Notes say what the import found worth telling without refusing anything: a
	// document on the same narration whose text differs from the record's.
	Notes []string
	Err   error
}

// ImportHadiths stores corpus records, each as the one changeset of its label
// (hadith.Record.Label), about its narration (corpusNode): the document sitting on it
// (hadith.DocumentKey; the smallest id when several do), else the record's own id (aside,
// when a document about another hadith holds that id). A record whose
// quads are already stored is not written; a changed one replaces exactly what its
// previous version asserted. Records are written in shared transactions of about
// TxQuads quads; a record failing hadith.Record.Check is refused alone. Once ctx is
// done, the records not yet stored are reported with its error.
func (im *Local) ImportHadiths(ctx context.Context, recs []hadith.Record) []HadithResult {
	out := make([]HadithResult, len(recs))
	for i := range recs {
		out[i].Key = recs[i].Key()
	}
	if err := im.lock(ctx, "import corpus"); err != nil {
		for i := range out {
			out[i].Err = err
		}
		return out
	}
	defer im.unlock()
	var css []athar.Changeset
	var members []int
	pending := 0
	flush := func() error {
		if len(css) == 0 {
			return nil
		}
		err := im.store.Apply(ctx, css...)
		if err != nil {
			for _, i := range members {
				if i < 0 {
					continue // the built-in people
				}
				out[i].Changed, out[i].QuadsAdded, out[i].QuadsRemoved = false, 0, 0
				out[i].Err = fmt.Errorf("import %s: %w", recs[i].Label(), err)
			}
		} else {
			im.notify(ctx, css...)
		}
		css, members, pending = nil, nil, 0
		return err
	}
	x, err := im.extractor(ctx)
	if err == nil {
		var cs athar.Changeset
		if cs, err = im.peopleChangeset(ctx); err == nil && !cs.Empty() {
			css = append(css, cs)
			members = append(members, -1)
		}
	}
	if err != nil {
		for i := range out {
			out[i].Err = fmt.Errorf("import corpus: %w", err)
		}
		return out
	}
	seen := map[string]bool{}
	for i := range recs {
		r := &recs[i]
		if err := athar.Stopped(ctx, "import corpus"); err != nil {
			flush()
			for j := i; j < len(recs); j++ {
				out[j].Err = err
			}
			return out
		}
		op := "import " + string(r.Label())
		if err := r.Check(); err != nil {
			out[i].Err = athar.E(op, athar.Invalid, "%v", err)
			continue
		}
		if seen[r.Key()] {
			out[i].Err = athar.E(op, athar.Invalid, "hadithnumber: the record appears twice in one import")
			continue
		}
		seen[r.Key()] = true
		node, doc, err := im.corpusNode(ctx, r.Key(), nil)
		if err != nil {
			out[i].Err = fmt.Errorf("%s: %w", op, err)
			continue
		}
		var want []athar.Quad
		if r.NoChains {
			want = hadith.Compile(r, node)
		} else {
			ex := hadith.Extract(r, x)
			merged, err := im.store.MergedInto(ctx, ex.IDs())
			if err != nil {
				out[i].Err = fmt.Errorf("%s: %w", op, err)
				continue
			}
			x.Merged, x.Extraction = merged, ex
			want = hadith.CompileWith(r, node, x)
			x.Extraction = nil
		}
		have, err := im.store.NarrationQuads(ctx, r.Label())
		if err != nil {
			out[i].Err = fmt.Errorf("%s: %w", op, err)
			continue
		}
		cs := athar.Diff(r.Label(), have, want)
		out[i].Narration = node
		if doc != nil {
			out[i].Notes = textNotes(doc, r)
		}
		if cs.Empty() {
			continue
		}
		out[i].Changed, out[i].QuadsAdded, out[i].QuadsRemoved = true, len(cs.Add), len(cs.Remove)
		css = append(css, cs)
		members = append(members, i)
		if pending += len(cs.Add) + len(cs.Remove); pending >= TxQuads {
			if err := flush(); err != nil {
				for j := i + 1; j < len(recs); j++ {
					out[j].Err = fmt.Errorf("import %s: not attempted: an earlier transaction failed: %w", recs[j].Label(), err)
				}
				return out
			}
		}
	}
	flush()
	return out
}

// docChange is a document being written (imported, replaced or deleted), whose stored
// state the choice of a record's narration must not see: its id and the references it
// will have (nil when deleted).
type docChange struct {
	id    athar.ID
	after []athar.Reference
}

// corpusNode returns the narration the record with key is about, and the document it
// sits on, if any:
//  1. the smallest id of the documents that sit on it (hadith.DocumentKey of their
//     references), with change applied;
//  2. else its own id, narration:{key}, unless a document that does not sit on it has
//     that id (the seed narration:muslim-1763 is 'Abd al-Baqi's 1763, hadith-api's 4588;
//     hadith-api's 1763 is another report): then hadith.AsideID(key).
//
// Candidates are found by the number their references record (Store.QuadsTo), so that
// the choice reads a handful of reference nodes and one manifest entry, not the graph.
func (im *Local) corpusNode(ctx context.Context, key string, change *docChange) (athar.ID, *athar.Narration, error) {
	docs, err := im.corpusDocuments(ctx, key)
	if err != nil {
		return "", nil, err
	}
	var ids []athar.ID
	byID := map[athar.ID]*athar.Narration{}
	for _, d := range docs {
		if change == nil || d.ID != change.id {
			ids = append(ids, d.ID)
			byID[d.ID] = d
		}
	}
	if change != nil && change.after != nil && hadith.DocumentKey(change.after) == key {
		ids = append(ids, change.id)
	}
	if len(ids) > 0 {
		slices.Sort(ids)
		return ids[0], byID[ids[0]], nil
	}
	own := athar.ID("narration:" + key)
	occupied := false
	if change != nil && change.id == own {
		occupied = change.after != nil
	} else {
		qs, err := im.store.NarrationQuads(ctx, own)
		if err != nil {
			return "", nil, err
		}
		occupied = len(qs) > 0
	}
	if occupied {
		return hadith.AsideID(key), nil, nil
	}
	return own, nil, nil
}

// corpusDocuments returns the documents sitting on the record with key, sorted by id.
func (im *Local) corpusDocuments(ctx context.Context, key string) ([]*athar.Narration, error) {
	_, num, ok := hadith.SplitKey(key)
	if !ok {
		return nil, nil
	}
	refs, err := im.store.QuadsTo(ctx, athar.PredNumber, athar.StringTerm(num))
	if err != nil {
		return nil, err
	}
	var ids []athar.ID
	for _, q := range refs {
		id, ok := athar.ParseIRI(q.Label)
		if !ok || id.Prefix() != athar.TypeNarration.Prefix() {
			continue // a corpus record's own reference, or a grading's statedIn
		}
		ids = append(ids, id)
	}
	ids = uniq(ids)
	if len(ids) == 0 {
		return nil, nil
	}
	ns, err := im.store.Narrations(ctx, ids)
	if err != nil {
		return nil, err
	}
	var out []*athar.Narration
	for _, n := range ns {
		if n != nil && hadith.DocumentKey(documentRefs(n)) == key {
			out = append(out, n)
		}
	}
	return out, nil
}

// documentRefs returns the references the narration's document gives (not a corpus
// record's, which follow them and name hadith-api's scheme as their edition).
func documentRefs(n *athar.Narration) []athar.Reference {
	var out []athar.Reference
	for _, r := range n.References {
		if r.Edition == hadith.SchemeHadithAPI || r.Edition == hadith.SchemeArabic || r.Edition == hadith.SchemeSection {
			continue
		}
		out = append(out, r)
	}
	return out
}

// textNotes compares a document's text with the record's in the same language.
func textNotes(doc *athar.Narration, r *hadith.Record) []string {
	var notes []string
	for _, t := range r.Texts {
		if doc.Text != "" && t.Language == doc.Language && t.Text != doc.Text {
			notes = append(notes, fmt.Sprintf("%s: the text of %s (%s) differs from the document's; both are kept, each with its own offsets", doc.ID, t.Edition, t.Language))
		}
	}
	return notes
}

// rebindCorpus returns the changesets that move corpus records to the narration each
// should be about (corpusNode) once document id has the references after (nil: deleted)
// instead of before: the records it sits on or no longer does, and the record whose own id
// is id. So a record and a document give the same graph in either order.
//
// text and language are the document's (empty for a deletion): when a record it sits on
// gives another text in that language, a note says so (both are kept).
func (im *Local) rebindCorpus(ctx context.Context, id athar.ID, before, after []athar.Reference, text, language string) ([]athar.Changeset, []string, error) {
	keys := map[string]bool{}
	kb, ka := hadith.DocumentKey(before), hadith.DocumentKey(after)
	for _, k := range []string{kb, ka} {
		if k != "" {
			keys[k] = true
		}
	}
	if id.Prefix() == athar.TypeNarration.Prefix() {
		keys[id.Local()] = true // the record whose own id the document has, if any
	}
	change := &docChange{id: id, after: after}
	var css []athar.Changeset
	var notes []string
	for _, key := range sortedKeys(keys) {
		label := hadith.LabelOf(key)
		have, err := im.store.NarrationQuads(ctx, label)
		if err != nil {
			return nil, nil, fmt.Errorf("corpus record %s: %w", key, err)
		}
		if len(have) == 0 {
			continue
		}
		node, _, err := im.corpusNode(ctx, key, change)
		if err != nil {
			return nil, nil, fmt.Errorf("corpus record %s: %w", key, err)
		}
		if key == ka && node == id && text != "" {
			doc := &athar.Narration{ID: id, Text: text, Language: language}
			notes = append(notes, textNotes(doc, &hadith.Record{Texts: recordTexts(have)})...)
		}
		cur := hadith.NodeOf(have)
		if cur == "" || cur == node {
			continue
		}
		if cs := athar.Diff(label, have, hadith.Rebind(have, cur, node)); !cs.Empty() {
			css = append(css, cs)
		}
	}
	return css, notes, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// recordTexts returns the texts a record's quads give.
func recordTexts(qs []athar.Quad) []hadith.Text {
	byNode := map[string]*hadith.Text{}
	var order []string
	for _, q := range qs {
		if q.Predicate == athar.PredHasText {
			byNode[q.Object.IRI] = &hadith.Text{}
			order = append(order, q.Object.IRI)
		}
	}
	for _, q := range qs {
		t := byNode[q.Subject]
		if t == nil {
			continue
		}
		switch q.Predicate {
		case athar.PredText:
			t.Text = q.Object.Literal
		case athar.PredLanguage:
			t.Language = q.Object.Literal
		case athar.PredEdition:
			t.Edition = q.Object.Literal
		}
	}
	slices.Sort(order)
	out := make([]hadith.Text, 0, len(order))
	for _, n := range order {
		out = append(out, *byNode[n])
	}
	return out
}

// refsFromQuads returns the references a narration's quads give, in their order.
func refsFromQuads(qs []athar.Quad) []athar.Reference {
	nodes := map[string]bool{}
	for _, q := range qs {
		if q.Predicate == athar.PredReference {
			nodes[q.Object.IRI] = true
		}
	}
	type ref struct {
		pos int
		r   athar.Reference
	}
	byNode := map[string]*ref{}
	for _, q := range qs {
		if !nodes[q.Subject] {
			continue
		}
		r := byNode[q.Subject]
		if r == nil {
			r = &ref{}
			byNode[q.Subject] = r
		}
		switch q.Predicate {
		case athar.PredPosition:
			r.pos, _ = strconv.Atoi(q.Object.Literal)
		case athar.PredCollection:
			r.r.Collection = q.Object.Literal
		case athar.PredEdition:
			r.r.Edition = q.Object.Literal
		case athar.PredNumber:
			r.r.Number = q.Object.Literal
		case athar.PredURL:
			r.r.URL = q.Object.Literal
		}
	}
	rs := make([]*ref, 0, len(byNode))
	for _, r := range byNode {
		rs = append(rs, r)
	}
	slices.SortFunc(rs, func(a, b *ref) int { return a.pos - b.pos })
	out := make([]athar.Reference, len(rs))
	for i, r := range rs {
		out[i] = r.r
	}
	return out
}
