package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

// openGraph opens the store named by spec with a local writer over it, for what must
// never reach a shared log (validate, and checking the seeds before logging them).
func openGraph(spec string, logger *slog.Logger) (*cayleystore.Store, *ingest.Local, error) {
	st, err := cayleystore.Open(spec, logger)
	if err != nil {
		return nil, nil, err
	}
	return st, ingest.NewLocal(st, schema.Vocabulary()), nil
}

// source is one input file.
type source struct {
	name string
	data []byte
}

// readSources reads the named files, walking directories recursively for narration
// documents (.yaml .yml .json) and N-Quads (.nq .nquads), sorted by path. "-" is stdin.
func readSources(e env, paths []string) ([]source, error) {
	var out []source
	for _, p := range paths {
		if p == "-" {
			data, err := io.ReadAll(io.LimitReader(e.stdin, narration.MaxDocumentSize+1))
			if err != nil {
				return nil, fmt.Errorf("read stdin: %w", err)
			}
			out = append(out, source{"stdin", data})
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
			out = append(out, source{p, data})
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
			out = append(out, source{f, data})
		}
	}
	return out, nil
}

func seedSources() []source {
	var out []source
	for _, f := range seeds.Files() {
		out = append(out, source{f.Name, f.Data})
	}
	return out
}

// loadStats summarises a load.
type loadStats struct {
	documents, changed, unchanged, refused int
	claims, entities                       int
	restored                               int
	// notLoaded counts the documents and N-Quads files the load did not get to because it
	// was interrupted (SIGTERM, SIGINT): neither loaded nor refused.
	notLoaded int
	stop      error // why the load stopped early, when it did
}

func (s loadStats) String() string {
	msg := fmt.Sprintf("%d document(s): %d imported, %d unchanged, %d refused; %d claim(s) and %d entit%s added",
		s.documents, s.changed, s.unchanged, s.refused, s.claims, s.entities, plural(s.entities, "y", "ies"))
	if s.restored > 0 {
		msg += fmt.Sprintf("; %d narration(s) restored from N-Quads", s.restored)
	}
	if s.notLoaded > 0 {
		msg += fmt.Sprintf("; %d not loaded (interrupted)", s.notLoaded)
	}
	return msg
}

// interrupted returns the error a command ends with when the load stopped before it was
// done, and nil when it finished.
func (s loadStats) interrupted(cmd string) error {
	if s.notLoaded == 0 {
		return nil
	}
	why := "interrupted"
	if athar.ErrorCode(s.stop) == athar.DeadlineExceeded {
		why = "stopped by its deadline"
	}
	return exitError{code: 1, msg: fmt.Sprintf("%s %s: %d file(s) not loaded, none of them refused; run it again to finish (what was loaded is unchanged by a rerun)", cmd, why, s.notLoaded)}
}

// stopped reports whether err says the work stopped because its context was done, rather
// than a verdict on the document.
func stopped(err error) bool {
	return athar.ErrorCode(err).Retryable()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// defaultBatch is how many documents a load hands the writer at a time; the local writer
// commits them in transactions of about 10,000 quads.
const defaultBatch = 1000

// loadOptions tune a load.
type loadOptions struct {
	batch   int  // documents per import batch; 0 means defaultBatch
	verbose bool // report each committed batch on errOut
}

// load imports every source through w: documents in dependency order, a batch at a time
// (the local writer commits new narrations in shared transactions, the replica pipelines
// them through the log; every document is still all or nothing), then N-Quads files. It
// reports each refusal to errOut and returns the totals; a refused document never stops
// the others. It is the one load loop, whatever the mode.
func load(ctx context.Context, w ingest.Writer, srcs []source, errOut io.Writer, opts loadOptions) loadStats {
	batchSize := opts.batch
	if batchSize < 1 {
		batchSize = defaultBatch
	}
	var st loadStats
	var docs []*narration.Document
	var nq []source
	var texts []source
	text := map[*narration.Document][]byte{}
	for _, s := range srcs {
		if narration.IsNQuads(s.name) {
			nq = append(nq, s)
		} else {
			texts = append(texts, s)
		}
	}
	for i, r := range parseAll(texts) {
		st.documents++
		if r.err != nil {
			st.refused++
			fmt.Fprintln(errOut, r.err)
			continue
		}
		docs = append(docs, r.doc)
		text[r.doc] = texts[i].data
	}
	var bar *progressbar.ProgressBar
	if f, ok := errOut.(*os.File); ok && term.IsTerminal(int(f.Fd())) && len(docs) >= 50 {
		bar = progressbar.NewOptions(len(docs), progressbar.OptionSetWriter(errOut),
			progressbar.OptionSetDescription("importing"), progressbar.OptionShowCount(),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	ordered := narration.Order(docs)
	// notLoaded counts a file the load did not get to; it is listed with -v only.
	notLoaded := func(name string, err error) {
		st.notLoaded++
		if st.stop == nil {
			st.stop = err
		}
		if opts.verbose {
			fmt.Fprintf(errOut, "%s: not loaded: %v\n", name, err)
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
			switch {
			case stopped(r.Err):
				notLoaded(ordered[i].Source, r.Err)
			case r.Err != nil:
				st.refused++
				fmt.Fprintln(errOut, r.Err)
			case r.Changed:
				st.changed++
				st.claims += r.ClaimsAdded
				st.entities += r.EntitiesAdded
			default:
				st.unchanged++
			}
		}
		if bar != nil {
			_ = bar.Add(n)
		}
		ordered = ordered[n:]
		if opts.verbose {
			fmt.Fprintf(errOut, "committed %d of %d documents\n", len(docs)-len(ordered), len(docs))
		}
	}
	if bar != nil {
		_ = bar.Finish()
	}
	for _, s := range nq {
		if err := athar.Stopped(ctx, "load"); err != nil {
			notLoaded(s.name, err)
			continue
		}
		quads, err := cayleystore.ReadNQuads(strings.NewReader(string(s.data)))
		if err == nil {
			var ids []athar.ID
			ids, err = w.Restore(ctx, quads, false)
			st.restored += len(ids)
		}
		switch {
		case stopped(err):
			notLoaded(s.name, err)
		case err != nil:
			st.refused++
			fmt.Fprintf(errOut, "%s: %v\n", s.name, err)
		}
	}
	if st.notLoaded > 0 {
		fmt.Fprintf(errOut, "interrupted: %d file(s) not loaded (-v lists them); they were not refused\n", st.notLoaded)
	}
	return st
}

type parsed struct {
	doc *narration.Document
	err error
}

// parseAll parses the documents on every core (parsing is a pure function of the text),
// keeping their order.
func parseAll(srcs []source) []parsed {
	out := make([]parsed, len(srcs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(1, len(srcs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i].doc, out[i].err = narration.Parse(srcs[i].name, srcs[i].data)
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
