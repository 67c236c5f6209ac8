package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/search"
	"github.com/athar-hadith/athar/schema"
)

// newGraphQL builds the search index from the store and the GraphQL handler over both. The
// handler keeps the index current after every import and delete through im.
func newGraphQL(ctx context.Context, e env, st athar.Store, im *narration.Importer, logger *slog.Logger) (http.Handler, error) {
	ix := search.NewIndex()
	if err := graph.BuildIndex(ctx, st, ix); err != nil {
		return nil, err
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
