// Package load is the one load loop: it reads narration documents and N-Quads files,
// parses the documents on every core, orders them by dependency and hands them to an
// ingest.Writer a batch at a time, counting what happened to each. Every command that
// loads (load, seed, validate, serve's seeding) shares it, whatever the mode.
package load

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
)

// Source is one input of a load: a narration document (.yaml .yml .json) or an N-Quads
// file (.nq .nquads), told apart by its name.
type Source struct {
	Name string
	Data []byte
}

// ReadSources reads the named files, walking directories recursively for narration
// documents and N-Quads files, each directory's sorted by path. "-" is one document read
// from stdin. A named file of any other kind is an error.
func ReadSources(stdin io.Reader, paths []string) ([]Source, error) {
	var out []Source
	for _, p := range paths {
		if p == "-" {
			data, err := io.ReadAll(io.LimitReader(stdin, narration.MaxDocumentSize+1))
			if err != nil {
				return nil, fmt.Errorf("read stdin: %w", err)
			}
			out = append(out, Source{"stdin", data})
			continue
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			if !narration.IsDocument(p) && !narration.IsNQuads(p) {
				return nil, fmt.Errorf("%s: not a narration document or N-Quads file (expected .yaml, .yml, .json, .nq or .nquads)", p)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			out = append(out, Source{p, data})
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (narration.IsDocument(path) || narration.IsNQuads(path)) {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		for _, f := range found {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, Source{f, data})
		}
	}
	return out, nil
}

// Stats are a load's totals.
type Stats struct {
	Documents, Changed, Unchanged, Refused int
	Claims, Entities                       int // added by the documents imported
	Restored                               int // narrations restored from N-Quads files
	// NotLoaded counts the documents and N-Quads files the load did not get to because its
	// context was done (SIGTERM, SIGINT, a deadline): neither loaded nor refused.
	NotLoaded int
	Stop      error // why the load stopped early, when it did
}

func (s Stats) String() string {
	msg := fmt.Sprintf("%d document(s): %d imported, %d unchanged, %d refused; %d claim(s) and %d entit%s added",
		s.Documents, s.Changed, s.Unchanged, s.Refused, s.Claims, s.Entities, plural(s.Entities, "y", "ies"))
	if s.Restored > 0 {
		msg += fmt.Sprintf("; %d narration(s) restored from N-Quads", s.Restored)
	}
	if s.NotLoaded > 0 {
		msg += fmt.Sprintf("; %d not loaded (interrupted)", s.NotLoaded)
	}
	return msg
}

// Interrupted returns the error the command cmd ends with when the load stopped before it
// was done, and nil when it finished.
func (s Stats) Interrupted(cmd string) error {
	if s.NotLoaded == 0 {
		return nil
	}
	why := "interrupted"
	if athar.ErrorCode(s.Stop) == athar.DeadlineExceeded {
		why = "stopped by its deadline"
	}
	return fmt.Errorf("%s %s: %d file(s) not loaded, none of them refused; run it again to finish (what was loaded is unchanged by a rerun)", cmd, why, s.NotLoaded)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// DefaultBatch is how many documents a load hands the writer at a time; the local writer
// commits them in transactions of about 10,000 quads.
const DefaultBatch = 1000

// Options tune a load.
type Options struct {
	Batch   int       // documents per ImportMany; 0 means DefaultBatch
	Verbose bool      // report each committed batch, and each file not loaded, on Report
	Report  io.Writer // where refusals are reported, one a line; nil discards them
	// Progress, when set, is called with the number of documents handled and their total
	// after each batch; its last call has done == total, also when the load stopped early,
	// so that a display can close.
	Progress func(done, total int)
}

// Run imports every source through w: documents in dependency order (narration.Order), a
// batch at a time (the local writer commits new narrations in shared transactions, the
// replica pipelines them through the log; every document is still all or nothing), then
// the N-Quads files with Restore. A refused source never stops the others; a done ctx
// stops the load, and what it did not get to is counted as not loaded. It is the one load
// loop, whatever the mode and whichever command.
func Run(ctx context.Context, w ingest.Writer, srcs []Source, opts Options) Stats {
	report := opts.Report
	if report == nil {
		report = io.Discard
	}
	batchSize := opts.Batch
	if batchSize < 1 {
		batchSize = DefaultBatch
	}
	var st Stats
	var docs []*narration.Document
	var nq, texts []Source
	text := map[*narration.Document][]byte{}
	for _, s := range srcs {
		if narration.IsNQuads(s.Name) {
			nq = append(nq, s)
		} else {
			texts = append(texts, s)
		}
	}
	for i, r := range parseAll(texts) {
		st.Documents++
		if r.err != nil {
			st.Refused++
			fmt.Fprintln(report, r.err)
			continue
		}
		docs = append(docs, r.doc)
		text[r.doc] = texts[i].Data
	}
	ordered := narration.Order(docs)
	total := len(docs)
	// Each batch's documents are let go once imported (below): parsed, a document holds
	// about ten times its text in small objects, which the collector would otherwise mark
	// on every cycle of the load (5.3 GiB of them at 100,000 generated narrations).
	docs = nil
	// notLoaded counts a file the load did not get to; it is listed with Verbose only.
	notLoaded := func(name string, err error) {
		st.NotLoaded++
		if st.Stop == nil {
			st.Stop = err
		}
		if opts.Verbose {
			fmt.Fprintf(report, "%s: not loaded: %v\n", name, err)
		}
	}
	for len(ordered) > 0 {
		if err := athar.Stopped(ctx, "load"); err != nil {
			for _, d := range ordered {
				notLoaded(d.Source, err)
			}
			break
		}
		n := min(len(ordered), batchSize)
		batch := make([]ingest.Doc, n)
		for i, d := range ordered[:n] {
			batch[i] = ingest.Doc{Document: d, Text: text[d]}
		}
		for i, r := range w.ImportMany(ctx, batch) {
			if r.Note != "" {
				fmt.Fprintf(report, "note: %s\n", r.Note)
			}
			switch {
			case stopped(r.Err):
				notLoaded(ordered[i].Source, r.Err)
			case r.Err != nil:
				st.Refused++
				fmt.Fprintln(report, r.Err)
			case r.Changed:
				st.Changed++
				st.Claims += r.ClaimsAdded
				st.Entities += r.EntitiesAdded
			default:
				st.Unchanged++
			}
		}
		for i, d := range ordered[:n] {
			delete(text, d)
			ordered[i] = nil
		}
		ordered = ordered[n:]
		if opts.Progress != nil && len(ordered) > 0 {
			opts.Progress(total-len(ordered), total)
		}
		if opts.Verbose {
			fmt.Fprintf(report, "committed %d of %d documents\n", total-len(ordered), total)
		}
	}
	if opts.Progress != nil && total > 0 {
		opts.Progress(total, total)
	}
	for _, s := range nq {
		if err := athar.Stopped(ctx, "load"); err != nil {
			notLoaded(s.Name, err)
			continue
		}
		var ids []athar.ID
		quads, err := cayleystore.ReadNQuads(bytes.NewReader(s.Data))
		if err == nil {
			ids, err = w.Restore(ctx, quads, false)
			st.Restored += len(ids)
		}
		switch {
		case stopped(err):
			notLoaded(s.Name, err)
		case err != nil:
			st.Refused++
			fmt.Fprintf(report, "%s: %v\n", s.Name, err)
		}
	}
	if st.NotLoaded > 0 {
		fmt.Fprintf(report, "interrupted: %d file(s) not loaded (-v lists them); they were not refused\n", st.NotLoaded)
	}
	return st
}

// stopped reports whether err says the work stopped because its context was done, rather
// than a verdict on the document.
func stopped(err error) bool {
	return athar.ErrorCode(err).Retryable()
}

type parsed struct {
	doc *narration.Document
	err error
}

// parseAll parses the documents on every core (parsing is a pure function of the text),
// keeping their order.
func parseAll(srcs []Source) []parsed {
	out := make([]parsed, len(srcs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(srcs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i].doc, out[i].err = narration.Parse(srcs[i].Name, srcs[i].Data)
			}
		}()
	}
	for i := range srcs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

// CheckAll parses srcs and imports them one by one, in dependency order, into scratch (a
// writer over a store of their own), stopping at the first refusal. It returns them as the
// Docs to write elsewhere, in that order, with the narration each defines: the replica
// logs the seeds so, checked before they reach a shared log.
func CheckAll(ctx context.Context, scratch ingest.Writer, srcs []Source) ([]ingest.Doc, []athar.ID, error) {
	var docs []*narration.Document
	text := map[*narration.Document][]byte{}
	for _, s := range srcs {
		d, err := narration.Parse(s.Name, s.Data)
		if err != nil {
			return nil, nil, err
		}
		docs = append(docs, d)
		text[d] = s.Data
	}
	var out []ingest.Doc
	var ids []athar.ID
	for _, d := range narration.Order(docs) {
		res, err := scratch.Import(ctx, d)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, ingest.Doc{Document: d, Text: text[d]})
		ids = append(ids, res.Narration)
	}
	return out, ids, nil
}
