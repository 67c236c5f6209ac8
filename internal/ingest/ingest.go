// Package ingest is the one write path: everything that enters or leaves the graph --
// seeds, athar load, GraphQL mutations, delete, merge, restore, verse texts -- goes
// through a Writer. Local writes to a store of this process; the replica
// (internal/replica) appends to the shared log and applies the entry with a Local. The
// mode is chosen once, where the program starts (cmd/athar).
//
// The rules themselves are pure functions in internal/narration (parse, validate,
// compile, decompile, order); this package holds what has effects: the write lock, the
// batches, the check against the graph and the transaction, and the subscribers that
// derived structures (the search index) keep in step through.
package ingest

import (
	"context"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/hadith"
	"github.com/athar-hadith/athar/internal/narration"
)

// Writer is the write contract, with two implementations: *Local, and *replica.Replica
// (docs/scale-out.md). Refusals are *athar.ValidationError or *athar.Error with a code; a
// done context is DEADLINE_EXCEEDED or CANCELLED, never a verdict.
type Writer interface {
	// Import validates and stores one parsed document.
	Import(ctx context.Context, d *narration.Document) (Result, error)
	// ImportMany imports documents in dependency order (narration.Order): each is checked
	// against the graph plus the documents accepted before it, and is all or nothing.
	ImportMany(ctx context.Context, docs []Doc) []BatchResult
	// Delete removes every quad a narration asserted.
	Delete(ctx context.Context, id athar.ID) error
	// Merge makes remove and keep one entity, keep.
	Merge(ctx context.Context, keep, remove athar.ID) (MergeResult, error)
	// Restore replaces each narration's (and reserved graph's) quads with the given ones;
	// with replace, the graph becomes exactly quads.
	Restore(ctx context.Context, quads []athar.Quad, replace bool) ([]athar.ID, error)
	// ImportHadiths stores records of the canonical collections, each its own changeset
	// (docs/corpus.md); unchanged records are not written.
	ImportHadiths(ctx context.Context, recs []hadith.Record) []HadithResult
	// ImportVerseTexts replaces the verse texts under athar.QuranGraph.
	ImportVerseTexts(ctx context.Context, texts []athar.VerseText, src athar.TextSource) (VerseResult, error)
}

var _ Writer = (*Local)(nil)

// Subscriber is called with every changeset a write commits, under the writing caller's
// context, before the caller gets its result: a derived structure (the search index)
// subscribes at construction, and a client reads its own write.
type Subscriber func(ctx context.Context, cs athar.Changeset)

// Doc is a parsed document with the text it was parsed from (nil when it did not come as
// text, e.g. from a GraphQL mutation): the replica logs the text as written.
type Doc struct {
	*narration.Document
	Text []byte
}

// Result says what an import changed.
type Result struct {
	Narration     athar.ID
	Changed       bool // false when the same document was already imported
	ClaimsAdded   int  // claims this narration attests now and did not before
	EntitiesAdded int  // entities the graph did not define before
	QuadsAdded    int
	QuadsRemoved  int
	// Note says what the import found worth telling without refusing anything: a corpus
	// record it sits on whose text in the document's language differs (both are kept).
	// Empty when none; a string, so that results stay comparable.
	Note string
}

// BatchResult is the outcome of one document of ImportMany: its result, or why it was
// refused (or, with a Retryable code, not attempted).
type BatchResult struct {
	Result
	Err error
}

// MergeResult says what a merge changed.
type MergeResult struct {
	Keep, Remove athar.ID
	Narrations   []athar.ID // the narrations rewritten, sorted
	Changed      bool       // false when remove had already been merged into keep
	QuadsAdded   int
	QuadsRemoved int
}

// VerseResult says what a verse text import changed.
type VerseResult struct {
	Verses       int
	Changed      bool // false when the same texts were already imported
	QuadsAdded   int
	QuadsRemoved int
}
