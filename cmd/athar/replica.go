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
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/ingest/load"
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

// replicaConfig describes this process's replica of the log d names, in st.
func replicaConfig(d *databaseFlags, st athar.Store, gauge func(string, float64), logger *slog.Logger, subs ...ingest.Subscriber) replica.Config {
	return replica.Config{
		Store: st, Vocab: schema.Vocabulary(), Name: replicaName(d), Logger: logger,
		PollInterval: d.poll, Gauge: gauge, Subscribers: subs,
	}
}

// connectReplica is how serve's replica reaches the log: once open, it logs the seeds if
// the log is empty.
func connectReplica(e env, d *databaseFlags, st athar.Store, gauge func(string, float64), logger *slog.Logger, subs ...ingest.Subscriber) replica.Connect {
	return pglog.Connect(d.url, replicaConfig(d, st, gauge, logger, subs...), func(ctx context.Context, rep *replica.Replica) error {
		seeded, err := seedLog(ctx, rep, e)
		if seeded {
			logger.Info("empty log: logged the seeds")
		}
		return err
	})
}

// seedLog logs the embedded seeds if the log is empty, after checking them in a store of
// their own. Replicas starting together on a new database seed it once.
func seedLog(ctx context.Context, rep *replica.Replica, e env) (bool, error) {
	if rep.Status().Head > 0 {
		return false, nil
	}
	mem, im, err := openGraph("memory:", cliLogger(e))
	if err != nil {
		return false, err
	}
	defer mem.Close()
	docs, ids, err := load.CheckAll(ctx, im, seedSources())
	if err != nil {
		return false, fmt.Errorf("the embedded seeds were refused: %w", err)
	}
	return rep.SeedIfEmpty(ctx, docs, ids)
}
