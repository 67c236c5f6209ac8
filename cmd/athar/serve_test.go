package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

type gqlResponse struct {
	Data   map[string]any `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func postGraphQL(t *testing.T, base, token, query string, vars map[string]any) gqlResponse {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out gqlResponse
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return out
}

func code(r gqlResponse) string {
	if len(r.Errors) == 0 {
		return ""
	}
	c, _ := r.Errors[0].Extensions["code"].(string)
	return c
}

// get walks a decoded JSON value by keys and indexes: get(v, "entity", "claims", "edges", 0).
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// TestServeGraphQLContract runs the real server through run on the embedded store and asks
// for every field of the API contract over HTTP.
func TestServeGraphQLContract(t *testing.T) {
	env := storeEnv(t)
	env["ATHAR_TOKEN"] = "s3cret-token"
	base, stop := startServer(t, env)
	defer stop()

	r := postGraphQL(t, base, "", `{
	  entity(id: "person:abu-bakr") {
	    id type name aliases narrations { id }
	    claims(predicate: "advises", first: 5) {
	      totalCount pageInfo { hasNextPage endCursor }
	      edges { cursor node {
	        id predicate subject { id name } object { id name } value
	        attestations { narration { id ... on Narration { text } } evidence start end }
	      } }
	    }
	  }
	  search(text: "son of al-Khattab", first: 3) { id name }
	  verse(ref: "8:67") { id surah ayah surahName }
	  narration(id: "narration:ahmad-208") { id text references { collection number edition } }
	  claims(subject: "event:badr", predicate: "precedes", object: "event:uhud", minAttestations: 2, first: 10) { totalCount edges { node { attestations { narration { id } } } } }
	  byNarration: claims(narration: "narration:muslim-1763", first: 1) { totalCount }
	  neighbourhood(id: "concept:ransom", depth: 1) { nodes { id } edges { source target predicate attestations } }
	  shortestPath(from: "person:umar-ibn-al-khattab", to: "verse:3:165", maxLength: 6) { nodes { id } edges { source target predicate } }
	  noPath: shortestPath(from: "person:umar-ibn-al-khattab", to: "verse:3:165", maxLength: 1) { nodes { id } }
	  timeline { id }
	}`, nil)
	if len(r.Errors) > 0 {
		t.Fatalf("errors: %+v", r.Errors)
	}
	d := r.Data
	if get(d, "entity", "type") != "Person" || get(d, "entity", "name") != "Abu Bakr" {
		t.Errorf("entity: %v", get(d, "entity"))
	}
	att := get(d, "entity", "claims", "edges", 0, "node", "attestations", 0)
	text, _ := get(att, "narration", "text").(string)
	start, _ := get(att, "start").(float64)
	end, _ := get(att, "end").(float64)
	if ev, _ := get(att, "evidence").(string); ev == "" || string([]rune(text)[int(start):int(end)]) != ev {
		t.Errorf("the offsets of %q do not slice it out of the narration text", ev)
	}
	if get(d, "search", 0, "id") != "person:umar-ibn-al-khattab" {
		t.Errorf("search for son of al-Khattab: %v", get(d, "search"))
	}
	if get(d, "verse", "surahName") != "Al-Anfal" || get(d, "verse", "ayah") != float64(67) {
		t.Errorf("verse: %v", get(d, "verse"))
	}
	if get(d, "narration", "references", 0, "number") != "208" {
		t.Errorf("narration: %v", get(d, "narration", "references"))
	}
	if n, _ := get(d, "claims", "totalCount").(float64); n != 1 {
		t.Errorf("Badr precedes Uhud with two attestations: %v", get(d, "claims"))
	}
	if n, _ := get(d, "byNarration", "totalCount").(float64); n < 10 {
		t.Errorf("claims of muslim-1763: %v", n)
	}
	if edges, _ := get(d, "neighbourhood", "edges").([]any); len(edges) == 0 {
		t.Error("no edges around concept:ransom")
	}
	nodes, _ := get(d, "shortestPath", "nodes").([]any)
	if len(nodes) < 2 || get(nodes[0], "id") != "person:umar-ibn-al-khattab" || get(nodes[len(nodes)-1], "id") != "verse:3:165" {
		t.Errorf("shortestPath: %v", get(d, "shortestPath"))
	}
	if get(d, "noPath") != nil {
		t.Errorf("a path within 1 step: %v", get(d, "noPath"))
	}
	if tl, _ := get(d, "timeline").([]any); len(tl) == 0 || get(tl[0], "id") != "event:badr" {
		t.Errorf("timeline: %v", get(d, "timeline"))
	}

	// GET serves queries, never mutations.
	resp, err := http.Get(base + "/graphql?query=" + url.QueryEscape(`{ entity(id: "event:badr") { name } }`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), "Badr") {
		t.Errorf("GET query: %s", b)
	}

	// Mutations need the token.
	doc := strings.Replace(smallDoc, "cli-test", "over-http", 1)
	const imp = `mutation($d: String!) { importNarration(document: $d) { narration { id } claimsAdded entitiesAdded } }`
	if r := postGraphQL(t, base, "", imp, map[string]any{"d": doc}); code(r) != "UNAUTHENTICATED" {
		t.Fatalf("import without a token: %+v", r)
	}
	if r := postGraphQL(t, base, "wrong", imp, map[string]any{"d": doc}); code(r) != "UNAUTHENTICATED" {
		t.Fatalf("import with a wrong token: %+v", r)
	}
	bad := strings.Replace(doc, "predicate: advises", "predicate: advized", 1)
	if r := postGraphQL(t, base, "s3cret-token", imp, map[string]any{"d": bad}); code(r) != "INVALID_ARGUMENT" || !strings.Contains(r.Errors[0].Message, "claims[0].predicate") {
		t.Fatalf("bad document: %+v", r)
	}
	r = postGraphQL(t, base, "s3cret-token", imp, map[string]any{"d": doc})
	if len(r.Errors) > 0 || get(r.Data, "importNarration", "narration", "id") != "narration:over-http" {
		t.Fatalf("import: %+v", r)
	}
	r = postGraphQL(t, base, "", `{ claims(subject: "person:abu-bakr", predicate: "advises", object: "concept:ransom") { edges { node { attestations { narration { id } } } } } }`, nil)
	if atts, _ := get(r.Data, "claims", "edges", 0, "node", "attestations").([]any); len(atts) < 3 {
		t.Errorf("the imported narration did not add an attestation: %v", atts)
	}
	r = postGraphQL(t, base, "s3cret-token", `mutation { deleteNarration(id: "narration:over-http") }`, nil)
	if get(r.Data, "deleteNarration") != true {
		t.Fatalf("delete: %+v", r)
	}
	if r := postGraphQL(t, base, "s3cret-token", `mutation { deleteNarration(id: "narration:over-http") }`, nil); code(r) != "NOT_FOUND" {
		t.Fatalf("delete twice: %+v", r)
	}

	// Exports.
	resp, err = http.Get(base + "/export/cytoscape?root=event:badr&depth=1")
	if err != nil {
		t.Fatal(err)
	}
	var cy struct {
		Elements struct{ Nodes, Edges []any } `json:"elements"`
	}
	err = json.NewDecoder(resp.Body).Decode(&cy)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || len(cy.Elements.Nodes) < 10 || len(cy.Elements.Edges) < 10 {
		t.Errorf("cytoscape export: %d %v %d nodes", resp.StatusCode, err, len(cy.Elements.Nodes))
	}
	for path, want := range map[string]int{
		"/export/gexf?root=event:nowhere": 404,
		"/export/pdf":                     404,
		"/export/nquads?depth=x":          400,
		"/export/nquads?predicates=nope":  400,
		"/export/graphml?root=event:badr": 200,
	} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// TestServeRefusesMutationsWithoutToken: with no ATHAR_TOKEN every mutation is refused.
func TestServeRefusesMutationsWithoutToken(t *testing.T) {
	base, stop := startServer(t, storeEnv(t))
	defer stop()
	r := postGraphQL(t, base, "anything", `mutation { deleteNarration(id: "narration:ahmad-208") }`, nil)
	if code(r) != "UNAUTHENTICATED" {
		t.Fatalf("got %+v", r)
	}
}

// refusal is the answer to a request refused as a whole: its status and its error's code.
type refusal struct {
	status  int
	code    string
	message string
}

func send(t *testing.T, base, contentType string, body io.Reader) refusal {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/graphql", body)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		gqlResponse
		Code string `json:"code"` // the shape of the HTTP server's own refusals
	}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	r := refusal{status: resp.StatusCode, code: out.Code}
	if len(out.Errors) > 0 {
		r.code, r.message = code(out.gqlResponse), out.Errors[0].Message
	}
	return r
}

func TestServeLimits(t *testing.T) {
	base, stop := startServer(t, storeEnv(t))
	defer stop()
	big := bytes.Repeat([]byte("x"), 40<<20)
	// With its length announced, and chunked (a reader of unknown length): both 413, coded.
	for name, body := range map[string]io.Reader{
		"40 MB body":         bytes.NewReader(big),
		"chunked 40 MB body": io.MultiReader(bytes.NewReader(big)),
	} {
		if r := send(t, base, "application/json", body); r.status != http.StatusRequestEntityTooLarge || r.code != "REQUEST_TOO_LARGE" {
			t.Errorf("%s: %+v, want 413 REQUEST_TOO_LARGE", name, r)
		}
	}
	r := send(t, base, "text/plain", strings.NewReader(`{"query": "{ timeline { id } }"}`))
	if r.status != http.StatusUnsupportedMediaType || r.code != "UNSUPPORTED_MEDIA_TYPE" || !strings.Contains(r.message, "application/json") {
		t.Errorf("wrong Content-Type: %+v, want 415 UNSUPPORTED_MEDIA_TYPE naming application/json", r)
	}
	resp, err := http.Post(base+"/graphql", "application/json", strings.NewReader(`{"query": "{ timeline { id } }"}`))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a query after the refusals: %v", err)
	}
	resp.Body.Close()
	resp, err = http.Post(base+"/graphql", "application/json", strings.NewReader(`{"query": "{ timeline { id } }"`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("malformed JSON: %d, want 400", resp.StatusCode)
	}
	resp, err = http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("not healthy after abuse: %v", err)
	}
	resp.Body.Close()
}

func TestServeMetricsAndCORS(t *testing.T) {
	env := storeEnv(t)
	env["ATHAR_CORS_ORIGINS"] = "https://explorer.example"
	base, stop := startServer(t, env)
	defer stop()
	postGraphQL(t, base, "", `{ entity(id: "event:badr") { name } }`, nil)

	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`athar_http_requests_total{code="200",method="POST",route="/graphql"}`, `athar_store_operations_total{op="entities",result="ok"}`, "go_goroutines",
		// The collector's settings for serving (gc.go), the environment setting neither.
		"\ngo_gc_gogc_percent 300\n", "\ngo_gc_gomemlimit_bytes 8.05306368e+08\n",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	for origin, allowed := range map[string]bool{"https://explorer.example": true, "https://evil.example": false} {
		req, _ := http.NewRequest(http.MethodOptions, base+"/graphql", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type") // as browsers send it: sorted, lower case
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("Access-Control-Allow-Origin")
		if allowed && got != origin || !allowed && got != "" {
			t.Errorf("preflight from %s: Access-Control-Allow-Origin %q", origin, got)
		}
	}
}
