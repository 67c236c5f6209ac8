package graph

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/search"
)

// indexBatch is how many entities BuildIndex reads from the store at a time.
const indexBatch = 256

// entityReader is what keeping the index needs of the store.
type entityReader interface {
	Entities(ctx context.Context, ids []athar.ID) ([]*athar.Entity, error)
	EntityIDs(ctx context.Context, t athar.EntityType) ([]athar.ID, error)
}

// BuildIndex puts every entity the store defines (narrations included, by title) into ix,
// with its name, aliases and Arabic names. Run it once at start, before serving; then keep
// the index current with RefreshIndex (IndexSubscriber, subscribed to the writer).
func BuildIndex(ctx context.Context, st athar.Store, ix *search.Index) error {
	ids, err := st.EntityIDs(ctx, "")
	if err != nil {
		return fmt.Errorf("build search index: %w", err)
	}
	return putEntities(ctx, st, ix, ids)
}

// RefreshIndex brings ix up to date with the change cs made to the store: every entity the
// change touched (a subject or IRI object of one of its quads) is read again, and put back
// if the graph still defines it, or deleted from the index if not.
func RefreshIndex(ctx context.Context, st athar.Store, ix *search.Index, cs athar.Changeset) error {
	if err := putEntities(ctx, st, ix, touched(cs)); err != nil {
		return fmt.Errorf("refresh search index after %s: %w", cs.Narration, err)
	}
	return nil
}

// IndexSubscriber returns the ingest.Subscriber that refreshes ix after each change a
// writer commits. It runs under the writing caller's context (its values), but not its
// cancellation: the change is committed, so the refresh must not be cut short by the
// caller's deadline; it gets a timeout of its own, and a failure is logged here.
func IndexSubscriber(st athar.Store, ix *search.Index, logger *slog.Logger) func(context.Context, athar.Changeset) {
	return func(ctx context.Context, cs athar.Changeset) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := RefreshIndex(ctx, st, ix, cs); err != nil && logger != nil {
			logger.Error("search index is stale", "narration", cs.Narration, "err", err)
		}
	}
}

// touched returns the entity ids among the subjects and IRI objects of cs's quads, sorted.
func touched(cs athar.Changeset) []athar.ID {
	set := map[athar.ID]bool{}
	note := func(iri string) {
		if id, ok := athar.ParseIRI(iri); ok {
			if _, isEntity := athar.TypeOfPrefix(id.Prefix()); isEntity {
				set[id] = true
			}
		}
	}
	for _, qs := range [][]athar.Quad{cs.Remove, cs.Add} {
		for _, q := range qs {
			note(q.Subject)
			if q.Object.IsIRI() {
				note(q.Object.IRI)
			}
		}
	}
	ids := make([]athar.ID, 0, len(set))
	for id := range set {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func putEntities(ctx context.Context, st entityReader, ix *search.Index, ids []athar.ID) error {
	for len(ids) > 0 {
		batch := ids[:min(indexBatch, len(ids))]
		ids = ids[len(batch):]
		es, err := st.Entities(ctx, batch)
		if err != nil {
			return err
		}
		for i, e := range es {
			if e == nil {
				ix.Delete(string(batch[i]))
				continue
			}
			ix.Put(searchDoc(e))
		}
	}
	return nil
}

// searchDoc is what the index knows of an entity: its name first, then aliases and Arabic
// names.
func searchDoc(e *athar.Entity) search.Doc {
	names := make([]string, 0, 1+len(e.Aliases)+len(e.Arabic))
	names = append(names, e.Name)
	names = append(names, e.Aliases...)
	names = append(names, e.Arabic...)
	return search.Doc{ID: string(e.ID), Type: string(e.Type), Names: names}
}
