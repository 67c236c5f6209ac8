//go:build bench

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"
)

// CorpusConfig says how to time the queries of docs/corpus.md on a store holding the
// canonical collections (athar corpus import): the store is served as it is, so give a copy.
type CorpusConfig struct {
	Store   string // the store, e.g. bbolt:/tmp/cr-store
	Binary  string // the athar binary to serve it with
	Queries int    // timed requests per query (after a warm-up)
	Log     io.Writer
	// ServerLog receives the server's standard error (e.g. GODEBUG=gctrace=1's lines);
	// discarded when nil.
	ServerLog io.Writer
}

// CorpusQuery is one query's figures; Err is the first error the server answered with
// (then Latency times the refusal).
type CorpusQuery struct {
	Name    string
	Latency Latency
	// CPU is the server's CPU time (user + system) per request, warm-ups included: unlike
	// latency it hardly moves when other work shares the machine.
	CPU time.Duration
	Err string
}

// CorpusResult is a run of RunCorpus.
type CorpusResult struct {
	Start   time.Duration // from starting the server to its first /healthz
	Queries []CorpusQuery
	AnonRSS int64 // the server's memory not backed by files at the end (RssAnon)
	PeakRSS int64 // its peak resident set, mapped store pages included (VmHWM)
}

// corpusQueries are the questions docs/corpus.md and docs/search.md answer on the corpus.
// {zuhri100} is replaced by the ids of al-Zuhri's first 100 transmitted narrations.
var corpusQueries = []struct{ name, query string }{
	{"entity: the Prophet, 50 claims", `{ entity(id: "person:muhammad") { id name aliases narrationCount claims(first: 50) { totalCount edges { node { predicate subject { id name } object { id name } value attestations { narration { id } evidence start end } } } } } }`},
	{"entity: Abu Hurayrah, narrates count + first 20", `{ entity(id: "person:abu-hurayrah") { id name ... on Person { narrates { totalCount } narrated(first: 20) { id } } } }`},
	{"entity: al-Zuhri, transmits count + first 20", `{ entity(id: "person:al-zuhri") { id name ... on Person { transmits { totalCount } transmitted(first: 20) { id } } } }`},
	{"entity: Umar, narrates count", `{ entity(id: "person:umar-ibn-al-khattab") { id name ... on Person { narrates { totalCount } } } }`},
	{"narration: Muslim 4588 routes", `{ narration(id: "narration:muslim-4588") { id title routes { id name } } }`},
	{"narration: Abu Dawud 2690 gradings", `{ narration(id: "narration:abudawud-2690") { title gradings { grader { id name } verdict grade scope } } }`},
	{"chapter: Bukhari 3953's, 50 siblings", `{ narration(id: "narration:bukhari-3953") { texts { language edition source text } chapter { id name arabic narrations(first: 50) { totalCount edges { node { id title } } pageInfo { endCursor } } } } }`},
	{"commonLink of 'Umar's Badr reports", `{ commonLink(narrations: ["narration:ahmad-208", "narration:muslim-1763", "narration:abudawud-2690", "narration:tirmidhi-3081"]) { person { id name } sharedRoute { id } } }`},
	{"commonLink of 100 narrations", `{ commonLink(narrations: [{zuhri100}]) { person { id name } sharedRoute { id } positions { position route } } }`},
	{`searchTexts "strike his neck"`, `{ searchTexts(query: "\"strike his neck\"", first: 20) { totalCount edges { node { narration { id } title snippet { text } } } } }`},
	{"searchTexts عكرمة بن عمار (phrase)", `{ searchTexts(query: "\"عكرمة بن عمار\"", first: 20) { totalCount edges { node { narration { id } title snippet { text } } } } }`},
	{"searchTexts cut off his head", `{ searchTexts(query: "cut off his head", first: 20) { totalCount edges { node { narration { id } title snippet { text } } } } }`},
	// Phrases of the commonest words, as researchers type them: the eulogy quoted, and
	// words most texts have (docs/search.md).
	{"searchTexts قال رسول الله صلى الله عليه وسلم (phrase)", `{ searchTexts(query: "\"قال رسول الله صلى الله عليه وسلم\"", first: 20) { totalCount edges { node { narration { id } title snippet { text } } } } }`},
	{"searchTexts قال رسول الله", `{ searchTexts(query: "قال رسول الله", first: 20) { totalCount edges { node { narration { id } title snippet { text } } } } }`},
	{"searchTexts Messenger of Allah said", `{ searchTexts(query: "Messenger of Allah said", first: 20) { totalCount edges { node { narration { id } title snippet { text } } } } }`},
	{"claims by predicate narrates, 50", `{ claims(predicate: "narrates", first: 50) { totalCount edges { node { id subject { id name } object { id } } } } }`},
	{"claims: al-Zuhri transmits, 50 with evidence", `{ claims(subject: "person:al-zuhri", predicate: "transmits", first: 50) { totalCount edges { node { id object { id } attestations { narration { id } evidence start end edition } } } } }`},
	{"claims: Abu Hurayrah as subject, 50", `{ claims(subject: "person:abu-hurayrah", first: 50) { totalCount edges { node { id predicate object { id } } } } }`},
	{"claims: the Prophet as object, 50", `{ claims(object: "person:muhammad", first: 50) { totalCount edges { node { id predicate subject { id } } } } }`},
	{"timeline", `{ timeline { id } }`},
	{"neighbourhood of Badr, depth 2", `{ neighbourhood(id: "event:badr", depth: 2) { nodes { id } edges { source target predicate attestations } } }`},
	{"shortestPath Abu Bakr -> al-Zuhri", `{ shortestPath(from: "person:abu-bakr", to: "person:al-zuhri", maxLength: 6) { nodes { id } edges { source target predicate } } }`},
	{"search (names) Ikrimah", `{ search(text: "Ikrimah", first: 20) { id name } }`},
	{"gradings by al-Albani, sahih", `{ gradings(grader: "person:al-albani", grade: SAHIH) { narration { id } position verdict grade scope } }`},
	{"gradings by al-Albani, sahih: count + page", `{ gradingConnection(grader: "person:al-albani", grade: SAHIH, first: 100) { totalCount pageInfo { endCursor } edges { node { narration { id } verdict } } } }`},
	{"entities: Person count", `{ entities(type: "Person") { totalCount } }`},
	{"entities: Person, a page of 50", `{ entities(type: "Person", first: 50) { totalCount edges { cursor node { id name } } } }`},
}

// RunCorpus serves the store, waits for it and for its full-text index, and times each of
// corpusQueries.
func RunCorpus(ctx context.Context, cfg CorpusConfig) (CorpusResult, error) {
	var res CorpusResult
	if cfg.Queries <= 0 {
		cfg.Queries = 50
	}
	addr, err := freeAddr()
	if err != nil {
		return res, err
	}
	begin := time.Now()
	srv := exec.CommandContext(ctx, cfg.Binary, "serve", "--store", cfg.Store, "--addr", addr)
	srv.Env = append(os.Environ(), "ATHAR_TOKEN="+benchToken)
	srv.Stderr = cfg.ServerLog
	if srv.Stderr == nil {
		srv.Stderr = io.Discard
	}
	if err := srv.Start(); err != nil {
		return res, err
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	url := "http://" + addr
	if err := waitHealthy(ctx, url, srv.Process.Pid); err != nil {
		return res, err
	}
	res.Start = time.Since(begin)
	logf(cfg.Log, "serving %s after %s", cfg.Store, res.Start.Round(time.Millisecond))
	if err := waitSettled(url, srv.Process.Pid); err != nil {
		return res, err
	}
	var ids []string
	data, e, err := corpusQuery(url, `{ entity(id: "person:al-zuhri") { ... on Person { transmitted(first: 100) { id } } } }`)
	if err != nil || e != "" {
		return res, fmt.Errorf("al-Zuhri's narrations: %v %s", err, e)
	}
	var z struct {
		Entity struct{ Transmitted []struct{ ID string } }
	}
	if err := json.Unmarshal(data, &z); err != nil {
		return res, err
	}
	for _, t := range z.Entity.Transmitted {
		ids = append(ids, fmt.Sprintf("%q", t.ID))
	}
	for _, q := range corpusQueries {
		text := strings.ReplaceAll(q.query, "{zuhri100}", strings.Join(ids, ", "))
		cq := CorpusQuery{Name: q.name}
		// One request first, outside the CPU count: the first to touch a part of the store
		// pays its page faults (the Prophet's page took 1.3 s cold), which averaged over 55
		// requests read as 24 ms of CPU each.
		if _, _, err := corpusQuery(url, text); err != nil {
			return res, fmt.Errorf("%s: %w", q.name, err)
		}
		cpu := procCPU(srv.Process.Pid)
		cq.Latency, err = timeIt(cfg.Queries, func() error {
			_, e, err := corpusQuery(url, text)
			if e != "" && cq.Err == "" {
				cq.Err = e
			}
			return err
		}, nil)
		if err != nil {
			return res, fmt.Errorf("%s: %w", q.name, err)
		}
		cq.CPU = (procCPU(srv.Process.Pid) - cpu) / time.Duration(cq.Latency.Runs+max(1, cfg.Queries/10))
		logf(cfg.Log, "%-48s p50 %s p99 %s CPU %s %s", q.name, ms(cq.Latency.P50), ms(cq.Latency.P99), ms(cq.CPU), cq.Err)
		res.Queries = append(res.Queries, cq)
	}
	res.AnonRSS = procStatus(srv.Process.Pid, "RssAnon:")
	res.PeakRSS = procStatus(srv.Process.Pid, "VmHWM:")
	return res, nil
}

// corpusQuery posts one query and returns its data and its first error's message (with
// its code), if any; err is a failure to get an answer at all.
func corpusQuery(url, query string) (json.RawMessage, string, error) {
	body, _ := json.Marshal(map[string]any{"query": query})
	resp, err := http.Post(url+"/graphql", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	var out struct {
		Data   json.RawMessage
		Errors []struct {
			Message    string
			Extensions struct{ Code string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, "", err
	}
	if len(out.Errors) > 0 {
		return out.Data, out.Errors[0].Extensions.Code + ": " + out.Errors[0].Message, nil
	}
	return out.Data, "", nil
}

// WriteCorpusMarkdown writes a run of RunCorpus as a table.
func WriteCorpusMarkdown(w io.Writer, m Meta, r CorpusResult) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: `%s`  \nMachine: %s  \nDate: %s  \nLoad average at the start: %s\n\n", m.Command, m.Machine, m.Date.Format("2006-01-02 15:04 MST"), m.Load)
	b.WriteString("| query | p50 | p99 | server CPU per request | runs | |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
	for _, q := range r.Queries {
		status := "ok"
		if q.Err != "" {
			status = "ERR " + q.Err
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %s |\n", q.Name, ms(q.Latency.P50), ms(q.Latency.P99), ms(q.CPU), q.Latency.Runs, status)
	}
	fmt.Fprintf(&b, "\nServer: first /healthz after %s; at the end %.0f MiB not backed by files (RssAnon), peak resident set %.0f MiB (the mapped store included).\n",
		r.Start.Round(100*time.Millisecond), float64(r.AnonRSS)/(1<<20), float64(r.PeakRSS)/(1<<20))
	_, err := io.WriteString(w, b.String())
	return err
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// settleLimit is how long waitSettled waits for the full-text index: its build on a new
// store of 100,000 generated narrations took 7 min 25 s on the 2-core machine (the
// 100k run of 2026-12-01 stopped at the five minutes allowed before).
const settleLimit = 30 * time.Minute

// waitSettled waits until the server at url answers searchTexts (UNAVAILABLE until its
// full-text index is open: built from the store on a new one, checked against it on an
// old one) and then until it is idle: that background work, and bleve's merges after it,
// would otherwise be billed to the first query kinds' latency and CPU.
func waitSettled(url string, pid int) error {
	for deadline := time.Now().Add(settleLimit); ; {
		_, e, err := corpusQuery(url, `{ searchTexts(query: "ransom", first: 1) { totalCount } }`)
		if err != nil {
			return err
		}
		if e == "" {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("searchTexts still fails after %v: %s", settleLimit, e)
		}
		time.Sleep(500 * time.Millisecond)
	}
	waitIdle(pid, 3*time.Minute)
	return nil
}

// waitIdle returns once the process used under 2% of a core for two seconds running, or
// after at most limit.
func waitIdle(pid int, limit time.Duration) {
	quiet := 0
	for end := time.Now().Add(limit); time.Now().Before(end) && quiet < 2; {
		before := procCPU(pid)
		time.Sleep(time.Second)
		if procCPU(pid)-before < 20*time.Millisecond {
			quiet++
		} else {
			quiet = 0
		}
	}
}

// procCPU is a process's CPU time so far (user + system), from /proc/PID/stat, in clock
// ticks of 10 ms.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count fields after its closing paren.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b)[i+1:])
	if len(f) < 13 {
		return 0
	}
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
