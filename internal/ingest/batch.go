package ingest

import (
	"context"
	"fmt"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/narration"
)

// TxQuads is about how many quads a load (ImportMany) and a corpus import (ImportHadiths)
// put in one transaction. On bbolt each commit -- Cayley's per-transaction work on the terms
// it touched, the page writes and the fsync -- costs as much CPU as Cayley's work on
// thousands of quads: a 3,000-narration load took 36 s of wall time at 10,000 and 29-32 s at
// 40,000, and Sahih Muslim with its chains 12% less CPU; at 150,000 Cayley's
// per-transaction work grew faster than the commits saved (docs/BENCHMARKS.md). The
// benchmarks' raw Cayley loads in transactions of the same size.
const TxQuads = 40000

// compileAhead is how many validated documents of a batch may wait to be compiled.
const compileAhead = 64

// compiling is a validated document of a batch on its way to the transaction.
type compiling struct {
	i      int // its index in the batch
	c      *narration.Checked
	res    Result // all but the counts of its quads and claims
	rebind []athar.Changeset
	want   []athar.Quad // Compile(c), set by the compiler
}

// ImportMany imports documents as Import does, but writes the new narrations among them
// in shared transactions of about TxQuads quads, which is what makes bulk loads fast
// (a commit per transaction instead of one per narration). Each document is still all or
// nothing: a refused document is left out of the transaction, and documents later in the
// batch may use the entities earlier ones define. Documents whose narration is already
// stored (replacements) and repeated ids go through Import one by one. If a shared
// transaction fails, every document in it is reported with that error and none is stored.
//
// Documents are prepared (checked for everything that needs no graph) before the write lock
// is taken. Once ctx is done, the documents not yet stored are reported with an error of
// code athar.Cancelled or athar.DeadlineExceeded -- not attempted, never refused.
func (im *Local) ImportMany(ctx context.Context, docs []Doc) []BatchResult {
	out := make([]BatchResult, len(docs))
	notAttempted := func(from int, err error) {
		for i := from; i < len(docs); i++ {
			if out[i].Err == nil && out[i].Narration == "" {
				out[i].Err = fmt.Errorf("import %s: not attempted: %w", docs[i].Narration.ID, err)
			}
		}
	}
	preps := make([]*narration.Prepared, len(docs))
	for i, d := range docs {
		p, err := narration.Prepare(ctx, d.Document, im.vocab)
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
		overlay := NewOverlay(im.store)
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
			} else {
				im.notify(ctx, css...)
			}
			css, members, pending = nil, nil, 0
		}
		// The documents are compiled on a goroutine of their own while the next ones are
		// validated (a document's validation needs only the entities the ones before it
		// define, which Checked.Defines gives): compiling was a twentieth of a load, on the
		// goroutine that also writes. The compiled documents join the transaction in order,
		// and a transaction ends after the same document as it would compiled in line.
		jobs := make(chan *compiling, compileAhead)
		compiled := make(chan *compiling, compileAhead)
		go func() {
			for j := range jobs {
				j.want = narration.Compile(j.c)
				compiled <- j
			}
		}()
		defer close(jobs)
		inFlight := 0
		take := func() {
			j := <-compiled
			inFlight--
			if failed != nil {
				out[j.i] = BatchResult{Err: fmt.Errorf("import %s: not attempted: an earlier transaction of the batch failed: %w", j.c.ID, failed)}
				return
			}
			j.res.QuadsAdded, j.res.ClaimsAdded = len(j.want), len(claimNodes(j.want))
			out[j.i].Result = j.res
			css = append(css, athar.Changeset{Narration: j.c.ID, Add: j.want})
			css = append(css, j.rebind...)
			members = append(members, j.i)
			if pending += len(j.want); pending >= TxQuads {
				flush()
			}
		}
		takeAll := func() {
			for inFlight > 0 {
				take()
			}
		}
		for i, d := range docs {
			for inFlight >= compileAhead {
				take()
			}
			if failed != nil {
				out[i].Err = fmt.Errorf("import %s: not attempted: an earlier transaction of the batch failed: %w", d.Narration.ID, failed)
				continue
			}
			if err := athar.Stopped(ctx, "import batch"); err != nil {
				takeAll()
				flush() // refused by Apply with the same error: nothing of it is stored
				notAttempted(i, err)
				return
			}
			if seen[d.Narration.ID] {
				later = append(later, i)
				continue
			}
			seen[d.Narration.ID] = true
			c, err := preps[i].Check(ctx, overlay)
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
			defs := c.Defines()
			before, err := overlay.DefinedBy(ctx, defs)
			if err != nil {
				out[i].Err = fmt.Errorf("import %s: %w", c.ID, err)
				continue
			}
			res := Result{Narration: c.ID, Changed: true}
			for _, id := range defs {
				if len(before[id]) == 0 {
					res.EntitiesAdded++
				}
			}
			rebind, notes, err := im.rebindCorpus(ctx, c.ID, nil, c.References, c.Text, c.Language)
			if err != nil {
				out[i].Err = fmt.Errorf("import %s: %w", c.ID, err)
				continue
			}
			overlay.Define(c.ID, defs)
			res.Note = strings.Join(notes, "; ")
			jobs <- &compiling{i: i, c: c, res: res, rebind: rebind}
			inFlight++
		}
		takeAll()
		flush()
	}()
	for _, i := range later {
		if out[i].Err != nil {
			continue
		}
		r, err := im.Import(ctx, docs[i].Document)
		out[i] = BatchResult{Result: r, Err: err}
	}
	return out
}
