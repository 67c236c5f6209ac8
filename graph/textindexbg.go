package graph

import (
	"context"
	"log/slog"
	"sync"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/textindex"
)

// BackgroundTextIndex is the full-text index opened, checked against the store and, when
// stale, rebuilt in the background (OpenTextIndex), so that the server answers at once: on
// the full corpus the check takes some 20 s and a rebuild a minute. Until it is ready,
// searchTexts answers UNAVAILABLE with a retry hint, and the changes writers commit are
// kept and applied to it as soon as it is ready, before any search reads it.
type BackgroundTextIndex struct {
	mu      sync.Mutex
	ix      *textindex.Index // nil until ready
	err     error            // why it could not be opened
	pending []athar.Changeset
	st      narrationReader
	logger  *slog.Logger
	done    chan struct{}
	cancel  context.CancelFunc
}

// OpenTextIndexInBackground starts opening the index in dir ("" in memory) against st.
func OpenTextIndexInBackground(ctx context.Context, dir string, st narrationReader, logger *slog.Logger) *BackgroundTextIndex {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	b := &BackgroundTextIndex{st: st, logger: logger, done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(b.done)
		ix, err := OpenTextIndex(ctx, dir, st, logger)
		b.mu.Lock()
		defer b.mu.Unlock()
		if err != nil {
			b.err = err
			logger.Error("text index cannot be opened: searchTexts is unavailable", "dir", dir, "err", err)
			return
		}
		// What writers committed meanwhile: each narration read again, as the subscriber does.
		for _, cs := range b.pending {
			if err := RefreshTextIndex(ctx, st, ix, cs); err != nil {
				logger.Error("text index is stale", "narration", cs.Narration, "err", err)
			}
		}
		b.pending = nil
		b.ix = ix
	}()
	return b
}

// Ready reports whether searches read the index now.
func (b *BackgroundTextIndex) Ready() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ix != nil
}

// Wait blocks until the index is opened or could not be, and returns why not.
func (b *BackgroundTextIndex) Wait(ctx context.Context) error {
	select {
	case <-b.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Search implements searchTexts' searcher: UNAVAILABLE until the index is ready.
func (b *BackgroundTextIndex) Search(ctx context.Context, q textindex.Query) (textindex.Page, error) {
	b.mu.Lock()
	ix, err := b.ix, b.err
	b.mu.Unlock()
	if ix == nil {
		if err != nil {
			return textindex.Page{}, athar.E("", athar.Unavailable, "the full-text index could not be opened: %v", err)
		}
		return textindex.Page{}, athar.E("", athar.Unavailable, "the full-text index is being checked against the store, or built: try again in a few seconds")
	}
	return ix.Search(ctx, q)
}

// Subscriber keeps the index in step with every change a writer commits, as
// TextIndexSubscriber does; before the index is ready it keeps the change for it.
func (b *BackgroundTextIndex) Subscriber() func(context.Context, athar.Changeset) {
	return func(ctx context.Context, cs athar.Changeset) {
		b.mu.Lock()
		ix := b.ix
		if ix == nil {
			b.pending = append(b.pending, athar.Changeset{Narration: cs.Narration, Add: corpusRecordQuads(cs.Add), Remove: corpusRecordQuads(cs.Remove)})
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
		TextIndexSubscriber(b.st, ix, b.logger)(ctx, cs)
	}
}

// corpusRecordQuads keeps of qs what RefreshTextIndex reads of a changeset besides its
// narration: the corpusRecord quads that say which narrations a record moves between.
func corpusRecordQuads(qs []athar.Quad) []athar.Quad {
	var out []athar.Quad
	for _, q := range qs {
		if q.Predicate == athar.PredCorpusRecord {
			out = append(out, q)
		}
	}
	return out
}

// Close stops opening the index, if it still is, and closes it.
func (b *BackgroundTextIndex) Close() error {
	b.cancel()
	<-b.done
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ix == nil {
		return nil
	}
	return b.ix.Close()
}
