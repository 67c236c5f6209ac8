package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/pglog"
	"github.com/athar-hadith/athar/schema"
)

// writeFlags are the flags of every command that writes: where the graph is, and, in the
// scale-out mode, the database holding the log.
type writeFlags struct {
	fs    *flag.FlagSet
	store *string
	db    *databaseFlags
}

func addWriteFlags(fs *flag.FlagSet, e env) *writeFlags {
	return &writeFlags{fs: fs, store: storeFlag(fs, e), db: addDatabaseFlags(fs, e)}
}

// writer is a command's write path, opened by openWriter.
type writer struct {
	ingest.Writer
	read  athar.Store        // the graph as the writes leave it
	local *cayleystore.Store // the store opened (its FullScans, for load -v)
	where func() string      // says where the writes went, for the summary line
	// catchUp waits until read holds every change made before the call (in the scale-out
	// mode, everything the log held).
	catchUp func(context.Context) error
	close   func()
}

// openWriter is the one place the mode is chosen: without --database (ATHAR_DATABASE) it
// opens the store and writes to it (ingest.Local); with it, it opens a replica of the log
// (in --store when given, else a throwaway memory: store), follows the log in the
// background, and every write goes through the log (replica.Replica), so replicas never
// diverge from it. subs are subscribed to the changes written.
func openWriter(ctx context.Context, e env, f *writeFlags, logger *slog.Logger, subs ...ingest.Subscriber) (*writer, error) {
	if f.db.url == "" {
		st, err := cayleystore.Open(*f.store, logger)
		if err != nil {
			return nil, err
		}
		return &writer{
			Writer: ingest.NewLocal(st, schema.Vocabulary(), subs...), read: st, local: st,
			where: func() string { return "" }, close: func() { st.Close() },
			catchUp: func(context.Context) error { return nil },
		}, nil
	}
	st, err := cayleystore.Open(replicaStore(f.fs, *f.store), logger)
	if err != nil {
		return nil, err
	}
	rep, db, err := pglog.OpenReplica(ctx, f.db.url, replicaConfig(f.db, st, nil, logger, subs...))
	if err != nil {
		st.Close()
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = rep.Run(runCtx) }()
	return &writer{
		Writer: rep, read: rep.Store(), local: st,
		where:   func() string { return fmt.Sprintf(" (through the log, now at %d)", rep.Status().Position) },
		catchUp: rep.Sync,
		close:   func() { cancel(); <-done; db.Close(); st.Close() },
	}, nil
}
