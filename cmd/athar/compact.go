package main

import (
	"context"
	"fmt"

	"github.com/athar-hadith/athar/internal/cayleystore"
)

func cmdCompact(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "compact", "[flags]", `Rewrite the store's bbolt file without its free pages. A bbolt file never shrinks: the pages
that deletes, re-imports and a read model rebuilt at start-up leave free stay in the file,
and bbolt writes their list at every commit (at 100,000 narrations, an upgrade's rebuilt
read model once left 1.9 GB free and a 3.9 MB list in every write). Compacting copies every bucket in key
order into a new file beside the store, checks that it holds every key, syncs it and
renames it over the old one: stopped at any point, the store is as it was. It needs the
store's directory to itself (stop serve first) and free disk for the copy.`)
	store := storeFlag(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return usageError("compact: unexpected argument %q", fs.Arg(0))
	}
	st, err := cayleystore.Compact(ctx, *store, cliLogger(e))
	if err != nil {
		return err
	}
	// bbolt's freelist: 8 bytes a free page, written at every commit.
	fmt.Fprintf(e.stderr, "compacted %s in %s: %s -> %s; %d free pages -> %d (the list written at every commit: %s -> %s); %d keys in %d buckets\n",
		*store, st.Took.Round(100_000_000), mib(st.Before), mib(st.After), st.FreeBefore, st.FreeAfter,
		mib(8*int64(st.FreeBefore)), mib(8*int64(st.FreeAfter)), st.Keys, st.Buckets)
	return nil
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
