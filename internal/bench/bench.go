//go:build bench

// Package bench measures Athar against raw Cayley on the same data and the same backend,
// and writes the results as a Markdown table (docs/BENCHMARKS.md). `athar bench` runs it;
// it is a measurement tool, not part of the product, and never runs in the test suite.
package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/corpus"
	"github.com/athar-hadith/athar/schema"
)

// Config says what to measure.
type Config struct {
	Sizes   []int     // corpus sizes, in narrations
	WorkDir string    // scratch space for corpora and stores
	Binary  string    // the athar binary to run `load` and `serve` with
	Queries int       // timed requests per query kind (after a warm-up)
	Kinds   []string  // the query kinds to time (their keys); all when empty
	Log     io.Writer // progress
	// Reuse times the queries and writes on the documents and stores an earlier run left
	// in WorkDir (nN/docs, nN/athar, nN/raw) instead of generating and loading them: the
	// import is not measured. A run at 100,000 narrations spends most of its hours loading.
	Reuse bool
	// ImportRounds is how many pairs of loads the import is timed in (1 when less): the
	// first, which the tables give, then pairs into new stores of their own, raw Cayley's
	// first in every other one. One pair's ratio moves by 0.05-0.1x from run to run on a
	// 2-core machine; the pairs show how far in the same run.
	ImportRounds int
}

// ImportRound is one pair of loads of the same documents into new stores: `athar load`
// and raw Cayley loading the first store's export.
type ImportRound struct {
	Athar, AtharCPU, Raw, RawCPU time.Duration
}

// Ratio is Athar's load time over raw Cayley's.
func (r ImportRound) Ratio() float64 { return r.Athar.Seconds() / r.Raw.Seconds() }

// Latency is a distribution summary over Runs timed runs.
type Latency struct {
	P50, P99 time.Duration
	Runs     int
}

// Query is one query kind's figures: Athar over HTTP GraphQL, and the raw Cayley lookups
// that fetch the same facts in process (zero when Cayley has no equivalent).
type Query struct {
	Kind  string
	Athar Latency
	Raw   Latency
}

// Result is the measurement at one corpus size.
type Result struct {
	Narrations int
	Quads      int
	AtharLoad  time.Duration // `athar load` of the generated documents, end to end
	RawLoad    time.Duration // raw Cayley loading the store's N-Quads export, ApplyDeltas in transactions of ingest.TxQuads, as Athar's
	// The CPU time (user + system) of each load: the load process's, and this process's
	// during the raw load. Unlike wall time it hardly moves when other work shares the
	// machine, so it compares the two loads' work even then.
	AtharLoadCPU, RawLoadCPU time.Duration
	Queries                  []Query
	PeakRSS                  int64 // the server's peak resident memory, bytes (VmHWM)
	AnonRSS                  int64 // at the end, what is not backed by files (RssAnon): heap, no store pages
	DiskBytes                int64 // the store's size on disk
	Reused                   bool  // the stores of an earlier run: no import measured
	// Rounds are the import's pairs of loads after the first (AtharLoad and RawLoad), with
	// Config.ImportRounds > 1.
	Rounds []ImportRound
}

// Pairs are every pair of loads the import was timed in, the first one's included.
func (r Result) Pairs() []ImportRound {
	first := ImportRound{Athar: r.AtharLoad, AtharCPU: r.AtharLoadCPU, Raw: r.RawLoad, RawCPU: r.RawLoadCPU}
	return append([]ImportRound{first}, r.Rounds...)
}

// Run measures every size in turn.
func Run(ctx context.Context, cfg Config) ([]Result, error) {
	if cfg.Queries <= 0 {
		cfg.Queries = 200
	}
	var out []Result
	for _, n := range cfg.Sizes {
		r, err := runSize(ctx, cfg, n)
		if err != nil {
			return out, fmt.Errorf("bench %d narrations: %w", n, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// logf writes a timestamped progress line to w, when there is one.
func logf(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, time.Now().Format("15:04:05 ")+format+"\n", args...)
	}
}

func runSize(ctx context.Context, cfg Config, n int) (Result, error) {
	res := Result{Narrations: n, Reused: cfg.Reuse}
	base := filepath.Join(cfg.WorkDir, fmt.Sprintf("n%d", n))
	docs := filepath.Join(base, "docs")
	storeDir := filepath.Join(base, "athar")
	rawDir := filepath.Join(base, "raw")
	if cfg.Reuse {
		for _, dir := range []string{docs, storeDir, rawDir} {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return res, fmt.Errorf("--reuse: %s: no directory of an earlier run (run without --reuse first)", dir)
			}
		}
		logf(cfg.Log, "reusing the documents and stores in %s", base)
	} else if err := generateAndLoad(ctx, cfg, n, &res, docs, storeDir); err != nil {
		return res, err
	}
	res.DiskBytes = dirSize(storeDir)

	st, err := cayleystore.Open("bbolt:"+storeDir, nil)
	if err != nil {
		return res, err
	}
	// The quads of the narration the write kinds replace and delete.
	one, err := st.NarrationQuads(ctx, writeNarration(n))
	st.Close()
	if err != nil {
		return res, err
	}
	// The store's N-Quads export, made before the writes the server is timed on: raw Cayley
	// loads it after them, streamed from the file as a Cayley user loads one (parsing
	// included) -- the same quads, and never all of them in memory (held whole, the 100k
	// store's 23 million quads took 21.5 GB).
	nq := filepath.Join(base, "export.nq")
	if !cfg.Reuse {
		if _, err := exportNQuads(ctx, cfg.Binary, storeDir, nq); err != nil {
			return res, err
		}
	}
	addr, err := freeAddr()
	if err != nil {
		return res, err
	}
	srv := exec.CommandContext(ctx, cfg.Binary, "serve", "--store", "bbolt:"+storeDir, "--addr", addr)
	srv.Env = append(os.Environ(), "ATHAR_TOKEN="+benchToken)
	srv.Stderr = io.Discard
	if err := srv.Start(); err != nil {
		return res, err
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	url := "http://" + addr
	if err := waitHealthy(ctx, url, srv.Process.Pid); err != nil {
		return res, err
	}
	// A new store's full-text index is built in the background when it is first served
	// (19 s at 10,000 narrations): until 2026-12-01 10:40 the first kinds (the entity page)
	// were timed beside it.
	if err := waitSettled(url, srv.Process.Pid); err != nil {
		return res, err
	}
	w, err := newWrites(writeNarration(n), filepath.Join(docs, fmt.Sprintf("gen-%06d.json", n-1)), one)
	if err != nil {
		return res, err
	}
	var timed []kind
	for _, k := range append(kinds(), w.kinds()...) {
		if !selected(cfg.Kinds, k.key) {
			continue
		}
		q := Query{Kind: k.name}
		run := k.run
		if run == nil {
			run = func(string) error { return graphql(url, k.query, nil) }
		}
		if q.Athar, err = timeIt(cfg.Queries, func() error { return run(url) }, k.prep); err != nil {
			return res, fmt.Errorf("%s: %w", k.name, err)
		}
		logf(cfg.Log, "%-26s athar p50 %s p99 %s", k.name, q.Athar.P50, q.Athar.P99)
		res.Queries = append(res.Queries, q)
		timed = append(timed, k)
	}
	// The narration as loaded again, whatever the writes left: the store can be reused.
	if err := w.restoreAthar(url); err != nil {
		return res, fmt.Errorf("restore %s: %w", w.id, err)
	}
	res.PeakRSS = procStatus(srv.Process.Pid, "VmHWM:")
	res.AnonRSS = procStatus(srv.Process.Pid, "RssAnon:")
	_ = srv.Process.Kill()
	_ = srv.Wait()
	// Then raw Cayley loads the export, in a process of its own, once the server is timed
	// and gone: each side is timed with the other one idle. (Until 2026-12-02 it loaded in
	// this process before the server started, and the client timing the server then
	// shared its process with the garbage of loading millions of quads: the entity
	// page's p99 at 10k was 24.4 ms in the run of 03:12, 17.2 ms at 04:20 with the load
	// moved after the server.)
	if !cfg.Reuse {
		if res.Quads, res.RawLoad, res.RawLoadCPU, err = rawLoad(ctx, cfg.Binary, rawDir, nq); err != nil {
			return res, err
		}
		logf(cfg.Log, "raw cayley load of %d quads: %s (CPU %s)", res.Quads, res.RawLoad, res.RawLoadCPU)
		if err := importRounds(ctx, cfg, &res, docs, nq, base); err != nil {
			return res, err
		}
		_ = os.Remove(nq)
	}
	// Raw Cayley's lookups of the same facts, in this process.
	raw, err := cayleystore.OpenRaw(rawDir)
	if err != nil {
		return res, err
	}
	defer raw.Close()
	for i, k := range timed {
		if k.raw == nil {
			continue
		}
		q := &res.Queries[i]
		if q.Raw, err = timeIt(cfg.Queries, func() error { return k.raw(ctx, raw) }, k.rawPrep); err != nil {
			return res, fmt.Errorf("raw %s: %w", k.name, err)
		}
		logf(cfg.Log, "%-26s raw p50 %s p99 %s", k.name, q.Raw.P50, q.Raw.P99)
	}
	if err := w.restoreRaw(); err != nil {
		return res, fmt.Errorf("restore %s in raw Cayley's store: %w", w.id, err)
	}
	return res, nil
}

// writeCorpus writes the n documents of the generated corpus every run measures (seed 1)
// into docs, made if need be.
func writeCorpus(docs string, n int) error {
	if err := os.MkdirAll(docs, 0o755); err != nil {
		return err
	}
	g := corpus.New(corpus.Options{Narrations: n, Seed: 1}, schema.Vocabulary())
	for {
		name, data, ok := g.Next()
		if !ok {
			return nil
		}
		if err := os.WriteFile(filepath.Join(docs, name), data, 0o644); err != nil {
			return err
		}
	}
}

// importRounds times the import's further pairs of loads (Config.ImportRounds), each into
// new stores in base removed after it, raw Cayley's load first in every other pair, and
// records them in res.Rounds.
func importRounds(ctx context.Context, cfg Config, res *Result, docs, nq, base string) error {
	if cfg.ImportRounds < 2 {
		return nil
	}
	for i := 2; i <= cfg.ImportRounds; i++ {
		var r ImportRound
		atharDir, rawDir := filepath.Join(base, fmt.Sprintf("athar-round%d", i)), filepath.Join(base, fmt.Sprintf("raw-round%d", i))
		loadAthar := func() (err error) {
			r.Athar, r.AtharCPU, err = atharLoad(ctx, cfg.Binary, atharDir, docs)
			return err
		}
		loadRaw := func() (err error) {
			_, r.Raw, r.RawCPU, err = rawLoad(ctx, cfg.Binary, rawDir, nq)
			return err
		}
		steps := []func() error{loadAthar, loadRaw}
		if i%2 == 0 {
			steps[0], steps[1] = loadRaw, loadAthar
		}
		for _, step := range steps {
			if err := step(); err != nil {
				return fmt.Errorf("import round %d: %w", i, err)
			}
		}
		_ = os.RemoveAll(atharDir)
		_ = os.RemoveAll(rawDir)
		res.Rounds = append(res.Rounds, r)
		logf(cfg.Log, "import round %d: athar load %s, raw cayley %s: %.2fx", i, r.Athar, r.Raw, r.Ratio())
	}
	return nil
}

// atharLoad times `athar load` of docs into a new store in dir, process start to exit.
func atharLoad(ctx context.Context, binary, dir, docs string) (wall, cpu time.Duration, err error) {
	load := exec.CommandContext(ctx, binary, "load", "--store", "bbolt:"+dir, docs)
	start := time.Now()
	if out, err := load.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("athar load: %v\n%s", err, out)
	}
	return time.Since(start), load.ProcessState.UserTime() + load.ProcessState.SystemTime(), nil
}

// generateAndLoad writes the n generated documents into docs (base, their parent, made
// anew) and times `athar load` of them into storeDir.
func generateAndLoad(ctx context.Context, cfg Config, n int, res *Result, docs, storeDir string) error {
	base := filepath.Dir(docs)
	if err := os.RemoveAll(base); err != nil {
		return err
	}
	if err := writeCorpus(docs, n); err != nil {
		return err
	}
	logf(cfg.Log, "%d narrations generated", n)
	var err error
	if res.AtharLoad, res.AtharLoadCPU, err = atharLoad(ctx, cfg.Binary, storeDir, docs); err != nil {
		return err
	}
	logf(cfg.Log, "athar load: %s (CPU %s)", res.AtharLoad, res.AtharLoadCPU)
	return nil
}

type kind struct {
	key   string // for --kinds
	name  string
	query string
	raw   func(context.Context, *cayleystore.Raw) error
	// For the write kinds: run replaces the query, and prep (rawPrep) runs untimed before
	// each timed run of Athar (raw Cayley).
	run           func(url string) error
	prep, rawPrep func() error
}

// kinds are the query kinds measured; the corpus's most mentioned entities are g1.
func kinds() []kind {
	return []kind{
		{key: "entity", name: "entity, 50 claims", query: `{ entity(id: "person:g1") { id name aliases claims(first: 50) { totalCount edges { node { predicate subject { id name } object { id name } value attestations { narration { id } evidence start end } } } } } }`,
			raw: func(ctx context.Context, r *cayleystore.Raw) error { _, err := r.OutIn(ctx, "person:g1"); return err }},
		{key: "search", name: "search", query: `{ search(text: "person 12", first: 20) { id name } }`},
		{key: "neighbourhood", name: "neighbourhood, depth 2", query: `{ neighbourhood(id: "event:g3", depth: 2) { nodes { id } edges { source target predicate attestations } } }`,
			raw: func(ctx context.Context, r *cayleystore.Raw) error {
				_, err := r.Neighbourhood(ctx, "event:g3", 2)
				return err
			}},
		// The default slice (200 nodes, 1,000 edges) ends at about 20 nodes around this hub
		// at 10,000 narrations: every edge among 200 of them is 21,736, and gqlgen spends
		// some microseconds per list element. A page of 50 nodes, and the largest slice a
		// request may ask for, show what the cap saves.
		{key: "neighbourhood50", name: "neighbourhood, depth 2, first 50", query: `{ neighbourhood(id: "event:g3", depth: 2, first: 50) { nodes { id } edges { source target predicate attestations } pageInfo { endCursor } } }`},
		{key: "neighbourhoodMax", name: "neighbourhood, depth 2, maxEdges 10000", query: `{ neighbourhood(id: "event:g3", depth: 2, maxEdges: 10000) { nodes { id } edges { source target predicate attestations } pageInfo { endCursor } } }`},
		{key: "shortestPath", name: "shortestPath", query: `{ shortestPath(from: "person:g40", to: "place:g7", maxLength: 6) { nodes { id } edges { source target predicate } } }`},
		{key: "timeline", name: "timeline", query: `{ timeline { id } }`,
			raw: func(ctx context.Context, r *cayleystore.Raw) error {
				_, err := r.WithPredicate(ctx, athar.VocabBase+"precedes")
				return err
			}},
		{key: "variants", name: "variants", query: `{ variants(subject: "event:g0", predicate: "killedCount") { id value attestations { narration { id } evidence } } }`},
		{key: "commonLink", name: "commonLink of 100 narrations", query: commonLinkQuery(100)},
		{key: "claimsByPredicate", name: "claims by predicate", query: `{ claims(predicate: "advises", first: 50) { totalCount edges { node { id subject { id } object { id } } } } }`,
			raw: func(ctx context.Context, r *cayleystore.Raw) error {
				_, err := r.WithPredicate(ctx, athar.VocabBase+"advises")
				return err
			}},
	}
}

// KindKeys are the keys of the query kinds, in the order they are measured.
func KindKeys() []string {
	var keys []string
	for _, k := range append(kinds(), (&writes{}).kinds()...) {
		keys = append(keys, k.key)
	}
	return keys
}

func selected(keys []string, key string) bool {
	if len(keys) == 0 {
		return true
	}
	for _, k := range keys {
		if k == key {
			return true
		}
	}
	return false
}

func graphql(url, query string, vars map[string]any) error {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequest(http.MethodPost, url+"/graphql", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+benchToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var out struct {
		Errors []struct{ Message string } `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return err
	}
	// Read to the end, so that the connection is kept for the next request.
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if len(out.Errors) > 0 {
		return fmt.Errorf("%s", out.Errors[0].Message)
	}
	return nil
}

// timeBudget bounds the timed runs of one query kind on one side: a kind that takes
// seconds a run at 100k narrations is timed fewer times (never fewer than minRuns) rather
// than for an hour.
const (
	timeBudget = time.Minute
	minRuns    = 3
)

// timeIt runs fn (each time after prep, untimed) n times after n/10 warm-up runs (at least one; fewer once a quarter of
// timeBudget is spent), or fewer times once timeBudget is spent, and returns the p50 and p99 latency of the timed runs.
func timeIt(n int, fn, prep func() error) (Latency, error) {
	if prep == nil {
		prep = func() error { return nil }
	}
	warm := time.Now()
	for i := 0; i < max(1, n/10) && (i == 0 || time.Since(warm) < timeBudget/4); i++ {
		if err := prep(); err != nil {
			return Latency{}, err
		}
		if err := fn(); err != nil {
			return Latency{}, err
		}
	}
	// The raw side's lookups leave this process garbage; collect it now rather than
	// while it times the server, which shares the machine's cores with it.
	runtime.GC()
	d := make([]time.Duration, 0, n)
	begin := time.Now()
	for len(d) < n && (len(d) < minRuns || time.Since(begin) < timeBudget) {
		if err := prep(); err != nil {
			return Latency{}, err
		}
		start := time.Now()
		if err := fn(); err != nil {
			return Latency{}, err
		}
		d = append(d, time.Since(start))
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return Latency{P50: d[len(d)/2], P99: d[(len(d)*99)/100], Runs: len(d)}, nil
}

// selfCPU returns the CPU time (user + system) this process has used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func waitHealthy(ctx context.Context, url string, pid int) error {
	deadline := time.Now().Add(10 * time.Minute) // a large store builds its search index first
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if exited(pid) {
			return fmt.Errorf("the server (pid %d) exited before %s/healthz answered: another process may hold its store", pid, url)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("server at %s never became healthy", url)
}

// exited reports whether the child process pid has exited (a zombie until it is waited
// for) or is gone.
func exited(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// The state follows the command's name, which is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}

// procStatus reads a memory figure (e.g. VmHWM, the peak resident set) of a process from
// /proc/PID/status, in bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // a --reuse work directory may link to a store kept elsewhere
	}
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
