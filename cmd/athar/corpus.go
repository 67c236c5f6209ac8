package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/athar-hadith/athar/internal/app"
	"github.com/athar-hadith/athar/internal/ingest/corpusload"
)

func cmdCorpus(ctx context.Context, e env, args []string) error {
	const help = `Subcommands:
  import FILE...   import hadith-api edition files (plain or gzip-compressed JSON):
                   whole editions (eng-bukhari.json.gz) or one-hadith files
                   (eng-bukhari/3953.json).

Each hadith becomes one narration (narration:bukhari-3953), its own changeset under the label
<https://w3id.org/athar/corpus/bukhari-3953>: its texts (the editions of one collection given
together pair by hadithnumber into one narration holding both texts), its references, its
chapter (chapter:bukhari-64, named in English and Arabic) and its gradings with their graders.
A narration document recording the same hadith-api number is the same narration. Importing the
same files again changes nothing; a corrected file replaces exactly what changed. Give a
collection's editions together: an edition given alone replaces the record with its text only.
A bad hadith is reported by file, number and field, and the rest imports; exits 1 if anything
was refused. With its chains (the default), each record also holds the routes of its Arabic
isnad, its narrator of record, the people they name and the entities and verses its texts
mention; --chains=false leaves them out (and removes them from records stored with them).
See docs/corpus.md.`
	fs := newFlags(e, "corpus", "import [flags] FILE...", help)
	wf := addWriteFlags(fs, e)
	chains := fs.Bool("chains", true, "extract each hadith's chains, narrator of record and mentions (false: texts, references, chapter and gradings only)")
	if len(args) == 0 || args[0] != "import" {
		fs.Usage()
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			return nil
		}
		return usageError("corpus: expected the subcommand import")
	}
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("corpus import: no FILE given")
	}
	w, err := openWriter(ctx, wf, cliLogger(e))
	if err != nil {
		return err
	}
	defer w.Close()
	start := time.Now()
	// Bulk mode for edition files; a few one-hadith files take the server's write path
	// (see bulkLoad).
	end := func() error { return nil }
	if size := filesSize(fs.Args()); size < 0 || size >= bulkMinBytes {
		if end, err = w.Bulk(); err != nil {
			return err
		}
		defer tuneGC(e.getenv, cliLogger(e), bulkGCPercent, bulkMemoryLimit())()
	}
	stats, err := corpusload.Run(ctx, w, fs.Args(), corpusload.Options{Report: e.stderr, Progress: corpusProgress(e.stderr), NoChains: !*chains})
	endErr := end()
	fmt.Fprintf(e.stdout, "%d file(s), %d hadith(s): %d imported, %d unchanged, %d refused (%d quads added, %d removed) in %s%s\n",
		stats.Files, stats.Records, stats.Imported, stats.Unchanged, stats.Refused, stats.QuadsAdded, stats.QuadsRemove,
		time.Since(start).Round(time.Millisecond), w.Where())
	if endErr != nil {
		return fmt.Errorf("corpus import: the imported hadiths are stored, their indexes are rebuilt at the next open: %w", endErr)
	}
	if err != nil {
		return exitError{code: 1, msg: fmt.Sprintf("corpus import: stopped: %v", err)}
	}
	if stats.Failed() {
		return exitError{code: 1, msg: fmt.Sprintf("corpus import: %d hadith(s) refused, %d file(s) refused or cut short", stats.Refused, stats.FileErrors)}
	}
	return nil
}

// corpusProgress shows a progress bar per collection when out is a terminal.
func corpusProgress(out io.Writer) func(collection string, done, total int) {
	if app.ProgressBar(out, "") == nil {
		return nil
	}
	var bar func(done, total int)
	var cur string
	return func(collection string, done, total int) {
		if bar == nil || cur != collection {
			cur, bar = collection, app.ProgressBar(out, "importing "+collection)
		}
		if bar != nil {
			bar(done, total)
		}
	}
}

// filesSize is the total size of the named files, or -1 when one cannot be read (the
// import then reports it).
func filesSize(paths []string) int64 {
	var n int64
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return -1
		}
		n += fi.Size()
	}
	return n
}
