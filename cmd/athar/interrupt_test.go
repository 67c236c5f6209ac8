package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// tripCtx is a context that is cancelled by the at-th call of its Done method (never when
// at is 0), as a SIGTERM arriving at that point of the work would cancel it. Done is what
// Cayley's iterators and the importer's lock watch, so counting its calls finds a point in
// the middle of a load without a clock.
type tripCtx struct {
	context.Context
	at    int64
	calls atomic.Int64
	once  sync.Once
	done  chan struct{}
}

func newTripCtx(at int64) *tripCtx {
	return &tripCtx{Context: context.Background(), at: at, done: make(chan struct{})}
}

func (c *tripCtx) Done() <-chan struct{} {
	if n := c.calls.Add(1); c.at > 0 && n >= c.at {
		c.once.Do(func() { close(c.done) })
	}
	return c.done
}

func (c *tripCtx) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

func (c *tripCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// TestLoadInterrupted cancels 'athar load' in the middle of loading 40 valid documents in
// batches of 10 (the documents of later batches read what earlier ones stored): the
// documents it did not get to are reported as not loaded because of the interruption --
// none as refused, none with a false "not defined" -- and it exits 1 saying so. Loading
// again finishes the job.
func TestLoadInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	mustCLI(t, nil, "gen", "--n", "40", "--out", dir)
	loadWith := func(ctx context.Context, store string) result {
		var out, errb bytes.Buffer
		err := run(ctx, []string{"athar", "load", "--batch", "10", "--store", store, dir}, func(string) string { return "" }, strings.NewReader(""), &out, &errb)
		return result{out.String(), errb.String(), err}
	}
	// A whole load, counting the calls to Done, tells where its middle is.
	whole := newTripCtx(0)
	if r := loadWith(whole, "bbolt:"+filepath.Join(t.TempDir(), "whole")); r.err != nil {
		t.Fatalf("uninterrupted load: %v\n%s", r.err, r.stderr)
	}
	store := "bbolt:" + filepath.Join(t.TempDir(), "store")
	r := loadWith(newTripCtx(whole.calls.Load()/2), store)
	if exitCode(r.err) != 1 || !strings.Contains(r.err.Error(), "interrupted") || !strings.Contains(r.err.Error(), "not loaded") {
		t.Fatalf("interrupted load: exit %d, error %v; want exit 1 saying it was interrupted\nstdout: %s\nstderr: %s", exitCode(r.err), r.err, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "not defined") || strings.Contains(r.stderr, "claims[") {
		t.Errorf("an interrupted load reported valid documents as invalid:\n%s", firstLines(r.stderr, 5))
	}
	m := regexp.MustCompile(`(\d+) document\(s\): (\d+) imported, 0 unchanged, 0 refused; .*; (\d+) not loaded \(interrupted\)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("summary %q: want 0 refused and a count of documents not loaded", r.stdout)
	}
	total, imported, notLoaded := atoi(m[1]), atoi(m[2]), atoi(m[3])
	if total != 40 || imported+notLoaded != total || notLoaded == 0 {
		t.Errorf("summary %q: want the 40 documents each imported or not loaded, some not loaded", r.stdout)
	}
	again := mustCLI(t, nil, "load", "--store", store, dir)
	if !strings.Contains(again.stdout, strconv.Itoa(notLoaded)+" imported, "+strconv.Itoa(imported)+" unchanged, 0 refused") {
		t.Errorf("loading again: %q, want the %d documents not loaded imported and the %d others unchanged", again.stdout, notLoaded, imported)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
