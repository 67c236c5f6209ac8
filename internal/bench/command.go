//go:build bench

package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// UsageError is a bad command line given to Command.
type UsageError struct{ msg string }

func (e UsageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return UsageError{fmt.Sprintf(format, args...)} }

const usage = `Usage: athar bench [flags] [--corpus-import FILE...]

Measure Athar against raw Cayley on the same generated corpus and the same bbolt backend:
'athar load' against raw Cayley loading the store's N-Quads export (streamed, parsing
included) with ApplyDeltas in transactions as large as Athar's (ingest.TxQuads, 40,000
quads), each a process of its own timed from start to exit; GraphQL query
latency over HTTP (p50, p99) against the raw Cayley lookups that fetch the same facts;
the server's peak memory and the store's size on disk. The results replace the measured
section of the --out file (between its bench markers), so the prose around it stays.

With --reuse, time the queries and the writes on what an earlier run of the same sizes
left in --work (the documents, Athar's store and raw Cayley's) instead of generating and
loading them again; the import is then not measured. Each run leaves the stores holding
what was loaded.

With --corpus-store, time instead the queries of docs/corpus.md on a store holding the
canonical collections (athar seed, then athar corpus import): the store is served as it
is (give a copy), each query timed --queries times after a warm-up, and the table printed
or written into --out between its corpus markers.

With --corpus-import FILE..., time instead the whole of 'athar corpus import FILE...' into
a new store in --work (process start to exit) against raw Cayley loading that store's
N-Quads export, streamed, with ApplyDeltas in transactions as large as Athar's (parsing
included); the
table is printed or written between the corpus-import markers of --out.

With --backends, compare Cayley's embedded backends instead, on the quads of the same
corpus: bulk load in transactions of 10,000 quads, the raw lookups, size on disk, and what
a store keeps when its loader is killed (SIGKILL) in the middle of a load; the results
replace the section between the backends markers of --out.
`

// Command is athar bench: it parses args (the flags after "bench"), runs the benchmark
// with binary (the athar executable, a build with the bench tag) and writes the tables to
// stdout or into the --out file. Started with CrashChildEnv set, it is the loader that
// --backends kills instead; with RawLoadChildEnv, raw Cayley's timed loader. A bad command
// line is a UsageError; --help is flag.ErrHelp.
func Command(ctx context.Context, args []string, getenv func(string) string, binary string, stdout, stderr io.Writer) error {
	if spec := getenv(CrashChildEnv); spec != "" {
		return CrashChild(ctx, spec, stdout)
	}
	if spec := getenv(RawLoadChildEnv); spec != "" {
		return RawLoadChild(spec, stdout)
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "%s\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	sizes := fs.String("sizes", "1000,10000", "comma-separated corpus sizes, in narrations")
	work := fs.String("work", filepath.Join(os.TempDir(), "athar-bench"), "scratch directory (removed per size before use)")
	queries := fs.Int("queries", 200, "timed requests per query kind")
	kinds := fs.String("kinds", "", "query kinds to time, comma-separated (default all: "+strings.Join(KindKeys(), ",")+")")
	out := fs.String("out", "", "Markdown file to update (default: print the tables)")
	backends := fs.String("backends", "", "compare these Cayley backends instead (e.g. bbolt,leveldb,badger)")
	corpusStore := fs.String("corpus-store", "", "time the corpus queries on this store instead (e.g. bbolt:/tmp/copy)")
	serverLog := fs.String("server-log", "", "with --corpus-store: append the server's standard error to this file")
	rounds := fs.Int("import-rounds", 1, "time the import in this many pairs of loads (athar load and raw Cayley's), each into new stores, raw Cayley's first in every other pair: the tables give the first, a table after them every pair and the median ratio")
	reuse := fs.Bool("reuse", false, "time the queries and writes on the documents and stores an earlier run of the same sizes left in --work, without generating or loading them (the import is not measured)")
	corpusImport := fs.Bool("corpus-import", false, "time instead 'athar corpus import' of the edition files given as arguments into a new store in --work, against raw Cayley loading that store's N-Quads export")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return UsageError{}
	}
	if *rounds < 1 {
		return usagef("bench: --import-rounds %d: expected 1 or more pairs of loads", *rounds)
	}
	var ns []int
	for _, s := range splitList(*sizes) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return usagef("bench: bad size %q", s)
		}
		ns = append(ns, n)
	}
	meta := Meta{Command: "athar bench " + strings.Join(args, " "), Machine: Machine(), Date: time.Now().UTC(), Load: loadAvg()}
	var tables bytes.Buffer
	begin, end := BenchBegin, BenchEnd
	if *corpusImport {
		r, err := RunCorpusImport(ctx, CorpusImportConfig{Files: fs.Args(), WorkDir: *work, Binary: binary, Log: stderr})
		if err != nil {
			return err
		}
		if err := WriteCorpusImportMarkdown(&tables, meta, r); err != nil {
			return err
		}
		begin, end = CorpusImportBegin, CorpusImportEnd
	} else if *corpusStore != "" {
		cfg := CorpusConfig{Store: *corpusStore, Binary: binary, Queries: *queries, Log: stderr}
		if *serverLog != "" {
			f, err := os.OpenFile(*serverLog, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
			if err != nil {
				return err
			}
			defer f.Close()
			cfg.ServerLog = f
		}
		r, err := RunCorpus(ctx, cfg)
		if err != nil {
			return err
		}
		if err := WriteCorpusMarkdown(&tables, meta, r); err != nil {
			return err
		}
		begin, end = CorpusBegin, CorpusEnd
	} else if *backends != "" {
		results, err := RunBackends(ctx, BackendConfig{Backends: splitList(*backends), Sizes: ns, WorkDir: *work,
			Binary: binary, ChildArgs: []string{"bench"}, Queries: *queries, Log: stderr})
		if err != nil {
			return err
		}
		if err := WriteBackendsMarkdown(&tables, meta, results); err != nil {
			return err
		}
		begin, end = BackendsBegin, BackendsEnd
	} else {
		ks := splitList(*kinds)
		for _, k := range ks {
			if !slices.Contains(KindKeys(), k) {
				return usagef("bench: unknown query kind %q (expected one of %s)", k, strings.Join(KindKeys(), ", "))
			}
		}
		results, err := Run(ctx, Config{Sizes: ns, WorkDir: *work, Binary: binary, Queries: *queries, Kinds: ks, Log: stderr, Reuse: *reuse, ImportRounds: *rounds})
		if err != nil {
			return err
		}
		if err := WriteMarkdown(&tables, meta, results); err != nil {
			return err
		}
	}
	if *out == "" {
		_, err := stdout.Write(tables.Bytes())
		return err
	}
	return ReplaceSection(*out, begin, end, tables.Bytes())
}

// splitList splits a comma-separated list, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
