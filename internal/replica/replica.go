package replica

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/ingest"
)

// Config is what a Replica needs.
type Config struct {
	Log   Log
	Store athar.Store // the local store the graph is materialised into
	Vocab *athar.Vocabulary
	// Name identifies this replica in the log: the origin of the changes it accepts and the
	// recorder of the outcomes it records first.
	Name   string
	Logger *slog.Logger
	// PollInterval is how often the log is read when the database cannot notify
	// (CockroachDB); 0 means DefaultPollInterval. Where it can (PostgreSQL), the log is
	// still read every SafetyPolls x PollInterval, in case a notification is lost.
	PollInterval time.Duration
	// Subscribers are called with the changes applied to the local graph (e.g. to keep a
	// search index current), under the apply loop's context. While the replica applies a
	// run of entries (catching up, or behind a bulk load), the changes of up to a page of
	// entries are passed together, as one changeset holding all their removals and
	// additions (Narration is the last one's): refreshing what they touched once costs far
	// less than once per entry. A change made through this replica is passed on before its
	// caller gets the result, so the caller reads its own write.
	Subscribers []ingest.Subscriber
	// Gauge, when set, is given the replica's position, head and lag as they change (e.g.
	// metrics.Metrics.Set).
	Gauge func(name string, v float64)
}

// Defaults of Config.
const (
	DefaultPollInterval = 250 * time.Millisecond
	SafetyPolls         = 20
	// pageSize is how many entries one read of the log returns.
	pageSize = 128
	// maxBackoff bounds the wait between retries after an error (the database unreachable,
	// a local write failing).
	maxBackoff = 5 * time.Second
)

// Replica is one athar process's copy of the graph, kept in step with the log.
type Replica struct {
	cfg   Config
	log   Log
	state *stateStore
	view  view
	im    *ingest.Local

	applyMu sync.Mutex // one apply loop at a time (Run, CatchUp)

	position atomic.Int64 // the last entry applied
	head     atomic.Int64 // the last head seen
	caughtUp atomic.Bool  // position reached head at least once
	kick     chan struct{}

	mu         sync.Mutex
	changed    chan struct{} // closed and replaced whenever position moves or the replica halts
	halted     error         // why following stopped for good (divergence, an unknown kind, a gap)
	lastErr    error         // the last error following met, cleared by the next success
	waiters    map[int64]chan applied
	changes    []athar.Changeset // applied but not yet passed to the subscribers (apply loop only)
	unrecorded *pending          // the last entry applied, while its outcome is not yet in the log
}

// applied is the result of applying one entry, for the caller waiting on it.
type applied struct {
	result ingest.Result
	ids    []athar.ID
	merge  ingest.MergeResult
	verses ingest.VerseResult
	// hadiths: a corpus entry's results, one per record, in order
	hadiths []ingest.HadithResult
	err     error
}

// pending is an applied entry whose outcome is to be recorded in the log.
type pending struct {
	entry   Entry
	outcome Outcome
}

// Open returns the replica of cfg.Log in cfg.Store, resuming where the store left off. It
// refuses a store that followed another log, or that applied more entries than the log has
// (the database was replaced or restored from an older backup): wipe the store to rebuild
// it from the log.
func Open(ctx context.Context, cfg Config) (*Replica, error) {
	switch {
	case cfg.Log == nil || cfg.Store == nil || cfg.Vocab == nil:
		return nil, errors.New("replica: Config needs Log, Store and Vocab")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Name == "" {
		cfg.Name = "athar"
	}
	st, err := readState(ctx, cfg.Store)
	if err != nil {
		return nil, err
	}
	id := cfg.Log.ID()
	if st.log != "" && st.log != id {
		return nil, athar.E("replica", athar.Conflict, "the store follows log %s, but the database holds log %s: point it at its own database, or wipe the store to rebuild it from this one", st.log, id)
	}
	head, err := cfg.Log.Head(ctx)
	if err != nil {
		return nil, fmt.Errorf("replica: %w", err)
	}
	if st.position > head {
		return nil, athar.E("replica", athar.Conflict, "the store has applied %d log entries but the log holds %d: was the database restored from an older backup? Wipe the store to rebuild it from the log", st.position, head)
	}
	r := &Replica{
		cfg:     cfg,
		log:     cfg.Log,
		state:   &stateStore{Store: cfg.Store, log: id, cur: st},
		view:    view{cfg.Store},
		kick:    make(chan struct{}, 1),
		changed: make(chan struct{}),
		waiters: map[int64]chan applied{},
	}
	r.im = ingest.NewLocal(r.state, cfg.Vocab, func(_ context.Context, cs athar.Changeset) { r.changes = append(r.changes, cs) })
	r.position.Store(st.position)
	r.setHead(head)
	if st.position > 0 {
		// The outcome of the last entry applied may not have reached the log before the
		// process stopped: record it again (a no-op when it did).
		r.unrecorded = &pending{entry: Entry{Position: st.position}, outcome: st.outcome}
	}
	cfg.Logger.Info("replica opened", "log", id, "position", st.position, "head", head)
	return r, nil
}

// flushChanges passes the changes applied since the last call to the subscribers.
func (r *Replica) flushChanges(ctx context.Context) {
	if len(r.changes) == 0 {
		return
	}
	merged := athar.Changeset{Narration: r.changes[len(r.changes)-1].Narration}
	for _, cs := range r.changes {
		merged.Remove = append(merged.Remove, cs.Remove...)
		merged.Add = append(merged.Add, cs.Add...)
	}
	r.changes = nil
	for _, fn := range r.cfg.Subscribers {
		fn(ctx, merged)
	}
}

// Store returns the local graph for reading: the store, without the replica's own state.
// Writing to it directly would make this replica diverge from the others: write through
// the Replica.
func (r *Replica) Store() athar.Store { return r.view }

// Status is where a replica stands.
type Status struct {
	Position int64  `json:"position"` // the last entry applied
	Head     int64  `json:"head"`     // the last entry in the log, as last seen
	Lag      int64  `json:"lag"`      // entries behind
	CaughtUp bool   `json:"caught_up"`
	Error    string `json:"error,omitempty"` // why it is not following, if it is not
}

// Status returns where the replica stands.
func (r *Replica) Status() Status {
	s := Status{Position: r.position.Load(), Head: r.head.Load(), CaughtUp: r.caughtUp.Load()}
	s.Lag = max(0, s.Head-s.Position)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.halted != nil:
		s.Error = r.halted.Error()
	case r.lastErr != nil:
		s.Error = r.lastErr.Error()
	}
	return s
}

// Ready reports whether the replica can serve: it has caught up with the log once and has
// not stopped following. (Losing the database does not make it unready: it serves what it
// has, and Status says how far behind it may be.)
func (r *Replica) Ready() error {
	r.mu.Lock()
	halted := r.halted
	r.mu.Unlock()
	switch {
	case halted != nil:
		return halted
	case !r.caughtUp.Load():
		return fmt.Errorf("catching up with the log: at %d of %d", r.position.Load(), r.head.Load())
	}
	return nil
}

// Run follows the log until ctx is done: it applies every entry in order, then waits for
// a notification (or polls), and applies the new ones. Errors reaching the database or the
// local store are retried with backoff; Run returns only when ctx is done.
func (r *Replica) Run(ctx context.Context) error {
	poll := r.cfg.PollInterval
	if r.log.Notifies() {
		poll *= SafetyPolls
		go r.log.Watch(ctx, func(head int64) {
			r.setHead(head)
			r.poke()
		})
	}
	r.cfg.Logger.Info("following the log", "notifications", r.log.Notifies(), "poll_interval", poll.String())
	backoff := time.Duration(0)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.kick:
		case <-timer.C:
		}
		err := r.follow(ctx)
		wait := poll
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil && r.isHalted():
			<-ctx.Done() // stopped for good: keep serving what we have, and saying why
			return nil
		case err != nil:
			backoff = min(max(2*backoff, 100*time.Millisecond), maxBackoff)
			wait = backoff
			r.setErr(err)
		default:
			backoff = 0
			r.setErr(nil)
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(wait)
	}
}

// CatchUp applies every entry up to the head of the log and returns (for load and export,
// which need the graph as of now, not a server).
func (r *Replica) CatchUp(ctx context.Context) error {
	return r.follow(ctx)
}

func (r *Replica) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// follow applies entries until it reaches the head of the log.
func (r *Replica) follow(ctx context.Context) error {
	r.applyMu.Lock()
	defer r.applyMu.Unlock()
	defer r.flushChanges(ctx)
	if err := r.haltedErr(); err != nil {
		return err
	}
	if err := r.record(ctx); err != nil {
		return err
	}
	for {
		pos := r.position.Load()
		es, err := r.log.Entries(ctx, pos, pageSize)
		if err != nil {
			return fmt.Errorf("read the log after %d: %w", pos, err)
		}
		if len(es) == 0 {
			head, err := r.log.Head(ctx)
			if err != nil {
				return fmt.Errorf("read the log's head: %w", err)
			}
			r.setHead(head)
			switch {
			case head < pos:
				return r.halt(fmt.Errorf("the log's head is %d, behind this replica's position %d: was the database restored from an older backup? Wipe the store to rebuild it", head, pos))
			case head > pos:
				continue // appended meanwhile
			}
			if !r.caughtUp.Swap(true) {
				r.cfg.Logger.Info("caught up with the log", "position", pos)
			}
			return nil
		}
		for _, e := range es {
			if e.Position != r.position.Load()+1 {
				return r.halt(fmt.Errorf("the log skips from %d to %d", r.position.Load(), e.Position))
			}
			if err := r.apply(ctx, e); err != nil {
				return err
			}
		}
		r.flushChanges(ctx)
	}
}

// apply applies one entry to the local graph, moves the position to it in the same
// transaction, hands the result to whoever waits for it, and records its outcome in the
// log. An error is either a halt or something to retry (the entry is then not applied).
func (r *Replica) apply(ctx context.Context, e Entry) error {
	r.state.begin(e.Position)
	defer r.state.end()
	a, err := r.run(ctx, e)
	if err != nil {
		if errors.Is(err, errUnknownKind) {
			return r.halt(fmt.Errorf("log entry %d: %w", e.Position, err))
		}
		if r.state.committed {
			return r.halt(fmt.Errorf("log entry %d was applied but failed afterwards: %w", e.Position, err))
		}
		return fmt.Errorf("apply log entry %d: %w", e.Position, err)
	}
	o := Outcome{OK: a.err == nil}
	if a.err != nil {
		o.Code, o.Message = athar.ErrorCode(a.err), athar.ErrorMessage(a.err)
	}
	if !r.state.committed {
		if err := r.state.set(ctx, e.Position, o); err != nil {
			return err
		}
	}
	r.advance(ctx, e.Position, a)
	if !o.OK {
		r.cfg.Logger.Info("log entry refused, as on every replica", "position", e.Position, "kind", e.Kind, "narration", e.Narration, "code", o.Code, "message", o.Message)
	}
	r.mu.Lock()
	r.unrecorded = &pending{entry: e, outcome: o}
	r.mu.Unlock()
	return r.record(ctx)
}

// record records the outcome of the last entry applied in the log, unless it is there
// already, and checks that it agrees with what the log holds.
func (r *Replica) record(ctx context.Context) error {
	r.mu.Lock()
	p := r.unrecorded
	r.mu.Unlock()
	if p == nil {
		return nil
	}
	recorded := p.entry.Outcome
	if recorded == nil {
		e := p.entry
		if e.Kind == "" {
			// After a restart only the position is known: read the entry for its documents.
			es, err := r.log.Entries(ctx, e.Position-1, 1)
			if err != nil {
				return fmt.Errorf("read log entry %d: %w", e.Position, err)
			}
			if len(es) != 1 || es[0].Position != e.Position {
				return r.halt(fmt.Errorf("log entry %d, applied here, is not in the log", e.Position))
			}
			e = es[0]
		}
		if e.Outcome == nil {
			o := p.outcome
			o.Replica = r.cfg.Name
			got, err := r.log.Record(ctx, e, o, r.documents(e, o))
			if err != nil {
				return fmt.Errorf("record the outcome of log entry %d: %w", e.Position, err)
			}
			recorded = &got
		} else {
			recorded = e.Outcome
		}
	}
	if !p.outcome.same(*recorded) {
		return r.halt(fmt.Errorf("diverged at log entry %d: here it was %s, but replica %s recorded it %s; this replica stops following (do all replicas run the same version of athar?)", p.entry.Position, p.outcome, recorded.Replica, *recorded))
	}
	r.mu.Lock()
	if r.unrecorded == p {
		r.unrecorded = nil
	}
	r.mu.Unlock()
	return nil
}

// advance notes that entry position was applied and wakes whoever waits for it, after
// passing the changes on (so that the caller reads its own write, search included).
func (r *Replica) advance(ctx context.Context, position int64, a applied) {
	r.mu.Lock()
	_, waited := r.waiters[position]
	r.mu.Unlock()
	if waited {
		r.flushChanges(ctx)
	}
	r.position.Store(position)
	r.gauges()
	r.mu.Lock()
	ch := r.waiters[position]
	delete(r.waiters, position)
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	if ch != nil {
		ch <- a
	}
}

func (r *Replica) setHead(head int64) {
	for {
		old := r.head.Load()
		if head <= old || r.head.CompareAndSwap(old, head) {
			break
		}
	}
	r.gauges()
}

func (r *Replica) gauges() {
	if r.cfg.Gauge == nil {
		return
	}
	pos, head := r.position.Load(), r.head.Load()
	r.cfg.Gauge("replica_position", float64(pos))
	r.cfg.Gauge("replica_head", float64(head))
	r.cfg.Gauge("replica_lag", float64(max(0, head-pos)))
}

// halt stops following for good and fails every waiter with err.
func (r *Replica) halt(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.halted == nil {
		r.halted = err
		r.cfg.Logger.Error("replica stopped following the log", "position", r.position.Load(), "err", err)
		for p, ch := range r.waiters {
			ch <- applied{err: athar.E("", athar.Unavailable, "the change is log entry %d, which the other replicas apply, but this replica stopped following the log before applying it (its /readyz says why)", p)}
			delete(r.waiters, p)
		}
		close(r.changed)
		r.changed = make(chan struct{})
	}
	if r.cfg.Gauge != nil {
		r.cfg.Gauge("replica_halted", 1)
	}
	return r.halted
}

func (r *Replica) isHalted() bool { return r.haltedErr() != nil }

func (r *Replica) haltedErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.halted
}

func (r *Replica) setErr(err error) {
	r.mu.Lock()
	changed := (err == nil) != (r.lastErr == nil)
	r.lastErr = err
	r.mu.Unlock()
	switch {
	case err != nil && changed:
		r.cfg.Logger.Warn("following the log failed; retrying", "err", err)
	case err == nil && changed:
		r.cfg.Logger.Info("following the log again", "position", r.position.Load())
	}
}

// waitFor waits until the replica has applied position.
func (r *Replica) waitFor(ctx context.Context, position int64) error {
	for {
		r.mu.Lock()
		ch, halted := r.changed, r.halted
		r.mu.Unlock()
		if r.position.Load() >= position {
			return nil
		}
		if halted != nil {
			return stopped()
		}
		r.poke()
		select {
		case <-ctx.Done():
			return r.unavailable(ctx.Err(), "this replica is catching up with the log (at entry %d of %d) and had not caught up in time; nothing was logged: retry later, or on a replica whose /readyz is ready", r.position.Load(), position)
		case <-ch:
		}
	}
}
