package main

// The scale-out mode (docs/scale-out.md): with ATHAR_DATABASE (--database) set, the record is
// a log of changes in PostgreSQL or CockroachDB, and the store is this process's replica of
// the graph, kept in step with the log. serve follows the log and sends mutations to it;
// every other writing command writes through it (openWriter); export exports the graph as
// of the head of the log.

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
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/metrics"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/pglog"
	"github.com/athar-hadith/athar/internal/replica"
	"github.com/athar-hadith/athar/schema"
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
func openReplica(ctx context.Context, d *databaseFlags, st athar.Store, gauge func(string, float64), logger *slog.Logger, subs ...ingest.Subscriber) (*replica.Replica, *pglog.DB, error) {
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
		PollInterval: d.poll,
		Gauge:        gauge,
		Subscribers:  subs,
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
	e      env
	d      *databaseFlags
	st     athar.Store // the local store, the replica's state included
	local  athar.Store // st as queries read it
	gauge  func(string, float64)
	logger *slog.Logger
	subs   []ingest.Subscriber
	opened int64 // the local store's position when serve started

	rep    atomic.Pointer[replica.Replica] // set once connected and opened
	fatal  chan error                      // an error no retry mends (another log's store, a bad URL)
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	db      *pglog.DB
	waiting error // why it is not connected yet
}

var _ ingest.Writer = (*servedReplica)(nil)

// newServedReplica returns serve's replica of the log d names, in st, not yet connected:
// start connects it. subs are subscribed to the changes it applies.
func newServedReplica(ctx context.Context, e env, d *databaseFlags, st athar.Store, m *metrics.Metrics, logger *slog.Logger, subs ...ingest.Subscriber) (*servedReplica, error) {
	pos, err := replica.Position(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	return &servedReplica{
		e: e, d: d, st: st, local: replica.View(st), gauge: m.Set, logger: logger, subs: subs, opened: pos,
		fatal: make(chan error, 1), waiting: errors.New("connecting"),
	}, nil
}

// Store returns the local graph, for queries.
func (s *servedReplica) Store() athar.Store { return s.local }

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
	rep, db, err := openReplica(ctx, s.d, s.st, s.gauge, s.logger, s.subs...)
	if err != nil {
		return err
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
		return nil, athar.E("", athar.Unavailable, "this replica cannot reach the database holding the log, so it takes no writes (it answers queries from its copy of the graph, at log entry %d); nothing was logged: retry later, or on a replica whose /readyz is ready", s.opened)
	}
	if st := rep.Status(); !st.CaughtUp && st.Error == "" {
		return nil, athar.E("", athar.Unavailable, "this replica is catching up with the log (at entry %d of %d) and takes writes once it has; nothing was logged: retry later, or on a replica whose /readyz is ready", st.Position, st.Head)
	}
	return rep, nil
}

// Import implements ingest.Writer.
func (s *servedReplica) Import(ctx context.Context, d *narration.Document) (ingest.Result, error) {
	rep, err := s.writer()
	if err != nil {
		return ingest.Result{}, err
	}
	return rep.Import(ctx, d)
}

// Delete implements ingest.Writer.
func (s *servedReplica) Delete(ctx context.Context, id athar.ID) error {
	rep, err := s.writer()
	if err != nil {
		return err
	}
	return rep.Delete(ctx, id)
}

// Merge implements ingest.Writer.
func (s *servedReplica) Merge(ctx context.Context, keep, remove athar.ID) (ingest.MergeResult, error) {
	rep, err := s.writer()
	if err != nil {
		return ingest.MergeResult{}, err
	}
	return rep.Merge(ctx, keep, remove)
}

// ImportMany implements ingest.Writer.
func (s *servedReplica) ImportMany(ctx context.Context, docs []ingest.Doc) []ingest.BatchResult {
	rep, err := s.writer()
	if err != nil {
		out := make([]ingest.BatchResult, len(docs))
		for i := range out {
			out[i].Err = err
		}
		return out
	}
	return rep.ImportMany(ctx, docs)
}

// Restore implements ingest.Writer.
func (s *servedReplica) Restore(ctx context.Context, quads []athar.Quad, replace bool) ([]athar.ID, error) {
	rep, err := s.writer()
	if err != nil {
		return nil, err
	}
	return rep.Restore(ctx, quads, replace)
}

// ImportVerseTexts implements ingest.Writer.
func (s *servedReplica) ImportVerseTexts(ctx context.Context, texts []athar.VerseText, src athar.TextSource) (ingest.VerseResult, error) {
	rep, err := s.writer()
	if err != nil {
		return ingest.VerseResult{}, err
	}
	return rep.ImportVerseTexts(ctx, texts, src)
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
	var docs []*narration.Document
	text := map[*narration.Document][]byte{}
	for _, s := range seedSources() {
		d, err := narration.Parse(s.name, s.data)
		if err != nil {
			return false, fmt.Errorf("the embedded seeds were refused: %w", err)
		}
		docs = append(docs, d)
		text[d] = s.data
	}
	mem, im, err := openGraph("memory:", cliLogger(e))
	if err != nil {
		return false, err
	}
	defer mem.Close()
	var batch []ingest.Doc
	var ids []athar.ID
	for _, d := range narration.Order(docs) {
		res, err := im.Import(ctx, d)
		if err != nil {
			return false, fmt.Errorf("the embedded seeds were refused: %w", err)
		}
		batch = append(batch, ingest.Doc{Document: d, Text: text[d]})
		ids = append(ids, res.Narration)
	}
	return rep.SeedIfEmpty(ctx, batch, ids)
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
