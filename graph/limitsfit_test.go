package graph_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/athar-hadith/athar/graph"
)

// researchQueries are multi-part queries of the kinds docs/queries.md shows, several
// aliases each, as a researcher would send them at once. Every one must fit the default
// limits (docs/limits.md).
var researchQueries = map[string]string{
	"entity with claims and attestations": `{
		umar: entity(id: "person:umar-ibn-al-khattab") {
			id name aliases arabic
			claims { totalCount nodes { predicate object { id name } value attestationCount routeCount attestations { narration { id title } evidence start end note } } }
			narrations { id title }
		}
		abuBakr: entity(id: "person:abu-bakr") {
			id name
			claims(first: 20) { nodes { predicate object { id name } attestations { narration { id } evidence } } }
		}
	}`,
	"search then read": `{
		omar: search(text: "Omar", first: 5) { id type name arabic }
		badr: search(text: "Badr", first: 5) { id type name }
		umar: entity(id: "person:umar-ibn-al-khattab") { name narrations(first: 10) { id title references { collection number } } }
	}`,
	"full-text search, a page of 1,000 hits": `{
		texts: searchTexts(query: "ransom \"strike his neck\"", first: 1000) {
			totalCount pageInfo { hasNextPage endCursor }
			edges { cursor node { narration { id } language title score
				references { collection number } snippet { text start end highlights { start end } } } }
		}
		read: searchTexts(query: "ransom", first: 20) { edges { node { narration { id title chain { id name } gradings { grade } } } } }
		arabic: searchTexts(query: "عكرمة بن عمار", language: "ar", first: 20) { totalCount edges { node { narration { id } snippet { text highlights { start end } } } } }
	}`,
	"neighbourhood with claims": `{
		around: neighbourhood(id: "event:badr", depth: 1) {
			nodes { id type name }
			edges { source predicate target attestations claim { attestationCount attestations { narration { id } evidence } } }
			pageInfo { hasNextPage endCursor }
			reached truncated
		}
		verse: neighbourhood(id: "verse:3:165", depth: 2, first: 50) { nodes { id name } edges { source predicate target } }
	}`,
	"variants of counts": `{
		members: variants(subject: "group:companions-at-badr", predicate: "memberCount") {
			value attestationCount attestations { narration { id title } evidence start end }
			variants { value attestations { narration { id } evidence } }
		}
		counts: claims(predicate: "memberCount") { nodes { subject { id name } value attestations { narration { id } evidence } } }
	}`,
	"common link and routes": `{
		link: commonLink(narrations: ["narration:ahmad-208", "narration:muslim-1763", "narration:tirmidhi-3081", "narration:abudawud-2690"]) {
			person { id name }
			sharedRoute { id name }
			positions { narration { id title } position branch { id name } }
		}
		muslim: narration(id: "narration:muslim-1763") { id title chain { id name } routes { id name } references { collection number } }
		ikrimah: entity(id: "person:ikrimah-ibn-ammar") { ... on Person { transmitted { id title } narrated { id } } }
	}`,
	"gradings": `{
		albani: gradings(grader: "person:al-albani") { narration { id title } grader { id name } graderName verdict grade scope statedIn { collection number } statedInText }
		shakir: gradings(graderName: "Ahmad Shakir") { narration { id } verdict grade scope }
		sahih: gradings(grade: SAHIH) { narration { id } graderName verdict }
		tirmidhi: narration(id: "narration:tirmidhi-1567") { title gradings { grader { id } graderName verdict grade scope } }
	}`,
	"a corpus chapter and its texts": `{
		b: narration(id: "narration:bukhari-3953") { id title corpusRecord texts { language edition source text }
			chapter { id collection number name arabic narrations { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id title references { collection edition number } gradings { grader { id name } verdict grade scope } } } } } }
		ch: chapter(id: "chapter:abudawud-15") { name arabic narrations(first: 100) { edges { node { id title texts { language text } } } } }
	}`,
	"timeline and chronology": `{
		timeline { id name }
		chronology { placed { event { id name } rank after } unplaced { id name } }
		badr: entity(id: "event:badr") { ... on Event { precedes { nodes { entity { id name } claim { attestations { narration { id } evidence } } } } parts { nodes { entity { id name } } } } }
	}`,
	"verse and its occasions": `{
		v: verse(ref: "8:67") { id ref surahName text narrations { id title } claims { nodes { predicate object { id name } attestations { narration { id } evidence } } } }
		occasions: claims(predicate: "revealedRegarding") { totalCount nodes { subject { id } object { id type name } attestationCount routeCount attestations { narration { id } evidence } } }
		recited: claims(predicate: "recites") { nodes { subject { id name } object { id } attestations { narration { id } evidence } } }
	}`,
	"corroboration": `{
		n: narration(id: "narration:muslim-1763") {
			id title text
			parallels { narration { id title } sharedClaims claims { predicate object { id } attestations { narration { id } evidence } } variants { predicate value attestations { narration { id } evidence } } }
			gradings { graderName verdict grade }
		}
		strong: claims(minAttestations: 3) { totalCount nodes { subject { id name } predicate object { id name } attestationCount routeCount } }
		routes: claims(minRoutes: 2) { totalCount nodes { subject { id } predicate object { id } routeCount } }
	}`,
	"paths between people and verses": `{
		direct: shortestPath(from: "person:umar-ibn-al-khattab", to: "verse:3:165") { nodes { id name } edges { source predicate target attestations } }
		events: shortestPath(from: "person:umar-ibn-al-khattab", to: "verse:3:165", excludePredicates: ["narrates", "transmits", "mentions"]) {
			nodes { id name } edges { source predicate target attestations claim { attestations { narration { id } evidence } } }
		}
		abuBakr: shortestPath(from: "person:abu-bakr", to: "event:uhud") { nodes { id } edges { source predicate target } }
	}`,
	"consultation": `{
		consultation: entity(id: "event:consultation-on-prisoners") {
			name
			... on Event { participants { nodes { entity { id name } claim { attestationCount attestations { narration { id } evidence note } } } } }
		}
		advice: claims(predicate: "advises") { nodes { subject { id name } object { id name } attestations { narration { id title } evidence start end } } }
		consulted: claims(predicate: "consults") { nodes { subject { id name } object { id name } attestations { narration { id } evidence } } }
		badr: entity(id: "event:badr") { ... on Event { participants(first: 20) { totalCount nodes { entity { id } claim { attestations { narration { id } evidence note } } } } } }
	}`,
	"vocabulary and entities": `{
		predicates { name description domain range inverse single symmetric }
		people: entities(type: "Person") { totalCount nodes { id name } pageInfo { hasNextPage endCursor } }
		events: entities(type: "Event") { nodes { id name } }
		rr: predicate(name: "revealedRegarding") { name description domain range inverse single symmetric align }
	}`,
}

var complexityRE = regexp.MustCompile(`complexity (\d+)`)

// TestLimitsFitUse checks that every worked example of docs/queries.md and the research
// queries above pass the depth, field and complexity limits at their defaults, and logs
// each one's estimated cost (read from a server whose limit is 1) to show the headroom.
// The abuse documents of TestLimits and TestDocumentLimits still fail there.
func TestLimitsFitUse(t *testing.T) {
	raw, err := os.ReadFile(queriesSource)
	if err != nil {
		t.Fatal(err)
	}
	var qs []docQuery
	if err := yaml.Unmarshal(raw, &qs); err != nil {
		t.Fatal(err)
	}
	type named struct {
		name, query string
		vars        map[string]any
	}
	var all []named
	for i, q := range qs {
		all = append(all, named{name: "example " + strconv.Itoa(i+1), query: q.Query, vars: q.Variables})
	}
	for name, q := range researchQueries {
		all = append(all, named{name: name, query: q})
	}
	e := newEnv(t, options{token: testToken})
	probe := newEnv(t, options{config: func(c *graph.Config) { c.MaxComplexity = 1 }})
	for _, q := range all {
		t.Run(q.name, func(t *testing.T) {
			r := e.do(t, request{Query: q.query, Variables: q.vars})
			for _, err := range r.Errors {
				if code, _ := err.Extensions["code"].(string); code == "QUERY_TOO_COMPLEX" || code == "GRAPHQL_VALIDATION_FAILED" || code == "GRAPHQL_PARSE_FAILED" {
					t.Fatalf("refused: %s: %s", code, err.Message)
				}
			}
			if strings.HasPrefix(q.name, "example") {
				return
			}
			if len(r.Errors) > 0 {
				t.Fatalf("errors: %+v", r.Errors)
			}
			p := probe.do(t, request{Query: q.query, Variables: q.vars})
			if m := complexityRE.FindStringSubmatch(p.Errors[0].Message); m != nil {
				cost, _ := strconv.Atoi(m[1])
				t.Logf("cost %d of %d", cost, graph.DefaultMaxComplexity)
			}
		})
	}
}
