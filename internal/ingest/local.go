package ingest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/narration"
)

// Local is the Writer over a store of this process (the embedded mode, and what a replica
// applies the log with): validate, compile, diff against what the narration asserted
// before, check that nothing other narrations depend on is removed, and apply the change
// as one transaction. Writes are serialised, so validation and apply see the same graph.
//
// What needs no graph -- the document's own rules and finding every claim's evidence in its
// text, the part whose cost grows with the document -- runs before the write lock is
// taken, so that a large document does not hold up other writes while it is checked.
type Local struct {
	store athar.Store
	vocab *athar.Vocabulary
	// sem is the write lock: a channel, so that a write waiting for it gives up when its
	// context is done instead of waiting on behind a long write.
	sem  chan struct{}
	subs []Subscriber
}

// NewLocal returns the Writer of store. Each subscriber is called with every changeset
// committed, in order, under the write lock and the writing caller's context.
func NewLocal(store athar.Store, vocab *athar.Vocabulary, subs ...Subscriber) *Local {
	return &Local{store: store, vocab: vocab, sem: make(chan struct{}, 1), subs: subs}
}

// notify passes the changesets just committed to the subscribers.
func (im *Local) notify(ctx context.Context, css ...athar.Changeset) {
	for _, cs := range css {
		for _, fn := range im.subs {
			fn(ctx, cs)
		}
	}
}

// lock takes the write lock for op. It fails with ctx's error (athar.DeadlineExceeded or
// athar.Cancelled), without the lock, when ctx is done first: a write queued behind a long
// one stops at its deadline, and never goes on to validate against reads that its expired
// context would cut short.
func (im *Local) lock(ctx context.Context, op string) error {
	select {
	case im.sem <- struct{}{}:
	case <-ctx.Done():
		return athar.Stopped(ctx, op+": waiting for the write lock")
	}
	if err := athar.Stopped(ctx, op); err != nil { // both were ready: select chose at random
		im.unlock()
		return err
	}
	return nil
}

func (im *Local) unlock() { <-im.sem }

// Import validates and stores one parsed document. A refused document changes nothing; the
// error is a *athar.ValidationError naming the fields, or an *athar.Error.
// A context that is done stops the import with a DeadlineExceeded or Cancelled error,
// never a verdict on the document.
func (im *Local) Import(ctx context.Context, d *narration.Document) (Result, error) {
	p, err := narration.Prepare(ctx, d, im.vocab)
	if err != nil {
		return Result{}, err
	}
	if err := im.lock(ctx, "import "+d.Source); err != nil {
		return Result{}, err
	}
	defer im.unlock()
	return im.importPrepared(ctx, p)
}

// importPrepared checks a prepared document against the graph and applies it. Callers
// hold the write lock.
func (im *Local) importPrepared(ctx context.Context, p *narration.Prepared) (Result, error) {
	c, err := p.Check(ctx, im.store)
	if err != nil {
		return Result{}, err
	}
	want := narration.Compile(c)
	if err := athar.Stopped(ctx, "import "+string(c.ID)); err != nil {
		return Result{}, err
	}
	have, err := im.store.NarrationQuads(ctx, c.ID)
	if err != nil {
		return Result{}, fmt.Errorf("import %s: %w", c.ID, err)
	}
	cs := athar.Diff(c.ID, have, want)
	res := Result{Narration: c.ID, QuadsAdded: len(cs.Add), QuadsRemoved: len(cs.Remove), Changed: !cs.Empty()}
	if cs.Empty() {
		return res, nil
	}
	// A corpus record the document sits on (or no longer does) moves to the narration it
	// is now about, in the same transaction (docs/corpus.md).
	rebind, notes, err := im.rebindCorpus(ctx, c.ID, refsFromQuads(have), c.References, c.Text, c.Language)
	if err != nil {
		return Result{}, fmt.Errorf("import %s: %w", c.ID, err)
	}
	res.Note = strings.Join(notes, "; ")
	// No op: the callers name the import (a batch its document, a mutation its path).
	if err := im.checkDependents(ctx, "", c.ID, have, want); err != nil {
		return Result{}, err
	}
	res.ClaimsAdded = len(subtract(claimNodes(want), claimNodes(have)))
	newDefs := narration.DefinedEntities(want)
	before, err := im.store.DefinedBy(ctx, newDefs)
	if err != nil {
		return Result{}, fmt.Errorf("import %s: %w", c.ID, err)
	}
	for _, id := range newDefs {
		if len(before[id]) == 0 {
			res.EntitiesAdded++
		}
	}
	css := append([]athar.Changeset{cs}, rebind...)
	if err := im.store.Apply(ctx, css...); err != nil {
		return Result{}, fmt.Errorf("import %s: %w", c.ID, err)
	}
	im.notify(ctx, css...)
	return res, nil
}

// Delete removes every quad the narration asserted. It refuses, changing nothing, when the
// narration is the only one defining an entity that other narrations still use.
func (im *Local) Delete(ctx context.Context, id athar.ID) error {
	if id.Prefix() != athar.TypeNarration.Prefix() {
		return athar.E("delete "+string(id), athar.Invalid, "not a narration id (expected narration:...)")
	}
	if err := im.lock(ctx, "delete "+string(id)); err != nil {
		return err
	}
	defer im.unlock()
	have, err := im.store.NarrationQuads(ctx, id)
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	if len(have) == 0 {
		if err := CorpusOnly(ctx, im.store, "delete "+string(id), id); err != nil {
			return err
		}
		return athar.E("delete "+string(id), athar.NotFound, "no such narration")
	}
	if err := im.checkDependents(ctx, "delete "+string(id), id, have, nil); err != nil {
		return err
	}
	rebind, _, err := im.rebindCorpus(ctx, id, refsFromQuads(have), nil, "", "")
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	css := append([]athar.Changeset{athar.Diff(id, have, nil)}, rebind...)
	if err := im.store.Apply(ctx, css...); err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	im.notify(ctx, css...)
	return nil
}

// CorpusOnly returns an Invalid error naming op when narration id has no document of its
// own but is a hadith of the corpus -- its record's narration, or a record's own id that a
// document carries -- which deleting or replacing a document cannot remove (docs/corpus.md,
// "Known limits of the import"); nil otherwise.
func CorpusOnly(ctx context.Context, st athar.Store, op string, id athar.ID) error {
	n, corpus, err := athar.NarrationNamed(ctx, st, id)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", op, err)
	case n == id && corpus != "":
		return athar.E(op, athar.Invalid, "a hadith of the corpus (its record %s:%s), not a narration document: athar delete removes documents, and corpus records stay (docs/corpus.md)", athar.CorpusPrefix, corpus)
	case n != "" && n != id:
		return athar.E(op, athar.Invalid, "the id of a corpus record that the narration document %s carries: delete %s to remove the document (the record stays, on its own id again)", n, n)
	}
	return nil
}

// Restore replaces each narration's quads with the given ones (as read from an N-Quads
// export), one transaction for all. Every quad must be labelled with a narration that the
// quads themselves declare, or with a reserved graph (athar.QuranGraph: statements about
// verses only). With replace, every narration (and the Qur'an graph) the store holds that
// quads lack is removed in the same transaction: the graph becomes exactly quads, less what
// exports state and the store leaves implied (athar.DropImplied: the types of claims,
// attestations and chain links, and evidence that is the passage at its offsets). It
// returns the ids of the narrations and reserved graphs restored.
func (im *Local) Restore(ctx context.Context, quads []athar.Quad, replace bool) ([]athar.ID, error) {
	if err := im.lock(ctx, "restore"); err != nil {
		return nil, err
	}
	defer im.unlock()
	byLabel := map[athar.ID][]athar.Quad{}
	for _, q := range quads {
		id, ok := athar.ParseIRI(q.Label)
		if !athar.IsReservedGraph(q.Label) && !athar.IsCorpusLabel(q.Label) && (!ok || id.Prefix() != athar.TypeNarration.Prefix()) {
			return nil, athar.E("restore", athar.Invalid, "quad %s: the graph label must be a narration IRI (%snarration/...), a corpus record's (%scorpus/...) or %s", q.Key(), athar.Base, athar.Base, athar.QuranGraph.IRI())
		}
		byLabel[id] = append(byLabel[id], q)
	}
	for id, qs := range byLabel {
		byLabel[id] = athar.DropImplied(qs) // exports state them; the store leaves them implied, as a load does
	}
	ids := make([]athar.ID, 0, len(byLabel))
	for id := range byLabel {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	var css []athar.Changeset
	if replace {
		gone, err := im.labelsBut(ctx, byLabel)
		if err != nil {
			return nil, fmt.Errorf("restore: %w", err)
		}
		for _, id := range gone {
			have, err := im.store.NarrationQuads(ctx, id)
			if err != nil {
				return nil, fmt.Errorf("restore: %w", err)
			}
			css = append(css, athar.Diff(id, have, nil))
		}
	}
	for _, id := range ids {
		qs := byLabel[id]
		if athar.IsReservedGraph(id.IRI()) {
			if err := checkReserved(id, qs); err != nil {
				return nil, err
			}
		} else if athar.IsCorpusLabel(id.IRI()) {
			if err := checkRecord(id, qs); err != nil {
				return nil, err
			}
		} else if err := checkDeclared(id, qs); err != nil {
			return nil, err
		}
		have, err := im.store.NarrationQuads(ctx, id)
		if err != nil {
			return nil, fmt.Errorf("restore %s: %w", id, err)
		}
		if cs := athar.Diff(id, have, qs); !cs.Empty() {
			css = append(css, cs)
		}
	}
	if err := im.store.Apply(ctx, css...); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	im.notify(ctx, css...)
	return ids, nil
}

// labelsBut returns the narrations, and the Qur'an graph, the store holds that are not in
// keep, sorted.
func (im *Local) labelsBut(ctx context.Context, keep map[athar.ID][]athar.Quad) ([]athar.ID, error) {
	seen := map[athar.ID]bool{}
	err := im.store.Quads(ctx, func(q athar.Quad) error {
		id, ok := athar.ParseIRI(q.Label)
		if !ok || seen[id] || keep[id] != nil {
			return nil
		}
		if id == athar.QuranGraph || id == athar.PeopleGraph || id.Prefix() == athar.TypeNarration.Prefix() || id.Prefix() == athar.CorpusPrefix {
			seen[id] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]athar.ID, 0, len(seen))
	for id := range seen {
		out = append(out, id)
	}
	return uniq(out), nil
}

// checkDeclared checks that quads restored under a narration's label declare it.
func checkDeclared(id athar.ID, qs []athar.Quad) error {
	declared := false
	for _, q := range qs {
		if q.Subject == id.IRI() && q.Predicate == athar.RDFType && q.Object.IRI == athar.TypeNarration.IRI() {
			declared = true
		}
	}
	if !declared {
		return athar.E("restore "+string(id), athar.Invalid, "graph <%s> does not declare its narration (%s a Narration)", id.IRI(), id)
	}
	return nil
}

// checkRecord checks that quads restored under a corpus record's label declare the
// narration they are about (<narration> corpusRecord <label>).
func checkRecord(id athar.ID, qs []athar.Quad) error {
	for _, q := range qs {
		if q.Predicate == athar.PredCorpusRecord && q.Object.IRI == id.IRI() {
			return nil
		}
	}
	return athar.E("restore "+string(id), athar.Invalid, "graph <%s> does not say which narration it is the corpus record of (<narration> %s <%s>)", id.IRI(), athar.PredCorpusRecord, id.IRI())
}

// checkDependents refuses a change to narration id that would leave an entity other
// narrations use without any narration defining it, with a Conflict error naming op.
func (im *Local) checkDependents(ctx context.Context, op string, id athar.ID, have, want []athar.Quad) error {
	lost := subtract(narration.DefinedEntities(have), narration.DefinedEntities(want))
	if len(lost) == 0 {
		return nil
	}
	defs, err := im.store.DefinedBy(ctx, lost)
	if err != nil {
		return fmt.Errorf("check dependents of %s: %w", id, err)
	}
	// Only an entity no other narration defines can be left undefined: its users are read
	// for those alone (a hub's are tens of thousands of quads; most entities a narration
	// defines are defined by others too).
	orphans := lost[:0:0]
	for _, e := range lost {
		if len(without(defs[e], id)) == 0 {
			orphans = append(orphans, e)
		}
	}
	if len(orphans) == 0 {
		return nil
	}
	lost = orphans
	ents, err := im.store.Entities(ctx, lost)
	if err != nil {
		return fmt.Errorf("check dependents of %s: %w", id, err)
	}
	mentions, err := im.store.Mentions(ctx, lost)
	if err != nil {
		return fmt.Errorf("check dependents of %s: %w", id, err)
	}
	var msgs []string
	for i, e := range lost {
		if ents[i] == nil {
			continue
		}
		if users := without(mentions[e], id); len(users) > 0 {
			msgs = append(msgs, fmt.Sprintf("%s is defined only by %s and still used by %s", e, id, someIDs(users, 5)))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	// A hub may be used by thousands of narrations: the message names a few of each, and
	// of the entities, so that it stays readable (and small) whatever the graph.
	const most = 10
	if len(msgs) > most {
		msgs = append(msgs[:most:most], fmt.Sprintf("and %d more entities", len(msgs)-most))
	}
	return athar.E(op, athar.Conflict, "%s; define it in one of those narrations first, or change them", strings.Join(msgs, "; "))
}

// claimNodes returns the claim nodes in qs: the subjects of vocab:subject quads (the store
// leaves their rdf:type implied, athar.ImpliedClass).
func claimNodes(qs []athar.Quad) []athar.ID {
	var out []athar.ID
	for _, q := range qs {
		if q.Predicate == athar.PredSubject {
			if id, ok := athar.ParseIRI(q.Subject); ok {
				out = append(out, id)
			}
		}
	}
	return uniq(out)
}

func uniq(ids []athar.ID) []athar.ID {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// subtract returns the ids in a that are not in b.
func subtract(a, b []athar.ID) []athar.ID {
	in := map[athar.ID]bool{}
	for _, id := range b {
		in[id] = true
	}
	var out []athar.ID
	for _, id := range a {
		if !in[id] {
			out = append(out, id)
		}
	}
	return out
}

// someIDs names the first n of ids, then how many more there are.
func someIDs(ids []athar.ID, n int) string {
	if len(ids) <= n {
		return joinIDs(ids)
	}
	return fmt.Sprintf("%s and %d more (%d narrations)", joinIDs(ids[:n]), len(ids)-n, len(ids))
}

func joinIDs(ids []athar.ID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return strings.Join(s, ", ")
}

// without returns ids without x.
func without(ids []athar.ID, x athar.ID) []athar.ID {
	var out []athar.ID
	for _, id := range ids {
		if id != x {
			out = append(out, id)
		}
	}
	return out
}
