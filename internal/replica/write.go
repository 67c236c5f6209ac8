package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
)

// The mutations. Each one is checked against this replica's graph once it has caught up
// with the head of the log (so a change accepted anywhere before the call is seen), then
// appended to the log in one transaction, and the call returns once this replica has
// applied the entry, with the result of that apply. The check is only a first filter:
// the log's order decides, so a change another replica logged just before can still make
// the apply refuse it (say, a deletion of an entity the document uses); the caller gets
// that refusal, and every replica records the same.

// Import logs d and returns the result of applying it here. d's text is not available
// (the GraphQL mutation parses it), so the log keeps the parsed document (FormatDocument).
func (r *Replica) Import(ctx context.Context, d *narration.Document) (ingest.Result, error) {
	body, err := json.Marshal(d)
	if err != nil {
		return ingest.Result{}, fmt.Errorf("import %s: encode: %w", d.Narration.ID, err)
	}
	return r.logImport(ctx, d, Entry{Kind: KindImport, Source: d.Source, Format: FormatDocument, Body: body})
}

// ImportText logs the document data as written (FormatText) and returns the result of
// applying it here.
func (r *Replica) ImportText(ctx context.Context, source string, data []byte) (ingest.Result, error) {
	d, err := narration.Parse(source, data)
	if err != nil {
		return ingest.Result{}, err
	}
	return r.logImport(ctx, d, Entry{Kind: KindImport, Source: source, Format: FormatText, Body: data})
}

func (r *Replica) logImport(ctx context.Context, d *narration.Document, e Entry) (ingest.Result, error) {
	if err := r.Sync(ctx); err != nil {
		return ingest.Result{}, err
	}
	c, err := narration.Validate(ctx, d, r.cfg.Vocab, r.view)
	if err != nil {
		return ingest.Result{}, err
	}
	e.Narration = c.ID
	a, err := r.submit(ctx, e)
	if err != nil {
		return ingest.Result{}, err
	}
	return a.result, a.err
}

// Delete logs the deletion of narration id and returns the result of applying it here.
func (r *Replica) Delete(ctx context.Context, id athar.ID) error {
	if id.Prefix() != athar.TypeNarration.Prefix() {
		return athar.E("delete "+string(id), athar.Invalid, "not a narration id (expected narration:...)")
	}
	if err := r.Sync(ctx); err != nil {
		return err
	}
	qs, err := r.view.NarrationQuads(ctx, id)
	if err != nil {
		return fmt.Errorf("delete %s: %w", id, err)
	}
	if len(qs) == 0 {
		if err := ingest.CorpusOnly(ctx, r.view, "delete "+string(id), id); err != nil {
			return err
		}
		return athar.E("delete "+string(id), athar.NotFound, "no such narration")
	}
	a, err := r.submit(ctx, Entry{Kind: KindDelete, Narration: id})
	if err != nil {
		return err
	}
	return a.err
}

// Restore logs quads (as read from an N-Quads export; with replace, the whole graph) and
// returns the narrations restored.
func (r *Replica) Restore(ctx context.Context, quads []athar.Quad, replace bool) ([]athar.ID, error) {
	var body bytes.Buffer
	if err := cayleystore.WriteNQuads(&body, quads); err != nil {
		return nil, athar.E("restore", athar.Invalid, err)
	}
	var args json.RawMessage
	if replace {
		args = json.RawMessage(`{"replace":true}`)
	}
	if err := r.Sync(ctx); err != nil {
		return nil, err
	}
	a, err := r.submit(ctx, Entry{Kind: KindRestore, Source: "restore", Format: FormatNQuads, Body: body.Bytes(), Args: args})
	if err != nil {
		return nil, err
	}
	return a.ids, a.err
}

// ImportVerseTexts logs the verse texts and their source and returns the result of
// applying them here.
func (r *Replica) ImportVerseTexts(ctx context.Context, texts []athar.VerseText, src athar.TextSource) (ingest.VerseResult, error) {
	args, err := json.Marshal(VersesArgs{Texts: texts, Source: src})
	if err != nil {
		return ingest.VerseResult{}, err
	}
	if err := r.Sync(ctx); err != nil {
		return ingest.VerseResult{}, err
	}
	a, err := r.submit(ctx, Entry{Kind: KindVerses, Args: args})
	if err != nil {
		return ingest.VerseResult{}, err
	}
	return a.verses, a.err
}

// Merge logs the merge of entity remove into keep (ingest.Local.Merge) and returns
// the result of applying it here.
func (r *Replica) Merge(ctx context.Context, keep, remove athar.ID) (ingest.MergeResult, error) {
	args, err := json.Marshal(MergeArgs{Keep: keep, Remove: remove})
	if err != nil {
		return ingest.MergeResult{}, err
	}
	if err := r.Sync(ctx); err != nil {
		return ingest.MergeResult{}, err
	}
	a, err := r.submit(ctx, Entry{Kind: KindMerge, Args: args})
	if err != nil {
		return ingest.MergeResult{}, err
	}
	return a.merge, a.err
}

// Sync waits until this replica has applied every entry the log held when it was called.
// It returns an athar.Unavailable error when the log cannot be read, when this replica
// stopped following it, or when it did not catch up before ctx was done.
func (r *Replica) Sync(ctx context.Context) error {
	if err := r.haltedErr(); err != nil {
		return stopped()
	}
	head, err := r.log.Head(ctx)
	if err != nil {
		if athar.ErrorCode(err) == athar.Unavailable {
			return r.unavailable(err, "the database holding the log is unreachable, so this replica takes no writes (it still answers queries from its copy of the graph, at log entry %d); nothing was logged: retry later", r.position.Load())
		}
		return fmt.Errorf("read the log's head: %w", err)
	}
	r.setHead(head)
	return r.waitFor(ctx, head)
}

// submit appends e to the log and waits until this replica has applied it.
func (r *Replica) submit(ctx context.Context, e Entry) (applied, error) {
	ch, pos, err := r.append(ctx, e)
	if err != nil {
		return applied{}, err
	}
	return r.await(ctx, ch, pos)
}

// append appends e with a waiter for its position in place before it commits.
func (r *Replica) append(ctx context.Context, e Entry) (chan applied, int64, error) {
	if err := r.haltedErr(); err != nil {
		return nil, 0, stopped()
	}
	e.Origin = r.cfg.Name
	var (
		ch       chan applied
		reserved int64
	)
	reserve := func(p int64) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if reserved != 0 {
			delete(r.waiters, reserved)
		}
		reserved, ch = p, make(chan applied, 1)
		r.waiters[p] = ch
	}
	pos, err := r.log.Append(ctx, e, reserve)
	if err != nil {
		r.drop(reserved)
		if athar.ErrorCode(err) == athar.Unavailable {
			// The connection may have been lost as the entry committed: say both.
			return nil, 0, r.unavailable(err, "the database holding the log is unreachable: the change was most likely not logged, but if the connection was lost as it committed, it was, and every replica applies it; retry later (an import again is harmless; a delete or merge again may be refused as already done)")
		}
		return nil, 0, fmt.Errorf("log %s %s: %w", e.Kind, e.Narration, err)
	}
	r.setHead(pos)
	r.poke()
	return ch, pos, nil
}

func (r *Replica) await(ctx context.Context, ch chan applied, pos int64) (applied, error) {
	select {
	case a := <-ch:
		return a, nil
	case <-ctx.Done():
		r.drop(pos)
		return applied{}, r.unavailable(ctx.Err(), "the change is log entry %d and every replica applies it, but this one had not in time (it is at entry %d): query it later to see the outcome (an import again is harmless; a delete or merge again may be refused as already done)", pos, r.position.Load())
	}
}

func (r *Replica) drop(pos int64) {
	if pos == 0 {
		return
	}
	r.mu.Lock()
	delete(r.waiters, pos)
	r.mu.Unlock()
}

// ImportMany imports documents as Import does, but pipelined: each is checked against
// the graph as it will be once the documents before it are applied (ingest.Overlay), and
// logged without waiting for the previous one to be applied; then it waits for all. docs
// must be in dependency order (narration.Order). A document refused by the check is not
// logged. A document with its text is logged as written (FormatText).
func (r *Replica) ImportMany(ctx context.Context, docs []ingest.Doc) []ingest.BatchResult {
	out := make([]ingest.BatchResult, len(docs))
	if err := r.Sync(ctx); err != nil {
		for i := range out {
			out[i].Err = err
		}
		return out
	}
	ov := ingest.NewOverlay(r.view)
	type sent struct {
		i   int
		ch  chan applied
		pos int64
	}
	var waits []sent
	for i, d := range docs {
		if err := athar.Stopped(ctx, "import "+d.Source); err != nil {
			out[i].Err = err
			continue
		}
		c, err := narration.Validate(ctx, d.Document, r.cfg.Vocab, ov)
		if err != nil {
			out[i].Err = err
			continue
		}
		e, err := importEntry(d)
		if err != nil {
			out[i].Err = err
			continue
		}
		e.Narration = c.ID
		ch, pos, err := r.append(ctx, e)
		if err != nil {
			out[i].Err = err
			continue
		}
		ov.Define(c.ID, c.Defines())
		waits = append(waits, sent{i, ch, pos})
	}
	for _, w := range waits {
		a, err := r.await(ctx, w.ch, w.pos)
		if err == nil {
			err = a.err
		}
		out[w.i] = ingest.BatchResult{Result: a.result, Err: err}
	}
	return out
}

// importEntry is the log entry importing d: its text as written when it has one, else
// the parsed document.
func importEntry(d ingest.Doc) (Entry, error) {
	if d.Text != nil {
		return Entry{Kind: KindImport, Source: d.Source, Format: FormatText, Body: d.Text}, nil
	}
	body, err := json.Marshal(d.Document)
	if err != nil {
		return Entry{}, fmt.Errorf("import %s: encode: %w", d.Narration.ID, err)
	}
	return Entry{Kind: KindImport, Source: d.Source, Format: FormatDocument, Body: body}, nil
}

// SeedIfEmpty logs docs (already checked, in dependency order) if the log is empty, in
// one transaction, so that replicas starting together on a new database seed it once.
func (r *Replica) SeedIfEmpty(ctx context.Context, docs []ingest.Doc, ids []athar.ID) (bool, error) {
	es := make([]Entry, len(docs))
	for i, d := range docs {
		es[i] = Entry{Kind: KindImport, Narration: ids[i], Source: d.Source, Format: FormatText, Body: d.Text, Origin: r.cfg.Name}
	}
	ok, err := r.log.AppendIfEmpty(ctx, es)
	if err != nil {
		return false, fmt.Errorf("seed the log: %w", err)
	}
	if ok {
		r.poke()
	}
	return ok, nil
}

// unavailable is the error a write gets when the log is out of reach or this replica is
// not keeping up: athar.Unavailable, which a client may retry. The cause is logged here,
// once: the client is not shown it (it names the database).
func (r *Replica) unavailable(cause error, format string, args ...any) error {
	err := athar.E("", athar.Unavailable, "%s", fmt.Sprintf(format, args...))
	r.cfg.Logger.Warn("write refused for now", "reason", err.Msg, "err", cause)
	return err
}

// stopped is the error a write gets on a replica that stopped following the log for good
// (why was logged when it stopped, and /readyz says it): another replica may take it.
func stopped() error {
	return athar.E("", athar.Unavailable, "this replica stopped following the log and takes no writes: send them to another replica (its /readyz says why it stopped)")
}
