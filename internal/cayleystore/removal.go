package cayleystore

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	"github.com/cayleygraph/cayley/graph/proto"
	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"

	"github.com/athar-hadith/athar/internal/athar"
)

// A change that only removes quads -- a narration deleted, or re-imported with less than
// before -- commits in one bbolt transaction: Cayley's, with the manifest's entries and the
// read model's rows written into it (joinKV), where any other change takes two (Cayley's,
// which marks its labels pending, then the manifest's and the read model's, which clears
// the marks; see Apply). Everything the second transaction writes can be known before
// Cayley's when nothing is added:
//
//   - the manifest's entries lose the records of the quads removed, looked up before the
//     commit in any case (their terms may not outlive it);
//   - the read model loses the rows of those quads (rmChange reads nothing from Cayley when
//     nothing is added);
//   - the narrations whose routes the change touches are read from Cayley as it will be:
//     as it is, with the quads removed hidden from the two reads routes use (quadsWith
//     and withPredicate, see Store.hide).
//
// A delete at 100,000 narrations spent most of its time in bbolt's commits, two
// fdatasyncs each (docs/BENCHMARKS.md, "Writes"); this takes one commit away. Nothing is
// marked pending: the one transaction commits everything or nothing.

// applyRemoval commits c in one transaction when it only removes quads from labels whose
// entries are in step, on bbolt with the read model in step. It reports whether it
// applied the change (done), and the error when it did and failed: the store is then
// unchanged. Callers hold the write lock.
func (s *Store) applyRemoval(ctx context.Context, deltas []graph.Delta, c *manifestChange) (done bool, err error) {
	kqs, isKV := s.qs.(*kv.QuadStore)
	if _, ok := s.man.(boltManifest); !ok || !isKV || s.join == nil || s.rmStale || len(c.labels) == 0 {
		return false, nil
	}
	for _, d := range deltas {
		if d.Action != graph.Delete || labelOf(d.Quad) == "" {
			return false, nil
		}
	}
	// A label marked pending (an earlier write failed half-way) has an entry that cannot
	// be updated from its records: the two-transaction path rebuilds it.
	inStep := true
	err = s.man.view(func(tx manifestTx) error {
		inStep = tx.get(pendingBucket, rmPendingKey) == nil
		for _, l := range c.labels {
			inStep = inStep && tx.get(pendingBucket, l) == nil
		}
		return nil
	})
	if err != nil || !inStep {
		return false, nil
	}
	fail := func(err error) (bool, error) {
		return true, fmt.Errorf("apply %d changes: %w", len(deltas), err)
	}
	if c.removeRecs, err = s.records(ctx, c, c.remove, nil); err != nil {
		return fail(fmt.Errorf("manifest: %w", err))
	}
	_, del, err := s.rmChange(ctx, c)
	if err != nil {
		return fail(fmt.Errorf("read model: %w", err))
	}
	routes, err := s.routesAfterRemoval(ctx, kqs, c)
	if err != nil {
		return fail(fmt.Errorf("read model: %w", err))
	}
	joined := false
	s.join.first = func(ctx context.Context, htx hkv.Tx) error {
		joined = true
		tx := &hkvTx{ctx: ctx, tx: htx}
		if err := routesPut(tx, routes); err != nil {
			return err
		}
		if err := rmApplyAll(tx, del, false); err != nil {
			return err
		}
		if err := writeEntries(tx, c, nil, true); err != nil {
			return err
		}
		if tx.err != nil {
			return fmt.Errorf("manifest and read model: %w", tx.err)
		}
		return nil
	}
	err = s.qs.ApplyDeltas(deltas, graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true})
	s.join.first = nil
	if err != nil {
		return fail(err)
	}
	if !joined {
		// Cayley committed without asking joinKV for a transaction (not what the pinned
		// version does): the entries and rows are behind. Reads go to Cayley, and the
		// marks have the next Open rebuild them, if rebuilding now fails.
		s.rmStale = true
		if _, err := s.markPending(c.labels); err == nil {
			_ = s.rebuildLabels(context.WithoutCancel(ctx), c.labels, nil)
		}
	}
	s.mentions.apply(c)
	return true, nil
}

// routesAfterRemoval reads the routes rows of the narrations c touches as Cayley will hold
// them once c commits: with the quads c removes hidden, and never hidden after it returns,
// whatever happens in between.
func (s *Store) routesAfterRemoval(ctx context.Context, kqs *kv.QuadStore, c *manifestChange) (map[athar.ID][]byte, error) {
	hide, err := s.hidden(ctx, kqs, c)
	if err != nil {
		return nil, err
	}
	s.hide = hide
	defer func() { s.hide = nil }()
	return s.routesChange(ctx, c)
}

// hidden returns the node ids of the quads c removes, as Store.hide holds them; a quad
// with a term the store lacks is not stored, and not in it.
func (s *Store) hidden(ctx context.Context, kqs *kv.QuadStore, c *manifestChange) (map[[4]uint64]bool, error) {
	labels := make([]quad.Value, len(c.labels))
	for i, l := range c.labels {
		labels[i] = quad.IRI(l)
	}
	refs, err := kqs.RefsOf(ctx, labels)
	if err != nil {
		return nil, fmt.Errorf("look up %d labels: %w", len(labels), err)
	}
	hide := map[[4]uint64]bool{}
	for i, l := range c.labels {
		id, ok := refs[i].(kv.Int64Value)
		if !ok || id <= 0 {
			continue // a label the store lacks labels nothing
		}
		for _, r := range c.removeRecs[l] {
			if r == "" {
				continue // not stored
			}
			spo, err := recordIDs(r)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", l, err)
			}
			hide[[4]uint64{spo[0], spo[1], spo[2], uint64(id)}] = true
		}
	}
	return hide, nil
}

// recordIDs returns the node ids of an idRecord.
func recordIDs(r string) ([3]uint64, error) {
	var ids [3]uint64
	b := []byte(r)
	if len(b) == 0 || int(b[0]) != len(b)-1 {
		return ids, fmt.Errorf("record %q is not a KV record", r)
	}
	b = b[1:]
	for i := range ids {
		id, k := binary.Uvarint(b)
		if k <= 0 || id == 0 {
			return ids, fmt.Errorf("record %q is corrupt", r)
		}
		ids[i], b = id, b[k:]
	}
	return ids, nil
}

// unhidden is the filter quadsWith and withPredicate give kvQuads: nil, or while Apply
// reads what a removal leaves, one that skips the quads it removes.
func (s *Store) unhidden() func(*proto.Primitive) bool {
	if s.hide == nil {
		return nil
	}
	return func(p *proto.Primitive) bool {
		return !s.hide[[4]uint64{p.Subject, p.Predicate, p.Object, p.Label}]
	}
}
