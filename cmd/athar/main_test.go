package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/testsupport"
)

// cli runs the real entry point with args and the given environment and stdin.
type result struct {
	stdout, stderr string
	err            error
}

func cli(t *testing.T, envv map[string]string, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return envv[k] }
	err := run(context.Background(), append([]string{"athar"}, args...), getenv, strings.NewReader(stdin), &out, &errb)
	return result{out.String(), errb.String(), err}
}

func mustCLI(t *testing.T, envv map[string]string, args ...string) result {
	t.Helper()
	r := cli(t, envv, "", args...)
	if r.err != nil {
		t.Fatalf("athar %s: %v\nstderr:\n%s", strings.Join(args, " "), r.err, r.stderr)
	}
	return r
}

func storeEnv(t *testing.T) map[string]string {
	return map[string]string{"ATHAR_STORE": "bbolt:" + filepath.Join(t.TempDir(), "store")}
}

func TestHelp(t *testing.T) {
	r := mustCLI(t, nil, "--help")
	for _, c := range []string{"serve", "seed", "load", "validate", "export", "delete", "ATHAR_STORE", "ATHAR_TOKEN"} {
		if !strings.Contains(r.stdout, c) {
			t.Errorf("athar --help does not mention %s", c)
		}
	}
	for _, c := range commands() {
		r := cli(t, nil, "", c.name, "--help")
		if r.err != nil || exitCode(r.err) != 0 {
			t.Errorf("athar %s --help: %v", c.name, r.err)
		}
		if !strings.Contains(r.stderr, "Usage: athar "+c.name) {
			t.Errorf("athar %s --help prints no usage: %q", c.name, r.stderr)
		}
	}
	if r := cli(t, nil, ""); exitCode(r.err) != 2 {
		t.Errorf("no command: exit %d, want 2", exitCode(r.err))
	}
	if r := cli(t, nil, "", "frobnicate"); exitCode(r.err) != 2 || !strings.Contains(r.err.Error(), "frobnicate") {
		t.Errorf("unknown command: %v", r.err)
	}
	if r := cli(t, nil, "", "load", "--bogus"); exitCode(r.err) != 2 {
		t.Errorf("unknown flag: exit %d, want 2", exitCode(r.err))
	}
}

func TestSeedIsIdempotent(t *testing.T) {
	env := storeEnv(t)
	r1 := mustCLI(t, env, "seed")
	if !strings.Contains(r1.stdout, "imported") || strings.Contains(r1.stdout, " 0 imported") {
		t.Fatalf("first seed: %s", r1.stdout)
	}
	before := mustCLI(t, env, "export").stdout
	r2 := mustCLI(t, env, "seed")
	if !strings.Contains(r2.stdout, " 0 imported") {
		t.Fatalf("second seed imported something: %s", r2.stdout)
	}
	if after := mustCLI(t, env, "export").stdout; after != before {
		t.Fatal("seeding twice changed the graph")
	}
}

func TestExportRoundTrip(t *testing.T) {
	a, b := storeEnv(t), storeEnv(t)
	mustCLI(t, a, "seed")
	exported := mustCLI(t, a, "export", "--format", "nquads").stdout
	// The four claims the product's owner named are there as labelled quads.
	label := "<https://w3id.org/athar/narration/ahmad-208> ."
	for _, triple := range []string{
		"<https://w3id.org/athar/event/badr> <https://w3id.org/athar/vocab#precedes> <https://w3id.org/athar/event/uhud>",
		"<https://w3id.org/athar/person/umar-ibn-al-khattab> <https://w3id.org/athar/vocab#advises> <https://w3id.org/athar/concept/execution>",
		"<https://w3id.org/athar/person/abu-bakr> <https://w3id.org/athar/vocab#advises> <https://w3id.org/athar/concept/ransom>",
		"<https://w3id.org/athar/verse/8:67> <https://w3id.org/athar/vocab#revealedRegarding> <https://w3id.org/athar/concept/ransom>",
	} {
		if !strings.Contains(exported, triple+" "+label) {
			t.Errorf("export lacks %s %s", triple, label)
		}
	}
	if n := strings.Count(exported, "\n"); n < 1000 {
		t.Errorf("the seed exports only %d quads", n)
	}
	file := filepath.Join(t.TempDir(), "graph.nq")
	if err := os.WriteFile(file, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, b, "load", file)
	if again := mustCLI(t, b, "export").stdout; again != exported {
		t.Fatal("export -> load -> export is not identical")
	}
	// The export states the types of claims, attestations and chain links, which the store
	// leaves implied: the store the export loaded into holds exactly what the seeds'
	// documents gave, so seeding it changes nothing.
	for _, class := range []string{"Claim", "Attestation", "ChainLink"} {
		if !strings.Contains(exported, "> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://w3id.org/athar/vocab#"+class+"> <") {
			t.Errorf("the export states the type of no %s", class)
		}
	}
	if !strings.Contains(exported, "> <https://w3id.org/athar/vocab#evidence> \"I think that you should accept a ransom for them\" <") {
		t.Error("the export states no evidence of the seed's attestations")
	}
	held := func(env map[string]string) string {
		file := filepath.Join(t.TempDir(), "held.nq.gz")
		mustCLI(t, env, "backup", "-o", file)
		_, plain := gunzipFile(t, file)
		return plain
	}
	if got, want := held(b), held(a); got != want {
		t.Errorf("the store loaded from the export backs up as %d bytes, the seeded one as %d", len(got), len(want))
	}
	if r := mustCLI(t, b, "seed"); !strings.Contains(r.stdout, " 0 imported") {
		t.Errorf("seeding the store loaded from the export changed it (did it keep the types?): %s", r.stdout)
	}
	one := mustCLI(t, a, "export", "--narration", "narration:ahmad-208").stdout
	lines := strings.Split(strings.TrimSpace(one), "\n")
	if len(lines) < 1000 || len(lines) >= strings.Count(exported, "\n") {
		t.Errorf("--narration exported %d of %d quads", len(lines), strings.Count(exported, "\n"))
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "# athar-export end quads=") {
		t.Errorf("--narration's last line is %q, not the trailer", last)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasSuffix(l, label) {
			t.Fatalf("--narration exported a quad of another narration: %s", l)
		}
	}
	// --narration takes every format, and no neighbourhood flags.
	gexf := mustCLI(t, a, "export", "--narration", "narration:ahmad-208", "--format", "gexf").stdout
	if !strings.Contains(gexf, `<node id="narration:ahmad-208"`) || strings.Contains(gexf, `<node id="narration:bukhari-3953"`) {
		t.Errorf("--narration --format gexf is not the narration's own graph")
	}
	if r := cli(t, a, "", "export", "--narration", "narration:ahmad-208", "--depth", "2"); exitCode(r.err) != 2 {
		t.Errorf("--narration with --depth: %v", r.err)
	}
	if r := cli(t, a, "", "export", "--narration", "narration:none"); r.err == nil {
		t.Error("exporting an unknown narration succeeded")
	}
	if r := cli(t, a, "", "export", "--format", "gexf-9"); exitCode(r.err) != 2 {
		t.Errorf("unknown format: %v", r.err)
	}
}

const smallDoc = `
narration:
  id: narration:cli-test
  title: A test
  references: [{collection: Test, number: "1"}]
  text: "Abu Bakr advised ransom on the day of Badr."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: Abu Bakr advised ransom}
`

func TestLoadValidateDelete(t *testing.T) {
	env := storeEnv(t)
	mustCLI(t, env, "seed")
	seeded := mustCLI(t, env, "export").stdout

	dir := t.TempDir()
	sub := filepath.Join(dir, "more", "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(smallDoc, "predicate: advises", "predicate: advized", 1)
	bad = strings.Replace(bad, "cli-test", "cli-bad", 1)
	write(t, filepath.Join(sub, "good.yaml"), smallDoc)
	write(t, filepath.Join(dir, "bad.yaml"), bad)
	write(t, filepath.Join(dir, "notes.txt"), "ignored in directories")

	// validate touches no store and reports the bad file with its field.
	r := cli(t, nil, "", "validate", dir)
	if exitCode(r.err) != 1 {
		t.Fatalf("validate with a bad document: exit %d", exitCode(r.err))
	}
	if !strings.Contains(r.stderr, filepath.Join(dir, "bad.yaml")+":8: claims[0].predicate: unknown predicate \"advized\" (did you mean \"advises\"?)") {
		t.Errorf("validate message: %s", r.stderr)
	}
	if !strings.Contains(r.stdout, "1 document(s) valid, 1 invalid") {
		t.Errorf("validate summary: %s", r.stdout)
	}
	if r := mustCLI(t, nil, "validate", filepath.Join(sub, "good.yaml")); !strings.Contains(r.stdout, "1 document(s) valid, 0 invalid") {
		t.Errorf("validate good: %s", r.stdout)
	}
	if r := cli(t, nil, "", "validate", "--bare", filepath.Join(sub, "good.yaml")); exitCode(r.err) != 1 || !strings.Contains(r.stderr, "person:abu-bakr is not defined") {
		t.Errorf("validate --bare must not know the seeds: %v %s", r.err, r.stderr)
	}
	if mustCLI(t, env, "export").stdout != seeded {
		t.Fatal("validate changed the store")
	}

	// load imports the good document, refuses the bad one, and says so.
	r = cli(t, env, "", "load", dir)
	if exitCode(r.err) != 1 || !strings.Contains(r.stdout, "2 document(s): 1 imported, 0 unchanged, 1 refused") {
		t.Fatalf("load: %v\n%s\n%s", r.err, r.stdout, r.stderr)
	}
	withGood := mustCLI(t, env, "export").stdout
	if !strings.Contains(withGood, "narration/cli-test") || strings.Contains(withGood, "narration/cli-bad") {
		t.Fatal("load stored the wrong documents")
	}
	// stdin
	r = cli(t, env, strings.Replace(smallDoc, "cli-test", "cli-stdin", 1), "load", "-")
	if r.err != nil || !strings.Contains(r.stdout, "1 imported") {
		t.Fatalf("load -: %v %s %s", r.err, r.stdout, r.stderr)
	}
	mustCLI(t, env, "delete", "narration:cli-stdin")
	mustCLI(t, env, "delete", "narration:cli-test")
	if mustCLI(t, env, "export").stdout != seeded {
		t.Fatal("deleting the loaded narrations did not restore the graph exactly")
	}
	if r := cli(t, env, "", "delete", "narration:cli-test"); r.err == nil || !strings.Contains(r.err.Error(), "no such narration") {
		t.Errorf("deleting twice: %v", r.err)
	}
	if r := cli(t, env, "", "load", filepath.Join(dir, "notes.txt")); r.err == nil || !strings.Contains(r.err.Error(), "not a narration document") {
		t.Errorf("loading a .txt: %v", r.err)
	}
	if r := cli(t, env, "", "load"); exitCode(r.err) != 2 {
		t.Errorf("load with no path: %v", r.err)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startServer runs `athar serve` through run and waits until /healthz answers.
func startServer(t *testing.T, env map[string]string) (base string, stop func()) {
	t.Helper()
	base, _, stop = startServerLogs(t, env)
	return base, stop
}

// startServerLogs is startServer with flags for serve, also returning the server's log.
func startServerLogs(t *testing.T, env map[string]string, flags ...string) (base string, logs *testsupport.Buffer, stop func()) {
	t.Helper()
	env["ATHAR_ADDR"] = "127.0.0.1:0"
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan struct{})
	var runErr error
	var errb testsupport.Buffer
	go func() {
		runErr = run(ctx, append([]string{"athar", "serve"}, flags...), func(k string) string { return env[k] }, strings.NewReader(""), &bytes.Buffer{}, &errb)
		close(exited)
	}()
	base = "http://" + testsupport.Listening(t, &errb, exited)
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case <-exited:
			t.Fatalf("serve exited early: %v\n%s", runErr, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("serve did not become healthy:\n%s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return base, &errb, func() {
		cancel()
		<-exited
		if runErr != nil {
			t.Errorf("serve: %v\n%s", runErr, errb.String())
		}
	}
}

// serve reads the read model of a store that has one into the page cache as it starts, and
// says so; --warm=false leaves it.
func TestServeWarmsTheReadModel(t *testing.T) {
	env := storeEnv(t)
	mustCLI(t, env, "seed")
	_, logs, stop := startServerLogs(t, env)
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(logs.String(), "read model warmed"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("no warming logged:\n%s", logs.String())
		}
	}
	stop()
	var warmed struct{ Keys int64 }
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "read model warmed") {
			if err := json.Unmarshal([]byte(line), &warmed); err != nil {
				t.Fatal(err)
			}
		}
	}
	if warmed.Keys < 1000 {
		t.Errorf("warmed %d keys of the seeds' read model", warmed.Keys)
	}

	_, logs, stop = startServerLogs(t, env, "--warm=false")
	stop()
	if strings.Contains(logs.String(), "read model warm") {
		t.Errorf("--warm=false warmed:\n%s", logs.String())
	}
	env["ATHAR_WARM"] = "0"
	_, logs, stop = startServerLogs(t, env)
	stop()
	if strings.Contains(logs.String(), "read model warm") {
		t.Errorf("ATHAR_WARM=0 warmed:\n%s", logs.String())
	}
	env["ATHAR_WARM"] = "sometimes"
	if r := cli(t, env, "", "serve"); r.err == nil || !strings.Contains(r.err.Error(), `ATHAR_WARM="sometimes"`) {
		t.Errorf("ATHAR_WARM=sometimes: %v", r.err)
	}
}

func TestServeSeedsAnEmptyStore(t *testing.T) {
	env := storeEnv(t)
	base, stop := startServer(t, env)
	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
	resp, err := http.Get(base + "/no-such-route")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("unknown route: %d", resp.StatusCode)
	}
	stop() // graceful shutdown releases the store
	if out := mustCLI(t, env, "export").stdout; !strings.Contains(out, "narration/ahmad-208") {
		t.Fatal("serve on an empty store did not load the seeds")
	}
}
