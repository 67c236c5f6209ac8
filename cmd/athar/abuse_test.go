package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/testsupport"
)

// The bounds the server must keep while it is abused (issue 12): they are safety bounds,
// not benchmarks.
const (
	abuseMaxRSS    = 1 << 30 // bytes
	abuseMaxHealth = time.Second
)

// abuseCases are the denial-of-service queries of issue 12, each of which took the server
// down (or held a core for minutes) before the GraphQL endpoint was bounded.
func abuseCases() map[string]abuseCase {
	// 1. Nested unbounded lists through the most connected person.
	nested := `{ entity(id: "person:g0") { narrations { chain { narrations { chain { narrations { id } } } } } } }`

	// 2. Introspection, aliased many times.
	var intro strings.Builder
	intro.WriteString("{")
	for i := range 2000 {
		fmt.Fprintf(&intro, " s%d: __schema { types { name fields { name args { name } type { name } } } }", i)
	}
	intro.WriteString(" }")

	// 3. Fragments that each spread the previous one twice: 2^n fields once expanded.
	var frags strings.Builder
	frags.WriteString("{ ...F29 }\nfragment F0 on Query { timeline { id } }\n")
	for i := 1; i <= 29; i++ {
		fmt.Fprintf(&frags, "fragment F%d on Query { a%d: __typename ...F%d ...F%d }\n", i, i, i-1, i-1)
	}

	// 4. Counting every claim, forty times.
	var counts strings.Builder
	counts.WriteString("{")
	for i := range 40 {
		fmt.Fprintf(&counts, " c%d: claims(first: 1) { totalCount }", i)
	}
	counts.WriteString(" }")

	// Within the estimate, but heavy: nested introspection, wide neighbourhoods, long texts.
	var heavy strings.Builder
	heavy.WriteString("{")
	for i := range 2 {
		fmt.Fprintf(&heavy, ` n%d: entities(type: "Narration", first: 50) { nodes { ... on Narration { text narrations(first: 100) { text } } } }`, i)
	}
	heavy.WriteString(" }")
	var wide strings.Builder
	wide.WriteString("{")
	for i := range 5 {
		fmt.Fprintf(&wide, ` w%d: neighbourhood(id: "person:g0", depth: 3) { nodes { id type name } edges { source target predicate attestations } }`, i)
	}
	wide.WriteString(" }")

	return map[string]abuseCase{
		"nested lists":       {query: nested, refused: true},
		"introspection":      {query: intro.String(), refused: true},
		"fragment bomb":      {query: frags.String(), refused: true},
		"unfiltered count":   {query: counts.String(), refused: true},
		"deep introspection": {query: `{ __schema { types { name fields { name type { name fields { name type { name } } } } } } }`},
		"long texts":         {query: heavy.String()},
		"neighbourhoods":     {query: wide.String()},
	}
}

// abuseCase is a query and whether it must be refused (rather than answered within the
// bounds).
type abuseCase struct {
	query   string
	refused bool
}

// TestServeBoundedUnderAbuse runs the real `athar serve` over a generated graph and sends
// every abuse case from several clients at once. Throughout, the server's RSS must stay
// under 1 GiB, /healthz must answer within a second, and an ordinary query must still be
// answered; each abuse request must be answered (refused or not) rather than left hanging.
func TestServeBoundedUnderAbuse(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and loads a generated corpus")
	}
	bin := buildAthar(t)
	corpusDir := filepath.Join(t.TempDir(), "corpus")
	storeDir := filepath.Join(t.TempDir(), "store")
	if out, err := exec.Command(bin, "gen", "--n", "800", "--out", corpusDir).CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, out)
	}
	if out, err := exec.Command(bin, "load", "--store", "bbolt:"+storeDir, corpusDir).CombinedOutput(); err != nil {
		t.Fatalf("load: %v\n%s", err, out)
	}

	srv, base, exited, logs := startServe(t, bin, storeDir, "ATHAR_TOKEN=")
	waitHealthy(t, base, exited, logs)

	// Watch the server: its RSS, and how long /healthz takes.
	var peakRSS, slowestHealth atomic.Int64
	var healthFailures atomic.Int64
	stop := make(chan struct{})
	var watchers sync.WaitGroup
	watchers.Add(2)
	go func() {
		defer watchers.Done()
		for {
			if rss := readRSS(srv.Process.Pid); rss > peakRSS.Load() {
				peakRSS.Store(rss)
				if rss > 2*abuseMaxRSS {
					// Far past the bound: stop before the machine starts swapping.
					srv.Process.Kill()
					return
				}
			}
			select {
			case <-stop:
				return
			case <-exited:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	go func() {
		defer watchers.Done()
		client := &http.Client{Timeout: 5 * time.Second}
		for {
			start := time.Now()
			resp, err := client.Get(base + "/healthz")
			took := time.Since(start)
			if err != nil || resp.StatusCode != http.StatusOK {
				healthFailures.Add(1)
			}
			if err == nil {
				resp.Body.Close()
			}
			if int64(took) > slowestHealth.Load() {
				slowestHealth.Store(int64(took))
			}
			select {
			case <-stop:
				return
			case <-exited:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()

	const clients = 6
	client := &http.Client{Timeout: 60 * time.Second}
	var senders sync.WaitGroup
	var mu sync.Mutex
	answers := map[string][]string{}
	began := time.Now()
	cases := abuseCases()
	for name, c := range cases {
		query := c.query
		for range clients {
			senders.Add(1)
			go func() {
				defer senders.Done()
				start := time.Now()
				status, codes, err := sendQuery(client, base, query)
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					answers[name] = append(answers[name], fmt.Sprintf("no answer after %s: %v", time.Since(start).Round(time.Millisecond), err))
					return
				}
				answers[name] = append(answers[name], fmt.Sprintf("%d %v in %s", status, codes, time.Since(start).Round(time.Millisecond)))
			}()
		}
	}
	// An ordinary query, while the abuse runs.
	time.Sleep(200 * time.Millisecond)
	ordinary, ordinaryCodes, ordinaryErr := sendQuery(&http.Client{Timeout: 15 * time.Second}, base,
		`{ entity(id: "person:g0") { id name claims(first: 5) { edges { node { id } } } } }`)
	senders.Wait()
	close(stop)
	watchers.Wait()

	for name, got := range answers {
		t.Logf("%s: %s", name, strings.Join(got, "; "))
	}
	t.Logf("all answered in %s; peak RSS %d MiB; slowest /healthz %s (%d failed)",
		time.Since(began).Round(time.Millisecond), peakRSS.Load()>>20,
		time.Duration(slowestHealth.Load()).Round(time.Millisecond), healthFailures.Load())
	if rss := peakRSS.Load(); rss >= abuseMaxRSS {
		t.Errorf("peak RSS %d MiB, want under %d MiB", rss>>20, abuseMaxRSS>>20)
	}
	if d := time.Duration(slowestHealth.Load()); d >= abuseMaxHealth || healthFailures.Load() > 0 {
		t.Errorf("/healthz: slowest %s, %d failed; want every answer within %s", d, healthFailures.Load(), abuseMaxHealth)
	}
	if ordinaryErr != nil || ordinary != http.StatusOK || len(ordinaryCodes) > 0 {
		t.Errorf("an ordinary query during the abuse: status %d, codes %v, err %v", ordinary, ordinaryCodes, ordinaryErr)
	}
	for name, got := range answers {
		for _, a := range got {
			if strings.HasPrefix(a, "no answer") || cases[name].refused && strings.HasPrefix(a, "200 []") {
				t.Errorf("%s: %s; want a refusal", name, a)
			}
		}
	}
	select {
	case <-exited:
		t.Fatalf("the server died:\n%s", logs.String())
	default:
	}
}

// sendQuery posts query and returns the HTTP status and the errors' codes (at most a few).
func sendQuery(client *http.Client, base, query string) (int, []string, error) {
	body, _ := json.Marshal(map[string]any{"query": query})
	resp, err := client.Post(base+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out struct {
		Errors []struct {
			Extensions map[string]any `json:"extensions"`
		} `json:"errors"`
	}
	dec := json.NewDecoder(io.LimitReader(resp.Body, 1<<30))
	if err := dec.Decode(&out); err != nil {
		return resp.StatusCode, nil, fmt.Errorf("decode: %w", err)
	}
	var codes []string
	for i, e := range out.Errors {
		if i == 3 {
			codes = append(codes, fmt.Sprintf("... %d errors", len(out.Errors)))
			break
		}
		c, _ := e.Extensions["code"].(string)
		codes = append(codes, c)
	}
	return resp.StatusCode, codes, nil
}

// readRSS returns the resident set size of process pid, in bytes (0 when unknown).
func readRSS(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func waitHealthy(t *testing.T, base string, exited <-chan struct{}, logs *testsupport.Buffer) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			t.Fatalf("serve exited early:\n%s", logs.String())
		default:
		}
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("serve did not become healthy:\n%s", logs.String())
}
