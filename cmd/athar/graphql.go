package main

import (
	"log/slog"
	"net/http"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/search"
	"github.com/athar-hadith/athar/internal/textindex"
	"github.com/athar-hadith/athar/schema"
)

// newGraphQL returns the GraphQL handler over st, its writer w, the search index ix and the
// full-text index texts, which the caller keeps current by subscribing
// graph.IndexSubscriber and graph.TextIndexSubscriber to w.
func newGraphQL(e env, st athar.Store, w ingest.Writer, ix *search.Index, texts *textindex.Index, logger *slog.Logger) (http.Handler, error) {
	return graph.NewHandler(graph.Config{
		Store:    st,
		Importer: w,
		Vocab:    schema.Vocabulary(),
		Index:    ix,
		Texts:    texts,
		Token:    e.getenv("ATHAR_TOKEN"),
		Logger:   logger,
	})
}
