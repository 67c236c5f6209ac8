package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/corpus"
	"github.com/athar-hadith/athar/internal/testsupport"
	"github.com/athar-hadith/athar/schema"
)

// buildAthar compiles the athar binary once per test binary run.
func buildAthar(t *testing.T, flags ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "athar")
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, ".")...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// writeCorpus writes n generated documents into a new directory and returns it with the
// quads each narration must have when stored, from a reference load by the binary into a
// store of its own.
func writeCorpus(t *testing.T, bin string, n int) (string, map[string][]string) {
	t.Helper()
	dir := t.TempDir()
	g := corpus.New(corpus.Options{Narrations: n, Seed: 42}, schema.Vocabulary())
	for {
		name, data, ok := g.Next()
		if !ok {
			break
		}
		write(t, filepath.Join(dir, name), string(data))
	}
	refDir := filepath.Join(t.TempDir(), "reference")
	if out, err := exec.Command(bin, "load", "--store", "bbolt:"+refDir, dir).CombinedOutput(); err != nil {
		t.Fatalf("reference load: %v\n%s", err, out)
	}
	ref, err := cayleystore.Open("bbolt:"+refDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	return dir, byLabel(t, ref)
}

func byLabel(t *testing.T, st athar.Store) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	if err := st.Quads(context.Background(), func(q athar.Quad) error {
		out[q.Label] = append(out[q.Label], q.Key())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestKillDuringLoad kills `athar load` with SIGKILL at several moments and checks, after
// each, that the store reopens on its own and holds every narration either wholly, as the
// reference import stores it, or not at all, and that its manifest and read model -- which
// the load buffered (bulk mode) and the reopening rebuilds -- agree with its quads.
func TestKillDuringLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and loads a corpus")
	}
	bin := buildAthar(t)
	dir, want := writeCorpus(t, bin, 200)
	storeDir := filepath.Join(t.TempDir(), "store")
	sawPartialLoad := false
	for round := 0; round < 3; round++ {
		// Small batches give the kill many transactions to land among; -v reports each
		// commit, so the kill lands after round+1 more of them, mid-load.
		cmd := exec.Command(bin, "load", "-v", "--batch", "10", "--store", "bbolt:"+storeDir, dir)
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		for commits := 0; commits <= round && sc.Scan(); {
			if strings.HasPrefix(sc.Text(), "committed ") {
				commits++
			}
		}
		_ = cmd.Process.Signal(syscall.SIGKILL)
		go io.Copy(io.Discard, stderr)
		_ = cmd.Wait()

		got := checkAfterKill(t, storeDir, want, round)
		if len(got) > 0 && len(got) < len(want) {
			sawPartialLoad = true
		}
		t.Logf("round %d: killed with %d of %d narrations stored", round, len(got), len(want))
	}
	if !sawPartialLoad {
		t.Log("no kill landed mid-load (the machine was too fast or too slow); the invariant was still checked")
	}
	// Finishing the load gives exactly the reference graph.
	if out, err := exec.Command(bin, "load", "--store", "bbolt:"+storeDir, dir).CombinedOutput(); err != nil {
		t.Fatalf("load after the kills: %v\n%s", err, out)
	}
	st, err := cayleystore.Open("bbolt:"+storeDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	got := byLabel(t, st)
	if !reflect.DeepEqual(got, want) {
		t.Fatal("after resuming, the store differs from the reference import")
	}
	agreesWithScan(t, st, want, got)
	if err := st.CheckReadModel(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// agreesWithScan checks that NarrationQuads, which reads the store's manifest, gives for
// every narration of the corpus what a scan of the store finds (got, from byLabel): a kill
// between Cayley's commit and the manifest's must not leave a stale entry.
// checkAfterKill opens the store a kill -9 left and checks it: it opens on its own, its
// manifest and read model agree with its quads, and every narration of want it holds is
// whole. It returns those narrations' quads (the seeds a server loaded left out).
func checkAfterKill(t *testing.T, storeDir string, want map[string][]string, round int) map[string][]string {
	t.Helper()
	st, err := cayleystore.Open("bbolt:"+storeDir, nil)
	if err != nil {
		t.Fatalf("round %d: the store does not reopen after kill -9: %v", round, err)
	}
	defer st.Close()
	got := map[string][]string{}
	for label, quads := range byLabel(t, st) {
		if _, ok := want[label]; ok {
			got[label] = quads
		}
	}
	agreesWithScan(t, st, want, got)
	// The read model (sorted claim lists, counts, entity records) was rebuilt or finished at
	// Open, or still agrees with the quads, row for row.
	if err := st.CheckReadModel(context.Background()); err != nil {
		t.Fatalf("round %d: after kill -9: %v", round, err)
	}
	for label, quads := range got {
		if !reflect.DeepEqual(quads, want[label]) {
			t.Fatalf("round %d: %s is stored partially or wrongly: %d quads, want %d", round, label, len(quads), len(want[label]))
		}
	}
	return got
}

// startServe starts the built binary's server on storeDir, listening on a free port, with
// env added to the environment; it returns the process, its base URL, a channel closed
// when it exits, and its output. The process is killed at the end of the test.
func startServe(t *testing.T, bin, storeDir string, env ...string) (*exec.Cmd, string, <-chan struct{}, *testsupport.Buffer) {
	t.Helper()
	srv := exec.Command(bin, "serve", "--store", "bbolt:"+storeDir)
	srv.Env = append(append(os.Environ(), "ATHAR_ADDR=127.0.0.1:0"), env...)
	logs := &testsupport.Buffer{}
	srv.Stdout, srv.Stderr = logs, logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { srv.Wait(); close(exited) }()
	t.Cleanup(func() {
		srv.Process.Kill()
		<-exited
	})
	return srv, "http://" + testsupport.Listening(t, logs, exited), exited, logs
}

func agreesWithScan(t *testing.T, st athar.Store, want, got map[string][]string) {
	t.Helper()
	for label := range want {
		id, ok := athar.ParseIRI(label)
		if !ok {
			t.Fatalf("label %s is no Athar IRI", label)
		}
		qs, err := st.NarrationQuads(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, q := range qs {
			keys = append(keys, q.Key())
		}
		if !reflect.DeepEqual(keys, got[label]) {
			t.Fatalf("NarrationQuads(%s) = %d quads, a scan finds %d", id, len(keys), len(got[label]))
		}
	}
}

func init() {
	// The crash test runs the binary it builds; make sure it never inherits a store from
	// the environment.
	os.Unsetenv("ATHAR_STORE")
}

// TestKillServeDuringWrites kills `athar serve` with SIGKILL while a client imports
// narrations through GraphQL, one mutation at a time, and checks after each kill that the
// store reopens on its own, holds each narration wholly (as the reference import stores
// it) or not at all, and that its manifest and read model agree with its quads: a write
// cut between Cayley's commit and the read model's is finished at the next open from its
// redo, or was never committed.
func TestKillServeDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs the server")
	}
	bin := buildAthar(t)
	dir, want := writeCorpus(t, bin, 60)
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(files) != 60 {
		t.Fatalf("the corpus: %d files, %v", len(files), err)
	}
	slices.Sort(files)
	storeDir := filepath.Join(t.TempDir(), "store")
	next := 0 // the next document to import
	for round := 0; round < 3; round++ {
		srv, base, exited, logs := startServe(t, bin, storeDir, "ATHAR_TOKEN=kill-test")
		// Imports one after the other; the kill comes right after the (round+3)th answer,
		// with the next import on its way.
		answered := make(chan struct{}, len(files))
		go func() {
			client := &http.Client{Timeout: 10 * time.Second}
			for i := next; i < len(files); i++ {
				doc, err := os.ReadFile(files[i])
				if err != nil {
					return
				}
				body, _ := json.Marshal(map[string]any{
					"query":     `mutation($d: String!) { importNarration(document: $d) { narration { id } } }`,
					"variables": map[string]any{"d": string(doc)},
				})
				req, _ := http.NewRequest("POST", base+"/graphql", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer kill-test")
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				answered <- struct{}{}
			}
		}()
		for i := 0; i < round+3; i++ {
			select {
			case <-answered:
			case <-exited:
				t.Fatalf("round %d: the server exited:\n%s", round, logs.String())
			case <-time.After(60 * time.Second):
				t.Fatalf("round %d: no answer in a minute:\n%s", round, logs.String())
			}
		}
		_ = srv.Process.Signal(syscall.SIGKILL)
		<-exited
		next += round + 3

		ours := checkAfterKill(t, storeDir, want, round)
		if len(ours) < next-1 {
			t.Fatalf("round %d: %d narrations stored after %d imports were answered", round, len(ours), next)
		}
		t.Logf("round %d: killed with %d of %d narrations stored", round, len(ours), len(want))
	}
}
