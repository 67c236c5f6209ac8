package ingest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/hadith"
	"github.com/athar-hadith/athar/internal/isnad"
)

// extractor returns what compiling corpus records' chains needs (hadith.Extractor): a
// resolver that knows the built-in table (internal/isnad/data/people.tsv, whose ids are
// the seeds' and the narration format's core ids). It deliberately does not read the
// people the graph's documents define: what a record compiles to must not depend on
// which documents were imported before it (the graph is the same in either order). A
// person created from a name as written is joined to a documented person by merging it
// (mergeEntities), which every later re-import keeps (Extractor.Merged).
func (im *Local) extractor(context.Context) (*hadith.Extractor, error) {
	return &hadith.Extractor{Resolver: builtinResolver(), Merged: map[athar.ID]athar.ID{}}, nil
}

var builtinResolver = sync.OnceValue(func() *isnad.Resolver { return isnad.NewResolver() })

// PeopleQuads are the quads of the reserved graph athar.PeopleGraph: each person of the
// isnad resolver's built-in table, with its type and names, so that the people corpus
// records resolve chains to exist (a record names them, it does not define them).
func PeopleQuads() []athar.Quad {
	label := athar.PeopleGraph.IRI()
	var qs []athar.Quad
	add := func(s, p string, o athar.Term) {
		qs = append(qs, athar.Quad{Subject: s, Predicate: p, Object: o, Label: label})
	}
	for _, p := range isnad.BuiltinPeople() {
		s := p.ID.IRI()
		t, ok := athar.TypeOfPrefix(p.ID.Prefix())
		if !ok {
			continue
		}
		add(s, athar.RDFType, athar.IRITerm(t.IRI()))
		add(s, athar.RDFSLabel, athar.StringTerm(p.Name))
		for _, a := range p.Aliases {
			add(s, athar.SKOSAltLbl, athar.StringTerm(a))
		}
		for _, a := range p.Arabic {
			add(s, athar.RDFSLabel, athar.Term{Literal: strings.TrimPrefix(a, "@"), Lang: "ar"})
		}
	}
	athar.SortQuads(qs)
	out := qs[:0]
	for i, q := range qs {
		if i > 0 && q.Key() == qs[i-1].Key() {
			continue
		}
		out = append(out, q)
	}
	return out
}

// peopleChangeset returns the changeset that makes athar.PeopleGraph hold PeopleQuads
// (empty when it does).
func (im *Local) peopleChangeset(ctx context.Context) (athar.Changeset, error) {
	have, err := im.store.NarrationQuads(ctx, athar.PeopleGraph)
	if err != nil {
		return athar.Changeset{}, fmt.Errorf("isnad people: %w", err)
	}
	return athar.Diff(athar.PeopleGraph, have, PeopleQuads()), nil
}

// mergeCorpus returns the changesets that rewrite the corpus records defining remove (the
// people created from names as written) so that they name keep instead: what CompileWith
// gives once remove is merged into keep (hadith.Rename), so that re-importing keeps the
// merge.
func (im *Local) mergeCorpus(ctx context.Context, keep, remove athar.ID) ([]athar.Changeset, error) {
	qs, err := im.store.QuadsAbout(ctx, []athar.ID{remove})
	if err != nil {
		return nil, err
	}
	labels := map[string]bool{}
	for _, q := range qs {
		if athar.IsCorpusLabel(q.Label) {
			labels[q.Label] = true
		}
	}
	var css []athar.Changeset
	for _, l := range sortedKeys(labels) {
		id, ok := athar.ParseIRI(l)
		if !ok {
			continue
		}
		have, err := im.store.NarrationQuads(ctx, id)
		if err != nil {
			return nil, err
		}
		if cs := athar.Diff(id, have, hadith.Rename(have, map[athar.ID]athar.ID{remove: keep})); !cs.Empty() {
			css = append(css, cs)
		}
	}
	return css, nil
}
