package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/athar-hadith/athar/internal/app"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/ingest/load"
)

func cliLogger(e env) *slog.Logger {
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func cmdSeed(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "seed", "[flags]", "Load the narrations embedded in the binary (seeds/). Loading them again changes nothing.")
	wf := addWriteFlags(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	return loadInto(ctx, e, "seed", wf, app.Seeds(), load.Options{})
}

func cmdLoad(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "load", "[flags] PATH...", `Import narration documents (YAML or JSON, see docs/narration-format.md) and N-Quads
files written by 'athar export'. Directories are read recursively. Each document is one
transaction: a refused document is reported and leaves the graph as it was; the others are
still imported. Documents are imported after the documents defining the ids they use.
Importing an unchanged document changes nothing; a changed one replaces exactly what its
narration asserted before. PATH "-" reads one document from standard input.`)
	wf := addWriteFlags(fs, e)
	var opts load.Options
	fs.IntVar(&opts.Batch, "batch", load.DefaultBatch, "documents per import batch; a batch commits in transactions of about 10,000 quads (each narration is all or nothing either way)")
	fs.BoolVar(&opts.Verbose, "v", false, "report each committed batch, and the store's full scans, on standard error")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("load: no PATH given")
	}
	srcs, err := load.ReadSources(e.stdin, fs.Args())
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	return loadInto(ctx, e, "load", wf, srcs, opts)
}

func loadInto(ctx context.Context, e env, cmd string, wf *writeFlags, srcs []load.Source, opts load.Options) error {
	w, err := openWriter(ctx, wf, cliLogger(e))
	if err != nil {
		return err
	}
	defer w.Close()
	start := time.Now()
	end := func() error { return nil }
	bulk := bulkLoad(srcs)
	if bulk {
		if end, err = w.Bulk(); err != nil {
			return err
		}
		defer tuneGC(e.getenv, cliLogger(e), bulkGCPercent, bulkMemoryLimit())()
	}
	if opts.Verbose {
		fmt.Fprintf(e.stderr, "bulk mode: %v (%d source(s))\n", onOff(bulk), len(srcs))
	}
	stats := app.Load(ctx, w, srcs, e.stderr, opts)
	endErr := end()
	fmt.Fprintf(e.stdout, "%s in %s%s\n", stats, time.Since(start).Round(time.Millisecond), w.Where())
	if endErr != nil {
		// What was reported imported is in the record; the next open rebuilds the indexes.
		return fmt.Errorf("%s: the imported narrations are stored, their indexes are rebuilt at the next open: %w", cmd, endErr)
	}
	if opts.Verbose {
		// Re-running a load reads each narration's manifest entry; a full scan here means a
		// rebuild at open (an older store, or a crash) or a read that had to fall back.
		fmt.Fprintf(e.stderr, "store: %d full scan(s)\n", w.Local.FullScans())
	}
	if err := stats.Interrupted(cmd); err != nil {
		return err
	}
	if stats.Refused > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("%d document(s) refused", stats.Refused)}
	}
	return nil
}

func cmdValidate(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "validate", "[flags] PATH...", `Check narration documents against every rule of the format without touching any store.
Ids a document uses must be defined in it, in another document given, or (unless --bare) in
the embedded seeds. Exits 1 if any document is invalid.`)
	bare := fs.Bool("bare", false, "do not resolve ids against the embedded seeds")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("validate: no PATH given")
	}
	srcs, err := load.ReadSources(e.stdin, fs.Args())
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	stats, err := app.Validate(ctx, srcs, *bare, e.stderr, cliLogger(e))
	if err != nil {
		return err
	}
	valid := stats.Documents - stats.Refused
	fmt.Fprintf(e.stdout, "%d document(s) valid, %d invalid\n", valid, stats.Refused)
	if stats.Refused > 0 {
		return exitError{code: 1}
	}
	return nil
}

func cmdDelete(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "delete", "[flags] NARRATION-ID...", `Remove narrations and every quad they asserted; the graph is then as if they had never been
imported. Refused when another narration uses an entity only this one defines.`)
	wf := addWriteFlags(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("delete: no narration id given")
	}
	w, err := openWriter(ctx, wf, cliLogger(e))
	if err != nil {
		return err
	}
	defer w.Close()
	for _, id := range fs.Args() {
		if err := w.Delete(ctx, athar.ID(id)); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "deleted %s%s\n", id, w.Where())
	}
	return nil
}

// A load of fewer documents than bulkMinDocs, and of fewer bytes than bulkMinBytes, writes
// each narration as the server does rather than in bulk mode: bulk mode's fixed cost (a
// filter of every quad in the store, built from one read of them, and the buffer written out
// at the end) is paid back over hundreds of narrations, and on a large store outweighs a
// few. At 100,000 narrations one document took 21.7 s to load in bulk mode, 0.5 s without
// (docs/BENCHMARKS-100k.md).
const (
	bulkMinDocs  = 100
	bulkMinBytes = 1 << 20
)

// bulkLoad reports whether a load of srcs is large enough for bulk mode.
func bulkLoad(srcs []load.Source) bool {
	n := 0
	for _, s := range srcs {
		n += len(s.Data)
	}
	return len(srcs) >= bulkMinDocs || n >= bulkMinBytes
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
