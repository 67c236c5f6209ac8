// Package pglog keeps Athar's record on PostgreSQL or CockroachDB: the ordered log of changes
// every replica applies (replica.Log), the outcome of each entry, and the current document
// of every narration. It is the only package that imports pgx.
//
// The SQL of the write path runs on both databases: positions come from a single-row
// counter bumped in the transaction of each append (dense and commit-ordered; CockroachDB's
// unique_rowid is neither), and transactions that the database aborts as serialisation
// conflicts (SQLSTATE 40001, CockroachDB's usual answer to contention) are retried. Only
// the follow path differs: PostgreSQL notifies listeners of each append (LISTEN/NOTIFY,
// sent in the appending transaction, so delivered on commit); CockroachDB has no
// LISTEN, and replicas poll.
//
// Schema migrations are embedded SQL files (migrations/NNNN_name.sql), applied in order at
// Open and recorded in schema_migrations. Several replicas may start at once: on
// PostgreSQL they queue on an advisory lock; on CockroachDB (no advisory locks) each
// migration runs in a transaction that first inserts its version, so a second replica
// blocks on the first's insert and then finds it applied; and every statement is
// idempotent (IF NOT EXISTS, ON CONFLICT DO NOTHING) in case a migration must run again.
package pglog

import (
	"context"
	crand "crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"net"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/replica"
)

// Flavour is which database is behind the URL.
type Flavour string

// The databases pglog runs on.
const (
	PostgreSQL  Flavour = "postgresql"
	CockroachDB Flavour = "cockroachdb"
)

// channel is the LISTEN/NOTIFY channel appends are announced on (PostgreSQL).
const channel = "athar_log"

// migrationLock is the advisory lock key migrations hold on PostgreSQL ("athar" in ASCII).
const migrationLock = 0x6174686172

//go:embed migrations/*.sql
var migrations embed.FS

// DB is the log on one database. It implements replica.Log.
type DB struct {
	pool    *pgxpool.Pool
	flavour Flavour
	logID   string
	logger  *slog.Logger
}

var _ replica.Log = (*DB)(nil)

// Open connects to the database at url (postgres://user@host:port/db?sslmode=...; the same
// URL form serves CockroachDB), waiting while it is unreachable until ctx is done, applies
// the schema migrations and returns the log.
func Open(ctx context.Context, url string, logger *slog.Logger) (*DB, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, athar.E("database "+redact(url), athar.Invalid, err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", redact(url), err)
	}
	db := &DB{pool: pool, logger: logger}
	if err := db.connect(ctx, redact(url)); err != nil {
		pool.Close()
		return nil, err
	}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := db.loadLogID(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// connect waits for the database and finds out which one it is.
func (db *DB) connect(ctx context.Context, name string) error {
	wait := 100 * time.Millisecond
	for attempt := 0; ; attempt++ {
		var version string
		err := db.pool.QueryRow(ctx, "SELECT version()").Scan(&version)
		if err == nil {
			db.flavour = PostgreSQL
			if strings.Contains(version, "CockroachDB") {
				db.flavour = CockroachDB
			}
			db.logger.Info("connected to the database", "database", name, "flavour", db.flavour)
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("database %s: %w", name, err)
		}
		if attempt == 0 {
			db.logger.Warn("waiting for the database", "database", name, "err", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("database %s: %w", name, err)
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// Close closes the connections.
func (db *DB) Close() { db.pool.Close() }

// Flavour returns which database this is.
func (db *DB) Flavour() Flavour { return db.flavour }

// ID implements replica.Log.
func (db *DB) ID() string { return db.logID }

// Notifies implements replica.Log: PostgreSQL notifies; CockroachDB does not.
func (db *DB) Notifies() bool { return db.flavour == PostgreSQL }

type migration struct {
	version int
	name    string
	sql     string
}

func readMigrations() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, n := range names {
		base := strings.TrimSuffix(strings.TrimPrefix(n, "migrations/"), ".sql")
		num, _, _ := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: the name must start with its version number", n)
		}
		b, err := migrations.ReadFile(n)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{v, base, string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s have the same version", out[i-1].name, out[i].name)
		}
	}
	return out, nil
}

// migrate applies the migrations not yet applied, in order.
func (db *DB) migrate(ctx context.Context) error {
	ms, err := readMigrations()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Release()
	if db.flavour == PostgreSQL {
		// Held on this connection until unlocked (or the connection closes). Taken before
		// the CREATE TABLE below: two concurrent CREATE TABLE IF NOT EXISTS of one table can
		// fail on PostgreSQL.
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(migrationLock)); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
		defer func() {
			_, _ = conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", int64(migrationLock))
		}()
	}
	err = retry(ctx, func() error {
		_, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INT PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`)
		return err
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, m := range ms {
		applied := false
		err := retry(ctx, func() error {
			return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
				tag, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2) ON CONFLICT (version) DO NOTHING", m.version, m.name)
				if err != nil || tag.RowsAffected() == 0 {
					return err // applied already, by us earlier or by another replica
				}
				if _, err := tx.Exec(ctx, m.sql); err != nil {
					return err
				}
				applied = true
				return nil
			})
		})
		if err != nil {
			return fmt.Errorf("migrate: %s: %w", m.name, err)
		}
		if applied {
			db.logger.Info("applied schema migration", "migration", m.name)
		}
	}
	return nil
}

func (db *DB) loadLogID(ctx context.Context) error {
	var b [16]byte
	_, _ = crand.Read(b[:])
	err := retry(ctx, func() error {
		if _, err := db.pool.Exec(ctx, "INSERT INTO athar_meta (key, value) VALUES ('log_id', $1) ON CONFLICT (key) DO NOTHING", hex.EncodeToString(b[:])); err != nil {
			return err
		}
		return db.pool.QueryRow(ctx, "SELECT value FROM athar_meta WHERE key = 'log_id'").Scan(&db.logID)
	})
	if err != nil {
		return fmt.Errorf("read the log's id: %w", err)
	}
	return nil
}

// Head implements replica.Log.
func (db *DB) Head(ctx context.Context) (int64, error) {
	var head int64
	if err := db.pool.QueryRow(ctx, "SELECT position FROM athar_head WHERE id = 1").Scan(&head); err != nil {
		return 0, fail("log head", err)
	}
	return head, nil
}

// Append implements replica.Log. A transaction the database aborts as a serialisation
// conflict is retried (it certainly did not commit); a connection lost during COMMIT is
// not, since the entry may have been logged: the error says so.
func (db *DB) Append(ctx context.Context, e replica.Entry, reserve func(int64)) (int64, error) {
	var pos int64
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, "UPDATE athar_head SET position = position + 1 WHERE id = 1 RETURNING position").Scan(&pos); err != nil {
			return err
		}
		if err := db.insert(ctx, tx, pos, e); err != nil {
			return err
		}
		if err := db.notify(ctx, tx, pos); err != nil {
			return err
		}
		if reserve != nil {
			reserve(pos)
		}
		return nil
	})
	if err != nil {
		return 0, fail("append to the log", err)
	}
	return pos, nil
}

// AppendIfEmpty implements replica.Log.
func (db *DB) AppendIfEmpty(ctx context.Context, es []replica.Entry) (bool, error) {
	done := false
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		done = false
		var head int64
		if err := tx.QueryRow(ctx, "SELECT position FROM athar_head WHERE id = 1 FOR UPDATE").Scan(&head); err != nil {
			return err
		}
		if head != 0 || len(es) == 0 {
			return nil
		}
		for i, e := range es {
			if err := db.insert(ctx, tx, int64(i+1), e); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "UPDATE athar_head SET position = $1 WHERE id = 1", int64(len(es))); err != nil {
			return err
		}
		done = true
		return db.notify(ctx, tx, int64(len(es)))
	})
	if err != nil {
		return false, fail("append to the log", err)
	}
	return done, nil
}

func (db *DB) insert(ctx context.Context, tx pgx.Tx, pos int64, e replica.Entry) error {
	var args any
	if len(e.Args) > 0 {
		args = string(e.Args)
	}
	var body any
	if e.Body != nil {
		body = e.Body
	}
	_, err := tx.Exec(ctx, `INSERT INTO athar_log (position, kind, narration, source, format, body, args, origin)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		pos, string(e.Kind), string(e.Narration), e.Source, e.Format, body, args, e.Origin)
	return err
}

// notify announces head to listeners when the transaction commits (PostgreSQL only).
func (db *DB) notify(ctx context.Context, tx pgx.Tx, head int64) error {
	if db.flavour != PostgreSQL {
		return nil
	}
	_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", channel, strconv.FormatInt(head, 10))
	return err
}

// Entries implements replica.Log.
func (db *DB) Entries(ctx context.Context, after int64, limit int) ([]replica.Entry, error) {
	rows, err := db.pool.Query(ctx, `SELECT l.position, l.kind, l.narration, l.source, l.format, l.body, l.args, l.origin, l.created_at,
			o.ok, o.code, o.message, o.replica
		FROM athar_log l LEFT JOIN athar_outcomes o ON o.position = l.position
		WHERE l.position > $1 ORDER BY l.position LIMIT $2`, after, limit)
	if err != nil {
		return nil, fail("read the log", err)
	}
	defer rows.Close()
	var out []replica.Entry
	for rows.Next() {
		var (
			e                       replica.Entry
			kind, narration         string
			args                    []byte
			ok                      *bool
			code, message, recorder *string
		)
		if err := rows.Scan(&e.Position, &kind, &narration, &e.Source, &e.Format, &e.Body, &args, &e.Origin, &e.Created, &ok, &code, &message, &recorder); err != nil {
			return nil, fail("read the log", err)
		}
		e.Kind, e.Narration = replica.Kind(kind), athar.ID(narration)
		if len(args) > 0 {
			e.Args = args
		}
		if ok != nil {
			e.Outcome = &replica.Outcome{OK: *ok, Code: athar.Code(deref(code)), Message: deref(message), Replica: deref(recorder)}
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fail("read the log", err)
	}
	return out, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Record implements replica.Log.
func (db *DB) Record(ctx context.Context, e replica.Entry, o replica.Outcome, docs []replica.Document) (replica.Outcome, error) {
	var got replica.Outcome
	err := db.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `INSERT INTO athar_outcomes (position, ok, code, message, replica) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (position) DO NOTHING`, e.Position, o.OK, string(o.Code), o.Message, o.Replica)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			var code string
			err := tx.QueryRow(ctx, "SELECT ok, code, message, replica FROM athar_outcomes WHERE position = $1", e.Position).Scan(&got.OK, &code, &got.Message, &got.Replica)
			got.Code = athar.Code(code)
			return err
		}
		got = o
		for _, d := range docs {
			var body any
			if d.Body != nil {
				body = d.Body
			}
			// Guarded by position, so documents never go back in time whatever order
			// outcomes are recorded in.
			if _, err := tx.Exec(ctx, `INSERT INTO athar_documents (narration, position, source, format, body) VALUES ($1, $2, $3, $4, $5)
				ON CONFLICT (narration) DO UPDATE SET position = excluded.position, source = excluded.source,
					format = excluded.format, body = excluded.body, updated_at = now()
				WHERE athar_documents.position < excluded.position`,
				string(d.Narration), e.Position, d.Source, d.Format, body); err != nil {
				return err
			}
		}
		if o.OK && e.ReplacesAll() {
			// A restore --replace removed every narration it does not hold: tombstones,
			// as a deletion leaves, so the record agrees with the graph.
			kept := make([]string, 0, len(docs))
			for _, d := range docs {
				kept = append(kept, string(d.Narration))
			}
			if _, err := tx.Exec(ctx, `UPDATE athar_documents SET position = $1, source = $2, format = '', body = NULL, updated_at = now()
				WHERE position < $1 AND NOT (narration = ANY($3))`, e.Position, e.Source, kept); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return replica.Outcome{}, fail(fmt.Sprintf("record the outcome of log entry %d", e.Position), err)
	}
	return got, nil
}

// Watch implements replica.Log: on PostgreSQL it listens on a connection of its own,
// reconnecting with backoff when the connection is lost, and notifies after each
// (re)connection too, since appends may have been missed meanwhile. On CockroachDB it
// returns at once.
func (db *DB) Watch(ctx context.Context, notify func(head int64)) {
	if db.flavour != PostgreSQL {
		return
	}
	wait := 100 * time.Millisecond
	down := false
	for ctx.Err() == nil {
		listened, err := db.listen(ctx, notify)
		if ctx.Err() != nil {
			return
		}
		if listened {
			wait, down = 100*time.Millisecond, false
		}
		if !down {
			db.logger.Warn("lost the log's notifications; reconnecting", "err", err)
			down = true
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// listen listens until the connection fails or ctx is done. It reports whether it got as
// far as listening.
func (db *DB) listen(ctx context.Context, notify func(int64)) (bool, error) {
	conn, err := pgx.ConnectConfig(ctx, db.pool.Config().ConnConfig)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		return false, err
	}
	db.logger.Info("listening for appends to the log", "channel", channel)
	notify(0)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		head, _ := strconv.ParseInt(n.Payload, 10, 64)
		notify(head)
	}
}

// inTx runs fn in a transaction, retrying it when the database aborts it as a
// serialisation conflict or deadlock (it then certainly did not commit).
func (db *DB) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	return retry(ctx, func() error { return pgx.BeginFunc(ctx, db.pool, fn) })
}

func retry(ctx context.Context, fn func() error) error {
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || !retryable(err) || attempt == 20 {
			return err
		}
		d := time.Duration(attempt) * time.Duration(1+rand.IntN(5)) * time.Millisecond
		select {
		case <-ctx.Done():
			return err
		case <-time.After(d):
		}
	}
}

func retryable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	return false
}

// fail returns err from operation op, as athar.Unavailable when it means that the database
// could not be reached, went away or cannot take more for now (a client may retry), and
// unclassified otherwise.
func fail(op string, err error) error {
	if unreachable(err) {
		return athar.E(op, athar.Unavailable, err, "the database is unreachable")
	}
	return fmt.Errorf("%s: %w", op, err)
}

// unreachable reports whether err means the database was out of reach rather than that it
// refused a statement: a failed connection, a connection lost, or the server's own
// connection-exception, insufficient-resources and shutting-down/starting-up errors.
func unreachable(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "53") ||
			pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var (
		ce *pgconn.ConnectError
		ne net.Error
	)
	switch {
	case errors.As(err, &ce):
		return true // whatever stopped it, including a deadline while dialling
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return false
	}
	return errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || pgconn.SafeToRetry(err)
}

// Ping connects to the database at url once, without retrying, and reports why it could
// not: for a caller that serves meanwhile and wants to say why it is not connected. The
// error names the database without its password.
func Ping(ctx context.Context, url string) error {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return athar.E("database "+redact(url), athar.Invalid, err)
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fail("database "+redact(url), err)
	}
	defer conn.Close(context.Background())
	if err := conn.Ping(ctx); err != nil {
		return fail("database "+redact(url), err)
	}
	return nil
}

// redact returns url without its password, for messages.
func redact(url string) string {
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		return "(unparsable URL)"
	}
	return fmt.Sprintf("%s@%s:%d/%s", cfg.User, cfg.Host, cfg.Port, cfg.Database)
}
