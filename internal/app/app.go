// Package app opens Athar's parts the way every command needs them: the store and its writer
// in the mode the configuration chooses (Open: embedded, or a replica of the shared log), the
// embedded seeds and the load loop with its progress bar, and the assembled server (Serve).
// cmd/athar parses flags into a Mode, calls this package and prints the result.
package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/pglog"
	"github.com/athar-hadith/athar/internal/replica"
	"github.com/athar-hadith/athar/schema"
)

// Mode says where the graph is and how it is written: without Database, the embedded mode
// (the store in Store, written directly); with it, the scale-out mode (docs/scale-out.md),
// where the record is the log in that database and the store is this process's replica.
type Mode struct {
	Store string // bbolt:DIR or memory:
	// StoreGiven says Store was asked for explicitly. In the scale-out mode a command other
	// than serve replicates into a throwaway memory: store unless it was: the configured
	// store is the serving replica's, which its lock keeps from a second process.
	StoreGiven  bool
	Database    string        // postgres://... of the log; empty: the embedded mode
	Poll        time.Duration // how often to read the log where the database cannot notify
	ReplicaName string        // this replica's name in the log; empty: host name and a suffix
}

// Writer is a command's write path, opened by Open.
type Writer struct {
	ingest.Writer
	Read  athar.Store        // the graph as the writes leave it
	Local *cayleystore.Store // the store opened (its FullScans, for load -v)
	where func() string
	// catchUp waits until Read holds every change made before the call.
	catchUp func(context.Context) error
	close   func()
	// bulk is the embedded store, whose writes Bulk may buffer; nil in the scale-out mode.
	bulk *cayleystore.Store
}

// Where says where the writes went, as the end of a summary line: "" in the embedded mode,
// " (through the log, now at N)" in the scale-out mode.
func (w *Writer) Where() string { return w.where() }

// CatchUp waits until Read holds every change made before the call: at once in the embedded
// mode; in the scale-out mode, until the replica has applied everything the log held.
func (w *Writer) CatchUp(ctx context.Context) error { return w.catchUp(ctx) }

// Close stops following the log, if any, and closes the store.
func (w *Writer) Close() { w.close() }

// Bulk lets the embedded store buffer its manifest and read-model writes (cayleystore's
// BeginBulk), for a command that imports much and exits; the work of Bulk's returned end,
// which writes the buffer out, is part of the import and is timed with it. A no-op in the
// scale-out mode, whose replica serves others meanwhile.
func (w *Writer) Bulk() (end func() error, err error) {
	if w.bulk == nil {
		return func() error { return nil }, nil
	}
	if err := w.bulk.BeginBulk(); err != nil {
		return nil, err
	}
	return w.bulk.EndBulk, nil
}

// Open is the one place the mode is chosen: in the embedded mode it opens the store and
// writes to it (ingest.Local); in the scale-out mode it opens a replica of the log, follows
// the log in the background, and every write goes through the log (replica.Replica), so
// replicas never diverge from it. subs are subscribed to the changes written.
func Open(ctx context.Context, m Mode, logger *slog.Logger, subs ...ingest.Subscriber) (*Writer, error) {
	if m.Database == "" {
		st, err := cayleystore.Open(m.Store, logger)
		if err != nil {
			return nil, err
		}
		return &Writer{
			Writer: ingest.NewLocal(st, schema.Vocabulary(), subs...), Read: st, Local: st,
			where: func() string { return "" }, close: func() { st.Close() },
			catchUp: func(context.Context) error { return nil },
			bulk:    st,
		}, nil
	}
	spec := "memory:"
	if m.StoreGiven {
		spec = m.Store
	}
	st, err := cayleystore.Open(spec, logger)
	if err != nil {
		return nil, err
	}
	rep, db, err := pglog.OpenReplica(ctx, m.Database, m.replicaConfig(st, nil, logger, subs...))
	if err != nil {
		st.Close()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = rep.Run(runCtx) }()
	return &Writer{
		Writer: rep, Read: rep.Store(), Local: st,
		where:   func() string { return fmt.Sprintf(" (through the log, now at %d)", rep.Status().Position) },
		catchUp: rep.Sync,
		close:   func() { cancel(); <-done; db.Close(); st.Close() },
	}, nil
}

// OpenScratch opens the store named by spec with a local writer over it, for what must
// never reach a shared log (validate, and checking the seeds before logging them).
func OpenScratch(spec string, logger *slog.Logger) (*cayleystore.Store, *ingest.Local, error) {
	st, err := cayleystore.Open(spec, logger)
	if err != nil {
		return nil, nil, err
	}
	return st, ingest.NewLocal(st, schema.Vocabulary()), nil
}

// replicaConfig describes this process's replica of the log m names, in st.
func (m Mode) replicaConfig(st athar.Store, gauge func(string, float64), logger *slog.Logger, subs ...ingest.Subscriber) replica.Config {
	name := m.ReplicaName
	if name == "" {
		host, _ := os.Hostname()
		var b [3]byte
		_, _ = rand.Read(b[:])
		name = fmt.Sprintf("%s-%s", host, hex.EncodeToString(b[:]))
	}
	return replica.Config{
		Store: st, Vocab: schema.Vocabulary(), Name: name, Logger: logger,
		PollInterval: m.Poll, Gauge: gauge, Subscribers: subs,
	}
}
