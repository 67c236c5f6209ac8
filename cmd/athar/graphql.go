package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/narration"
)

// newGraphQL builds the GraphQL handler. (Wired to graph.NewHandler by the API issue.)
func newGraphQL(ctx context.Context, e env, st *cayleystore.Store, im *narration.Importer, logger *slog.Logger) (http.Handler, error) {
	return nil, nil
}
