//go:build bench

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/athar-hadith/athar/internal/bench"
)

func cmdBench(ctx context.Context, e env, args []string) error {
	if spec := e.getenv(bench.CrashChildEnv); spec != "" {
		return bench.CrashChild(ctx, spec, e.stdout) // the loader that --backends kills
	}
	fs := newFlags(e, "bench", "[flags]", `Measure Athar against raw Cayley on the same generated corpus and the same bbolt backend:
'athar load' against ApplyDeltas of the same quads in batches of 10,000; GraphQL query
latency over HTTP (p50, p99) against the raw Cayley lookups that fetch the same facts;
the server's peak memory and the store's size on disk. The results replace the measured
section of the --out file (between its bench markers), so the prose around it stays.

With --backends, compare Cayley's embedded backends instead, on the quads of the same
corpus: bulk load in transactions of 10,000 quads, the raw lookups, size on disk, and what
a store keeps when its loader is killed (SIGKILL) in the middle of a load; the results
replace the section between the backends markers of --out.`)
	sizes := fs.String("sizes", "1000,10000", "comma-separated corpus sizes, in narrations")
	work := fs.String("work", filepath.Join(os.TempDir(), "athar-bench"), "scratch directory (removed per size before use)")
	queries := fs.Int("queries", 200, "timed requests per query kind")
	kinds := fs.String("kinds", "", "query kinds to time, comma-separated (default all: "+strings.Join(bench.KindKeys(), ",")+")")
	out := fs.String("out", "", "Markdown file to update (default: print the tables)")
	backends := fs.String("backends", "", "compare these Cayley backends instead (e.g. bbolt,leveldb,badger)")
	if err := parse(fs, args); err != nil {
		return err
	}
	var ns []int
	for _, s := range splitList(*sizes) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return usageError("bench: bad size %q", s)
		}
		ns = append(ns, n)
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	meta := bench.Meta{Command: "athar bench " + strings.Join(args, " "), Machine: bench.Machine(), Date: time.Now().UTC()}
	var tables bytes.Buffer
	begin, end := bench.BenchBegin, bench.BenchEnd
	if *backends != "" {
		results, err := bench.RunBackends(ctx, bench.BackendConfig{Backends: splitList(*backends), Sizes: ns, WorkDir: *work,
			Binary: self, ChildArgs: []string{"bench"}, Queries: *queries, Log: e.stderr})
		if err != nil {
			return err
		}
		if err := bench.WriteBackendsMarkdown(&tables, meta, results); err != nil {
			return err
		}
		begin, end = bench.BackendsBegin, bench.BackendsEnd
	} else {
		ks := splitList(*kinds)
		for _, k := range ks {
			if !slices.Contains(bench.KindKeys(), k) {
				return usageError("bench: unknown query kind %q (expected one of %s)", k, strings.Join(bench.KindKeys(), ", "))
			}
		}
		results, err := bench.Run(ctx, bench.Config{Sizes: ns, WorkDir: *work, Binary: self, Queries: *queries, Kinds: ks, Log: e.stderr})
		if err != nil {
			return err
		}
		if err := bench.WriteMarkdown(&tables, meta, results); err != nil {
			return err
		}
	}
	if *out == "" {
		_, err := e.stdout.Write(tables.Bytes())
		return err
	}
	return bench.ReplaceSection(*out, begin, end, tables.Bytes())
}
