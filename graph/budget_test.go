package graph_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/search"
)

// fragmentBomb is a document of n fragments, each spreading the previous one twice: some
// 2^n fields once expanded, in a few dozen bytes per level.
func fragmentBomb(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "{ ...F%d }\nfragment F0 on Query { timeline { id } }\n", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query { a%d: __typename ...F%d ...F%d }\n", i, i, i-1, i-1)
	}
	return b.String()
}

// aliases repeats field under n aliases in one query.
func aliases(n int, field string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		fmt.Fprintf(&b, " a%d: %s", i, field)
	}
	b.WriteString(" }")
	return b.String()
}

func TestDocumentLimits(t *testing.T) {
	e := newEnv(t, options{})
	tests := []struct {
		name  string
		query string
		code  string
		msg   string
	}{
		{name: "fragments expanded 2^40 times", query: fragmentBomb(40), code: "QUERY_TOO_COMPLEX", msg: "fragments are expanded"},
		{name: "introspection aliased", query: aliases(300, "__schema { types { name fields { name args { name } type { name } } } }"), code: "QUERY_TOO_COMPLEX", msg: "limit is"},
		{name: "fragments in a cycle", query: `{ ...A } fragment A on Query { __typename ...B } fragment B on Query { ...A }`, code: "GRAPHQL_VALIDATION_FAILED", msg: "within itself"},
		{name: "__schema three times", query: aliases(3, "__schema { queryType { name } }"), code: "QUERY_TOO_COMPLEX", msg: "__schema"},
		{name: "too many tokens", query: aliases(8000, "__typename"), code: "GRAPHQL_PARSE_FAILED", msg: "token"},
		{name: "nested narrations", query: `{ entity(id: "person:abu-bakr") { narrations { chain { narrations { chain { narrations { id } } } } } } }`, code: "QUERY_TOO_COMPLEX", msg: "complexity"},
		{name: "counting every claim forty times", query: aliases(100, "claims(first: 1) { totalCount }"), code: "QUERY_TOO_COMPLEX", msg: "complexity"},
		{name: "narrations past the maximum", query: `{ entity(id: "person:abu-bakr") { narrations(first: 1001) { id } } }`, code: "INVALID_ARGUMENT", msg: "first"},
		{name: "attestations past the maximum", query: `{ claims(subject: "person:abu-bakr", first: 1) { nodes { attestations(first: 5000) { id } } } }`, code: "INVALID_ARGUMENT", msg: "first"},
		{name: "timeline past the maximum", query: `{ timeline(first: 1001) { id } }`, code: "INVALID_ARGUMENT", msg: "first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			r := e.mustFail(t, request{Query: tt.query}, tt.code)
			if !strings.Contains(r.Errors[0].Message, tt.msg) {
				t.Errorf("message %q does not mention %q", r.Errors[0].Message, tt.msg)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("refused after %s", d)
			}
		})
	}
	t.Run("lists are cut at first", func(t *testing.T) {
		r := e.do(t, request{Query: `{ entity(id: "person:abu-bakr") { narrations(first: 1) { id } narrationCount ... on Person { narrated(first: 1) { id } } } timeline(first: 2) { id } }`})
		if len(r.Errors) > 0 {
			t.Fatalf("errors: %+v", r.Errors)
		}
		if strings.Contains(string(r.Data), `"narrationCount":1,`) || strings.Contains(string(r.Data), `"narrationCount":0,`) {
			t.Errorf("narrationCount does not say more narrations exist: %s", r.Data)
		}
		if n := strings.Count(string(r.Data), `"id"`); n != 3 {
			t.Errorf("%d ids, want 3: %s", n, r.Data)
		}
	})
}

func TestRequestBudget(t *testing.T) {
	t.Run("fields", func(t *testing.T) {
		e := newEnv(t, options{config: func(c *graph.Config) { c.MaxResolved = 5 }})
		r := e.mustFail(t, request{Query: `{ timeline { id name aliases } }`}, "QUERY_TOO_COMPLEX")
		if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "5 fields") || string(r.Data) != "null" {
			t.Errorf("errors %+v, data %s; want one error naming the limit and no data", r.Errors, r.Data)
		}
	})
	t.Run("bytes", func(t *testing.T) {
		e := newEnv(t, options{config: func(c *graph.Config) { c.MaxResponseBytes = 2000 }})
		r := e.mustFail(t, request{Query: `{ entity(id: "person:abu-bakr") { narrations { text } } }`}, "QUERY_TOO_COMPLEX")
		if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "2000 bytes") {
			t.Errorf("errors %+v; want one error naming the limit", r.Errors)
		}
	})
	t.Run("errors", func(t *testing.T) {
		e := newEnv(t, options{config: func(c *graph.Config) { c.MaxErrors = 3 }})
		r := e.do(t, request{Query: aliases(10, `verse(ref: "8:76") { id }`)})
		// Ten verses refused: 10 errors, 3 reported and a count.
		if len(r.Errors) != 4 || !strings.Contains(r.Errors[3].Message, "7 more errors") {
			t.Errorf("%d errors: %+v", len(r.Errors), r.Errors)
		}
	})
	t.Run("deadline stops every field left", func(t *testing.T) {
		e := newEnv(t, options{
			wrap:   func(st athar.Store) athar.Store { return slowStore{st} },
			config: func(c *graph.Config) { c.Timeout = 50 * time.Millisecond },
		})
		r := e.mustFail(t, request{Query: aliases(200, `claims(subject: "person:abu-bakr") { totalCount }`)}, "QUERY_TOO_COMPLEX")
		if len(r.Errors) != 1 || !strings.Contains(r.Errors[0].Message, "50ms") {
			t.Errorf("%d errors, first %+v; want one naming the limit", len(r.Errors), r.Errors[0])
		}
	})
}

func TestConcurrencyLimit(t *testing.T) {
	e := newEnv(t, options{
		wrap: func(st athar.Store) athar.Store { return slowStore{st} },
		config: func(c *graph.Config) {
			c.Timeout = 500 * time.Millisecond
			c.MaxConcurrent = 1
			c.QueueWait = 10 * time.Millisecond
		},
	})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		e.do(t, request{Query: `{ claims(subject: "person:abu-bakr") { totalCount } }`})
	}()
	time.Sleep(100 * time.Millisecond)
	r := e.do(t, request{Query: `{ predicates { name } }`})
	wg.Wait()
	if r.status != http.StatusServiceUnavailable || r.code() != "UNAVAILABLE" {
		t.Fatalf("status %d, code %q; want 503 UNAVAILABLE", r.status, r.code())
	}
}

func TestCostGate(t *testing.T) {
	e := newEnv(t, options{
		wrap: func(st athar.Store) athar.Store { return slowStore{st} },
		config: func(c *graph.Config) {
			c.Timeout, c.QueueWait = 700*time.Millisecond, 50*time.Millisecond
			c.MaxComplexity = 100 // two queries of cost 100 at once
		},
	})
	heavy := aliases(45, `claims(subject: "person:abu-bakr", first: 1) { totalCount }`)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.do(t, request{Query: heavy})
		}()
	}
	time.Sleep(200 * time.Millisecond)
	refused := e.do(t, request{Query: heavy})
	cheap := e.do(t, request{Query: `{ predicate(name: "advises") { name } }`})
	wg.Wait()
	if refused.status != http.StatusServiceUnavailable || refused.code() != "UNAVAILABLE" {
		t.Errorf("a third heavy query: status %d, errors %+v; want 503 UNAVAILABLE", refused.status, refused.Errors)
	}
	if cheap.status != http.StatusOK || len(cheap.Errors) > 0 {
		t.Errorf("a cheap query beside them: status %d, errors %+v; want an answer", cheap.status, cheap.Errors)
	}
}

// A query that resolves more fields than its estimate takes more room as it goes, and is
// stopped, retryably, when the running queries leave none.
func TestCostGateRoomForOverruns(t *testing.T) {
	e := newEnv(t, options{config: func(c *graph.Config) { c.MaxComplexity = 200 }})
	r := e.do(t, request{Query: `{ predicates { name domain range align inverse description } }`})
	if r.status != http.StatusServiceUnavailable || r.code() != "UNAVAILABLE" || len(r.Errors) != 1 || string(r.Data) != "null" {
		t.Fatalf("status %d, errors %+v, data %.80s; want 503 and one UNAVAILABLE error", r.status, r.Errors, r.Data)
	}
	if !strings.Contains(r.Errors[0].Message, "more than its estimate") {
		t.Errorf("message %q does not say why", r.Errors[0].Message)
	}
	e = newEnv(t, options{})
	if r := e.do(t, request{Query: `{ predicates { name domain range align inverse description } }`}); len(r.Errors) > 0 {
		t.Errorf("with the default room: %+v", r.Errors)
	}
}

// TestCostReadsTheReadModelsCounts: on a large graph (here, a name index of 20,000 more
// people, so that a whole-store scan is estimated far past the limit), a page of one
// predicate's claims and the timeline cost what they read -- a page, the claims of the
// timeline's predicates -- and are answered; a claims with no filter at all still costs as
// the scan it is and is refused.
func TestCostReadsTheReadModelsCounts(t *testing.T) {
	e := newEnv(t, options{})
	for i := 0; i < 20000; i++ {
		e.index.Put(search.Doc{ID: fmt.Sprintf("person:extra-%d", i), Type: "Person", Names: []string{fmt.Sprintf("Extra %d", i)}})
	}
	for _, q := range []string{
		`{ claims(predicate: "advises", first: 50) { totalCount edges { node { id } } } }`,
		`{ claims(predicate: "advises", minAttestations: 2) { totalCount } }`,
		`{ timeline(first: 10) { id } }`,
		`{ chronology(first: 10) { unplaced { id } } }`,
		`{ claims(subject: "person:abu-bakr", first: 5) { totalCount } }`,
	} {
		if r := e.do(t, request{Query: q}); len(r.Errors) > 0 {
			t.Errorf("%s: %+v", q, r.Errors)
		}
	}
	e.mustFail(t, request{Query: `{ claims(first: 1) { totalCount } }`}, "QUERY_TOO_COMPLEX")
}

// TestTimelineCostsItsPageWhenKept: the timeline and the chronology read every event and
// every claim of their predicates to order them. Without a TimelineCache each request does,
// and is charged for it; with one the order is computed once per write, so a request costs
// its page -- at 100,000 narrations the read alone passed the whole limit.
func TestTimelineCostsItsPageWhenKept(t *testing.T) {
	const limit = 40
	for _, q := range []string{`{ timeline(first: 5) { id } }`, `{ chronology(first: 5) { unplaced { id } } }`} {
		uncached := newEnv(t, options{config: func(c *graph.Config) { c.MaxComplexity, c.Timeline = limit, nil }})
		uncached.mustFail(t, request{Query: q}, "QUERY_TOO_COMPLEX")
		cached := newEnv(t, options{config: func(c *graph.Config) { c.MaxComplexity = limit }})
		if r := cached.do(t, request{Query: q}); len(r.Errors) > 0 || !strings.Contains(string(r.Data), "event:") {
			t.Errorf("%s with the orders kept: %+v, %s", q, r.Errors, r.Data)
		}
	}
}
