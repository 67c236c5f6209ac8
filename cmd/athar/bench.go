package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/athar-hadith/athar/internal/bench"
)

const (
	benchBegin    = "<!-- bench:begin (written by athar bench; do not edit by hand) -->"
	benchEnd      = "<!-- bench:end -->"
	backendsBegin = "<!-- backends:begin (written by athar bench --backends; do not edit by hand) -->"
	backendsEnd   = "<!-- backends:end -->"
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
	meta := bench.Meta{
		Command: "athar bench " + strings.Join(args, " "),
		Machine: fmt.Sprintf("%d cores, %s, %s/%s, %s", runtime.NumCPU(), memTotal(), runtime.GOOS, runtime.GOARCH, runtime.Version()),
		Date:    time.Now().UTC(),
	}
	var tables bytes.Buffer
	begin, end := benchBegin, benchEnd
	if *backends != "" {
		results, err := bench.RunBackends(ctx, bench.BackendConfig{Backends: splitList(*backends), Sizes: ns, WorkDir: *work,
			Binary: self, ChildArgs: []string{"bench"}, Queries: *queries, Log: e.stderr})
		if err != nil {
			return err
		}
		if err := bench.WriteBackendsMarkdown(&tables, meta, results); err != nil {
			return err
		}
		begin, end = backendsBegin, backendsEnd
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
	doc, err := os.ReadFile(*out)
	if err != nil {
		return err
	}
	i, j := bytes.Index(doc, []byte(begin)), bytes.Index(doc, []byte(end))
	if i < 0 || j < i {
		return fmt.Errorf("bench: %s has no %q ... %q section", *out, begin, end)
	}
	var b bytes.Buffer
	b.Write(doc[:i+len(begin)])
	b.WriteString("\n")
	b.Write(tables.Bytes())
	b.Write(doc[j:])
	return os.WriteFile(*out, b.Bytes(), 0o644)
}

// memTotal reads the machine's memory from /proc/meminfo.
func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "memory unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return fmt.Sprintf("%.0f GiB", kb/(1<<20))
		}
	}
	return "memory unknown"
}
