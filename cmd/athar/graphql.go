package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/search"
	"github.com/athar-hadith/athar/schema"
)

// newGraphQL builds the search index from the store and the GraphQL handler over both. The
// handler keeps the index current after every import and delete through im; a replica
// (the scale-out mode) is given the index to keep current as it applies the log.
func newGraphQL(ctx context.Context, e env, st athar.Store, im mutations, logger *slog.Logger) (http.Handler, error) {
	ix := search.NewIndex()
	if err := graph.BuildIndex(ctx, st, ix); err != nil {
		return nil, err
	}
	if rep, ok := im.(interface{ OnChange(func(athar.Changeset)) }); ok {
		rep.OnChange(graph.IndexOnChange(st, ix, logger))
	}
	return graph.NewHandler(graph.Config{
		Store:    st,
		Importer: im,
		Vocab:    schema.Vocabulary(),
		Index:    ix,
		Token:    e.getenv("ATHAR_TOKEN"),
		Logger:   logger,
	})
}
