package main

// The scale-out mode (docs/scale-out.md): with ATHAR_DATABASE (--database) set, the record is
// a log of changes in PostgreSQL or CockroachDB, and the store is this process's replica of
// the graph, kept in step with the log (internal/app opens it).

import (
	"flag"
	"fmt"
	"time"

	"github.com/athar-hadith/athar/internal/app"
	"github.com/athar-hadith/athar/internal/replica"
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

func (d *databaseFlags) mode(store string, storeGiven bool) app.Mode {
	return app.Mode{Store: store, StoreGiven: storeGiven, Database: d.url, Poll: d.poll, ReplicaName: d.name}
}
