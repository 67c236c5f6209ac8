package narration_test

import (
	"context"
	"os"
	"reflect"
	"slices"
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

// seeded returns a store and importer loaded with every seed.
func seeded(t *testing.T) (*cayleystore.Store, *ingest.Local) {
	t.Helper()
	st, im := newImporter(t)
	loadSeeds(t, im)
	return st, im
}

func loadSeeds(t *testing.T, im *ingest.Local) {
	t.Helper()
	var docs []*narration.Document
	for _, f := range seeds.Files() {
		d, err := narration.Parse(f.Name, f.Data)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	var batch []ingest.Doc
	for _, d := range narration.Order(docs) {
		batch = append(batch, ingest.Doc{Document: d})
	}
	for _, r := range im.ImportMany(context.Background(), batch) {
		if r.Err != nil {
			t.Fatal(r.Err)
		}
	}
}

// TestDecompileInvertsCompile reads every seed narration back from the store into its
// checked form; Decompile itself checks that compiling that gives back exactly the stored
// quads.
func TestDecompileInvertsCompile(t *testing.T) {
	st, _ := seeded(t)
	ctx := context.Background()
	ids, err := st.EntityIDs(ctx, athar.TypeNarration)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 7 {
		t.Fatalf("%d seed narrations", len(ids))
	}
	for _, id := range ids {
		qs, err := st.NarrationQuads(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		c, err := narration.Decompile(id, qs, schema.Vocabulary())
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if len(c.Chain) == 0 || c.Narrator == "" || len(c.Claims) == 0 {
			t.Errorf("%s: decompiled without chain, narrator or claims: %+v", id, c)
		}
		// The store leaves the evidence implied: it is read from the text at the offsets.
		for _, cl := range c.Claims {
			if p, _ := athar.Passage(c.Text, cl.Start, cl.End); !cl.HasSpan || cl.Evidence == "" || cl.Evidence != p {
				t.Errorf("%s: claim %d decompiled with evidence %q at [%d,%d), the text has %q", id, cl.Index, cl.Evidence, cl.Start, cl.End, p)
			}
		}
		// A store of an earlier build states the types and evidence: read the same.
		old, err := narration.Decompile(id, athar.StateImplied(slices.Clone(qs)), schema.Vocabulary())
		if err != nil || !reflect.DeepEqual(old, c) {
			t.Errorf("%s: with the implied quads stated: %v\n%+v\nwant %+v", id, err, old, c)
		}
	}
	// Evidence that is not the text's passage at its offsets is stated, and read back.
	qs0, _ := st.NarrationQuads(ctx, "narration:ahmad-208")
	c, err := narration.Decompile("narration:ahmad-208", qs0, schema.Vocabulary())
	if err != nil {
		t.Fatal(err)
	}
	c.Claims[0].Evidence = "not the passage"
	compiled := narration.Compile(c)
	stated := 0
	for _, q := range compiled {
		if q.Predicate == athar.PredEvidence {
			stated++
		}
	}
	if stated != 1 {
		t.Errorf("%d evidence quads compiled, want the one that is not the passage", stated)
	}
	if back, err := narration.Decompile("narration:ahmad-208", compiled, schema.Vocabulary()); err != nil || back.Claims[0].Evidence != "not the passage" {
		t.Errorf("decompiled %v: %+v", err, back)
	}
	// A quad Compile would not make is refused, never dropped.
	qs, _ := st.NarrationQuads(ctx, "narration:ahmad-208")
	extra := athar.Quad{Subject: athar.ID("person:abu-bakr").IRI(), Predicate: athar.VocabBase + "nickname", Object: athar.StringTerm("x"), Label: athar.ID("narration:ahmad-208").IRI()}
	if _, err := narration.Decompile("narration:ahmad-208", append(qs, extra), schema.Vocabulary()); err == nil || !strings.Contains(err.Error(), "nickname") {
		t.Fatalf("a stray quad: %v", err)
	}
}

const gradedDoc = `
narration:
  id: narration:graded
  title: A graded report
  references: [{collection: Test, number: "7"}]
  text: "Abu Bakr advised ransom."
entities:
  - {id: person:grader-x, type: Person, name: Grader X}
  - {id: person:abu-bakr, type: Person, name: Abu Bakr}
  - {id: concept:ransom, type: Concept, name: ransom}
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
gradings:
  - grader: person:grader-x
    verdict: "Its isnad is sahih"
    grade: Sahih
    scope: chain
    statedIn: {collection: Test Commentary, edition: First, number: "12"}
  - grader: al-Albani
    verdict: "Da'if"
    grade: "Da'if"
    scope: part
    part: the words about ransom
    statedIn: "a note in the margin"
    note: a partial grading
`

func TestGradings(t *testing.T) {
	st, im := newImporter(t)
	mustImport(t, im, "graded.yaml", gradedDoc)
	ns, err := st.Narrations(context.Background(), []athar.ID{"narration:graded"})
	if err != nil {
		t.Fatal(err)
	}
	want := []athar.Grading{
		{Position: 1, Grader: "person:grader-x", Verdict: "Its isnad is sahih", Grade: athar.GradeSahih, Scope: athar.ScopeChain,
			StatedIn: &athar.Reference{Collection: "Test Commentary", Edition: "First", Number: "12"}},
		{Position: 2, GraderName: "al-Albani", Verdict: "Da'if", Grade: athar.GradeDaif, Scope: athar.ScopePart,
			Part: "the words about ransom", StatedInText: "a note in the margin", Note: "a partial grading"},
	}
	if got := ns[0].Gradings; !reflect.DeepEqual(got, want) {
		t.Fatalf("gradings = %+v\nwant %+v", got, want)
	}
	// The grader, named by id, is mentioned by the narration.
	ms, _ := st.Mentions(context.Background(), []athar.ID{"person:grader-x"})
	if !reflect.DeepEqual(ms["person:grader-x"], []athar.ID{"narration:graded"}) {
		t.Errorf("grader's narrations = %v", ms["person:grader-x"])
	}
	// Importing again changes nothing: grading ids are deterministic.
	if r := mustImport(t, im, "graded.yaml", gradedDoc); r.Changed {
		t.Errorf("re-import changed %+v", r)
	}
}

func TestGradingRulesRefuse(t *testing.T) {
	cases := []struct {
		name, old, new string
		path, msg      string
	}{
		{"missing scope", "    scope: chain\n", "", "gradings[0].scope", "missing: a grading needs its scope"},
		{"unknown scope", "scope: part", "scope: partial", "gradings[1].scope", `unknown scope "partial"`},
		{"part without scope part", "    scope: chain\n", "    scope: chain\n    part: x\n", "gradings[0].part", "part is only for scope part"},
		{"scope part without part", "    part: the words about ransom\n", "", "gradings[1].part", "scope part needs part"},
		{"missing verdict", "    verdict: \"Its isnad is sahih\"\n", "", "gradings[0].verdict", "missing"},
		{"missing grader", "  - grader: al-Albani\n    verdict", "  - verdict", "gradings[1].grader", "missing"},
		{"unknown grade", "grade: Sahih", "grade: authentic", "gradings[0].grade", `unknown grade "authentic": expected one of sahih, hasan-sahih, hasan, daif, mawdu`},
		{"undefined grader id", "grader: person:grader-x", "grader: person:grader-y", "gradings[0].grader", "person:grader-y is not defined in this document's entities or in the graph (did you mean person:grader-x?)"},
		{"grader not a person", "grader: person:grader-x", "grader: concept:ransom", "gradings[0].grader", "expected a person: id"},
		{"unknown field", "    note: a partial grading\n", "    note: a partial grading\n    graded: yes\n", "gradings[1].graded", `unknown field "graded"`},
		{"reference without collection", "{collection: Test Commentary, edition: First, number: \"12\"}", "{number: \"12\"}", "gradings[0].statedIn.collection", "missing"},
		{"the same grading twice", "  - grader: al-Albani\n    verdict: \"Da'if\"\n    grade: \"Da'if\"\n    scope: part",
			"  - grader: person:grader-x\n    verdict: \"Its isnad is sahih\"\n    scope: chain\n  - grader: al-Albani\n    verdict: \"Da'if\"\n    grade: \"Da'if\"\n    scope: part",
			"gradings[1]", "already at gradings[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, im := newImporter(t)
			before := testsupport.Quads(t, st)
			src := strings.Replace(gradedDoc, tc.old, tc.new, 1)
			if src == gradedDoc {
				t.Fatal("the edit changed nothing")
			}
			_, err := importDoc(t, im, "graded.yaml", src)
			ve, ok := err.(*athar.ValidationError)
			if !ok {
				t.Fatalf("got %v, want a validation error", err)
			}
			found := false
			for _, p := range ve.Problems {
				if p.Path == tc.path && strings.Contains(p.Msg, tc.msg) && p.Line > 0 {
					found = true
				}
			}
			if !found {
				t.Fatalf("no problem at %s containing %q with a line: %v", tc.path, tc.msg, err)
			}
			if testsupport.Quads(t, st) != before {
				t.Fatal("a refused document changed the graph")
			}
		})
	}
}

func TestUnknownIDsSuggestTheClosest(t *testing.T) {
	_, im := seeded(t)
	doc := `
narration:
  id: narration:typo
  title: Typos
  references: [{collection: Test, number: "1"}]
  narrator: person:ibn-abas
  text: "Abu Bakr advised ransom at Badr."
entities:
  - {id: concept:ransoming, type: Concept, name: ransoming}
claims:
  - {subject: person:abu-bkr, predicate: advises, object: concept:ransomin, evidence: "Abu Bakr advised ransom"}
  - {subject: person:zzzzzzzzzz, predicate: participatedIn, object: event:badr, evidence: "at Badr"}
`
	_, err := importDoc(t, im, "typo.yaml", doc)
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		"narration.narrator: person:ibn-abas is not defined in this document's entities or in the graph (did you mean person:ibn-abbas?)",
		"claims[0].subject: person:abu-bkr is not defined in this document's entities or in the graph (did you mean person:abu-bakr?)",
		// the document's own ids are candidates too
		"claims[0].object: concept:ransomin is not defined in this document's entities or in the graph (did you mean concept:ransoming or concept:ransom?)",
		"claims[1].subject: person:zzzzzzzzzz is not defined in this document's entities or in the graph\n",
	} {
		if !strings.Contains(err.Error()+"\n", want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
}

// dupDoc names Abu Bakr as person:siddiq: a duplicate for Merge to remove.
const dupDoc = `
narration:
  id: narration:dup
  title: A report naming Abu Bakr as al-Siddiq
  references: [{collection: Test, number: "2"}]
  narrator: person:siddiq
  chain: [person:ibn-abbas, person:siddiq]
  text: "Al-Siddiq advised ransom. Al-Siddiq was kin to 'Ali. Al-Siddiq consulted the Prophet."
entities:
  - id: person:siddiq
    type: Person
    name: al-Siddiq
    arabic: [الصديق]
    aliases: ["'Abd Allah ibn 'Uthman"]
    description: The Prophet's companion, under his epithet.
claims:
  - {subject: person:siddiq, predicate: advises, object: concept:ransom, evidence: "Al-Siddiq advised ransom"}
  - {subject: person:siddiq, predicate: relativeOf, object: person:ali-ibn-abi-talib, evidence: "Al-Siddiq was kin to 'Ali"}
  - {subject: person:siddiq, predicate: consults, object: person:muhammad, evidence: "Al-Siddiq consulted the Prophet"}
gradings:
  - {grader: person:siddiq, verdict: "sound", scope: text}
`

func TestMerge(t *testing.T) {
	for _, spec := range []string{"memory:", "bbolt:"} {
		t.Run(spec, func(t *testing.T) {
			if spec == "bbolt:" {
				spec += t.TempDir()
			}
			st, err := cayleystore.Open(spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			im := ingest.NewLocal(st, schema.Vocabulary())
			loadSeeds(t, im)
			testMerge(t, st, im)
		})
	}
}

func testMerge(t *testing.T, st *cayleystore.Store, im *ingest.Local) {
	ctx := context.Background()
	seedsOnly := testsupport.Quads(t, st)
	mustImport(t, im, "dup.yaml", dupDoc)
	advisesRansom := athar.ClaimID("person:abu-bakr", "advises", athar.IRITerm(athar.ID("concept:ransom").IRI()))
	before, _ := st.Claims(ctx, []athar.ID{advisesRansom})

	res, err := im.Merge(ctx, "person:abu-bakr", "person:siddiq")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || !reflect.DeepEqual(res.Narrations, []athar.ID{"narration:dup"}) {
		t.Fatalf("result %+v", res)
	}
	es, _ := st.Entities(ctx, []athar.ID{"person:abu-bakr", "person:siddiq"})
	if es[1] != nil {
		t.Fatalf("the removed entity is still defined: %+v", es[1])
	}
	ab := es[0]
	if ab.Name != "Abu Bakr" || !contains(ab.Aliases, "al-Siddiq") || !contains(ab.Aliases, "'Abd Allah ibn 'Uthman") || !contains(ab.Arabic, "الصديق") {
		t.Errorf("kept entity's names: %q, aliases %q, arabic %q", ab.Name, ab.Aliases, ab.Arabic)
	}
	if !reflect.DeepEqual(ab.FormerIDs, []athar.ID{"person:siddiq"}) {
		t.Errorf("FormerIDs = %v", ab.FormerIDs)
	}
	if m, _ := st.MergedInto(ctx, []athar.ID{"person:siddiq", "person:abu-bakr"}); !reflect.DeepEqual(m, map[athar.ID]athar.ID{"person:siddiq": "person:abu-bakr"}) {
		t.Errorf("MergedInto = %v", m)
	}
	// The shared claim has one attestation more; the symmetric one is stored in order.
	after, _ := st.Claims(ctx, []athar.ID{advisesRansom})
	if len(after[0].Attestations) != len(before[0].Attestations)+1 {
		t.Errorf("attestations of abu-bakr advises ransom: %d, want %d", len(after[0].Attestations), len(before[0].Attestations)+1)
	}
	kin, _ := st.FindClaims(ctx, athar.ClaimFilter{Predicate: "relativeOf", Narration: "narration:dup"})
	if len(kin) != 1 || kin[0].Subject != "person:abu-bakr" || kin[0].Object != "person:ali-ibn-abi-talib" {
		t.Errorf("relativeOf after the merge: %+v", kin)
	}
	ns, _ := st.Narrations(ctx, []athar.ID{"narration:dup"})
	if n := ns[0]; n.Narrator != "person:abu-bakr" || !reflect.DeepEqual(n.Chain, []athar.ID{"person:ibn-abbas", "person:abu-bakr"}) || n.Gradings[0].Grader != "person:abu-bakr" {
		t.Errorf("narrator, chain, grader after the merge: %+v", n)
	}
	if left, _ := st.FindClaims(ctx, athar.ClaimFilter{Entity: "person:siddiq"}); len(left) != 0 {
		t.Errorf("claims still name person:siddiq: %+v", left)
	}
	merged := testsupport.Quads(t, st)

	// Merging again, or re-importing the document that still says person:siddiq, changes
	// nothing: the document is read as the merge rewrote it.
	if res, err := im.Merge(ctx, "person:abu-bakr", "person:siddiq"); err != nil || res.Changed {
		t.Fatalf("second merge: %+v %v", res, err)
	}
	if r := mustImport(t, im, "dup.yaml", dupDoc); r.Changed {
		t.Fatalf("re-importing the merged narration's document changed the graph: %+v", r)
	}
	if testsupport.Quads(t, st) != merged {
		t.Fatal("the graph changed")
	}
	// A later document using the old id links to the kept entity.
	later := `
narration:
  id: narration:later
  title: Later
  references: [{collection: Test, number: "3"}]
  text: "al-Siddiq took part in Badr."
claims:
  - {subject: person:siddiq, predicate: participatedIn, object: event:badr, evidence: "al-Siddiq took part in Badr"}
`
	mustImport(t, im, "later.yaml", later)
	if c, _ := st.FindClaims(ctx, athar.ClaimFilter{Narration: "narration:later", Predicate: "participatedIn"}); len(c) != 1 || c[0].Subject != "person:abu-bakr" {
		t.Fatalf("later claim: %+v", c)
	}
	if err := im.Delete(ctx, "narration:later"); err != nil {
		t.Fatal(err)
	}
	// Deleting the narration that named the duplicate restores the seeds exactly.
	if err := im.Delete(ctx, "narration:dup"); err != nil {
		t.Fatal(err)
	}
	if testsupport.Quads(t, st) != seedsOnly {
		t.Fatal("deleting the merged narration did not restore the seeds")
	}
}

func TestMergeRefuses(t *testing.T) {
	st, im := seeded(t)
	ctx := context.Background()
	mustImport(t, im, "dup.yaml", dupDoc)
	before := testsupport.Quads(t, st)
	for _, tc := range []struct {
		keep, remove athar.ID
		code         athar.Code
		msg          string
	}{
		{"person:muhammad", "person:siddiq", athar.Conflict, "person:siddiq consults person:muhammad would become person:muhammad consults itself"},
		{"person:abu-bakr", "person:abu-bakr", athar.Invalid, "the same id"},
		{"person:abu-bakr", "event:badr", athar.Invalid, "only entities of one type"},
		{"verse:8:67", "verse:8:68", athar.Invalid, "only people, groups, events, places and concepts"},
		{"narration:dup", "narration:ahmad-208", athar.Invalid, "only people"},
		{"person:abu-bakr", "person:nobody", athar.NotFound, "no entity person:nobody"},
		{"person:nobody", "person:siddiq", athar.NotFound, "no entity person:nobody"},
		{"person:abu-bakr", "person:Bad", athar.Invalid, "remove:"},
	} {
		_, err := im.Merge(ctx, tc.keep, tc.remove)
		if athar.ErrorCode(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("merge %s into %s: %v, want %s containing %q", tc.remove, tc.keep, err, tc.code, tc.msg)
		}
	}
	if testsupport.Quads(t, st) != before {
		t.Fatal("a refused merge changed the graph")
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func readFixture(t *testing.T) []athar.VerseText {
	t.Helper()
	f, err := os.Open("testdata/quran_en.fixture.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	texts, err := narration.ReadQuranJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

func TestVerseTexts(t *testing.T) {
	st, im := seeded(t)
	ctx := context.Background()
	narrationsOnly := testsupport.Quads(t, st)
	texts := readFixture(t)
	if len(texts) != 7 || texts[0].Verse != "verse:1:1" || texts[len(texts)-1].Verse != "verse:54:45" {
		t.Fatalf("fixture: %+v", texts)
	}
	res, err := im.ImportVerseTexts(ctx, texts, narration.QuranJSONSource)
	if err != nil || !res.Changed || res.Verses != 7 {
		t.Fatalf("import: %+v %v", res, err)
	}
	withTexts := testsupport.Quads(t, st)
	if res, err := im.ImportVerseTexts(ctx, texts, narration.QuranJSONSource); err != nil || res.Changed {
		t.Fatalf("second import: %+v %v", res, err)
	}
	// Only quads under the reserved label were added.
	var narrationLines []string
	for _, l := range strings.Split(withTexts, "\n") {
		if !strings.HasSuffix(l, "<"+athar.QuranGraph.IRI()+">") {
			narrationLines = append(narrationLines, l)
		}
	}
	if strings.Join(narrationLines, "\n") != narrationsOnly {
		t.Fatal("importing verse texts touched narrations' quads")
	}
	qs, _ := st.QuadsAbout(ctx, []athar.ID{"verse:8:67", athar.QuranGraph})
	got, src := athar.ReadVerseTexts(qs)
	if !strings.HasPrefix(got["verse:8:67"].Translation, "It is not for a prophet to have captives") || !strings.HasPrefix(got["verse:8:67"].Arabic, "مَا كَانَ") {
		t.Errorf("8:67: %+v", got["verse:8:67"])
	}
	if src != narration.QuranJSONSource {
		t.Errorf("source = %+v", src)
	}
	// The reserved graph is not a narration: no entity lists it.
	ms, _ := st.Mentions(ctx, []athar.ID{"verse:8:67"})
	if len(ms["verse:8:67"]) == 0 || contains(idStrings(ms["verse:8:67"]), string(athar.QuranGraph)) {
		t.Errorf("verse 8:67's narrations = %v: want its narrations, never the reserved graph", ms["verse:8:67"])
	}
	// Deleting a narration leaves the texts alone; a restore of the whole graph (as an
	// export reloaded) keeps them.
	var all []athar.Quad
	if err := st.Quads(ctx, func(q athar.Quad) error { all = append(all, q); return nil }); err != nil {
		t.Fatal(err)
	}
	st2, im2 := newImporter(t)
	if _, err := im2.Restore(ctx, all, false); err != nil {
		t.Fatal(err)
	}
	if testsupport.Quads(t, st2) != withTexts {
		t.Fatal("restoring the export did not give the same graph")
	}
	// Restore refuses statements under the reserved label about anything but verses.
	bad := athar.Quad{Subject: athar.ID("person:abu-bakr").IRI(), Predicate: athar.RDFSLabel, Object: athar.StringTerm("x"), Label: athar.QuranGraph.IRI()}
	if _, err := im2.Restore(ctx, []athar.Quad{bad}, false); athar.ErrorCode(err) != athar.Invalid {
		t.Fatalf("restore of a non-verse under the reserved graph: %v", err)
	}
}

func idStrings(ids []athar.ID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = string(id)
	}
	return out
}

func TestReadQuranJSONRefuses(t *testing.T) {
	for name, src := range map[string]string{
		"not json":            "[",
		"no surah 115":        `[{"id": 115, "total_verses": 1, "verses": [{"id": 1, "text": "a", "translation": "b"}]}]`,
		"wrong verse count":   `[{"id": 8, "total_verses": 76, "verses": [{"id": 1, "text": "a", "translation": "b"}]}]`,
		"no verse 8:76":       `[{"id": 8, "total_verses": 75, "verses": [{"id": 76, "text": "a", "translation": "b"}]}]`,
		"verse twice":         `[{"id": 1, "total_verses": 7, "verses": [{"id": 1, "text": "a", "translation": "b"}, {"id": 1, "text": "a", "translation": "b"}]}]`,
		"missing translation": `[{"id": 1, "total_verses": 7, "verses": [{"id": 1, "text": "a"}]}]`,
		"no verses":           `[]`,
	} {
		if _, err := narration.ReadQuranJSON(strings.NewReader(src)); athar.ErrorCode(err) != athar.Invalid {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", name, err)
		}
	}
}
