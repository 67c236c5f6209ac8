package ingest

import (
	"context"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/narration"
)

// Overlay is a graph plus the definitions of documents accepted but not yet stored (a
// batch's earlier documents; on a replica, documents logged but not yet applied), for
// validating the next document of a batch as the graph will be once those are stored.
// DefinedBy and EntityIDs (which "did you mean" suggestions read) include the pending
// definitions; MergedInto is the graph's: a pending document can only repeat a merge the
// graph records (by defining a retired id), never record a new one.
type Overlay struct {
	base narration.Graph
	defs map[athar.ID][]athar.ID
}

// NewOverlay returns base with no pending definitions.
func NewOverlay(base narration.Graph) *Overlay {
	return &Overlay{base: base, defs: map[athar.ID][]athar.ID{}}
}

// Define records that narration n defines the entities defs (narration.DefinedEntities of
// its compiled quads, or Checked.Defines).
func (o *Overlay) Define(n athar.ID, defs []athar.ID) {
	for _, id := range defs {
		o.defs[id] = append(o.defs[id], n)
	}
}

// MergedInto implements narration.Graph.
func (o *Overlay) MergedInto(ctx context.Context, ids []athar.ID) (map[athar.ID]athar.ID, error) {
	return o.base.MergedInto(ctx, ids)
}

// EntityIDs implements narration.Graph.
func (o *Overlay) EntityIDs(ctx context.Context, t athar.EntityType) ([]athar.ID, error) {
	ids, err := o.base.EntityIDs(ctx, t)
	if err != nil {
		return nil, err
	}
	out := append([]athar.ID(nil), ids...)
	for id := range o.defs {
		if et, ok := athar.TypeOfPrefix(id.Prefix()); ok && (t == "" || et == t) {
			out = append(out, id)
		}
	}
	return uniq(out), nil
}

// DefinedBy implements narration.Graph.
func (o *Overlay) DefinedBy(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ID, error) {
	m, err := o.base.DefinedBy(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		if d, ok := o.defs[id]; ok {
			m[id] = append(append([]athar.ID(nil), m[id]...), d...)
		}
	}
	return m, nil
}
