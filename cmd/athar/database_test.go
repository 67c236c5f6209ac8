package main

// The scale-out mode against a real PostgreSQL (docs/scale-out.md): several `athar serve`
// processes on one database. .ci/run starts a throwaway cluster with .ci/postgres.sh and
// exports ATHAR_TEST_DATABASE (and ATHAR_TEST_PGDATA, ATHAR_TEST_PGBIN, so that a test can
// restart it); without it these tests skip, except under CI=true, where they fail.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/testsupport"
	"github.com/jackc/pgx/v5"
)

// dbHead reads the head of the log straight from the database.
func dbHead(t *testing.T, dbURL string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var head int64
	if err := conn.QueryRow(ctx, "SELECT position FROM athar_head WHERE id = 1").Scan(&head); err != nil {
		t.Fatal(err)
	}
	return head
}

// replicaProc is one `athar serve` process in the scale-out mode.
type replicaProc struct {
	t     *testing.T
	name  string
	bin   string
	db    string
	store string
	base  string
	cmd   *exec.Cmd
	out   *testsupport.Buffer
	done  chan struct{} // closed when the process has exited
	err   error         // its exit status, once done
}

const dbTestToken = "replica-token"

// replicaStartTimeout bounds how long a replica may take to catch up when it starts (the
// benchmark, which rebuilds from a long log, raises it).
var replicaStartTimeout = 30 * time.Second

// startReplicaProc starts `athar serve` on db with its store in storeDir and waits until it
// is ready (caught up with the log).
func startReplicaProc(t *testing.T, bin, name, db, storeDir string) *replicaProc {
	t.Helper()
	p := &replicaProc{t: t, name: name, bin: bin, db: db, store: storeDir}
	p.start()
	t.Cleanup(func() {
		if p.cmd != nil {
			p.kill()
		}
	})
	return p
}

func (p *replicaProc) start() {
	t := p.t
	t.Helper()
	p.launch()
	deadline := time.Now().Add(replicaStartTimeout)
	for {
		if st, code := p.ready(); code == http.StatusOK && st.CaughtUp {
			return
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited: %v\n%s", p.name, p.err, p.out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not become ready:\n%s", p.name, p.out.String())
		}
	}
}

// launch starts the process on a port of its choosing and waits only until it listens.
func (p *replicaProc) launch() {
	t := p.t
	t.Helper()
	p.out = &testsupport.Buffer{}
	p.cmd = exec.Command(p.bin, "serve", "--store", "bbolt:"+p.store, "--addr", "127.0.0.1:0", "--replica-name", p.name)
	p.cmd.Env = append(os.Environ(), "ATHAR_DATABASE="+p.db, "ATHAR_TOKEN="+dbTestToken, "ATHAR_POLL_INTERVAL=100ms")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.done = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) {
		p.err = cmd.Wait()
		close(done)
	}(p.cmd, p.done)
	p.base = "http://" + testsupport.Listening(t, p.out, p.done)
}

// kill kills the process with SIGKILL: no shutdown at all.
func (p *replicaProc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.t.Errorf("%s did not exit after SIGKILL", p.name)
	}
	p.cmd = nil
}

type readyz struct {
	Status   string `json:"status"`
	Position int64  `json:"position"`
	Head     int64  `json:"head"`
	Lag      int64  `json:"lag"`
	CaughtUp bool   `json:"caught_up"`
	Reason   string `json:"reason"`
}

func (p *replicaProc) ready() (readyz, int) {
	resp, err := http.Get(p.base + "/readyz")
	if err != nil {
		return readyz{}, 0
	}
	defer resp.Body.Close()
	var r readyz
	_ = json.NewDecoder(resp.Body).Decode(&r)
	return r, resp.StatusCode
}

// waitFor waits until the replica has applied position.
func (p *replicaProc) waitFor(position int64) {
	p.t.Helper()
	p.waitWithin(position, 20*time.Second)
}

func (p *replicaProc) waitWithin(position int64, d time.Duration) {
	p.t.Helper()
	deadline := time.Now().Add(d)
	for {
		r, _ := p.ready()
		if r.Position >= position {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s is at %d, not %d: %+v\n%s", p.name, r.Position, position, r, p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (p *replicaProc) export() string {
	p.t.Helper()
	resp, err := http.Get(p.base + "/export/nquads")
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		p.t.Fatalf("%s: export: %d %v", p.name, resp.StatusCode, err)
	}
	return string(b)
}

// graphQL posts a query without failing the test (for goroutines).
func graphQL(base, query string, vars map[string]any) (gqlResponse, error) {
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+dbTestToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return gqlResponse{}, err
	}
	defer resp.Body.Close()
	var out gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return gqlResponse{}, err
	}
	return out, nil
}

const importMutation = `mutation($d: String!) { importNarration(document: $d) { narration { id } changed claimsAdded } }`

// replicaDoc is a small narration: n names it; variant changes what it says (a replacement).
// Every third one defines an entity of its own.
func replicaDoc(n, variant int) string {
	doc := fmt.Sprintf(`
narration:
  id: narration:replica-%[1]d
  title: Replica test %[1]d
  references: [{collection: Test, number: "%[1]d"}]
  text: "Abu Bakr advised ransom on the day of Badr. Version %[2]d. Person %[1]d was there."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: Abu Bakr advised ransom}
`, n, variant)
	if n%3 == 0 {
		doc += fmt.Sprintf(`  - {subject: person:replica-%[1]d, predicate: participatedIn, object: event:badr, evidence: Person %[1]d was there}
entities:
  - {id: person:replica-%[1]d, type: Person, name: "Replica person %[1]d v%[2]d"}
`, n, variant)
	}
	return doc
}

func mustImport(t *testing.T, base, doc string) gqlResponse {
	t.Helper()
	r, err := graphQL(base, importMutation, map[string]any{"d": doc})
	if err != nil || len(r.Errors) > 0 {
		t.Fatalf("import: %v %+v", err, r.Errors)
	}
	return r
}

// sameExports checks that every replica, caught up with the log, exports the same bytes,
// and returns them.
func sameExports(t *testing.T, db string, ps ...*replicaProc) string {
	t.Helper()
	head := dbHead(t, db)
	var want string
	for i, p := range ps {
		p.waitFor(head)
		got := p.export()
		if i == 0 {
			want = got
			continue
		}
		if got != want {
			t.Fatalf("%s and %s export different graphs at log position %d (%d and %d bytes)", ps[0].name, p.name, head, len(want), len(got))
		}
	}
	return want
}

// TestScaleOut runs three athar processes on one PostgreSQL database, as three replicas of
// one graph, through imports, conflicts, kills, a new replica and a database restart.
func TestScaleOut(t *testing.T) {
	db := testsupport.Database(t)
	bin := buildAthar(t)
	dir := t.TempDir()
	r1 := startReplicaProc(t, bin, "r1", db, filepath.Join(dir, "r1"))
	r2 := startReplicaProc(t, bin, "r2", db, filepath.Join(dir, "r2"))
	r3 := startReplicaProc(t, bin, "r3", db, filepath.Join(dir, "r3"))
	seeded := sameExports(t, db, r1, r2, r3)
	if !strings.Contains(seeded, "narration/ahmad-208") || dbHead(t, db) != 7 {
		t.Fatalf("the replicas did not seed the log once: head %d", dbHead(t, db))
	}

	t.Run("an import on one replica is visible on the others", func(t *testing.T) {
		r := mustImport(t, r1.base, replicaDoc(1, 1))
		if get(r.Data, "importNarration", "changed") != true {
			t.Fatalf("import: %+v", r)
		}
		head := dbHead(t, db)
		for _, p := range []*replicaProc{r2, r3} {
			p.waitFor(head)
			q, err := graphQL(p.base, `{ narration(id: "narration:replica-1") { id } }`, nil)
			if err != nil || get(q.Data, "narration", "id") != "narration:replica-1" {
				t.Fatalf("%s does not see the import: %v %+v", p.name, err, q)
			}
		}
		// A mutation returns the outcome of its own log entry: two concurrent deletions of
		// one narration on two replicas, one deletes it and the other is told it is gone.
		var wg sync.WaitGroup
		codes := make([]string, 2)
		for i, p := range []*replicaProc{r2, r3} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := graphQL(p.base, `mutation { deleteNarration(id: "narration:replica-1") }`, nil)
				switch {
				case err != nil:
					codes[i] = err.Error()
				case len(r.Errors) == 0 && get(r.Data, "deleteNarration") == true:
					codes[i] = "deleted"
				default:
					codes[i] = code(r)
				}
			}()
		}
		wg.Wait()
		if !(codes[0] == "deleted" && codes[1] == "NOT_FOUND" || codes[0] == "NOT_FOUND" && codes[1] == "deleted") {
			t.Fatalf("concurrent deletions: %v, want one deleted and one NOT_FOUND", codes)
		}
		if got := sameExports(t, db, r1, r2, r3); got != seeded {
			t.Fatal("deleting the import did not give back the seeded graph")
		}
		resp, err := http.Get(r1.base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), `athar_state{name="replica_lag"}`) || !strings.Contains(string(b), `athar_state{name="replica_position"}`) {
			t.Error("/metrics has no replica_position and replica_lag")
		}
	})

	t.Run("concurrent imports on different replicas converge", func(t *testing.T) {
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for i, p := range []*replicaProc{r1, r2, r3} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 10 + i*10; n < 20+i*10; n++ {
					// Every replica also imports its own version of narration 100: the log
					// orders the three replacements, and the last one logged wins everywhere.
					for _, doc := range []string{replicaDoc(n, 1), replicaDoc(100, i)} {
						r, err := graphQL(p.base, importMutation, map[string]any{"d": doc})
						if err == nil && len(r.Errors) > 0 {
							err = fmt.Errorf("%s: %+v", p.name, r.Errors)
						}
						if err != nil {
							errs <- err
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		got := sameExports(t, db, r1, r2, r3)
		for _, n := range []int{10, 15, 21, 29, 33, 100} {
			if !strings.Contains(got, fmt.Sprintf("narration/replica-%d>", n)) {
				t.Errorf("narration replica-%d is missing", n)
			}
		}
		// Search, an index beside each replica's store, is fed by the changes it applies.
		q, err := graphQL(r2.base, `{ search(text: "Replica person 12", first: 3) { id } }`, nil)
		if err != nil || get(q.Data, "search", 0, "id") != "person:replica-12" {
			t.Errorf("search on r2 for an entity imported on r3: %v %+v", err, q)
		}
		// `athar export` in the scale-out mode replays the log into a store of its own.
		out, err := exec.Command(bin, "export", "--database", db).Output()
		if err != nil {
			t.Fatalf("athar export --database: %v", err)
		}
		if string(out) != got {
			t.Fatal("athar export --database differs from the replicas' exports")
		}
	})

	t.Run("a killed replica restarts and catches up; a new one builds itself", func(t *testing.T) {
		r3.kill()
		for n := 200; n < 210; n++ {
			mustImport(t, r1.base, replicaDoc(n, 1))
		}
		r3.start()
		if at := openedAt(t, r3.out.String()); at < 10 {
			t.Errorf("r3 reopened at position %d, not where it stopped:\n%s", at, r3.out.String())
		}
		r4 := startReplicaProc(t, bin, "r4", db, filepath.Join(dir, "r4"))
		sameExports(t, db, r1, r2, r3, r4)
		r4.kill()
	})

	t.Run("the database restarts", func(t *testing.T) {
		restart := pgRestarter(t)
		mustImport(t, r1.base, replicaDoc(300, 1))
		before := sameExports(t, db, r1, r2, r3)
		restart()
		// Queries are served locally meanwhile and after.
		if q, err := graphQL(r2.base, `{ narration(id: "narration:replica-300") { id } }`, nil); err != nil || get(q.Data, "narration", "id") != "narration:replica-300" {
			t.Fatalf("query after the restart: %v %+v", err, q)
		}
		if got := r2.export(); got != before {
			t.Fatal("the graph changed across the database restart")
		}
		// Mutations go through again once the pool reconnects; the others follow.
		deadline := time.Now().Add(20 * time.Second)
		for {
			r, err := graphQL(r2.base, importMutation, map[string]any{"d": replicaDoc(301, 1)})
			if err == nil && len(r.Errors) == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("import after the restart: %v %+v", err, r)
			}
			time.Sleep(200 * time.Millisecond)
		}
		got := sameExports(t, db, r1, r2, r3)
		for _, n := range []int{300, 301} {
			if !strings.Contains(got, fmt.Sprintf("narration/replica-%d>", n)) {
				t.Errorf("narration replica-%d is missing after the restart", n)
			}
		}
	})
}

// pgRestarter returns a function that restarts the test cluster (pg_ctl restart), or skips
// (fails under CI) when the test was not told where it is.
func pgRestarter(t *testing.T) func() {
	t.Helper()
	data, bin := os.Getenv("ATHAR_TEST_PGDATA"), os.Getenv("ATHAR_TEST_PGBIN")
	if data == "" || bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("ATHAR_TEST_PGDATA and ATHAR_TEST_PGBIN are not set (.ci/postgres.sh exports them)")
		}
		t.Skip("ATHAR_TEST_PGDATA and ATHAR_TEST_PGBIN are not set: cannot restart the database")
	}
	return func() {
		t.Helper()
		args := []string{filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(filepath.Dir(data), "server.log"), "-w", "-m", "fast", "restart"}
		if os.Geteuid() == 0 {
			args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
		}
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("pg_ctl restart: %v\n%s", err, out)
		}
	}
}

// openedAt returns the position a replica's log says it opened at.
func openedAt(t *testing.T, log string) int64 {
	t.Helper()
	for _, line := range strings.Split(log, "\n") {
		var l struct {
			Msg      string `json:"msg"`
			Position int64  `json:"position"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "replica opened" {
			return l.Position
		}
	}
	t.Fatalf("no \"replica opened\" in the replica's log:\n%s", log)
	return 0
}

// pgControl returns a function that stops or starts the test cluster with pg_ctl (with the
// options it was first started with), or skips (fails under CI) when the test was not told
// where it is. The cluster is started again when the test ends, if the test left it down.
func pgControl(t *testing.T) func(action string) {
	t.Helper()
	data, bin := os.Getenv("ATHAR_TEST_PGDATA"), os.Getenv("ATHAR_TEST_PGBIN")
	if data == "" || bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("ATHAR_TEST_PGDATA and ATHAR_TEST_PGBIN are not set (.ci/postgres.sh exports them)")
		}
		t.Skip("ATHAR_TEST_PGDATA and ATHAR_TEST_PGBIN are not set: cannot stop the database")
	}
	// postmaster.opts holds the server's command line: "BIN" "-D" "DATA" "-p" "PORT" ...
	b, err := os.ReadFile(filepath.Join(data, "postmaster.opts"))
	if err != nil {
		t.Fatal(err)
	}
	var opts []string
	fields := strings.Fields(string(b))
	for i := 1; i < len(fields); i++ {
		f := strings.Trim(fields[i], `"`)
		if f == "-D" {
			i++
			continue
		}
		opts = append(opts, f)
	}
	down := false
	ctl := func(action string) {
		t.Helper()
		args := []string{filepath.Join(bin, "pg_ctl"), "-D", data, "-l", filepath.Join(filepath.Dir(data), "server.log"), "-w", "-m", "fast", "-o", strings.Join(opts, " "), action}
		if os.Geteuid() == 0 {
			args = append([]string{"runuser", "-u", "postgres", "--"}, args...)
		}
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("pg_ctl %s: %v\n%s", action, err, out)
		}
		down = action == "stop"
	}
	t.Cleanup(func() {
		if down {
			ctl("start")
		}
	})
	return ctl
}

// postAt posts a GraphQL request and returns the response with its status and headers.
func postAt(t *testing.T, base, query string, vars map[string]any) (gqlResponse, *http.Response) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+dbTestToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out, resp
}

// wantUnavailable checks that a write was refused as retryable: UNAVAILABLE, 503 with
// Retry-After, and a message saying what is out of reach.
func wantUnavailable(t *testing.T, what string, r gqlResponse, resp *http.Response, says string) {
	t.Helper()
	if code(r) != "UNAVAILABLE" || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("%s: %d %+v (Retry-After %q), want 503 UNAVAILABLE with Retry-After", what, resp.StatusCode, r.Errors, resp.Header.Get("Retry-After"))
		return
	}
	t.Logf("%s: %d, Retry-After %s: %s", what, resp.StatusCode, resp.Header.Get("Retry-After"), r.Errors[0].Message)
	if msg := r.Errors[0].Message; !strings.Contains(msg, says) || strings.Contains(msg, "127.0.0.1") {
		t.Errorf("%s: message %q should say %q and not name the database's address", what, msg, says)
	}
}

// TestReplicaWithoutDatabase: with PostgreSQL down, a replica answers queries from its
// store and refuses writes as retryable; one started while it is down serves at once,
// not ready, and catches up when it returns.
func TestReplicaWithoutDatabase(t *testing.T) {
	db := testsupport.Database(t)
	pg := pgControl(t)
	bin := buildAthar(t)
	r1 := startReplicaProc(t, bin, "r1", db, filepath.Join(t.TempDir(), "r1"))
	mustImport(t, r1.base, replicaDoc(1, 1))
	const query = `{ narration(id: "narration:replica-1") { id } }`

	pg("stop")
	r, resp := postAt(t, r1.base, importMutation, map[string]any{"d": replicaDoc(2, 1)})
	wantUnavailable(t, "an import with the database down", r, resp, "database holding the log is unreachable")
	if q, err := graphQL(r1.base, query, nil); err != nil || get(q.Data, "narration", "id") != "narration:replica-1" {
		t.Fatalf("a query with the database down: %v %+v", err, q)
	}

	// Restarted while the database is down: it listens at once.
	r1.kill()
	r1.launch()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(r1.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("a replica started with the database down did not answer /healthz within 10 s:\n%s", r1.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	st, code := r1.ready()
	t.Logf("/readyz: %d %+v", code, st)
	if code != http.StatusServiceUnavailable || !strings.Contains(st.Reason, "not connected to the database") || st.Position == 0 {
		t.Errorf("/readyz with the database down: %d %+v, want 503 saying why, with the local position", code, st)
	}
	if q, err := graphQL(r1.base, query, nil); err != nil || get(q.Data, "narration", "id") != "narration:replica-1" {
		t.Fatalf("a query to a replica started with the database down: %v %+v", err, q)
	}
	r, resp = postAt(t, r1.base, importMutation, map[string]any{"d": replicaDoc(2, 1)})
	wantUnavailable(t, "an import to a replica started with the database down", r, resp, "cannot reach the database")

	// The database returns: it connects, catches up and takes writes.
	pg("start")
	deadline = time.Now().Add(30 * time.Second)
	for {
		if st, code := r1.ready(); code == http.StatusOK && st.CaughtUp {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not become ready once the database returned:\n%s", r1.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	mustImport(t, r1.base, replicaDoc(2, 1))
	if q, err := graphQL(r1.base, `{ narration(id: "narration:replica-2") { id } }`, nil); err != nil || get(q.Data, "narration", "id") != "narration:replica-2" {
		t.Fatalf("the import after the database returned: %v %+v", err, q)
	}
}
