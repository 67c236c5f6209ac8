//go:build bench

package cayleystore

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/nquads"

	"github.com/athar-hadith/athar/internal/athar"
)

// Raw is Cayley without Athar: the baseline the benchmarks compare Athar with, on the same
// backend and the same quads. It is not used by the product.
type Raw struct {
	qs graph.QuadStore
}

// OpenRaw opens a bbolt store in dir with no Athar layer on top.
func OpenRaw(dir string) (*Raw, error) { return OpenRawBackend("bbolt", dir) }

// OpenRawBackend opens (creating if needed) a store of one of EmbeddedBackends in dir with
// no Athar layer on top.
func OpenRawBackend(backend, dir string) (*Raw, error) {
	if !graph.IsRegistered(backend) {
		return nil, fmt.Errorf("cayley backend %q is not registered", backend)
	}
	if err := graph.InitQuadStore(backend, dir, nil); err != nil && !errors.Is(err, graph.ErrDatabaseExists) {
		return nil, err
	}
	qs, err := graph.NewQuadStore(backend, dir, nil)
	if err != nil {
		return nil, err
	}
	return &Raw{qs: qs}, nil
}

// Close closes the store.
func (r *Raw) Close() error { return r.qs.Close() }

// BulkLoad adds the quads with ApplyDeltas in transactions of batch quads each, as a
// Cayley user would bulk-load an N-Quads file.
func (r *Raw) BulkLoad(quads []athar.Quad, batch int) error {
	return r.BulkLoadEach(quads, batch, nil)
}

// BulkLoadEach is BulkLoad calling committed(tx) after transaction number tx (from 0) has
// been committed, i.e. after its ApplyDeltas returned without error. An error from
// committed stops the load.
func (r *Raw) BulkLoadEach(quads []athar.Quad, batch int, committed func(tx int) error) error {
	for i := 0; i < len(quads); i += batch {
		end := min(i+batch, len(quads))
		deltas := make([]graph.Delta, 0, end-i)
		for _, q := range quads[i:end] {
			deltas = append(deltas, graph.Delta{Quad: toQuad(q), Action: graph.Add})
		}
		if err := r.qs.ApplyDeltas(deltas, graph.IgnoreOpts{IgnoreDup: true}); err != nil {
			return fmt.Errorf("raw bulk load at quad %d: %w", i, err)
		}
		if committed != nil {
			if err := committed(i / batch); err != nil {
				return err
			}
		}
	}
	return nil
}

// LoadNQuads reads N-Quads from rd (an 'athar export', trailer and all: a comment to the
// reader) and adds them with ApplyDeltas in transactions of batch quads each, as a Cayley
// user loads an N-Quads file: streamed, never the whole file in memory. It returns how many
// quads it added.
func (r *Raw) LoadNQuads(rd io.Reader, batch int) (int, error) {
	qr := nquads.NewReader(rd, false)
	deltas := make([]graph.Delta, 0, batch)
	n := 0
	flush := func() error {
		if len(deltas) == 0 {
			return nil
		}
		if err := r.qs.ApplyDeltas(deltas, graph.IgnoreOpts{IgnoreDup: true}); err != nil {
			return fmt.Errorf("raw load at quad %d: %w", n-len(deltas), err)
		}
		deltas = deltas[:0]
		return nil
	}
	for {
		q, err := qr.ReadQuad()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, fmt.Errorf("raw load: quad %d: %w", n+1, err)
		}
		deltas = append(deltas, graph.Delta{Quad: q, Action: graph.Add})
		n++
		if len(deltas) == batch {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}

// Replace removes the quads remove and adds the quads add in one ApplyDeltas: what a Cayley
// user does to replace or delete what one narration asserted, knowing its quads. A quad in
// both is left alone (Cayley's Transaction cancels the pair), so a new version of a
// narration writes only what changed, as Athar's import does. The quads are taken as raw
// Cayley holds them after loading an N-Quads export (nQuadsForm).
//
// Until 2026-12-04 the deltas went to ApplyDeltas as given, a removal and an addition of
// every quad the two versions share, and Cayley's bbolt backend applied both and left the
// quad removed: the raw re-import timed removing a whole narration (and, every other run,
// adding it back), not the change of its title that Athar's timed re-import makes.
func (r *Raw) Replace(remove, add []athar.Quad) error {
	tx := graph.NewTransaction()
	for _, q := range remove {
		tx.RemoveQuad(nQuadsForm(q))
	}
	for _, q := range add {
		tx.AddQuad(nQuadsForm(q))
	}
	return r.qs.ApplyDeltas(tx.Deltas, graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true})
}

// nQuadsForm is q as Cayley's N-Quads reader gives it, and so as a raw store loaded from
// an export holds it: the reader turns the typed literals of the types it knows
// (xsd:integer, ...) into native values, where Athar's store keeps every literal as written
// (toQuad). Until 2026-12-04 Replace took Athar's form, and raw Cayley's delete of a
// narration left its 47-odd offsets (typed integers) in place, missing as given.
func nQuadsForm(q athar.Quad) quad.Quad {
	out := toQuad(q)
	if ts, ok := out.Object.(quad.TypedString); ok && nquads.AutoConvertTypedString {
		if v, err := ts.ParseValue(); err == nil {
			out.Object = v
		}
	}
	return out
}

// Each calls fn with every quad in the store, in no particular order: those committed when
// the scan began (Cayley reads them in batches, each in a read transaction of its own).
func (r *Raw) Each(ctx context.Context, fn func(athar.Quad) error) error {
	return each(ctx, r.qs.QuadsAllIterator(), func(ref graph.Ref) error {
		q, err := r.qs.Quad(ref)
		if err != nil {
			return err
		}
		return fn(fromQuad(q))
	})
}

// quads returns the quads with value v in direction d. It collects the matching refs first
// and resolves them once the iterator, and the read transaction it holds, is done: resolving
// each ref inside the iteration (qs.Quad opens a read transaction of its own) nests read
// transactions, and on bbolt that deadlocks against a concurrent writer that has to grow
// the memory map: the writer waits for the open read transaction to end, and the nested one
// waits behind the writer (internal/cayleystore/backends_test.go found it). Athar's Store
// never meets this because its lock keeps readers and writers apart.
func (r *Raw) quads(ctx context.Context, d quad.Direction, v quad.Value) ([]quad.Quad, error) {
	ref, err := r.qs.ValueOf(v)
	if err != nil || ref == nil {
		return nil, err
	}
	var refs []graph.Ref
	err = each(ctx, r.qs.QuadIterator(d, ref), func(ref graph.Ref) error {
		refs = append(refs, ref)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]quad.Quad, 0, len(refs))
	for _, ref := range refs {
		q, err := r.qs.Quad(ref)
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
	return out, nil
}

// OutIn returns every quad with the entity as subject or object: the raw lookups behind an
// entity with its claims.
func (r *Raw) OutIn(ctx context.Context, id athar.ID) (int, error) {
	out, err := r.quads(ctx, quad.Subject, quad.IRI(id.IRI()))
	if err != nil {
		return 0, err
	}
	in, err := r.quads(ctx, quad.Object, quad.IRI(id.IRI()))
	return len(out) + len(in), err
}

// Neighbourhood walks depth steps out and in from the entity over IRI-valued quads and
// returns how many nodes it reached.
func (r *Raw) Neighbourhood(ctx context.Context, id athar.ID, depth int) (int, error) {
	seen := map[string]bool{id.IRI(): true}
	frontier := []string{id.IRI()}
	for d := 0; d < depth; d++ {
		var next []string
		for _, n := range frontier {
			for _, dir := range []quad.Direction{quad.Subject, quad.Object} {
				qs, err := r.quads(ctx, dir, quad.IRI(n))
				if err != nil {
					return 0, err
				}
				for _, q := range qs {
					other := q.Object
					if dir == quad.Object {
						other = q.Subject
					}
					if iri, ok := other.(quad.IRI); ok && !seen[string(iri)] {
						seen[string(iri)] = true
						next = append(next, string(iri))
					}
				}
			}
		}
		frontier = next
	}
	return len(seen), nil
}

// WithPredicate returns how many quads have the predicate (a full scan: Cayley's KV
// backends index subjects and objects, not predicates alone).
func (r *Raw) WithPredicate(ctx context.Context, predicate string) (int, error) {
	ref, err := r.qs.ValueOf(quad.IRI(predicate))
	if err != nil || ref == nil {
		return 0, err
	}
	n := 0
	err = each(ctx, r.qs.QuadIterator(quad.Predicate, ref), func(graph.Ref) error {
		n++
		return nil
	})
	return n, err
}
