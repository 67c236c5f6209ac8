// Package corpusload is the corpus import's loop: it reads edition files
// (internal/hadithapi) a collection at a time, pairs a collection's editions into records
// and hands them to a writer (ingest.Writer.ImportHadiths) in batches, counting what
// changed and reporting every problem by file, hadith number and field. See
// docs/corpus.md.
package corpusload

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/athar-hadith/athar/internal/hadith"
	"github.com/athar-hadith/athar/internal/hadithapi"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/isnad"
)

// Writer is what the loop needs of the write path.
type Writer interface {
	ImportHadiths(ctx context.Context, recs []hadith.Record) []ingest.HadithResult
}

// Options tune a run.
type Options struct {
	// Report, when set, receives one line per problem and per note, as they are met.
	Report io.Writer
	// Progress, when set, is called with the records of collection handled and their
	// number, after every batch.
	Progress func(collection string, done, total int)
	// Batch is how many records go to the writer at once (default 2,000).
	Batch int
	// NoChains imports the records without what their texts say about their
	// transmission and what they name (hadith.Record.NoChains).
	NoChains bool
}

// Stats count what a run did.
type Stats struct {
	Files       int // files read (whole or in part)
	Records     int // records handed to the writer
	Imported    int // records stored or replaced
	Unchanged   int // records already stored as they are
	Refused     int // hadiths refused (by the reader, the pairing or the writer)
	FileErrors  int // files refused as a whole or cut short
	Notes       int
	QuadsAdded  int
	QuadsRemove int
}

// Failed reports whether anything was refused.
func (s Stats) Failed() bool { return s.Refused > 0 || s.FileErrors > 0 }

// Run imports the edition files at paths. A file that cannot be read, or whose
// collection is unknown, is refused whole; a truncated or malformed file imports the
// hadiths before the fault; a hadith with a bad field, or without its pair in another
// edition of the same collection, is refused alone. It returns an error only when ctx is
// done.
func Run(ctx context.Context, w Writer, paths []string, opts Options) (Stats, error) {
	if opts.Batch <= 0 {
		opts.Batch = 2000
	}
	var st Stats
	report := func(format string, args ...any) {
		if opts.Report != nil {
			fmt.Fprintf(opts.Report, format+"\n", args...)
		}
	}
	byCol := map[string][]string{}
	for _, p := range paths {
		_, slug, ok := hadithapi.EditionName(p)
		if !ok {
			st.FileErrors++
			report("%s: not an edition file name: expected {lang}-{collection}.json(.gz), e.g. eng-bukhari.json.gz, or {lang}-{collection}/{number}.json", p)
			continue
		}
		byCol[slug] = append(byCol[slug], p)
	}
	cols := make([]string, 0, len(byCol))
	for c := range byCol {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	for _, col := range cols {
		var eds []*hadithapi.Edition
		for _, p := range byCol[col] {
			ed, probs, err := hadithapi.ReadFile(p)
			st.Files++
			for _, pr := range probs {
				st.Refused++
				report("%v", pr)
			}
			if err != nil {
				st.FileErrors++
				report("%v", err)
				if ed == nil || len(ed.Hadiths) == 0 {
					continue
				}
				if _, known := hadith.CollectionBySlug(ed.Collection); !known {
					continue
				}
			}
			eds = append(eds, ed)
		}
		recs, probs := hadithapi.Pair(eds)
		for _, pr := range probs {
			st.Refused++
			report("%v", pr)
		}
		eds = nil
		// A chain given by reference joins the route of the hadith before it (Pair sorts
		// by number): each record carries its predecessor's routes, themselves joined.
		var prev []isnad.Route
		for i := range recs {
			if opts.NoChains {
				recs[i].NoChains = true
				continue
			}
			recs[i].Previous = prev
			prev, _, _ = hadith.Routes(&recs[i])
		}
		for from := 0; from < len(recs); from += opts.Batch {
			if err := ctx.Err(); err != nil {
				return st, err
			}
			to := min(from+opts.Batch, len(recs))
			res := w.ImportHadiths(ctx, recs[from:to])
			st.Records += to - from
			for _, r := range res {
				for _, n := range r.Notes {
					st.Notes++
					report("note: %s", n)
				}
				switch {
				case r.Err != nil:
					st.Refused++
					_, num, _ := hadith.SplitKey(r.Key)
					report("%s: hadith %s: %v", col, num, r.Err)
				case r.Changed:
					st.Imported++
					st.QuadsAdded += r.QuadsAdded
					st.QuadsRemove += r.QuadsRemoved
				default:
					st.Unchanged++
				}
			}
			if opts.Progress != nil {
				opts.Progress(col, to, len(recs))
			}
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
	}
	return st, nil
}
