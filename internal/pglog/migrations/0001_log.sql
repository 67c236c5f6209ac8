-- The record of the scale-out mode (docs/scale-out.md). Runs on PostgreSQL and CockroachDB:
-- no PostgreSQL-only types, functions or triggers. Every statement is idempotent, so a
-- migration interrupted half-way on CockroachDB (where DDL is not fully transactional)
-- can simply run again.

-- Facts about this database's log: log_id identifies it, so that a replica's store never
-- follows another database's log.
CREATE TABLE IF NOT EXISTS athar_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The position counter: one row, bumped in the transaction of every append. Appends are
-- serialised on this row, so positions are dense (no gaps) and in commit order: when entry
-- N is visible, every entry before it is too. (CockroachDB's unique_rowid and PostgreSQL's
-- sequences give neither.)
CREATE TABLE IF NOT EXISTS athar_head (
    id       INT PRIMARY KEY CHECK (id = 1),
    position BIGINT NOT NULL
);
INSERT INTO athar_head (id, position) VALUES (1, 0) ON CONFLICT (id) DO NOTHING;

-- The log: append-only, one row per change, applied by every replica in position order.
CREATE TABLE IF NOT EXISTS athar_log (
    position   BIGINT PRIMARY KEY,
    kind       TEXT NOT NULL,              -- import, delete, restore, merge
    narration  TEXT NOT NULL DEFAULT '',   -- the narration changed (import, delete)
    source     TEXT NOT NULL DEFAULT '',   -- the document's name as submitted
    format     TEXT NOT NULL DEFAULT '',   -- text, document+json or nquads
    body       BYTEA,                      -- the document or N-Quads
    args       JSONB,                      -- kind-specific arguments (merge: keep, remove)
    origin     TEXT NOT NULL DEFAULT '',   -- the replica that accepted the change
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- What applying each entry did, recorded by the first replica to apply it; every other
-- replica checks that it got the same.
CREATE TABLE IF NOT EXISTS athar_outcomes (
    position    BIGINT PRIMARY KEY REFERENCES athar_log (position),
    ok          BOOLEAN NOT NULL,
    code        TEXT NOT NULL DEFAULT '',
    message     TEXT NOT NULL DEFAULT '',
    replica     TEXT NOT NULL DEFAULT '',
    recorded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The current document of every narration, as of the entries whose outcomes are recorded:
-- the last one imported, or a tombstone (body NULL) once deleted.
CREATE TABLE IF NOT EXISTS athar_documents (
    narration  TEXT PRIMARY KEY,
    position   BIGINT NOT NULL,            -- the entry that last changed it
    source     TEXT NOT NULL DEFAULT '',
    format     TEXT NOT NULL DEFAULT '',
    body       BYTEA,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
