package main

// The scale-out mode (docs/scale-out.md): with ATHAR_DATABASE (--database) set, the record is
// a log of changes in PostgreSQL or CockroachDB, and the store is this process's replica of
// the graph, kept in step with the log. serve follows the log and sends mutations to it;
// load logs documents; export exports the graph as of the head of the log.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
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

// servedReplica is serve's replica. Queries are answered from the local store at once; the
// replica connects to the database in the background, retrying for as long as it is
// unreachable (/readyz says so meanwhile), then catches up and follows the log. Until it
// has caught up, mutations get athar.Unavailable, which a client may retry.
type servedReplica struct {
	e        env
	d        *databaseFlags
	st       athar.Store // the local store, the replica's state included
	local    athar.Store // st as queries read it
	gauge    func(string, float64)
	logger   *slog.Logger
	onChange []func(athar.Changeset)
	opened   int64 // the local store's position when serve started

	rep    atomic.Pointer[replica.Replica] // set once connected and opened
	fatal  chan error                      // an error no retry mends (another log's store, a bad URL)
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	db      *pglog.DB
	waiting error // why it is not connected yet
}

var _ mutations = (*servedReplica)(nil)

// newServedReplica returns serve's replica of the log d names, in st, not yet connected:
// start connects it.
func newServedReplica(ctx context.Context, e env, d *databaseFlags, st athar.Store, m *metrics.Metrics, logger *slog.Logger) (*servedReplica, error) {
	pos, err := replica.Position(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return &servedReplica{
		e: e, d: d, st: st, local: replica.View(st), gauge: m.Set, logger: logger, opened: pos,
		fatal: make(chan error, 1), waiting: errors.New("connecting"),
	}, nil
}

// Store returns the local graph, for queries.
func (s *servedReplica) Store() athar.Store { return s.local }

// OnChange adds fn to the functions the replica calls with the changes it applies (see
// replica.Replica.OnChange). Call it before start.
func (s *servedReplica) OnChange(fn func(athar.Changeset)) { s.onChange = append(s.onChange, fn) }

// start connects, opens the replica (logging the seeds if the log is empty) and follows
// the log, in the background, until ctx is done or stop is called.
func (s *servedReplica) start(ctx context.Context) {
	ctx, s.cancel = context.WithCancel(ctx)
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		rep, err := s.connect(ctx)
		if err != nil {
			if ctx.Err() == nil {
				s.fatal <- err
			}
			return
		}
		_ = rep.Run(ctx)
	}()
}

// failed returns the channel on which start reports an error it cannot retry (nil, never
// ready, in the embedded mode).
func (s *servedReplica) failed() <-chan error {
	if s == nil {
		return nil
	}
	return s.fatal
}

// connect opens the replica, retrying with backoff while the database is unreachable.
func (s *servedReplica) connect(ctx context.Context) (*replica.Replica, error) {
	wait, warned := 100*time.Millisecond, false
	for {
		err := s.open(ctx)
		switch code := athar.ErrorCode(err); {
		case err == nil:
			return s.rep.Load(), nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case code == athar.Conflict || code == athar.Invalid:
			return nil, err
		}
		s.mu.Lock()
		s.waiting = err
		s.mu.Unlock()
		if !warned {
			s.logger.Warn("the database is unreachable: serving queries from the local store and retrying", "position", s.opened, "err", err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// open connects once (a quick check first, so that a database that is down is reported
// as such at once), opens the replica and logs the seeds if the log is empty.
func (s *servedReplica) open(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := pglog.Ping(pctx, s.d.url)
	cancel()
	if err != nil {
		return err
	}
	rep, db, err := openReplica(ctx, s.d, s.st, s.gauge, s.logger)
	if err != nil {
		return err
	}
	for _, fn := range s.onChange {
		rep.OnChange(fn)
	}
	seeded, err := seedLog(ctx, rep, s.e)
	if err != nil {
		db.Close()
		return err
	}
	if seeded {
		s.logger.Info("empty log: logged the seeds")
	}
	s.mu.Lock()
	s.db, s.waiting = db, nil
	s.mu.Unlock()
	s.rep.Store(rep)
	return nil
}

// writer returns the replica to write through, or why there is none yet.
func (s *servedReplica) writer() (*replica.Replica, error) {
	rep := s.rep.Load()
	if rep == nil {
		return nil, athar.Errorf(athar.Unavailable, "this replica cannot reach the database holding the log, so it takes no writes (it answers queries from its copy of the graph, at log entry %d); nothing was logged: retry later, or on a replica whose /readyz is ready", s.opened)
	}
	if st := rep.Status(); !st.CaughtUp && st.Error == "" {
		return nil, athar.Errorf(athar.Unavailable, "this replica is catching up with the log (at entry %d of %d) and takes writes once it has; nothing was logged: retry later, or on a replica whose /readyz is ready", st.Position, st.Head)
	}
	return rep, nil
}

// Import implements mutations.
func (s *servedReplica) Import(ctx context.Context, d *narration.Document) (narration.Result, error) {
	rep, err := s.writer()
	if err != nil {
		return narration.Result{}, err
	}
	return rep.Import(ctx, d)
}

// Delete implements mutations.
func (s *servedReplica) Delete(ctx context.Context, id athar.ID) error {
	rep, err := s.writer()
	if err != nil {
		return err
	}
	return rep.Delete(ctx, id)
}

// Merge implements mutations.
func (s *servedReplica) Merge(ctx context.Context, keep, remove athar.ID) (narration.MergeResult, error) {
	rep, err := s.writer()
	if err != nil {
		return narration.MergeResult{}, err
	}
	return rep.Merge(ctx, keep, remove)
}

// stop stops connecting or following and closes the database connections.
func (s *servedReplica) stop() {
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		s.db.Close()
	}
}

// ready returns the readiness check for /readyz (nil in the embedded mode): not ready
// while the database has not been reached, then as replica.Replica.Ready says.
func (s *servedReplica) ready() func() error {
	if s == nil {
		return nil
	}
	return func() error {
		if rep := s.rep.Load(); rep != nil {
			return rep.Ready()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return fmt.Errorf("not connected to the database holding the log; queries are answered from the local store (at log entry %d), writes are refused, and it keeps retrying: %v", s.opened, s.waiting)
	}
}

// readyStatus returns the replica's position, head and lag for /readyz (nil in the
// embedded mode).
func (s *servedReplica) readyStatus() func() map[string]any {
	if s == nil {
		return nil
	}
	return func() map[string]any {
		rep := s.rep.Load()
		if rep == nil {
			return map[string]any{"position": s.opened, "caught_up": false, "database": "unreachable"}
		}
		st := rep.Status()
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
