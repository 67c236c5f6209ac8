package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/httpserver"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/ingest/load"
	"github.com/athar-hadith/athar/internal/metrics"
	"github.com/athar-hadith/athar/internal/replica"
	"github.com/athar-hadith/athar/internal/search"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/web"
)

func cmdServe(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "serve", "[flags]", `Run the HTTP server: the explorer at /, GraphiQL at /graphiql, GraphQL at /graphql (POST;
GET for queries), exports at /export/{format} (see docs/exports.md), /healthz, /readyz and
Prometheus metrics at /metrics. An empty store is loaded with the embedded seeds first. With
--database (ATHAR_DATABASE) it runs as a replica following the shared log instead (see
docs/scale-out.md). SIGINT or SIGTERM stops it gracefully: in-flight requests finish (up to
10 s), then the store is closed.`)
	store := storeFlag(fs, e)
	defAddr := e.getenv("ATHAR_ADDR")
	if defAddr == "" {
		defAddr = ":8080"
	}
	addr := fs.String("addr", defAddr, "listen address (env ATHAR_ADDR)")
	corsList := fs.String("cors", e.getenv("ATHAR_CORS_ORIGINS"), "comma-separated origins allowed to call the API from browsers, or * (env ATHAR_CORS_ORIGINS; default: same origin only)")
	database := addDatabaseFlags(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))

	raw, err := cayleystore.Open(*store, logger)
	if err != nil {
		return err
	}
	defer raw.Close()
	m := metrics.New()
	st := m.Store(raw)
	// The search index is built from the store as it is, then kept current by subscribing
	// to the writer: the embedded store's, or the replica's (the scale-out mode, replica.go).
	read := st
	if database.url != "" {
		read = replica.View(st)
	}
	ix := search.NewIndex()
	if err := graph.BuildIndex(ctx, read, ix); err != nil {
		return err
	}
	// The full-text index lives beside the store, checked against it and rebuilt if stale.
	texts, err := graph.OpenTextIndex(ctx, textIndexDir(*store), read, logger)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer texts.Close()
	index := []ingest.Subscriber{graph.IndexSubscriber(read, ix, logger), graph.TextIndexSubscriber(read, texts, logger)}
	im := ingest.NewLocal(st, schema.Vocabulary(), index...)
	var writes ingest.Writer = im
	var rep *replica.Background
	if database.url != "" {
		connect := connectReplica(e, database, st, m.Set, logger, index...) // replica.go
		if rep, err = replica.NewBackground(ctx, st, connect, logger); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		defer rep.Stop()
		st, writes = rep.Store(), rep
	}

	narrations, err := st.EntityIDs(ctx, athar.TypeNarration)
	if err != nil {
		return err
	}
	if len(narrations) == 0 && rep == nil {
		stats := loadSources(ctx, im, seedSources(), e.stderr, load.Options{})
		if err := stats.Interrupted("serve: loading the seeds"); err != nil {
			return err
		}
		if stats.Refused > 0 {
			return errors.New("serve: the embedded seeds were refused")
		}
		logger.Info("empty store: loaded the seeds", "summary", stats.String())
	}

	gql, err := newGraphQL(e, st, writes, ix, texts, logger)
	if err != nil {
		return err
	}
	cfg := httpserver.Config{
		GraphQL:     gql,
		Store:       st,
		Vocab:       schema.Vocabulary(),
		Pages:       web.Explorer(),
		Logger:      logger,
		Metrics:     m,
		CORSOrigins: splitList(*corsList),
	}
	var repFailed <-chan error // never ready in the embedded mode
	if rep != nil {
		rep.Start(ctx) // connects in the background: queries are served meanwhile
		cfg.Ready, cfg.ReadyStatus, repFailed = rep.Ready, rep.ReadyStatus, rep.Failed()
	}
	h := httpserver.New(cfg)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("listening", "addr", ln.Addr().String(), "store", *store)
	if err := httpserver.Serve(ctx, ln, h, repFailed, logger); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// textIndexDir is where the full-text index of a store lives: inside a bbolt store's
// directory (so the store's lock covers it too), and in memory ("") for a memory store.
func textIndexDir(store string) string {
	if dir, ok := strings.CutPrefix(store, "bbolt:"); ok && dir != "" {
		return filepath.Join(dir, "textindex")
	}
	return ""
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
