package main

// The scale-out mode (docs/scale-out.md): with ATHAR_DATABASE (--database) set, the record is
// a log of changes in PostgreSQL or CockroachDB, and the store is this process's replica of
// the graph, kept in step with the log. serve follows the log and sends mutations to it;
// load logs documents; export exports the graph as of the head of the log.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/metrics"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/pglog"
	"github.com/athar-hadith/athar/internal/replica"
	"github.com/athar-hadith/athar/schema"
)

// mutations is the write path of the GraphQL mutations: the embedded store's importer, or a
// replica, which writes through the log.
type mutations interface {
	Import(ctx context.Context, d *narration.Document) (narration.Result, error)
	Delete(ctx context.Context, id athar.ID) error
	Merge(ctx context.Context, keep, remove athar.ID) (narration.MergeResult, error)
}

var (
	_ mutations = (*narration.Importer)(nil)
	_ mutations = (*replica.Replica)(nil)
)

// databaseFlags are the scale-out mode's flags.
type databaseFlags struct {
	url  string
	poll time.Duration
	name string
}

func addDatabaseFlags(fs *flag.FlagSet, e env) *databaseFlags {
	d := &databaseFlags{}
	fs.StringVar(&d.url, "database", e.getenv("ATHAR_DATABASE"), "scale-out mode: the PostgreSQL or CockroachDB holding the log of changes, as postgres://USER@HOST:PORT/DB?sslmode=...; the store is then this process's replica of the graph (env ATHAR_DATABASE; unset: the embedded mode)")
	poll := replica.DefaultPollInterval
	if v, err := time.ParseDuration(e.getenv("ATHAR_POLL_INTERVAL")); err == nil && v > 0 {
		poll = v
	}
	fs.DurationVar(&d.poll, "poll", poll, "with --database: how often to read the log where the database cannot notify (CockroachDB); on PostgreSQL, every "+fmt.Sprint(replica.SafetyPolls)+"x this as a safety net (env ATHAR_POLL_INTERVAL)")
	fs.StringVar(&d.name, "replica-name", e.getenv("ATHAR_REPLICA_NAME"), "with --database: this replica's name in the log (env ATHAR_REPLICA_NAME; default: host name and a random suffix)")
	return d
}

// replicaStore returns the store a command other than serve replicates into: the --store
// given on its command line, or else a throwaway memory: store (ATHAR_STORE names the
// serving replica's store, which its lock keeps from a second process).
func replicaStore(fs *flag.FlagSet, spec string) string {
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "store" })
	if explicit {
		return spec
	}
	return "memory:"
}

func replicaName(d *databaseFlags) string {
	if d.name != "" {
		return d.name
	}
	host, _ := os.Hostname()
	var b [3]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s-%s", host, hex.EncodeToString(b[:]))
}

// openReplica connects to the log (waiting up to two minutes for the database) and opens
// the replica of it in st.
func openReplica(ctx context.Context, d *databaseFlags, st athar.Store, gauge func(string, float64), logger *slog.Logger) (*replica.Replica, *pglog.DB, error) {
	octx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	db, err := pglog.Open(octx, d.url, logger)
	if err != nil {
		return nil, nil, err
	}
	rep, err := replica.Open(octx, replica.Config{
		Log:          db,
		Store:        st,
		Vocab:        schema.Vocabulary(),
		Name:         replicaName(d),
		Logger:       logger,
		ReadNQuads:   cayleystore.ReadNQuads,
		WriteNQuads:  cayleystore.WriteNQuads,
		PollInterval: d.poll,
		Gauge:        gauge,
	})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return rep, db, nil
}

// servedReplica is serve's replica: it follows the log from follow until stop.
type servedReplica struct {
	*replica.Replica
	db     *pglog.DB
	cancel context.CancelFunc
	done   chan struct{}
}

// startReplica opens serve's replica in st and logs the seeds if the log is empty. The
// caller hooks the search index to it, then calls follow.
func startReplica(ctx context.Context, e env, d *databaseFlags, st athar.Store, m *metrics.Metrics, logger *slog.Logger) (*servedReplica, error) {
	rep, db, err := openReplica(ctx, d, st, m.Set, logger)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	seeded, err := seedLog(ctx, rep, e)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("serve: %w", err)
	}
	if seeded {
		logger.Info("empty log: logged the seeds")
	}
	return &servedReplica{Replica: rep, db: db}, nil
}

// follow starts following the log in the background.
func (s *servedReplica) follow(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		_ = s.Run(ctx)
	}()
}

// stop stops following and closes the database connections.
func (s *servedReplica) stop() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	s.db.Close()
}

// ready returns the readiness check for /readyz (nil in the embedded mode).
func (s *servedReplica) ready() func() error {
	if s == nil {
		return nil
	}
	return s.Ready
}

// readyStatus returns the replica's position, head and lag for /readyz (nil in the
// embedded mode).
func (s *servedReplica) readyStatus() func() map[string]any {
	if s == nil {
		return nil
	}
	return func() map[string]any {
		st := s.Status()
		out := map[string]any{"position": st.Position, "head": st.Head, "lag": st.Lag, "caught_up": st.CaughtUp}
		if st.Error != "" {
			out["replica_error"] = st.Error
		}
		return out
	}
}

// seedLog logs the embedded seeds if the log is empty, after checking them in a store of
// their own. Replicas starting together on a new database seed it once.
func seedLog(ctx context.Context, rep *replica.Replica, e env) (bool, error) {
	if rep.Status().Head > 0 {
		return false, nil
	}
	docs, texts, refused := parseSources(seedSources(), e)
	if refused > 0 {
		return false, fmt.Errorf("the embedded seeds were refused")
	}
	mem, im, err := openGraph("memory:", cliLogger(e))
	if err != nil {
		return false, err
	}
	defer mem.Close()
	ids := make([]athar.ID, len(docs))
	for i, d := range docs {
		res, err := im.Import(ctx, d)
		if err != nil {
			return false, fmt.Errorf("the embedded seeds were refused: %w", err)
		}
		ids[i] = res.Narration
	}
	return rep.SeedIfEmpty(ctx, texts, ids)
}

// parseSources parses the documents among srcs and puts them in dependency order, each with
// its text; it reports refusals to e.stderr.
func parseSources(srcs []source, e env) ([]*narration.Document, []replica.TextDoc, int) {
	var docs []*narration.Document
	text := map[*narration.Document]replica.TextDoc{}
	refused := 0
	for _, s := range srcs {
		if narration.IsNQuads(s.name) {
			continue
		}
		d, err := narration.Parse(s.name, s.data)
		if err != nil {
			refused++
			fmt.Fprintln(e.stderr, err)
			continue
		}
		docs = append(docs, d)
		text[d] = replica.TextDoc{Source: s.name, Data: s.data}
	}
	docs = narration.Order(docs)
	texts := make([]replica.TextDoc, len(docs))
	for i, d := range docs {
		texts[i] = text[d]
	}
	return docs, texts, refused
}

// loadThroughLog is load in the scale-out mode: documents (and N-Quads files) are logged,
// each in its transaction, pipelined; the summary counts what applying them did.
func loadThroughLog(ctx context.Context, e env, d *databaseFlags, storeSpec string, srcs []source) error {
	logger := cliLogger(e)
	st, err := cayleystore.Open(storeSpec, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, db, err := openReplica(ctx, d, st, nil, logger)
	if err != nil {
		return err
	}
	defer db.Close()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = rep.Run(runCtx) }()
	defer func() { cancel(); <-done }()

	start := time.Now()
	var stats loadStats
	docs, texts, refused := parseSources(srcs, e)
	stats.documents, stats.refused = len(docs)+refused, refused
	for _, r := range rep.ImportAll(ctx, docs, texts) {
		switch {
		case r.Err != nil:
			stats.refused++
			fmt.Fprintln(e.stderr, r.Err)
		case r.Changed:
			stats.changed++
			stats.claims += r.ClaimsAdded
			stats.entities += r.EntitiesAdded
		default:
			stats.unchanged++
		}
	}
	for _, s := range srcs {
		if !narration.IsNQuads(s.name) {
			continue
		}
		ids, err := rep.Restore(ctx, s.name, s.data)
		stats.restored += len(ids)
		if err != nil {
			stats.refused++
			fmt.Fprintf(e.stderr, "%s: %v\n", s.name, err)
		}
	}
	fmt.Fprintf(e.stdout, "%s in %s (through the log, now at %d)\n", stats, time.Since(start).Round(time.Millisecond), rep.Status().Position)
	if stats.refused > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("%d document(s) refused", stats.refused)}
	}
	return nil
}

// openExportStore opens the store export reads: the embedded store, or in the scale-out
// mode a replica caught up with the head of the log.
func openExportStore(ctx context.Context, e env, fs *flag.FlagSet, spec string, d *databaseFlags) (athar.Store, func(), error) {
	if d.url == "" {
		st, err := cayleystore.Open(spec, cliLogger(e))
		if err != nil {
			return nil, nil, err
		}
		return st, func() { st.Close() }, nil
	}
	st, err := cayleystore.Open(replicaStore(fs, spec), cliLogger(e))
	if err != nil {
		return nil, nil, err
	}
	rep, db, err := openReplica(ctx, d, st, nil, cliLogger(e))
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	closeAll := func() { db.Close(); st.Close() }
	if err := rep.CatchUp(ctx); err != nil {
		closeAll()
		return nil, nil, fmt.Errorf("export: catch up with the log: %w", err)
	}
	return rep.Store(), closeAll, nil
}
