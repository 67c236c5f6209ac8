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
	"github.com/athar-hadith/athar/internal/narration"
)

// Connect reaches the database holding the log and opens the replica of it, returning a
// function that closes what it opened. An error coded athar.Conflict or athar.Invalid (the
// store replicates another log, a bad URL) is final; any other is retried.
type Connect func(ctx context.Context) (*Replica, func(), error)

// Background is a serving process's replica. Queries are answered from the local store at
// once; the replica connects to the database in the background, retrying for as long as
// it is unreachable (Ready says so meanwhile), then catches up and follows the log. Until
// it has caught up, writes get athar.Unavailable, which a client may retry.
type Background struct {
	connect Connect
	local   athar.Store // the local store as queries read it
	logger  *slog.Logger
	opened  int64 // the local store's position when the process started

	rep    atomic.Pointer[Replica] // set once connected and opened
	fatal  chan error              // an error no retry mends
	cancel context.CancelFunc
	done   chan struct{}

	mu      sync.Mutex
	close   func() // closes what connect opened
	waiting error  // why it is not connected yet
}

var _ ingest.Writer = (*Background)(nil)

// NewBackground returns the replica in st of the log connect reaches, not yet connected:
// Start connects it.
func NewBackground(ctx context.Context, st athar.Store, connect Connect, logger *slog.Logger) (*Background, error) {
	pos, err := Position(ctx, st)
	if err != nil {
		return nil, err
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Background{
		connect: connect, local: View(st), logger: logger, opened: pos,
		fatal: make(chan error, 1), waiting: errors.New("connecting"),
	}, nil
}

// Store returns the local graph, for queries.
func (b *Background) Store() athar.Store { return b.local }

// Start connects and follows the log, in the background, until ctx is done or Stop is
// called.
func (b *Background) Start(ctx context.Context) {
	ctx, b.cancel = context.WithCancel(ctx)
	b.done = make(chan struct{})
	go func() {
		defer close(b.done)
		rep, err := b.connectRetrying(ctx)
		if err != nil {
			if ctx.Err() == nil {
				b.fatal <- err
			}
			return
		}
		_ = rep.Run(ctx)
	}()
}

// Failed returns the channel on which Start reports an error it cannot retry.
func (b *Background) Failed() <-chan error { return b.fatal }

// connectRetrying connects, retrying with backoff while the database is unreachable.
func (b *Background) connectRetrying(ctx context.Context) (*Replica, error) {
	wait, warned := 100*time.Millisecond, false
	for {
		rep, closeFn, err := b.connect(ctx)
		switch code := athar.ErrorCode(err); {
		case err == nil:
			b.mu.Lock()
			b.close, b.waiting = closeFn, nil
			b.mu.Unlock()
			b.rep.Store(rep)
			return rep, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case code == athar.Conflict || code == athar.Invalid:
			return nil, err
		}
		b.mu.Lock()
		b.waiting = err
		b.mu.Unlock()
		if !warned {
			b.logger.Warn("the database is unreachable: serving queries from the local store and retrying", "position", b.opened, "err", err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, maxBackoff)
	}
}

// Stop stops connecting or following and closes what connect opened.
func (b *Background) Stop() {
	if b.cancel != nil {
		b.cancel()
		<-b.done
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.close != nil {
		b.close()
		b.close = nil
	}
}

// Ready is the readiness check (/readyz): not ready while the database has not been
// reached, then as Replica.Ready says.
func (b *Background) Ready() error {
	if rep := b.rep.Load(); rep != nil {
		return rep.Ready()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return fmt.Errorf("not connected to the database holding the log; queries are answered from the local store (at log entry %d), writes are refused, and it keeps retrying: %v", b.opened, b.waiting)
}

// ReadyStatus returns the replica's position, head and lag, for /readyz.
func (b *Background) ReadyStatus() map[string]any {
	rep := b.rep.Load()
	if rep == nil {
		return map[string]any{"position": b.opened, "caught_up": false, "database": "unreachable"}
	}
	st := rep.Status()
	out := map[string]any{"position": st.Position, "head": st.Head, "lag": st.Lag, "caught_up": st.CaughtUp}
	if st.Error != "" {
		out["replica_error"] = st.Error
	}
	return out
}

// writer returns the replica to write through, or why there is none yet.
func (b *Background) writer() (*Replica, error) {
	rep := b.rep.Load()
	if rep == nil {
		return nil, athar.E("", athar.Unavailable, "this replica cannot reach the database holding the log, so it takes no writes (it answers queries from its copy of the graph, at log entry %d); nothing was logged: retry later, or on a replica whose /readyz is ready", b.opened)
	}
	if st := rep.Status(); !st.CaughtUp && st.Error == "" {
		return nil, athar.E("", athar.Unavailable, "this replica is catching up with the log (at entry %d of %d) and takes writes once it has; nothing was logged: retry later, or on a replica whose /readyz is ready", st.Position, st.Head)
	}
	return rep, nil
}

// Import implements ingest.Writer.
func (b *Background) Import(ctx context.Context, d *narration.Document) (ingest.Result, error) {
	rep, err := b.writer()
	if err != nil {
		return ingest.Result{}, err
	}
	return rep.Import(ctx, d)
}

// ImportMany implements ingest.Writer.
func (b *Background) ImportMany(ctx context.Context, docs []ingest.Doc) []ingest.BatchResult {
	rep, err := b.writer()
	if err != nil {
		out := make([]ingest.BatchResult, len(docs))
		for i := range out {
			out[i].Err = err
		}
		return out
	}
	return rep.ImportMany(ctx, docs)
}

// Delete implements ingest.Writer.
func (b *Background) Delete(ctx context.Context, id athar.ID) error {
	rep, err := b.writer()
	if err != nil {
		return err
	}
	return rep.Delete(ctx, id)
}

// Merge implements ingest.Writer.
func (b *Background) Merge(ctx context.Context, keep, remove athar.ID) (ingest.MergeResult, error) {
	rep, err := b.writer()
	if err != nil {
		return ingest.MergeResult{}, err
	}
	return rep.Merge(ctx, keep, remove)
}

// Restore implements ingest.Writer.
func (b *Background) Restore(ctx context.Context, quads []athar.Quad, replace bool) ([]athar.ID, error) {
	rep, err := b.writer()
	if err != nil {
		return nil, err
	}
	return rep.Restore(ctx, quads, replace)
}

// ImportVerseTexts implements ingest.Writer.
func (b *Background) ImportVerseTexts(ctx context.Context, texts []athar.VerseText, src athar.TextSource) (ingest.VerseResult, error) {
	rep, err := b.writer()
	if err != nil {
		return ingest.VerseResult{}, err
	}
	return rep.ImportVerseTexts(ctx, texts, src)
}
