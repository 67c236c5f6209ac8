package graph_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/graph"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/testsupport"
)

// smallDoc is a second narration that uses the seed's ids and adds one person.
const smallDoc = `
narration:
  id: narration:test-note
  title: A test note on the scribe at Badr
  references:
    - {collection: Test Collection, number: "1"}
  narrator: person:abu-bakr
  language: en
  text: "Abu Bakr said: the Zubayrite scribe wrote it down at Badr."
entities:
  - id: person:zubayrite-scribe
    type: Person
    name: The Zubayrite scribe
    aliases: ["scribe of Zubayr"]
    arabic: كاتب الزبير
claims:
  - subject: person:zubayrite-scribe
    predicate: participatedIn
    object: event:badr
    evidence: "the Zubayrite scribe wrote it down at Badr"
  - subject: person:abu-bakr
    predicate: consults
    object: person:zubayrite-scribe
    evidence: "Abu Bakr said"
`

const importMutation = `mutation($doc: String!) {
	importNarration(document: $doc) {
		narration { id title narrator { id } }
		claimsAdded entitiesAdded changed quadsAdded quadsRemoved
	}
}`

func TestMutationAuth(t *testing.T) {
	tests := []struct {
		name       string
		configured string // the server's token
		sent       string // the request's bearer token
		get        bool
		wantCode   string
		wantStatus int
	}{
		{name: "no token configured refuses even a token", configured: "", sent: "anything", wantCode: "UNAUTHENTICATED"},
		{name: "no token configured, none sent", configured: "", sent: "", wantCode: "UNAUTHENTICATED"},
		{name: "missing header", configured: testToken, sent: "", wantCode: "UNAUTHENTICATED"},
		{name: "wrong token", configured: testToken, sent: "wrong", wantCode: "UNAUTHENTICATED"},
		{name: "token with a suffix", configured: testToken, sent: testToken + "x", wantCode: "UNAUTHENTICATED"},
		{name: "right token", configured: testToken, sent: testToken},
		{name: "GET carries no mutation, even with the right token", configured: testToken, sent: testToken, get: true, wantStatus: http.StatusNotAcceptable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, options{token: tt.configured})
			before := testsupport.Quads(t, e.store)
			r := e.do(t, request{Query: importMutation, Variables: map[string]any{"doc": smallDoc}, token: tt.sent, get: tt.get})
			after := testsupport.Quads(t, e.store)
			switch {
			case tt.wantStatus != 0:
				if r.status != tt.wantStatus || len(r.Errors) == 0 {
					t.Fatalf("status %d, errors %+v; want %d and an error", r.status, r.Errors, tt.wantStatus)
				}
				// gqlgen's GET transport refuses it itself, past the error presenter.
				if r.code() != "INVALID_ARGUMENT" {
					t.Fatalf("code = %q, want INVALID_ARGUMENT (%+v)", r.code(), r.Errors)
				}
			case tt.wantCode != "":
				if r.code() != tt.wantCode {
					t.Fatalf("code = %q, want %q (%+v)", r.code(), tt.wantCode, r.Errors)
				}
				if strings.Contains(r.Errors[0].Message, testToken) {
					t.Errorf("the error shows the token: %s", r.Errors[0].Message)
				}
			default:
				if len(r.Errors) > 0 {
					t.Fatalf("errors: %+v", r.Errors)
				}
				if !strings.Contains(string(r.Data), `"entitiesAdded":1`) || !strings.Contains(string(r.Data), `"narration:test-note"`) {
					t.Errorf("import result = %s", r.Data)
				}
				if before == after {
					t.Error("the import changed nothing")
				}
				return
			}
			if before != after {
				t.Error("a refused mutation changed the graph")
			}
		})
	}
}

func TestLimits(t *testing.T) {
	e := newEnv(t, options{})
	deep := `{ entity(id: "event:badr") { ... on Event { parts { nodes { entity { ... on Event { partOf { nodes { entity { ... on Event { parts { nodes { entity { ... on Event { partOf { nodes { entity { id } } } } } } } } } } } } } } } } } }`
	wide := `{ claims(first: 100) { nodes { subject { ... on Person { participatedIn(first: 100) { nodes { entity { id name narrations { id } } } } } } } } }`
	tests := []struct {
		name  string
		query string
		code  string
		msg   string
	}{
		{name: "too deep", query: deep, code: "QUERY_TOO_COMPLEX", msg: "nests"},
		{name: "too complex", query: wide, code: "QUERY_TOO_COMPLEX", msg: "complexity"},
		{name: "neighbourhood too deep", query: `{ neighbourhood(id: "event:badr", depth: 4) { nodes { id } } }`, code: "INVALID_ARGUMENT", msg: "depth"},
		{name: "negative depth", query: `{ neighbourhood(id: "event:badr", depth: -1) { nodes { id } } }`, code: "INVALID_ARGUMENT", msg: "depth"},
		{name: "path too long", query: `{ shortestPath(from: "event:badr", to: "event:uhud", maxLength: 11) { nodes { id } } }`, code: "INVALID_ARGUMENT", msg: "maxLength"},
		{name: "page too large", query: `{ claims(first: 101) { totalCount } }`, code: "INVALID_ARGUMENT", msg: "first"},
		{name: "search too large", query: `{ search(text: "a", first: 1000) { id } }`, code: "INVALID_ARGUMENT", msg: "first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.mustFail(t, request{Query: tt.query}, tt.code)
			if !strings.Contains(r.Errors[0].Message, tt.msg) {
				t.Errorf("message %q does not mention %q", r.Errors[0].Message, tt.msg)
			}
		})
	}
	t.Run("introspection is on and not limited", func(t *testing.T) {
		r := e.do(t, request{Query: introspectionQuery})
		if len(r.Errors) > 0 || !strings.Contains(string(r.Data), `"revealedRegarding"`) {
			t.Fatalf("introspection failed: %+v", r.Errors)
		}
	})
}

func TestTimeout(t *testing.T) {
	e := newEnv(t, options{
		wrap:   func(st athar.Store) athar.Store { return slowStore{st} },
		config: func(c *graph.Config) { c.Timeout = 50 * time.Millisecond },
	})
	start := time.Now()
	r := e.mustFail(t, request{Query: `{ claims { totalCount } }`}, "QUERY_TOO_COMPLEX")
	if time.Since(start) > 5*time.Second {
		t.Errorf("the request ran %s past its 50ms deadline", time.Since(start))
	}
	if !strings.Contains(r.Errors[0].Message, "50ms") {
		t.Errorf("message %q does not give the limit", r.Errors[0].Message)
	}
}

// slowStore's claim lists (FindClaims, PageClaims) wait for the request's deadline.
type slowStore struct{ athar.Store }

func (s slowStore) FindClaims(ctx context.Context, f athar.ClaimFilter) ([]*athar.Claim, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func (s slowStore) PageClaims(ctx context.Context, q athar.ClaimPageQuery) (athar.ClaimPage, error) {
	<-ctx.Done()
	return athar.ClaimPage{}, ctx.Err()
}

// brokenStore fails every entity read with an error that must not reach clients.
type brokenStore struct{ athar.Store }

const secret = "bbolt: /var/lib/athar/secret.db: input/output error"

func (s brokenStore) Entities(ctx context.Context, ids []athar.ID) ([]*athar.Entity, error) {
	return nil, errors.New(secret)
}

func TestErrorCodes(t *testing.T) {
	e := newEnv(t, options{token: testToken})
	tests := []struct {
		name  string
		req   request
		code  string
		msg   string
		check func(t *testing.T, r response)
	}{
		{name: "delete an unknown narration", req: request{Query: `mutation { deleteNarration(id: "narration:nothing-here") }`, token: testToken},
			code: "NOT_FOUND", msg: "narration:nothing-here"},
		{name: "delete with a non-narration id", req: request{Query: `mutation { deleteNarration(id: "person:abu-bakr") }`, token: testToken},
			code: "INVALID_ARGUMENT", msg: "narration"},
		{name: "no surah 115", req: request{Query: `{ verse(ref: "115:1") { id } }`}, code: "INVALID_ARGUMENT", msg: "no surah 115"},
		{name: "no verse 8:76", req: request{Query: `{ verse(ref: "8:76") { id } }`}, code: "INVALID_ARGUMENT", msg: "verses 1 to 75"},
		{name: "entity with a bad verse id", req: request{Query: `{ entity(id: "verse:8:76") { id } }`}, code: "INVALID_ARGUMENT", msg: "verses 1 to 75"},
		{name: "malformed id", req: request{Query: `{ entity(id: "abu-bakr") { id } }`}, code: "INVALID_ARGUMENT", msg: "prefix:slug"},
		{name: "unknown predicate", req: request{Query: `{ claims(predicate: "advized") { totalCount } }`}, code: "INVALID_ARGUMENT", msg: "advises"},
		{name: "bad cursor", req: request{Query: `{ claims(after: "not-a-cursor") { totalCount } }`}, code: "INVALID_ARGUMENT", msg: "cursor"},
		{name: "path from nowhere", req: request{Query: `{ shortestPath(from: "person:nobody", to: "event:uhud") { nodes { id } } }`}, code: "NOT_FOUND", msg: "person:nobody"},
		{name: "unknown entity type", req: request{Query: `{ entities(type: "Angel") { totalCount } }`}, code: "INVALID_ARGUMENT", msg: "Angel"},
		{name: "not GraphQL", req: request{Query: `{ entity(id: `}, code: "GRAPHQL_PARSE_FAILED"},
		{name: "no such field", req: request{Query: `{ entity(id: "event:badr") { colour } }`}, code: "GRAPHQL_VALIDATION_FAILED"},
		{
			name: "a refused document names its fields", code: "INVALID_ARGUMENT", msg: "claims[0].predicate",
			req: request{Query: importMutation, token: testToken, Variables: map[string]any{"doc": strings.Replace(
				strings.Replace(smallDoc, "predicate: participatedIn", "predicate: foughtAt", 1),
				`evidence: "Abu Bakr said"`, `evidence: "Abu Bakr never said"`, 1)}},
			check: func(t *testing.T, r response) {
				problems, _ := r.Errors[0].Extensions["problems"].([]any)
				if len(problems) != 2 {
					t.Fatalf("problems = %v, want 2", r.Errors[0].Extensions["problems"])
				}
				p0, _ := problems[0].(map[string]any)
				if p0["path"] != "claims[0].predicate" || p0["line"].(float64) < 1 || !strings.Contains(p0["message"].(string), "foughtAt") {
					t.Errorf("first problem = %v", p0)
				}
				p1, _ := problems[1].(map[string]any)
				if p1["path"] != "claims[1].evidence" {
					t.Errorf("second problem = %v", p1)
				}
			},
		},
		{
			name: "a document that is not YAML", code: "INVALID_ARGUMENT", msg: "YAML",
			req: request{Query: importMutation, token: testToken, Variables: map[string]any{"doc": "narration: [unclosed"}},
			check: func(t *testing.T, r response) {
				if _, ok := r.Errors[0].Extensions["problems"].([]any); !ok {
					t.Errorf("no problems: %v", r.Errors[0].Extensions)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := testsupport.Quads(t, e.store)
			r := e.mustFail(t, tt.req, tt.code)
			if !strings.Contains(r.Errors[0].Message, tt.msg) {
				t.Errorf("message %q does not mention %q", r.Errors[0].Message, tt.msg)
			}
			if tt.check != nil {
				tt.check(t, r)
			}
			if after := testsupport.Quads(t, e.store); after != before {
				t.Error("a refused request changed the graph")
			}
		})
	}
	t.Run("missing things are null, not errors", func(t *testing.T) {
		var got map[string]any
		e.query(t, `{ entity(id: "person:nobody") { id } narration(id: "narration:nothing") { id } claim(id: "claim:0000") { id } predicate(name: "nope") { name } }`, nil, &got)
		for k, v := range got {
			if v != nil {
				t.Errorf("%s = %v, want null", k, v)
			}
		}
	})
	t.Run("deleting what others depend on is a conflict", func(t *testing.T) {
		first := strings.Replace(smallDoc, "narration:test-note", "narration:test-definer", 1)
		second := `
narration:
  id: narration:test-user
  title: Uses the scribe
  references: [{collection: Test Collection, number: "2"}]
  text: "The scribe was there."
claims:
  - subject: person:zubayrite-scribe
    predicate: participatedIn
    object: event:badr
    evidence: "The scribe was there."
`
		for _, doc := range []string{first, second} {
			if r := e.do(t, request{Query: importMutation, Variables: map[string]any{"doc": doc}, token: testToken}); len(r.Errors) > 0 {
				t.Fatalf("import: %+v", r.Errors)
			}
		}
		before := testsupport.Quads(t, e.store)
		r := e.mustFail(t, request{Query: `mutation { deleteNarration(id: "narration:test-definer") }`, token: testToken}, "CONFLICT")
		if !strings.Contains(r.Errors[0].Message, "narration:test-user") {
			t.Errorf("message %q does not name the dependant", r.Errors[0].Message)
		}
		if testsupport.Quads(t, e.store) != before {
			t.Error("a refused delete changed the graph")
		}
	})
}

func TestInternalErrorsDoNotLeak(t *testing.T) {
	e := newEnv(t, options{wrap: func(st athar.Store) athar.Store { return brokenStore{st} }})
	r := e.mustFail(t, request{Query: `{ entity(id: "person:abu-bakr") { id } }`}, "INTERNAL")
	if r.Errors[0].Message != "internal error" {
		t.Errorf("message = %q, want \"internal error\"", r.Errors[0].Message)
	}
	if strings.Contains(string(r.Data)+r.Errors[0].Message, "secret") {
		t.Error("the response leaks the internal error")
	}
	if logs := e.logs.String(); strings.Count(logs, "secret.db") != 1 {
		t.Errorf("the internal error should be logged once, logs:\n%s", logs)
	}
}

func TestAutomaticPersistedQueries(t *testing.T) {
	e := newEnv(t, options{})
	q := `{ entity(id: "event:uhud") { name } }`
	sum := sha256.Sum256([]byte(q))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}
	for _, get := range []bool{false, true} {
		r := e.do(t, request{Extensions: ext, get: get})
		if len(r.Errors) == 0 || r.code() != "PERSISTED_QUERY_NOT_FOUND" {
			t.Fatalf("unknown hash: %+v, want PERSISTED_QUERY_NOT_FOUND", r.Errors)
		}
	}
	if r := e.do(t, request{Query: q, Extensions: ext}); len(r.Errors) > 0 {
		t.Fatalf("register: %+v", r.Errors)
	}
	for _, get := range []bool{false, true} {
		r := e.do(t, request{Extensions: ext, get: get})
		if len(r.Errors) > 0 || !strings.Contains(string(r.Data), "The battle of Uhud") {
			t.Fatalf("hash only (get=%v): %s %+v", get, r.Data, r.Errors)
		}
	}
	bad := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": strings.Repeat("0", 64)}}
	e.mustFail(t, request{Query: q, Extensions: bad}, "INVALID_ARGUMENT")
}

// introspectionQuery is GraphiQL's.
const introspectionQuery = `query IntrospectionQuery {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: true) { name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } }
}`

// TestTransportErrorsCarryCodes: the answers gqlgen's transports write themselves carry a
// code like every other error.
func TestTransportErrorsCarryCodes(t *testing.T) {
	e := newEnv(t, options{token: testToken})
	for name, req := range map[string]func() (*http.Response, error){
		"GET mutation without a token": func() (*http.Response, error) {
			return http.Get(e.srv.URL + "?query=" + url.QueryEscape(`mutation { deleteNarration(id: "narration:x") }`))
		},
		"GET variables not JSON": func() (*http.Response, error) {
			return http.Get(e.srv.URL + "?query=" + url.QueryEscape(`{ __typename }`) + "&variables=%7Bnot")
		},
		"POST body not JSON": func() (*http.Response, error) {
			return http.Post(e.srv.URL, "application/json", strings.NewReader(`{not json`))
		},
	} {
		t.Run(name, func(t *testing.T) {
			resp, err := req()
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var r response
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
				t.Fatal(err)
			}
			if len(r.Errors) == 0 {
				t.Fatalf("status %d, errors %+v; want a refusal", resp.StatusCode, r.Errors)
			}
			for _, e := range r.Errors {
				if c, _ := e.Extensions["code"].(string); c == "" {
					t.Errorf("status %d: error without a code: %+v", resp.StatusCode, e)
				}
			}
		})
	}
}
