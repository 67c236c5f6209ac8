package pglog

import (
	"context"
	"time"

	"github.com/athar-hadith/athar/internal/replica"
)

// OpenTimeout is how long OpenReplica waits for an unreachable database.
const OpenTimeout = 2 * time.Minute

// OpenReplica connects to the log at url, waiting up to OpenTimeout for the database, and
// opens over it the replica cfg describes (cfg.Log is set to the log). Close the returned
// DB when done with the replica.
func OpenReplica(ctx context.Context, url string, cfg replica.Config) (*replica.Replica, *DB, error) {
	ctx, cancel := context.WithTimeout(ctx, OpenTimeout)
	defer cancel()
	db, err := Open(ctx, url, cfg.Logger)
	if err != nil {
		return nil, nil, err
	}
	cfg.Log = db
	rep, err := replica.Open(ctx, cfg)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return rep, db, nil
}

// Connect is how a serving replica (replica.Background) reaches the log at url: a quick
// Ping first, so that a database that is down is reported as such at once, then
// OpenReplica, then opened (e.g. logging the seeds into an empty log), whose error closes
// the connection again.
func Connect(url string, cfg replica.Config, opened func(context.Context, *replica.Replica) error) replica.Connect {
	return func(ctx context.Context) (*replica.Replica, func(), error) {
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := Ping(pctx, url)
		cancel()
		if err != nil {
			return nil, nil, err
		}
		rep, db, err := OpenReplica(ctx, url, cfg)
		if err != nil {
			return nil, nil, err
		}
		if err := opened(ctx, rep); err != nil {
			db.Close()
			return nil, nil, err
		}
		return rep, db.Close, nil
	}
}
