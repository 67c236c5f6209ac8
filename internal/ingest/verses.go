package ingest

import (
	"context"
	"fmt"

	"github.com/athar-hadith/athar/internal/athar"
)

// ImportVerseTexts replaces the verse texts and their source under the reserved graph
// athar.QuranGraph with the given ones, in one transaction. It touches no narration's
// quads. Importing the same texts again changes nothing; a file with fewer verses removes
// the texts of the verses it lacks.
func (im *Local) ImportVerseTexts(ctx context.Context, texts []athar.VerseText, src athar.TextSource) (VerseResult, error) {
	if err := im.lock(ctx, "import verse texts"); err != nil {
		return VerseResult{}, err
	}
	defer im.unlock()
	want := athar.VerseTextQuads(texts, src)
	have, err := im.store.NarrationQuads(ctx, athar.QuranGraph)
	if err != nil {
		return VerseResult{}, fmt.Errorf("import verse texts: %w", err)
	}
	cs := athar.Diff(athar.QuranGraph, have, want)
	res := VerseResult{Verses: len(texts), Changed: !cs.Empty(), QuadsAdded: len(cs.Add), QuadsRemoved: len(cs.Remove)}
	if cs.Empty() {
		return res, nil
	}
	if err := im.store.Apply(ctx, cs); err != nil {
		return VerseResult{}, fmt.Errorf("import verse texts: %w", err)
	}
	im.notify(ctx, cs)
	return res, nil
}

// checkReserved checks quads restored under a reserved graph: under athar.QuranGraph, only
// statements about verses that exist and about the graph itself.
func checkReserved(label athar.ID, qs []athar.Quad) error {
	if label == athar.PeopleGraph {
		for _, q := range qs {
			if id, ok := athar.ParseIRI(q.Subject); !ok || id.Prefix() != athar.TypePerson.Prefix() || !q.Object.IsIRI() && q.Predicate == athar.RDFType {
				return athar.E("", athar.Invalid, "quad %s: graph <%s> holds the names of people only", q.Key(), label.IRI())
			}
		}
		return nil
	}
	for _, q := range qs {
		if q.Subject == label.IRI() {
			continue
		}
		id, ok := athar.ParseIRI(q.Subject)
		if ok && id.Prefix() == athar.TypeVerse.Prefix() {
			if _, err := athar.ParseVerseRef(id.Local()); err == nil {
				continue
			}
		}
		return athar.E("", athar.Invalid, "quad %s: graph <%s> holds statements about verses only", q.Key(), label.IRI())
	}
	return nil
}
