//go:build bench

package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

// BackendConfig says what to measure in the comparison of Cayley's embedded backends
// (`athar bench --backends`): the same quads bulk-loaded into each, the raw lookups of the
// main bench on each, the size on disk, and what survives a SIGKILL in the middle of a load.
type BackendConfig struct {
	Backends []string // cayleystore.EmbeddedBackends, or some of them
	Sizes    []int    // corpus sizes, in narrations
	WorkDir  string   // scratch space (removed per size before use)
	Binary   string   // the athar binary: `athar load` builds the corpus's quads
	// ChildArgs are the arguments that make Binary run CrashChild when CrashChildEnv is
	// set (`athar bench` does; a test binary's TestMain can too).
	ChildArgs []string
	Queries   int // timed runs per lookup (after a warm-up), as in the main bench
	Batch     int // quads per transaction (default 10,000, as in the main bench)
	Log       io.Writer
}

// BackendResult is one backend's figures at one corpus size.
type BackendResult struct {
	Backend    string
	Narrations int
	Quads      int
	Load       time.Duration // BulkLoad in transactions of Batch quads, on a fresh store
	Close      time.Duration // closing the store after the load (flushes, compactions)
	Reopen     time.Duration // opening it again
	DiskBytes  int64         // the store's directory after the load and the close
	Queries    []BackendQuery
	Crash      CrashResult
}

// BackendQuery is one raw lookup's latency.
type BackendQuery struct {
	Kind string
	Latency
}

// CrashResult is what a store kept after its loader was killed with SIGKILL mid-load.
type CrashResult struct {
	Transactions int    // in the whole load
	Reported     int    // the loader reported committed before it died
	Killed       bool   // false: the loader finished before the kill landed
	Kept         int    // transactions wholly in the reopened store
	Lost         int    // reported committed, yet not wholly in the store
	Partial      int    // transactions only partly in the store
	Foreign      int    // quads in the store that the load never wrote
	Err          string // the reopened store could not be opened or read
}

// Sound reports whether the store kept exactly whole transactions, every one reported.
func (c CrashResult) Sound() bool {
	return c.Err == "" && c.Lost == 0 && c.Partial == 0 && c.Foreign == 0 && c.Kept >= c.Reported
}

// RunBackends runs the comparison at every size.
func RunBackends(ctx context.Context, cfg BackendConfig) ([]BackendResult, error) {
	if len(cfg.Backends) == 0 {
		cfg.Backends = cayleystore.EmbeddedBackends
	}
	for _, b := range cfg.Backends {
		if !slices.Contains(cayleystore.EmbeddedBackends, b) {
			return nil, fmt.Errorf("backends: %q is not one of %s", b, strings.Join(cayleystore.EmbeddedBackends, ", "))
		}
	}
	var out []BackendResult
	for _, n := range cfg.Sizes {
		quads, file, err := corpusQuads(ctx, cfg, n)
		if err != nil {
			return out, fmt.Errorf("backends, %d narrations: %w", n, err)
		}
		rs, err := compareBackends(ctx, cfg, n, quads, file)
		out = append(out, rs...)
		if err != nil {
			return out, fmt.Errorf("backends, %d narrations: %w", n, err)
		}
	}
	return out, nil
}

// corpusQuads builds the quads of a generated corpus as the main bench does (athar load of
// the documents into a bbolt store, then the store's quads read back), drops repeats, and
// writes them as N-Quads for the crash loader. Every backend gets these very quads.
func corpusQuads(ctx context.Context, cfg BackendConfig, n int) ([]athar.Quad, string, error) {
	base := filepath.Join(cfg.WorkDir, fmt.Sprintf("backends-n%d", n))
	if err := os.RemoveAll(base); err != nil {
		return nil, "", err
	}
	docs := filepath.Join(base, "docs")
	if err := writeCorpus(docs, n); err != nil {
		return nil, "", err
	}
	storeDir := filepath.Join(base, "athar")
	if out, err := exec.CommandContext(ctx, cfg.Binary, "load", "--store", "bbolt:"+storeDir, docs).CombinedOutput(); err != nil {
		return nil, "", fmt.Errorf("athar load: %v\n%s", err, out)
	}
	st, err := cayleystore.Open("bbolt:"+storeDir, nil)
	if err != nil {
		return nil, "", err
	}
	var quads []athar.Quad
	seen := map[string]bool{}
	err = st.Quads(ctx, func(q athar.Quad) error {
		if k := q.Key(); !seen[k] {
			seen[k] = true
			quads = append(quads, q)
		}
		return nil
	})
	st.Close()
	if err != nil {
		return nil, "", err
	}
	file := filepath.Join(base, "quads.nq")
	if err := writeQuadsFile(file, quads); err != nil {
		return nil, "", err
	}
	logf(cfg.Log, "%d narrations: %d quads", n, len(quads))
	return quads, file, nil
}

func writeQuadsFile(path string, quads []athar.Quad) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := cayleystore.WriteNQuads(w, quads); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// compareBackends measures every backend on the quads (also in file, for the crash loader).
func compareBackends(ctx context.Context, cfg BackendConfig, n int, quads []athar.Quad, file string) ([]BackendResult, error) {
	if cfg.Batch <= 0 {
		cfg.Batch = 10000
	}
	if cfg.Queries <= 0 {
		cfg.Queries = 200
	}
	base := filepath.Dir(file)
	var out []BackendResult
	for _, b := range cfg.Backends {
		res := BackendResult{Backend: b, Narrations: n, Quads: len(quads)}
		dir := filepath.Join(base, "load-"+b)
		if err := os.RemoveAll(dir); err != nil {
			return out, err
		}
		raw, err := cayleystore.OpenRawBackend(b, dir)
		if err != nil {
			return out, fmt.Errorf("%s: %w", b, err)
		}
		start := time.Now()
		if err := raw.BulkLoad(quads, cfg.Batch); err != nil {
			raw.Close()
			return out, fmt.Errorf("%s: %w", b, err)
		}
		res.Load = time.Since(start)
		start = time.Now()
		if err := raw.Close(); err != nil {
			return out, fmt.Errorf("%s: close: %w", b, err)
		}
		res.Close = time.Since(start)
		res.DiskBytes = dirSize(dir)
		start = time.Now()
		if raw, err = cayleystore.OpenRawBackend(b, dir); err != nil {
			return out, fmt.Errorf("%s: reopen: %w", b, err)
		}
		res.Reopen = time.Since(start)
		logf(cfg.Log, "%-8s load %s (%.0f quads/s), close %s, %.0f MiB on disk, reopen %s", b, res.Load.Round(time.Millisecond),
			float64(len(quads))/res.Load.Seconds(), res.Close.Round(time.Millisecond), float64(res.DiskBytes)/(1<<20), res.Reopen.Round(time.Millisecond))
		for _, k := range kinds() {
			if k.raw == nil {
				continue
			}
			l, err := timeIt(cfg.Queries, func() error { return k.raw(ctx, raw) }, nil)
			if err != nil {
				raw.Close()
				return out, fmt.Errorf("%s: %s: %w", b, k.name, err)
			}
			res.Queries = append(res.Queries, BackendQuery{Kind: k.name, Latency: l})
			logf(cfg.Log, "%-8s %-26s p50 %s p99 %s", b, k.name, l.P50, l.P99)
		}
		if err := raw.Close(); err != nil {
			return out, err
		}
		_ = os.RemoveAll(dir)

		res.Crash, err = crashLoad(ctx, cfg, crashSpec{Backend: b, Dir: filepath.Join(base, "crash-"+b), Quads: file, Batch: cfg.Batch}, quads)
		if err != nil {
			return out, fmt.Errorf("%s: crash test: %w", b, err)
		}
		c := res.Crash
		logf(cfg.Log, "%-8s SIGKILL after %d of %d transactions reported (killed: %v): kept %d, lost %d, partial %d, foreign quads %d %s",
			b, c.Reported, c.Transactions, c.Killed, c.Kept, c.Lost, c.Partial, c.Foreign, c.Err)
		out = append(out, res)
	}
	return out, nil
}

// CrashChildEnv, when set in the environment of `athar bench`, makes it the crash test's
// loader (CrashChild) instead of a benchmark; its value is the loader's JSON crashSpec.
const CrashChildEnv = "ATHAR_BENCH_CRASH_CHILD"

// crashSpec tells the crash loader what to load where.
type crashSpec struct {
	Backend string
	Dir     string // a fresh store
	Quads   string // N-Quads file
	Batch   int    // quads per transaction
	// KillAfter is the transaction count after whose report the parent kills the loader,
	// half a transaction's time later (default: half the transactions).
	KillAfter int `json:",omitempty"`
	// Fault makes the loader misbehave at transaction KillAfter, to prove that the check
	// catches it: "report-early" reports the transaction committed without committing it
	// (lost committed work); "split" commits half of it as a transaction of its own (a
	// partial transaction). Either then says "hang" and waits to be killed. Tests only.
	Fault string `json:",omitempty"`
}

// CrashChild is the crash test's loader: it bulk-loads the quads of the spec in
// transactions and writes "committed N" on out as soon as transaction N (from 0) has been
// committed, until it is killed or done.
func CrashChild(ctx context.Context, specJSON string, out io.Writer) error {
	var spec crashSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("%s: %w", CrashChildEnv, err)
	}
	f, err := os.Open(spec.Quads)
	if err != nil {
		return err
	}
	quads, err := cayleystore.ReadNQuads(bufio.NewReader(f))
	f.Close()
	if err != nil {
		return err
	}
	raw, err := cayleystore.OpenRawBackend(spec.Backend, spec.Dir)
	if err != nil {
		return err
	}
	defer raw.Close()
	report := func(tx int) error {
		_, err := fmt.Fprintf(out, "committed %d\n", tx)
		return err
	}
	head := quads
	if spec.Fault != "" {
		head = quads[:min(spec.KillAfter*spec.Batch, len(quads))]
	}
	if err := raw.BulkLoadEach(head, spec.Batch, report); err != nil {
		return err
	}
	switch spec.Fault {
	case "":
		return nil
	case "report-early":
		if err := report(spec.KillAfter); err != nil {
			return err
		}
	case "split":
		next := quads[len(head):min(len(head)+spec.Batch, len(quads))]
		if err := raw.BulkLoad(next[:len(next)/2], spec.Batch); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown fault %q", spec.Fault)
	}
	if _, err := fmt.Fprintln(out, "hang"); err != nil {
		return err
	}
	<-ctx.Done() // until killed
	return ctx.Err()
}

// crashLoad runs the crash loader on a fresh store, kills it with SIGKILL in the middle of a
// transaction once it has reported spec.KillAfter transactions committed, reopens the store
// and checks what it kept against quads (the loader's input).
func crashLoad(ctx context.Context, cfg BackendConfig, spec crashSpec, quads []athar.Quad) (CrashResult, error) {
	res := CrashResult{Transactions: (len(quads) + spec.Batch - 1) / spec.Batch}
	if spec.KillAfter <= 0 {
		spec.KillAfter = max(1, res.Transactions/2)
	}
	if err := os.RemoveAll(spec.Dir); err != nil {
		return res, err
	}
	defer os.RemoveAll(spec.Dir)
	js, err := json.Marshal(spec)
	if err != nil {
		return res, err
	}
	cmd := exec.CommandContext(ctx, cfg.Binary, cfg.ChildArgs...)
	cmd.Env = append(os.Environ(), CrashChildEnv+"="+string(js))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return res, err
	}
	if err := cmd.Start(); err != nil {
		return res, err
	}
	defer func() { _ = cmd.Process.Kill() }() // a loader hanging after a failed read below
	start := time.Now()
	var first time.Time
	sc := bufio.NewScanner(stdout)
	kill := func() error {
		if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return err
		}
		return nil
	}
	for sc.Scan() {
		if sc.Text() == "hang" { // a faulty loader (tests) has done its damage
			if err := kill(); err != nil {
				return res, err
			}
			continue
		}
		tx, ok := strings.CutPrefix(sc.Text(), "committed ")
		n, err := strconv.Atoi(tx)
		if !ok || err != nil {
			return res, fmt.Errorf("crash loader said %q", sc.Text())
		}
		res.Reported = max(res.Reported, n+1)
		if n == 0 {
			first = time.Now()
		}
		if res.Reported == spec.KillAfter && spec.Fault == "" {
			// The loader is now inside the next transaction; let it get about halfway.
			per := first.Sub(start)
			if res.Reported > 1 {
				per = time.Since(first) / time.Duration(res.Reported-1)
			}
			time.Sleep(per / 2)
			if err := kill(); err != nil {
				return res, err
			}
		}
	}
	err = cmd.Wait()
	res.Killed = cmd.ProcessState != nil && !cmd.ProcessState.Exited()
	if err != nil && !res.Killed {
		return res, fmt.Errorf("crash loader: %v\n%s", err, stderr.String())
	}
	raw, err := cayleystore.OpenRawBackend(spec.Backend, spec.Dir)
	if err != nil {
		res.Err = "reopen: " + err.Error()
		return res, nil
	}
	present := map[string]bool{}
	err = raw.Each(ctx, func(q athar.Quad) error { present[q.Key()] = true; return nil })
	raw.Close()
	if err != nil {
		res.Err = "read: " + err.Error()
		return res, nil
	}
	res.Kept, res.Lost, res.Partial, res.Foreign = checkTransactions(quads, spec.Batch, present, res.Reported)
	return res, nil
}

// checkTransactions compares the quads found in a store (present, by Key) with a load of
// quads in transactions of batch quads of which the first reported were reported
// committed: kept is the number of transactions wholly present, lost the number of reported
// ones not wholly present, partial the number present only in part, and foreign the number
// of present quads that are in no transaction.
func checkTransactions(quads []athar.Quad, batch int, present map[string]bool, reported int) (kept, lost, partial, foreign int) {
	found := 0
	for i, tx := 0, 0; i < len(quads); i, tx = i+batch, tx+1 {
		in := 0
		for _, q := range quads[i:min(i+batch, len(quads))] {
			if present[q.Key()] {
				in++
			}
		}
		found += in
		switch {
		case in == min(i+batch, len(quads))-i:
			kept++
		case in > 0:
			partial++
			fallthrough
		default:
			if tx < reported {
				lost++
			}
		}
	}
	return kept, lost, partial, len(present) - found
}

// WriteBackendsMarkdown writes the comparison as the measured part of the "Choice of
// embedded backend" section of docs/BENCHMARKS.md.
func WriteBackendsMarkdown(w io.Writer, m Meta, results []BackendResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: `%s`  \nMachine: %s  \nDate: %s\n\n", m.Command, m.Machine, m.Date.Format("2006-01-02 15:04 MST"))
	b.WriteString("#### Load (raw Cayley, ApplyDeltas in transactions of 10,000 quads, fresh store) and size\n\n" +
		"| narrations | backend | quads | load | quads/s | close after load | on disk | reopen |\n| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %d | %s | %d | %s | %.0f | %s | %.1f MiB | %s |\n", r.Narrations, r.Backend, r.Quads,
			r.Load.Round(time.Millisecond), float64(r.Quads)/r.Load.Seconds(), r.Close.Round(time.Millisecond),
			float64(r.DiskBytes)/(1<<20), r.Reopen.Round(time.Millisecond))
	}
	// One row per size and lookup, the backends side by side.
	type row struct {
		n    int
		kind string
	}
	var rows []row
	var backends []string
	lat := map[row]map[string]Latency{}
	for _, r := range results {
		if !slices.Contains(backends, r.Backend) {
			backends = append(backends, r.Backend)
		}
		for _, q := range r.Queries {
			k := row{r.Narrations, q.Kind}
			if lat[k] == nil {
				lat[k] = map[string]Latency{}
				rows = append(rows, k)
			}
			lat[k][r.Backend] = q.Latency
		}
	}
	b.WriteString("\n#### Raw lookups of the main bench (in process, sequential; p50 / p99)\n\n| narrations | query |")
	for _, be := range backends {
		b.WriteString(" " + be + " |")
	}
	b.WriteString("\n| ---: | --- |" + strings.Repeat(" ---: |", len(backends)) + "\n")
	for _, k := range rows {
		fmt.Fprintf(&b, "| %d | %s |", k.n, k.kind)
		for _, be := range backends {
			if l, ok := lat[k][be]; ok {
				fmt.Fprintf(&b, " %s / %s |", ms(l.P50), ms(l.P99))
			} else {
				b.WriteString(" n/a |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n#### Durability: SIGKILL in the middle of a bulk load, then reopen\n\n" +
		"| narrations | backend | transactions | reported committed before the kill | whole transactions kept | lost committed work | partial transactions | verdict |\n" +
		"| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range results {
		c := r.Crash
		verdict := "whole transactions only, nothing reported lost"
		switch {
		case c.Err != "":
			verdict = "**" + c.Err + "**"
		case !c.Sound():
			verdict = fmt.Sprintf("**not sound** (%d quads from no transaction)", c.Foreign)
		case !c.Killed:
			verdict = "the load finished before the kill: nothing tested"
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %d | %d | %d | %s |\n", r.Narrations, r.Backend, c.Transactions, c.Reported, c.Kept, c.Lost, c.Partial, verdict)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
