// Command athar runs Athar: a knowledge graph of the people, events and Qur'an verses in
// Islamic narrations, where every claim is traced to the narrations and words that attest it.
//
// All wiring lives here; main only calls run, and the tests call run too.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// ATHAR_CPUPROFILE=FILE writes a CPU profile of the whole command (go tool pprof FILE),
	// for finding where a load or a query spends its time.
	if record("ATHAR_CPUPROFILE", pprof.StartCPUProfile) {
		defer pprof.StopCPUProfile()
	}
	// ATHAR_TRACE=FILE writes an execution trace of the whole command (go tool trace FILE):
	// where a load waits rather than computes -- on a lock, a commit's fsync, the collector.
	if record("ATHAR_TRACE", trace.Start) {
		defer trace.Stop()
	}
	// ATHAR_MEMPROFILE=FILE writes, at the end, the profile of what the command allocated
	// (go tool pprof -sample_index=alloc_space FILE): what makes a query's garbage.
	if path := os.Getenv("ATHAR_MEMPROFILE"); path != "" {
		defer writeAllocs(path)
	}
	startProfiler(os.Args, os.Getenv)
	if err := run(ctx, os.Args, os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		pprof.StopCPUProfile()
		trace.Stop()
		if path := os.Getenv("ATHAR_MEMPROFILE"); path != "" {
			writeAllocs(path)
		}
		var ee exitError
		if !errors.As(err, &ee) || ee.msg != "" {
			fmt.Fprintln(os.Stderr, "athar:", err)
		}
		os.Exit(exitCode(err))
	}
}

// record starts start writing into the file the environment variable env names, and
// reports whether it did; when the file cannot be made or written, the command stops there.
func record(env string, start func(io.Writer) error) bool {
	path := os.Getenv(env)
	if path == "" {
		return false
	}
	f, err := os.Create(path)
	if err == nil {
		err = start(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "athar: %s=%s: %v\n", env, path, err)
		os.Exit(2)
	}
	return true
}

func writeAllocs(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "athar: ATHAR_MEMPROFILE=%s: %v\n", path, err)
	}
}

// exitError carries an exit code: 1 for failed work (invalid documents), 2 for bad usage.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 1
}

func usageError(format string, args ...any) error {
	return exitError{code: 2, msg: fmt.Sprintf(format, args...)}
}

// env is the process environment as run sees it.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

type command struct {
	name, summary string
	run           func(ctx context.Context, e env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "run the HTTP server (explorer, GraphQL, exports); loads the seeds into an empty store", cmdServe},
		{"seed", "load the embedded seed narrations (idempotent)", cmdSeed},
		{"load", "import narration documents (YAML, JSON) or N-Quads files; directories recursively", cmdLoad},
		{"validate", "check narration documents without touching any store", cmdValidate},
		{"export", "write the graph or a neighbourhood as N-Quads, JSON-LD, Cytoscape, GraphML or GEXF", cmdExport},
		{"delete", "remove a narration and everything it asserted", cmdDelete},
		{"backup", "write the whole store as compressed N-Quads (lossless)", cmdBackup},
		{"restore", "restore a backup into an empty store (or --replace)", cmdRestore},
		{"compact", "rewrite the store's file without its free pages (serve stopped)", cmdCompact},
		{"gen", "write a synthetic corpus of narration documents (for load tests and benchmarks)", cmdGen},
		{"bench", "measure Athar against raw Cayley and write docs/BENCHMARKS.md", cmdBench},
		{"merge", "make two ids one entity: KEEP takes over everything said of REMOVE", cmdMerge},
		{"verses", "import the Qur'an's verse texts and translation (verses import FILE)", cmdVerses},
		{"corpus", "import the canonical hadith collections (corpus import FILE...: hadith-api editions)", cmdCorpus},
	}
}

const mainUsage = `athar: a knowledge graph of the people, events and Qur'an verses in Islamic narrations.

Usage:
  athar <command> [flags] [arguments]

Commands:
%s
Configuration comes from flags, with defaults from the environment:
  ATHAR_STORE   where the graph lives: bbolt:DIR (default bbolt:./data/athar) or memory:
  ATHAR_ADDR    the address serve listens on (default :8080)
  ATHAR_TOKEN   the bearer token that authorises GraphQL mutations (unset: none allowed)
  ATHAR_DATABASE  scale-out mode: postgres://... of the PostgreSQL or CockroachDB holding the
                 log of changes that every replica applies (docs/scale-out.md; unset: embedded)

Run 'athar <command> --help' for a command's flags.
`

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	cmds := commands()
	var list string
	for _, c := range cmds {
		list += fmt.Sprintf("  %-9s %s\n", c.name, c.summary)
	}
	if len(args) < 2 {
		fmt.Fprintf(stderr, mainUsage, list)
		return usageError("no command given")
	}
	name := args[1]
	switch name {
	case "help", "-h", "--help", "-help":
		fmt.Fprintf(stdout, mainUsage, list)
		return nil
	}
	for _, c := range cmds {
		if c.name == name {
			err := c.run(ctx, e, args[2:])
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return err
		}
	}
	fmt.Fprintf(stderr, mainUsage, list)
	return usageError("unknown command %q", name)
}

// newFlags returns a flag set for a subcommand whose usage prints the synopsis and flags.
func newFlags(e env, name, synopsis, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: athar %s %s\n\n%s\n", name, synopsis, help)
		if hasFlags(fs) {
			fmt.Fprintln(e.stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// parse parses flags, turning flag errors into usage errors.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return exitError{code: 2, msg: ""}
	}
	return nil
}

func storeFlag(fs *flag.FlagSet, e env) *string {
	def := e.getenv("ATHAR_STORE")
	if def == "" {
		def = "bbolt:./data/athar"
	}
	return fs.String("store", def, "the store: bbolt:DIR or memory: (env ATHAR_STORE)")
}
