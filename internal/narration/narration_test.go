package narration_test

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/testsupport"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

var update = flag.Bool("update", false, "rewrite golden files")

func readValid(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/valid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newImporter(t *testing.T) (*cayleystore.Store, *ingest.Local) {
	t.Helper()
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, ingest.NewLocal(st, schema.Vocabulary())
}

func importDoc(t *testing.T, im *ingest.Local, name, src string) (ingest.Result, error) {
	t.Helper()
	d, err := narration.Parse(name, []byte(src))
	if err != nil {
		return ingest.Result{}, err
	}
	return im.Import(context.Background(), d)
}

func mustImport(t *testing.T, im *ingest.Local, name, src string) ingest.Result {
	t.Helper()
	r, err := importDoc(t, im, name, src)
	if err != nil {
		t.Fatalf("import %s: %v", name, err)
	}
	return r
}

// TestRulesRefuse breaks each rule of the format in turn. Every refusal must name the
// document, the field path and its line, say what was expected, and leave the graph
// exactly as it was.
func TestRulesRefuse(t *testing.T) {
	valid := readValid(t)
	cases := []struct {
		name     string
		edit     func(string) string
		wantPath string
		wantLine int
		wantMsg  string
	}{
		{"not yaml", func(s string) string { return "narration: [\n" }, "", 1, "not valid YAML or JSON"},
		{"empty", func(string) string { return "  \n" }, "", 0, "the document is empty"},
		{"not a mapping", func(string) string { return "- a\n- b\n" }, "", 1, "must be a mapping"},
		{"no narration", func(string) string { return "claims: []\n" }, "narration", 1, "missing"},
		{"unknown top-level field", func(s string) string { return s + "extra: 1\n" }, "extra", 38, `unknown field "extra"`},
		{"unknown claim field", r("    evidence: \"Seventy were killed\"", "    evidence: \"Seventy were killed\"\n    evidense: x"), "claims[1].evidense", 33, "unknown field"},
		{"duplicate field", r("  title: A test report", "  title: A test report\n  title: again"), "narration.title", 5, "given twice"},
		{"missing id", r("  id: narration:test-1\n", ""), "narration.id", 3, "missing"},
		{"bad narration prefix", r("id: narration:test-1", "id: person:test-1"), "narration.id", 3, "must start with narration:"},
		{"bad slug", r("id: narration:test-1", "id: narration:Test_1"), "narration.id", 3, "lower-case"},
		{"unknown prefix", r("- {id: concept:ransom, type: Concept", "- {id: idea:ransom, type: Concept"), "entities[3].id", 21, `unknown prefix "idea"`},
		{"type does not match prefix", r("{id: event:badr, type: Event", "{id: event:badr, type: Place"), "entities[4].type", 22, "does not match the id's prefix"},
		{"unknown type", r("{id: event:badr, type: Event", "{id: event:badr, type: Battle"), "entities[4].type", 22, `unknown type "Battle"`},
		{"entity without name", r(`{id: person:umar, type: Person, name: "'Umar"}`, `{id: person:umar, type: Person}`), "entities[1].name", 19, "needs a name"},
		{"entity twice", r("  - {id: event:badr, type: Event, name: Badr}", "  - {id: event:badr, type: Event, name: Badr}\n  - {id: event:badr, type: Event, name: Badr2}"), "entities[5].id", 23, "defined twice"},
		{"no references", r("  references:\n    - {collection: Test Collection, edition: First, number: \"1a\"}\n", ""), "narration.references", 3, "missing"},
		{"reference without number", r(`edition: First, number: "1a"}`, `edition: First}`), "narration.references[0].number", 6, "missing"},
		{"empty text", r("  text: |-\n    On the day of Badr, Abu Bakr said: I think that you should accept a ransom.\n    'Umar said: strike their necks. Seventy   were killed. Then Allah revealed 8:67-68.", `  text: ""`), "narration.text", 10, "the text is empty"},
		{"bad language", r("language: en", "language: english!"), "narration.language", 9, "not a language tag"},
		{"narrator not a person", r("narrator: person:umar", "narrator: event:badr"), "narration.narrator", 7, "expected a person"},
		{"unknown chain id", r("chain: [person:ibn-abbas, person:umar]", "chain: [person:ibn-abas, person:umar]"), "narration.chain[0]", 8, "person:ibn-abas is not defined"},
		{"unknown id in a further route", r("chain: [person:ibn-abbas, person:umar]", "chain: [person:ibn-abbas, person:umar]\n  routes:\n    - [person:umar, person:ibn-abas]"), "narration.routes[0][1]", 10, "person:ibn-abas is not defined"},
		{"further route not a person", r("chain: [person:ibn-abbas, person:umar]", "chain: [person:ibn-abbas, person:umar]\n  routes: [[event:badr]]"), "narration.routes[0][0]", 9, "expected a person"},
		{"further route repeats the chain", r("chain: [person:ibn-abbas, person:umar]", "chain: [person:ibn-abbas, person:umar]\n  routes: [[person:ibn-abbas, person:umar]]"), "narration.routes[0]", 9, "the same route as narration.chain"},
		{"empty further route", r("chain: [person:ibn-abbas, person:umar]", "chain: [person:ibn-abbas, person:umar]\n  routes: [[]]"), "narration.routes[0]", 9, "empty route"},
		{"routes without chain", r("chain: [person:ibn-abbas, person:umar]", "routes: [[person:umar]]"), "narration.routes", 8, "give the first in chain"},
		{"verse does not exist", r("subject: verse:8:67-68", "subject: verse:8:76"), "claims[2].subject", 34, "has verses 1 to 75, not 76"},
		{"surah does not exist", r("subject: verse:8:67-68", "subject: verse:115:1"), "claims[2].subject", 34, "there is no surah 115"},
		{"backwards range", r("subject: verse:8:67-68", "subject: verse:8:68-67"), "claims[2].subject", 34, "ends before it starts"},
		{"undefined id", r("object: concept:ransom\n    evidence: \"I think", "object: concept:ransomm\n    evidence: \"I think"), "claims[0].object", 26, "concept:ransomm is not defined in this document's entities or in the graph"},
		{"unknown predicate", r("predicate: advises", "predicate: advised"), "claims[0].predicate", 25, `unknown predicate "advised" (did you mean "advises"?)`},
		{"subject outside domain", r("subject: person:abu-bakr\n    predicate: advises", "subject: event:badr\n    predicate: advises"), "claims[0].subject", 24, "event:badr is a Event, but advises takes a subject of type Person"},
		{"object outside range", r("object: concept:ransom\n    evidence: \"I think", "object: event:badr\n    evidence: \"I think"), "claims[0].object", 26, "but advises takes an object of type Concept"},
		{"both object and value", r("    value: 70", "    value: 70\n    object: event:badr"), "claims[1]", 29, "exactly one of object and value"},
		{"neither object nor value", r("    value: 70\n", ""), "claims[1]", 29, "needs an object"},
		{"value for entity predicate", r("object: concept:ransom\n    evidence: \"I think", "value: 3\n    evidence: \"I think"), "claims[0].value", 26, "give an object"},
		{"text value for integer predicate", r("value: 70", "value: seventy"), "claims[1].value", 31, "takes a whole number"},
		{"negative count", r("value: 70", "value: -70"), "claims[1].value", 31, "killedCount is a count and cannot be negative, got -70"},
		{"float value", r("value: 70", "value: 70.5"), "claims[1].value", 31, "expected a whole number or text"},
		{"missing evidence", r("    evidence: \"Seventy were killed\"\n", ""), "claims[1].evidence", 29, "needs the exact words"},
		{"evidence not in text", r(`evidence: "Seventy were killed"`, `evidence: "Eighty were killed"`), "claims[1].evidence", 32, "is not a passage of narration.text"},
		{"evidence with other quotes", r(`evidence: "Seventy were killed"`, `evidence: "’Umar said"`), "claims[1].evidence", 32, "quotes and apostrophes must match"},
		{"ambiguous evidence", r(`evidence: "Seventy were killed"`, `evidence: "said"`), "claims[1].evidence", 32, "occurs 2 times"},
		{"occurrence out of range", r(`evidence: "Seventy were killed"`, "evidence: said\n    occurrence: 3"), "claims[1].occurrence", 33, "no occurrence 3"},
		{"same claim twice", func(s string) string {
			return s + "  - {subject: event:badr, predicate: killedCount, value: 70, evidence: Seventy were killed}\n"
		}, "claims[3]", 38, "already at claims[1]"},
		{"self relation", func(s string) string {
			return s + "  - {subject: person:umar, predicate: consults, object: person:umar, evidence: \"'Umar said\"}\n"
		}, "claims[3].object", 38, "subject and object are the same"},
		{"narration as entity", func(s string) string {
			return strings.Replace(s, "entities:\n", "entities:\n  - {id: narration:x, type: Narration, name: X}\n", 1)
		}, "entities[0].id", 14, "defined by their own document"},
		{"two documents", func(s string) string { return s + "---\nnarration: {}\n" }, "", 38, "more than one document"},
	}
	// One graph for every case: a refused document must leave it exactly as it was.
	st, im := newImporter(t)
	mustImport(t, im, "seed", seedDoc(t))
	before := testsupport.Quads(t, st)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.edit(valid)
			if src == valid {
				t.Fatal("the edit changed nothing: fix the test")
			}
			_, err := importDoc(t, im, "bad.yaml", src)
			var ve *athar.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got %v, want a *athar.ValidationError", err)
			}
			if ve.Document != "bad.yaml" || !strings.HasPrefix(err.Error(), "bad.yaml") {
				t.Errorf("error does not name the document: %v", err)
			}
			var found bool
			for _, p := range ve.Problems {
				if p.Path == c.wantPath && strings.Contains(p.Msg, c.wantMsg) {
					found = true
					if p.Line != c.wantLine {
						t.Errorf("%s: line %d, want %d", p.Path, p.Line, c.wantLine)
					}
				}
			}
			if !found {
				t.Errorf("no problem at %q containing %q; got:\n%v", c.wantPath, c.wantMsg, err)
			}
			if after := testsupport.Quads(t, st); after != before {
				t.Error("a refused document changed the graph")
			}
		})
	}
}

// r returns an edit replacing the first occurrence of old by new.
func r(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// seedDoc is the first embedded seed: the graph the rule tests run against.
func seedDoc(t *testing.T) string {
	t.Helper()
	for _, f := range seeds.Files() {
		if filepath.Base(f.Name) == "ahmad-208.yaml" {
			return string(f.Data)
		}
	}
	t.Fatal("seeds/ahmad-208.yaml is not embedded")
	return ""
}

func TestValidDocument(t *testing.T) {
	st, im := newImporter(t)
	res := mustImport(t, im, "valid.yaml", readValid(t))
	want := ingest.Result{Narration: "narration:test-1", Changed: true, ClaimsAdded: 7, EntitiesAdded: 7, QuadsAdded: res.QuadsAdded}
	// 3 claims in the document, one a two-verse range (4), plus narrator and two chain links.
	if res != want {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	ctx := context.Background()
	cl, err := st.FindClaims(ctx, athar.ClaimFilter{Predicate: "revealedRegarding"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cl) != 2 || cl[0].Subject != "verse:8:67" || cl[1].Subject != "verse:8:68" {
		t.Fatalf("a verse range must give one claim per verse: %+v", cl)
	}
	ns, _ := st.Narrations(ctx, []athar.ID{"narration:test-1"})
	text := []rune(ns[0].Text)
	all, _ := st.FindClaims(ctx, athar.ClaimFilter{Narration: "narration:test-1"})
	for _, c := range all {
		for _, a := range c.Attestations {
			if a.HasSpan && string(text[a.Start:a.End]) != a.Evidence {
				t.Errorf("%s: offsets [%d,%d) slice %q, evidence is %q", c.ID, a.Start, a.End, string(text[a.Start:a.End]), a.Evidence)
			}
		}
	}
	// The evidence is stored as the text writes it, not as the document quoted it.
	adv, _ := st.FindClaims(ctx, athar.ClaimFilter{Predicate: "advises"})
	if got := adv[0].Attestations[0].Evidence; got != "I think that you should accept a ransom" {
		t.Errorf("evidence = %q", got)
	}
	kc, _ := st.FindClaims(ctx, athar.ClaimFilter{Predicate: "killedCount"})
	if got := kc[0].Attestations[0].Evidence; got != "Seventy   were killed" {
		t.Errorf("evidence = %q, want the text's own spacing", got)
	}
	if got := kc[0].Attestations[0].Note; got != "the dead of the mushrikeen" {
		t.Errorf("note = %q", got)
	}
}

func TestJSONEqualsYAML(t *testing.T) {
	const js = `{
	"narration": {
		"id": "narration:test-1",
		"title": "A test report",
		"references": [{"collection": "Test Collection", "edition": "First", "number": "1a"}],
		"narrator": "person:umar",
		"chain": ["person:ibn-abbas", "person:umar"],
		"language": "en",
		"text": "On the day of Badr, Abu Bakr said: I think that you should accept a ransom.\n'Umar said: strike their necks. Seventy   were killed. Then Allah revealed 8:67-68."
	},
	"entities": [
		{"id": "person:abu-bakr", "type": "Person", "name": "Abu Bakr", "arabic": "\u0623\u0628\u0648 \u0628\u0643\u0631", "aliases": ["Abu Bakr al-Siddiq"]},
		{"id": "person:umar", "type": "Person", "name": "'Umar"},
		{"id": "person:ibn-abbas", "type": "Person", "name": "Ibn 'Abbas"},
		{"id": "concept:ransom", "type": "Concept", "name": "ransom"},
		{"id": "event:badr", "type": "Event", "name": "Badr"}
	],
	"claims": [
		{"subject": "person:abu-bakr", "predicate": "advises", "object": "concept:ransom", "evidence": "I think that you should accept a ransom"},
		{"subject": "event:badr", "predicate": "killedCount", "value": 70, "evidence": "Seventy were killed", "note": "the dead of the mushrikeen"},
		{"subject": "verse:8:67-68", "predicate": "revealedRegarding", "object": "concept:ransom", "evidence": "Then Allah revealed 8:67-68"}
	]
}`
	ys, imY := newImporter(t)
	mustImport(t, imY, "valid.yaml", readValid(t))
	js1, imJ := newImporter(t)
	mustImport(t, imJ, "valid.json", js)
	if a, b := testsupport.Quads(t, ys), testsupport.Quads(t, js1); a != b {
		t.Fatalf("the JSON and YAML forms of one document stored different graphs:\n%s\n---\n%s", a, b)
	}
	// A JSON syntax error names its line.
	_, err := importDoc(t, imJ, "bad.json", "{\n  \"narration\": {\n    \"id\": \"narration:x\",,\n  }\n}")
	var ve *athar.ValidationError
	if !errors.As(err, &ve) || ve.Problems[0].Line == 0 {
		t.Fatalf("got %v, want a problem with a line", err)
	}
}

func TestReimportAndReplace(t *testing.T) {
	st, im := newImporter(t)
	valid := readValid(t)
	mustImport(t, im, "v1", valid)
	v1 := testsupport.Quads(t, st)
	if r := mustImport(t, im, "v1 again", valid); r.Changed || r.QuadsAdded != 0 || r.QuadsRemoved != 0 {
		t.Fatalf("re-import changed something: %+v", r)
	}
	if testsupport.Quads(t, st) != v1 {
		t.Fatal("re-import changed the graph")
	}
	// A second narration asserting one of the same claims.
	other := `
narration:
  id: narration:other
  title: Other
  references: [{collection: Other, number: "9"}]
  text: "Abu Bakr said: accept a ransom."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: accept a ransom}
`
	mustImport(t, im, "other", other)
	withOther := testsupport.Quads(t, st)
	// Version 2 drops the killedCount claim and changes a value.
	v2 := strings.Replace(valid, "    value: 70\n    evidence: \"Seventy were killed\"", "    value: 71\n    evidence: \"Seventy were killed\"", 1)
	r2 := mustImport(t, im, "v2", v2)
	if !r2.Changed || r2.QuadsRemoved == 0 {
		t.Fatalf("v2: %+v", r2)
	}
	ctx := context.Background()
	kc, _ := st.FindClaims(ctx, athar.ClaimFilter{Predicate: "killedCount"})
	if len(kc) != 1 || kc[0].Value.Literal != "71" {
		t.Fatalf("after replacing: %+v", kc)
	}
	adv, _ := st.FindClaims(ctx, athar.ClaimFilter{Predicate: "advises"})
	if len(adv) != 1 || len(adv[0].Attestations) != 2 {
		t.Fatalf("the other narration's attestation must survive the replacement: %+v", adv)
	}
	// Back to v1: exactly the graph we had.
	mustImport(t, im, "v1", valid)
	if testsupport.Quads(t, st) != withOther {
		t.Fatal("re-importing v1 did not restore the graph exactly")
	}
}

func TestDelete(t *testing.T) {
	st, im := newImporter(t)
	ctx := context.Background()
	empty := testsupport.Quads(t, st)
	mustImport(t, im, "v1", readValid(t))
	before := testsupport.Quads(t, st)
	user := `
narration:
  id: narration:user
  title: Uses Badr
  references: [{collection: Other, number: "9"}]
  text: "Seventy were captured at Badr."
claims:
  - {subject: event:badr, predicate: capturedCount, value: 70, evidence: Seventy were captured}
`
	mustImport(t, im, "user", user)
	// narration:test-1 is the only one defining event:badr, which narration:user uses.
	err := im.Delete(ctx, "narration:test-1")
	if athar.ErrorCode(err) != athar.Conflict || !strings.Contains(err.Error(), "event:badr is defined only by narration:test-1 and still used by narration:user") {
		t.Fatalf("got %v", err)
	}
	// Replacing it with a version that stops defining event:badr is refused the same way.
	v2 := strings.Replace(readValid(t), "  - {id: event:badr, type: Event, name: Badr}\n", "", 1)
	v2 = strings.Replace(v2, "  - subject: event:badr\n    predicate: killedCount\n    value: 70\n    evidence: \"Seventy were killed\"\n", "", 1)
	if _, err := importDoc(t, im, "v2", v2); athar.ErrorCode(err) != athar.Conflict {
		t.Fatalf("replacing a definition others use: %v, want CONFLICT", err)
	}
	if err := im.Delete(ctx, "narration:user"); err != nil {
		t.Fatal(err)
	}
	if testsupport.Quads(t, st) != before {
		t.Fatal("deleting narration:user did not restore the graph exactly")
	}
	if err := im.Delete(ctx, "narration:test-1"); err != nil {
		t.Fatal(err)
	}
	if testsupport.Quads(t, st) != empty {
		t.Fatal("deleting everything left quads")
	}
	if err := im.Delete(ctx, "narration:test-1"); athar.ErrorCode(err) != athar.NotFound {
		t.Fatalf("deleting twice: %v, want NOT_FOUND", err)
	}
	if err := im.Delete(ctx, "person:umar"); athar.ErrorCode(err) != athar.Invalid {
		t.Fatalf("deleting a person: %v, want INVALID_ARGUMENT", err)
	}
}

func TestNewVersionCannotLeanOnItsOldDefinitions(t *testing.T) {
	_, im := newImporter(t)
	mustImport(t, im, "v1", readValid(t))
	v2 := strings.Replace(readValid(t), "  - {id: concept:ransom, type: Concept, name: ransom}\n", "", 1)
	_, err := importDoc(t, im, "v2", v2)
	if err == nil || !strings.Contains(err.Error(), "concept:ransom is defined only by the previous version of this narration") {
		t.Fatalf("got %v", err)
	}
}

// TestCompileGolden pins the quads the valid document compiles to; run with -update after
// an intended change to the storage model.
func TestCompileGolden(t *testing.T) {
	d, err := narration.Parse("valid.yaml", []byte(readValid(t)))
	if err != nil {
		t.Fatal(err)
	}
	c, err := narration.Validate(context.Background(), d, schema.Vocabulary(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, q := range narration.Compile(c) {
		b.WriteString(q.Key() + " .\n")
	}
	golden := filepath.Join("testdata", "valid.golden.nq")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Fatalf("compiled quads differ from %s (run with -update if intended)", golden)
	}
	again := narration.Compile(c)
	if !reflect.DeepEqual(again, narration.Compile(c)) {
		t.Fatal("Compile is not deterministic")
	}
}

func TestOrder(t *testing.T) {
	a := &narration.Document{Source: "a", Entities: []narration.EntityDef{{ID: "person:x"}}, Claims: []narration.ClaimDef{{Subject: "person:y"}}}
	b := &narration.Document{Source: "b", Entities: []narration.EntityDef{{ID: "person:y"}}}
	c := &narration.Document{Source: "c", Claims: []narration.ClaimDef{{Subject: "person:x"}}}
	var got []string
	for _, d := range narration.Order([]*narration.Document{c, a, b}) {
		got = append(got, d.Source)
	}
	if !reflect.DeepEqual(got, []string{"b", "a", "c"}) {
		t.Fatalf("order = %v", got)
	}
}
