package narration

import (
	"context"
	"fmt"

	"github.com/athar-hadith/athar/internal/athar"
)

// BatchResult is the outcome of one document of a batch: its result, or why it was refused.
type BatchResult struct {
	Result
	Err error
}

// batchQuads is how many quads ImportBatch puts in one transaction: large enough to pay for
// a commit, small enough that Cayley's per-transaction work stays linear (its bbolt
// backend slows down on much larger transactions; see docs/BENCHMARKS.md).
const batchQuads = 10000

// ImportBatch imports documents as Import does, but writes the new narrations among them
// in shared transactions of about batchQuads quads, which is what makes bulk loads fast
// (a commit per transaction instead of one per narration). Each document is still all or
// nothing: a refused document is left out of the transaction, and documents later in the
// batch may use the entities earlier ones define. Documents whose narration is already
// stored (replacements) and repeated ids go through Import one by one. If a shared
// transaction fails, every document in it is reported with that error and none is stored.
//
// Documents are prepared (checked for everything that needs no graph) before the write lock
// is taken. Once ctx is done, the documents not yet stored are reported with an error of
// code athar.Cancelled or athar.DeadlineExceeded -- not attempted, never refused.
func (im *Importer) ImportBatch(ctx context.Context, docs []*Document) []BatchResult {
	out := make([]BatchResult, len(docs))
	notAttempted := func(from int, err error) {
		for i := from; i < len(docs); i++ {
			if out[i].Err == nil && out[i].Narration == "" {
				out[i].Err = fmt.Errorf("import %s: not attempted: %w", docs[i].Narration.ID, err)
			}
		}
	}
	preps := make([]*prepared, len(docs))
	for i, d := range docs {
		p, err := prepare(ctx, d, im.vocab)
		if err != nil {
			notAttempted(0, err)
			return out
		}
		preps[i] = p
	}
	if err := im.lock(ctx, "import batch"); err != nil {
		notAttempted(0, err)
		return out
	}
	var later []int
	func() {
		defer im.unlock()
		overlay := &pendingGraph{base: im.store, defs: map[athar.ID][]athar.ID{}}
		seen := map[string]bool{}
		var css []athar.Changeset
		var members []int
		pending := 0
		// flush applies the pending narrations. After a failure the rest of the batch is not
		// attempted: its validation assumed the failed narrations' definitions.
		var failed error
		flush := func() {
			if len(css) == 0 {
				return
			}
			if err := im.store.Apply(ctx, css...); err != nil {
				failed = err
				for _, i := range members {
					out[i] = BatchResult{Err: fmt.Errorf("import %s: %w", docs[i].Narration.ID, err)}
				}
			} else if im.OnChange != nil {
				for _, cs := range css {
					im.OnChange(cs)
				}
			}
			css, members, pending = nil, nil, 0
		}
		for i, d := range docs {
			if failed != nil {
				out[i].Err = fmt.Errorf("import %s: not attempted: an earlier transaction of the batch failed: %w", d.Narration.ID, failed)
				continue
			}
			if err := athar.Stopped(ctx, "import batch"); err != nil {
				flush() // refused by Apply with the same error: nothing of it is stored
				notAttempted(i, err)
				return
			}
			if seen[d.Narration.ID] {
				later = append(later, i)
				continue
			}
			seen[d.Narration.ID] = true
			c, err := preps[i].check(ctx, overlay)
			if err != nil {
				out[i].Err = err
				continue
			}
			have, err := im.store.NarrationQuads(ctx, c.ID)
			if err != nil {
				out[i].Err = fmt.Errorf("import %s: %w", c.ID, err)
				continue
			}
			if len(have) > 0 {
				later = append(later, i) // a replacement: checked and applied on its own
				continue
			}
			want := Compile(c)
			defs := definedEntities(want)
			before, err := overlay.DefinedBy(ctx, defs)
			if err != nil {
				out[i].Err = fmt.Errorf("import %s: %w", c.ID, err)
				continue
			}
			res := Result{Narration: c.ID, Changed: true, QuadsAdded: len(want), ClaimsAdded: len(typed(want, athar.ClassClaim))}
			for _, id := range defs {
				if len(before[id]) == 0 {
					res.EntitiesAdded++
				}
				overlay.defs[id] = append(overlay.defs[id], c.ID)
			}
			out[i].Result = res
			css = append(css, athar.Changeset{Narration: c.ID, Add: want})
			members = append(members, i)
			if pending += len(want); pending >= batchQuads {
				flush()
			}
		}
		flush()
	}()
	for _, i := range later {
		if out[i].Err != nil {
			continue
		}
		r, err := im.Import(ctx, docs[i])
		out[i] = BatchResult{Result: r, Err: err}
	}
	return out
}

// pendingGraph answers DefinedBy and EntityIDs from the store plus the definitions of
// documents accepted earlier in the same batch, and MergedInto from the store: a document
// of the batch can only repeat a merge the store records (by defining a retired id), never
// record a new one.
type pendingGraph struct {
	base Graph
	defs map[athar.ID][]athar.ID
}

func (p *pendingGraph) MergedInto(ctx context.Context, ids []athar.ID) (map[athar.ID]athar.ID, error) {
	return p.base.MergedInto(ctx, ids)
}

func (p *pendingGraph) EntityIDs(ctx context.Context, t athar.EntityType) ([]athar.ID, error) {
	ids, err := p.base.EntityIDs(ctx, t)
	if err != nil {
		return nil, err
	}
	out := append([]athar.ID(nil), ids...)
	for id := range p.defs {
		if et, ok := athar.TypeOfPrefix(id.Prefix()); ok && (t == "" || et == t) {
			out = append(out, id)
		}
	}
	return uniq(out), nil
}

func (p *pendingGraph) DefinedBy(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ID, error) {
	m, err := p.base.DefinedBy(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if d, ok := p.defs[id]; ok {
			m[id] = append(append([]athar.ID(nil), m[id]...), d...)
		}
	}
	return m, nil
}
