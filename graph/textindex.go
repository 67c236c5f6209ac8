package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/textindex"
)

// textBatch is how many narrations the text index reads from the store, and puts in the
// index, at a time.
const textBatch = 1024

// narrationReader is what keeping the text index needs of the store.
type narrationReader interface {
	EntityIDs(ctx context.Context, t athar.EntityType) ([]athar.ID, error)
	Narrations(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error)
	NarrationSummaries(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error)
	NarrationDigests(ctx context.Context, labels []athar.ID) ([]string, error)
}

// textDocVersion is the version of TextDoc and of textSource: change it when TextDoc
// changes what it takes from a narration, so that every index built before is rebuilt.
const textDocVersion = "3"

// textSource is the Doc.Source of a narration: a digest of textDocVersion and of the store's
// digests of the quads TextDoc's narration is read from -- its own label's and, when a
// corpus record sits on it, the record's (record key, e.g. bukhari-3953; its quads give
// the narration's corpusRecord, texts and gradings). The store gives those without reading
// the quads (Store.NarrationDigests), so checking the index against 100,000 narrations reads
// one manifest entry each, not their terms.
func textSource(own, record string) string {
	h := sha256.New()
	h.Write([]byte(textDocVersion))
	h.Write([]byte{0})
	h.Write([]byte(own))
	h.Write([]byte{0})
	h.Write([]byte(record))
	return hex.EncodeToString(h.Sum(nil))
}

// textSources returns the textSource of each narration, given its corpus record ("" for
// none), with one read of the store.
func textSources(ctx context.Context, st narrationReader, ids []athar.ID, records []string) ([]string, error) {
	labels := make([]athar.ID, 0, 2*len(ids))
	labels = append(labels, ids...)
	at := make([]int, len(ids))
	for i, r := range records {
		at[i] = -1
		if r != "" {
			at[i] = len(labels)
			labels = append(labels, recordLabel(r))
		}
	}
	ds, err := st.NarrationDigests(ctx, labels)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ids))
	for i := range ids {
		rec := ""
		if at[i] >= 0 {
			rec = ds[at[i]]
		}
		out[i] = textSource(ds[i], rec)
	}
	return out, nil
}

// recordLabel is the label of the corpus record with key r (e.g. bukhari-3953).
func recordLabel(r string) athar.ID { return athar.ID(athar.CorpusPrefix + ":" + r) }

// textDocs builds the Docs of ns, with their sources.
func textDocs(ctx context.Context, st narrationReader, ns []*athar.Narration) ([]textindex.Doc, error) {
	ids, records := make([]athar.ID, len(ns)), make([]string, len(ns))
	for i, n := range ns {
		ids[i], records[i] = n.ID, n.Corpus
	}
	srcs, err := textSources(ctx, st, ids, records)
	if err != nil {
		return nil, err
	}
	docs := make([]textindex.Doc, len(ns))
	for i, n := range ns {
		docs[i] = TextDoc(n)
		docs[i].Source = srcs[i]
	}
	return docs, nil
}

// TextDoc is what the full-text index knows of a narration: its text (the store holds one
// per narration today, in n.Language), title, references, collections and gradings. The
// collections are those its references name.
func TextDoc(n *athar.Narration) textindex.Doc {
	d := textindex.Doc{Narration: string(n.ID), Title: n.Title}
	seen := map[string]bool{}
	for _, r := range n.References {
		d.References = append(d.References, textindex.Reference{Collection: r.Collection, Edition: r.Edition, Number: r.Number})
		if r.Collection != "" && !seen[r.Collection] {
			seen[r.Collection] = true
			d.Collection = append(d.Collection, r.Collection)
		}
	}
	// Every text the narration has -- the document's, then the corpus record's, one per
	// edition -- in the order Narration.texts lists them, so a hit's position names it.
	for _, t := range n.Texts {
		d.Texts = append(d.Texts, textindex.Text{Language: t.Language, Edition: t.Edition, Text: t.Text})
	}
	if len(d.Texts) == 0 && n.Text != "" {
		d.Texts = []textindex.Text{{Language: n.Language, Edition: n.Translation, Text: n.Text}}
	}
	if n.Chapter != "" {
		d.Chapter = textindex.Chapter{ID: string(n.Chapter)}
	}
	for _, g := range n.Gradings {
		grader, name := string(g.Grader), g.GraderName
		switch {
		case grader == "":
			grader = name
		case name == "":
			// The words of the id (person:al-albani: "al-albani"), so that the grader's
			// usual name finds it; the entity's own name may change with other narrations.
			_, name, _ = strings.Cut(grader, ":")
		}
		d.Grades = append(d.Grades, textindex.Grade{Grader: grader, GraderName: name, Verdict: g.Verdict, Grade: string(g.Grade)})
	}
	return d
}

// OpenTextIndex opens the full-text index in dir ("" for one in memory) and brings it in
// step with st. When its stamp disagrees with the narrations st holds (a write it missed:
// athar load while the server was stopped, a crash between the store's commit and the
// index's), it catches up: the narrations whose entry differs from the store's are indexed
// again and those the store no longer holds removed (catchUp). When the index is missing,
// of another schema version, unreadable, or still disagrees after catching up, it is built
// again from st. Checking reads every narration's summary and manifest entry; catching up
// reads the index's entries and the narrations that changed; rebuilding reads every
// narration and indexes it. Keep it in step afterwards with TextIndexSubscriber.
func OpenTextIndex(ctx context.Context, dir string, st narrationReader, logger *slog.Logger) (*textindex.Index, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	start := time.Now()
	want, sources, err := storeStamp(ctx, st)
	if err != nil {
		return nil, fmt.Errorf("open text index: %w", err)
	}
	n := len(sources)
	ix, err := textindex.Open(dir)
	if err == nil {
		var have textindex.Stamp
		if have, err = ix.Stamp(); err == nil && have == want {
			logger.Info("text index in step with the store", "dir", dir, "narrations", n, "checked_in", time.Since(start).String())
			return ix, nil
		}
		if err == nil && have != (textindex.Stamp{}) {
			stale, extra, cerr := catchUp(ctx, st, ix, sources)
			if cerr == nil {
				have, cerr = ix.Stamp()
			}
			if cerr == nil && have == want {
				logger.Info("text index caught up with the store", "dir", dir, "narrations", n, "indexed_again", stale, "removed", extra, "took", time.Since(start).String())
				return ix, nil
			}
			if err = cerr; err == nil {
				err = fmt.Errorf("stamp %s after catching up, the store's %s", have, want)
			}
		}
		ix.Close()
		if err == nil && have == (textindex.Stamp{}) {
			logger.Info("text index is empty: building it from the store", "dir", dir)
		} else {
			logger.Warn("text index is stale: rebuilding it from the store", "dir", dir, "stamp", have.String(), "store", want.String(), "err", err)
		}
	} else if dir != "" {
		logger.Warn("text index cannot be used: rebuilding it from the store", "dir", dir, "err", err)
	}
	if dir != "" {
		if err := textindex.Remove(dir); err != nil {
			return nil, err
		}
	}
	if ix, err = textindex.Open(dir); err != nil {
		return nil, err
	}
	if err := BuildTextIndex(ctx, st, ix); err != nil {
		ix.Close()
		return nil, err
	}
	logger.Info("text index built", "dir", dir, "narrations", n, "took", time.Since(start).String())
	return ix, nil
}

// catchUp brings ix in step with st by difference: sources is every narration st holds
// with its textSource. It returns how many narrations it indexed again and removed.
func catchUp(ctx context.Context, st narrationReader, ix *textindex.Index, sources map[string]string) (int, int, error) {
	stale, extra, err := ix.Diff(ctx, sources)
	if err != nil {
		return 0, 0, err
	}
	for _, id := range extra {
		if err := ix.Delete(ctx, id); err != nil {
			return 0, 0, err
		}
	}
	ids := make([]athar.ID, len(stale))
	for i, id := range stale {
		ids[i] = athar.ID(id)
	}
	if err := putNarrations(ctx, st, ix, ids); err != nil {
		return 0, 0, err
	}
	indexed := len(stale)
	if indexed+len(extra) > textBatch {
		// Many batches written, each a segment: merged into one, as after a build, so
		// that searches read one segment.
		if err := ix.Compact(ctx); err != nil {
			return 0, 0, err
		}
	}
	return indexed, len(extra), nil
}

// TextIndexStale reports whether ix disagrees with the narrations st holds: whether it
// missed a change. It reads every narration.
func TextIndexStale(ctx context.Context, st narrationReader, ix *textindex.Index) (bool, error) {
	want, _, err := storeStamp(ctx, st)
	if err != nil {
		return false, err
	}
	have, err := ix.Stamp()
	if err != nil {
		return false, err
	}
	return have != want, nil
}

// storeStamp returns the stamp the text index of st's narrations has, and the
// narrations with the textSource of each: from each narration's summary (its corpus
// record) and the digests of its quads and its record's, without reading the narrations
// or their quads.
func storeStamp(ctx context.Context, st narrationReader) (textindex.Stamp, map[string]string, error) {
	var s textindex.Stamp
	ids, err := st.EntityIDs(ctx, athar.TypeNarration)
	if err != nil {
		return s, nil, err
	}
	sources := make(map[string]string, len(ids))
	for len(ids) > 0 {
		batch := ids[:min(len(ids), 1000)]
		ids = ids[len(batch):]
		sums, err := st.NarrationSummaries(ctx, batch)
		if err != nil {
			return s, nil, err
		}
		// Those present, as putNarrations puts them in the index.
		present, records := make([]athar.ID, 0, len(batch)), make([]string, 0, len(batch))
		for _, n := range sums {
			if n != nil {
				present = append(present, n.ID)
				records = append(records, n.Corpus)
			}
		}
		srcs, err := textSources(ctx, st, present, records)
		if err != nil {
			return s, nil, err
		}
		for i, id := range present {
			s.AddSource(string(id), srcs[i])
			sources[string(id)] = srcs[i]
		}
	}
	return s, sources, nil
}

// BuildTextIndex puts every narration st holds into ix.
func BuildTextIndex(ctx context.Context, st narrationReader, ix *textindex.Index) error {
	ctx = athar.WholeScan(ctx)
	ids, err := st.EntityIDs(ctx, athar.TypeNarration)
	if err == nil {
		err = putNarrations(ctx, st, ix, ids)
	}
	if err == nil {
		err = ix.Compact(ctx)
	}
	if err != nil {
		return fmt.Errorf("build text index: %w", err)
	}
	return nil
}

// putNarrations reads the narrations ids names that st holds, textBatch at a time, and puts
// their Docs into ix.
func putNarrations(ctx context.Context, st narrationReader, ix *textindex.Index, ids []athar.ID) error {
	for len(ids) > 0 {
		batch := ids[:min(textBatch, len(ids))]
		ids = ids[len(batch):]
		ns, err := st.Narrations(ctx, batch)
		if err != nil {
			return err
		}
		present := ns[:0]
		for _, x := range ns {
			if x != nil {
				present = append(present, x)
			}
		}
		docs, err := textDocs(ctx, st, present)
		if err == nil {
			err = ix.Put(ctx, docs...)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// RefreshTextIndex brings ix up to date with the change cs made to the store: the
// narration it labels is read again and put back, or deleted when the store no longer
// holds it. Changes to a reserved graph (verse texts) are not narrations and are ignored.
func RefreshTextIndex(ctx context.Context, st narrationReader, ix *textindex.Index, cs athar.Changeset) error {
	if cs.Narration == "" || athar.IsReservedGraph(cs.Narration.IRI()) {
		return nil
	}
	for _, id := range changedNarrations(cs) {
		ns, err := st.Narrations(ctx, []athar.ID{id})
		if err == nil {
			if len(ns) == 1 && ns[0] != nil {
				var docs []textindex.Doc
				if docs, err = textDocs(ctx, st, ns); err == nil {
					err = ix.Put(ctx, docs...)
				}
			} else {
				err = ix.Delete(ctx, string(id))
			}
		}
		if err != nil {
			return fmt.Errorf("refresh text index after %s: %w", cs.Narration, err)
		}
	}
	return nil
}

// changedNarrations returns the narrations whose text documents cs may change: its own
// narration, or for a corpus record's changeset the narrations the record was and is about
// (a record moves when a document comes to sit on it or leaves it).
func changedNarrations(cs athar.Changeset) []athar.ID {
	if cs.Narration.Prefix() != athar.CorpusPrefix {
		return []athar.ID{cs.Narration}
	}
	var out []athar.ID
	seen := map[athar.ID]bool{}
	for _, qs := range [][]athar.Quad{cs.Remove, cs.Add} {
		for _, q := range qs {
			if q.Predicate != athar.PredCorpusRecord {
				continue
			}
			if id, ok := athar.ParseIRI(q.Subject); ok && !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// TextIndexSubscriber returns the ingest.Subscriber that keeps ix in step with every change
// a writer commits (imports, deletes, merges, restores: each narration a change rewrites
// comes as its own changeset). Like IndexSubscriber, it runs under the writing caller's
// context values but not its cancellation, with a timeout of its own, and logs a failure:
// the index then disagrees with the store's stamp, and the next OpenTextIndex rebuilds it.
func TextIndexSubscriber(st narrationReader, ix *textindex.Index, logger *slog.Logger) func(context.Context, athar.Changeset) {
	return func(ctx context.Context, cs athar.Changeset) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if err := RefreshTextIndex(ctx, st, ix, cs); err != nil && logger != nil {
			logger.Error("text index is stale", "narration", cs.Narration, "err", err)
		}
	}
}
