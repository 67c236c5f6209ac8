package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/httpserver"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/ingest/load"
	"github.com/athar-hadith/athar/internal/metrics"
	"github.com/athar-hadith/athar/internal/pglog"
	"github.com/athar-hadith/athar/internal/replica"
	"github.com/athar-hadith/athar/internal/search"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/web"
)

// ServeConfig is what athar serve is asked for.
type ServeConfig struct {
	Mode        Mode
	Addr        string   // listen address
	CORSOrigins []string // origins allowed to call the API from browsers
	Token       string   // bearer token authorising GraphQL mutations; empty: none allowed
	Logger      *slog.Logger
	Stderr      io.Writer // where the seed load reports
	// NoWarm leaves the store's read model to be read from disk as requests need it,
	// instead of reading it into the page cache in the background at start (Store.Warm).
	NoWarm bool
}

// Serve runs the HTTP server until ctx is done (docs/architecture.md): the store with its
// metrics, the search index built from it and kept current by subscribing to the writer,
// the writer (the store's own, or in the scale-out mode a replica following the log in the
// background, which seeds an empty log), the seeds loaded into an empty embedded store, the
// GraphQL handler and the HTTP routes.
func Serve(ctx context.Context, cfg ServeConfig) error {
	logger := cfg.Logger
	raw, err := cayleystore.Open(cfg.Mode.Store, logger)
	if err != nil {
		return err
	}
	defer raw.Close()
	if !cfg.NoWarm {
		go func() {
			ws, err := raw.Warm(ctx)
			if err != nil && ctx.Err() == nil {
				logger.Warn("warming the read model stopped", "err", err, "keys", ws.Keys)
				return
			}
			if err == nil && ws.Keys > 0 {
				logger.Info("read model warmed", "buckets", ws.Buckets, "keys", ws.Keys, "bytes", ws.Bytes, "took", ws.Took.Round(time.Millisecond).String())
			}
		}()
	}
	m := metrics.New()
	st := m.Store(raw)
	read := st
	if cfg.Mode.Database != "" {
		read = replica.View(st)
	}
	ix := search.NewIndex()
	if err := graph.BuildIndex(ctx, read, ix); err != nil {
		return err
	}
	// The full-text index lives beside the store; it is checked against it, and rebuilt if
	// stale, in the background (seconds to a minute on the corpus): searchTexts answers
	// UNAVAILABLE until then, everything else at once.
	texts := graph.OpenTextIndexInBackground(ctx, textIndexDir(cfg.Mode.Store), read, logger)
	defer texts.Close()
	timeline := graph.NewTimelineCache()
	index := []ingest.Subscriber{graph.IndexSubscriber(read, ix, logger), texts.Subscriber(), timeline.Invalidate}
	im := ingest.NewLocal(st, schema.Vocabulary(), index...)
	var writes ingest.Writer = im
	var rep *replica.Background
	if cfg.Mode.Database != "" {
		connect := pglog.Connect(cfg.Mode.Database, cfg.Mode.replicaConfig(st, m.Set, logger, index...), func(ctx context.Context, rep *replica.Replica) error {
			seeded, err := seedLog(ctx, rep, logger)
			if seeded {
				logger.Info("empty log: logged the seeds")
			}
			return err
		})
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
		stats := Load(ctx, im, Seeds(), cfg.Stderr, load.Options{})
		if err := stats.Interrupted("serve: loading the seeds"); err != nil {
			return err
		}
		if stats.Refused > 0 {
			return errors.New("serve: the embedded seeds were refused")
		}
		logger.Info("empty store: loaded the seeds", "summary", stats.String())
	}

	gql, err := graph.NewHandler(graph.Config{
		Store: st, Importer: writes, Vocab: schema.Vocabulary(), Index: ix, Texts: texts, Timeline: timeline, Token: cfg.Token, Logger: logger,
	})
	if err != nil {
		return err
	}
	hc := httpserver.Config{
		GraphQL: gql, Store: st, Vocab: schema.Vocabulary(), Pages: web.Explorer(),
		Logger: logger, Metrics: m, CORSOrigins: cfg.CORSOrigins,
	}
	var repFailed <-chan error // never ready in the embedded mode
	if rep != nil {
		rep.Start(ctx) // connects in the background: queries are served meanwhile
		hc.Ready, hc.ReadyStatus, repFailed = rep.Ready, rep.ReadyStatus, rep.Failed()
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	logger.Info("listening", "addr", ln.Addr().String(), "store", cfg.Mode.Store)
	if err := httpserver.Serve(ctx, ln, httpserver.New(hc), repFailed, logger); err != nil {
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
