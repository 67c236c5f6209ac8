// Package replica keeps a local graph in step with a shared, ordered log of changes: the
// scale-out mode, where PostgreSQL or CockroachDB holds the record (internal/pglog) and every
// athar process materialises the graph into its own store by applying the log in order.
//
// Applying an entry is the one write path (ingest.Local), so a change fails or succeeds
// identically on every replica: every replica applies the same entries, in the same order,
// to the same graph. Mutations made through a Replica go to the log first; the call returns
// once this replica has applied the entry, with the result of that apply, so a conflicting
// concurrent change made elsewhere is reported as the conflict it is.
//
// See docs/scale-out.md.
package replica

import (
	"context"
	"encoding/json"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
)

// Kind is the kind of a change in the log.
type Kind string

// The kinds of change. A replica that meets a kind it does not know stops following (it
// never skips an entry) and reports why: upgrade it.
const (
	KindImport  Kind = "import"  // a narration document: a new narration or a replacement
	KindDelete  Kind = "delete"  // remove a narration and everything it asserted
	KindRestore Kind = "restore" // N-Quads (an export): replace the narrations they hold (Args: RestoreArgs)
	KindMerge   Kind = "merge"   // make two entities one (Args: MergeArgs)
	KindVerses  Kind = "verses"  // replace the verse texts (Args: VersesArgs)
)

// Formats of an entry's Body.
const (
	// FormatText is a narration document as written (YAML or JSON), read with
	// narration.Parse(Source, Body). Documents loaded from files are logged this way.
	FormatText = "text"
	// FormatDocument is a parsed narration.Document encoded as JSON: the GraphQL mutation
	// hands the write path a parsed document, not its text.
	FormatDocument = "document+json"
	// FormatNQuads is N-Quads, for restore entries.
	FormatNQuads = "nquads"
)

// MergeArgs are the arguments of a merge entry.
type MergeArgs struct {
	Keep   athar.ID `json:"keep"`
	Remove athar.ID `json:"remove"`
}

// RestoreArgs are the arguments of a restore entry (none: only the narrations it holds
// are replaced).
type RestoreArgs struct {
	Replace bool `json:"replace,omitempty"` // the graph becomes exactly the entry's quads
}

// ReplacesAll reports whether e is a restore that makes the graph exactly its quads (a
// restore --replace): every narration it does not hold is then gone, and the record keeps
// a tombstone for each.
func (e Entry) ReplacesAll() bool {
	if e.Kind != KindRestore || len(e.Args) == 0 {
		return false
	}
	var args RestoreArgs
	return json.Unmarshal(e.Args, &args) == nil && args.Replace
}

// VersesArgs are the arguments of a verses entry.
type VersesArgs struct {
	Texts  []athar.VerseText `json:"texts"`
	Source athar.TextSource  `json:"source"`
}

// Entry is one change in the log.
type Entry struct {
	Position  int64 // 1, 2, 3, ...: dense and in commit order
	Kind      Kind
	Narration athar.ID // the narration changed (import, delete); empty for restore and merge
	Source    string   // the document's name as submitted, for messages
	Format    string   // how Body is encoded (FormatText, ...)
	Body      []byte
	Args      json.RawMessage // kind-specific arguments; nil for import, delete and restore
	Origin    string          // the replica that accepted the change
	Created   time.Time
	// Outcome is what applying the entry did, as recorded by the first replica to apply
	// it; nil until one has.
	Outcome *Outcome
}

// Outcome is what applying an entry did. It is the same on every replica.
type Outcome struct {
	OK      bool
	Code    athar.Code // the error code when !OK
	Message string     // the error's user-facing message when !OK
	Replica string     // who recorded it (when read from the log)
}

// same reports whether two replicas' outcomes of one entry agree. Messages are not compared:
// they are for people, and a new version of athar may word them differently.
func (o Outcome) same(p Outcome) bool { return o.OK == p.OK && o.Code == p.Code }

func (o Outcome) String() string {
	if o.OK {
		return "applied"
	}
	return "refused (" + string(o.Code) + "): " + o.Message
}

// Document is what the record keeps of one narration after an entry changed it: its
// document as last imported, or nothing (Body nil) once deleted.
type Document struct {
	Narration athar.ID
	Source    string
	Format    string
	Body      []byte
}

// Log is the shared, ordered log of changes a replica follows and appends to.
// internal/pglog implements it on PostgreSQL and CockroachDB.
type Log interface {
	// ID identifies the log; a store that followed another log must not follow this one.
	ID() string
	// Head returns the position of the last entry appended.
	Head(ctx context.Context) (int64, error)
	// Append adds e at the next position, in one transaction, and returns the position.
	// reserve, when not nil, is called with the position before the transaction commits
	// (so that a waiter is in place before any replica can see the entry); it may be called
	// again with another position if the transaction is retried.
	Append(ctx context.Context, e Entry, reserve func(position int64)) (int64, error)
	// AppendIfEmpty appends every entry, in order, in one transaction, if and only if the
	// log holds no entry yet. It reports whether it did.
	AppendIfEmpty(ctx context.Context, es []Entry) (bool, error)
	// Entries returns up to limit entries after position, in order, with their outcomes
	// where recorded.
	Entries(ctx context.Context, after int64, limit int) ([]Entry, error)
	// Record records o as the outcome of entry e unless one is recorded already, together
	// with the documents the entry left (only when it is the first to record), and returns
	// the outcome recorded.
	Record(ctx context.Context, e Entry, o Outcome, docs []Document) (Outcome, error)
	// Notifies reports whether Watch delivers notifications (PostgreSQL's LISTEN/NOTIFY);
	// where it does not (CockroachDB), a replica polls.
	Notifies() bool
	// Watch calls notify whenever the log may have grown (with the new head when known, or
	// 0), until ctx is done; after a lost connection it reconnects and notifies, since
	// changes may have been missed meanwhile.
	Watch(ctx context.Context, notify func(head int64))
}
