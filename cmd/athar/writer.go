package main

import (
	"context"
	"flag"
	"log/slog"

	"github.com/athar-hadith/athar/internal/app"
	"github.com/athar-hadith/athar/internal/ingest"
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

// openWriter opens the command's write path in the mode its flags choose (app.Open). In the
// scale-out mode the replica lives in a throwaway memory: store unless --store is given on
// the command line: ATHAR_STORE names the serving replica's store, which its lock keeps
// from a second process.
func openWriter(ctx context.Context, f *writeFlags, logger *slog.Logger, subs ...ingest.Subscriber) (*app.Writer, error) {
	given := false
	f.fs.Visit(func(fl *flag.Flag) { given = given || fl.Name == "store" })
	return app.Open(ctx, f.db.mode(*f.store, given), logger, subs...)
}
