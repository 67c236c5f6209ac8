package hadith

import (
	"reflect"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

func TestNormalise(t *testing.T) {
	for _, c := range []struct {
		verdict string
		grade   athar.Grade
		scope   athar.GradingScope
	}{
		{"Sahih", athar.GradeSahih, athar.ScopeText},
		{"Hasan Sahih", athar.GradeHasanSahih, athar.ScopeText},
		{"Sahih Muslim (1763)", athar.GradeSahih, athar.ScopeText},
		{"Sahih - Agreed Upon", athar.GradeSahih, athar.ScopeText},
		{"Isnaad Sahih", athar.GradeSahih, athar.ScopeChain},
		{"Isnaad Hasan, Sahih Muslim", athar.GradeHasan, athar.ScopeChain},
		{"Da'if", athar.GradeDaif, athar.ScopeText},
		{"Very Daif", athar.GradeDaif, athar.ScopeText},
		{"Daif Isnaad", athar.GradeDaif, athar.ScopeChain},
		{"Munkar", athar.GradeDaif, athar.ScopeText},
		{"Mawdu", athar.GradeMawdu, athar.ScopeText},
		{"Mauquf Sahih", athar.GradeSahih, athar.ScopeText},
		{"Hasan Lighairihi", athar.GradeHasan, athar.ScopeText},
		{"Shadh, Sahih", athar.GradeSahih, athar.ScopeText},
		{"-", "", athar.ScopeText},
		{"Mursal", "", athar.ScopeText},
	} {
		g, s := Normalise(c.verdict)
		if g != c.grade || s != c.scope {
			t.Errorf("Normalise(%q) = %q, %q; want %q, %q", c.verdict, g, s, c.grade, c.scope)
		}
	}
}

func TestGraderFor(t *testing.T) {
	for name, want := range map[string]athar.ID{
		"Al-Albani":                         "person:al-albani",
		"Shuaib Al Arnaut":                  "person:shuaib-al-arnaut",
		"Muhammad Muhyi Al-Din Abdul Hamid": "person:muhammad-muhyi-al-din-abd-al-hamid",
		"Zubair Ali Zai":                    "person:zubair-ali-zai",
		"Some New Grader":                   "person:some-new-grader",
	} {
		if g, ok := GraderFor(name); !ok || g.ID != want {
			t.Errorf("GraderFor(%q) = %v, %v; want %s", name, g.ID, ok, want)
		}
	}
	if _, ok := GraderFor(" -- "); ok {
		t.Error("a name without letters names a grader")
	}
}

func TestDocumentKey(t *testing.T) {
	for _, c := range []struct {
		name string
		refs []athar.Reference
		want string
	}{
		{"url", []athar.Reference{{Collection: "Sahih Muslim", Edition: "Muhammad Fu'ad 'Abd al-Baqi", Number: "1763"}, {Collection: "Sahih Muslim", Number: "4588", URL: "https://cdn.jsdelivr.net/gh/fawazahmed0/hadith-api@1/editions/eng-muslim/4588.json"}}, "muslim-4588"},
		{"edition", []athar.Reference{{Collection: "Sunan Abi Dawud", Edition: "fawazahmed0/hadith-api eng-abudawud (its own hadithnumber)", Number: "2690"}}, "abudawud-2690"},
		{"another numbering is not matched", []athar.Reference{{Collection: "Sahih Muslim", Edition: "Muhammad Fu'ad 'Abd al-Baqi", Number: "1763"}}, ""},
		{"unknown collection", []athar.Reference{{Collection: "Musnad Ahmad", Edition: "hadith-api", Number: "208"}}, ""},
	} {
		if got := DocumentKey(c.refs); got != c.want {
			t.Errorf("%s: DocumentKey = %q, want %q", c.name, got, c.want)
		}
	}
}

func record() *Record {
	return &Record{
		Collection: "abudawud", Number: "2690", Section: 15, InSection: 214,
		Chapter: Chapter{Number: 15, Name: "Jihad (Kitab Al-Jihad)", Arabic: "كتاب الجهاد"},
		Texts:   []Text{{Language: "ar", Edition: "ara-abudawud", Text: "حدثنا"}, {Language: "en", Edition: "eng-abudawud", Text: "'Umar said"}},
		Grades:  []Grade{{Grader: "Al-Albani", Verdict: "Hasan Sahih"}, {Grader: "Zubair Ali Zai", Verdict: "Sahih Muslim (1763)"}},
	}
}

func TestCompileRebind(t *testing.T) {
	r := record()
	own := Compile(r, r.ID())
	doc := Compile(r, "narration:umar-ransom")
	if got := Rebind(own, r.ID(), "narration:umar-ransom"); !reflect.DeepEqual(got, doc) {
		t.Fatalf("Rebind(Compile(r, own), own, doc) differs from Compile(r, doc)")
	}
	if got := Rebind(doc, "narration:umar-ransom", r.ID()); !reflect.DeepEqual(got, own) {
		t.Fatalf("Rebind back differs from Compile(r, own)")
	}
	if NodeOf(doc) != "narration:umar-ransom" {
		t.Fatalf("NodeOf = %s", NodeOf(doc))
	}
	var text strings.Builder
	for _, q := range own {
		if q.Label != "https://w3id.org/athar/corpus/abudawud-2690" {
			t.Fatalf("quad %s not under the record's label", q.Key())
		}
		text.WriteString(q.Key() + "\n")
	}
	for _, want := range []string{
		`<https://w3id.org/athar/person/al-albani>`, `"hasan-sahih"`, `"Sahih Muslim (1763)"`,
		`<https://w3id.org/athar/chapter/abudawud-15>`, `"كتاب الجهاد"@ar`, `"Book 15, Hadith 214"`,
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the compiled record lacks %s", want)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		name  string
		edit  func(*Record)
		field string
	}{
		{"unknown collection", func(r *Record) { r.Collection = "ahmad" }, "collection"},
		{"bad number", func(r *Record) { r.Number = "12 b" }, "hadithnumber"},
		{"grade without grader", func(r *Record) { r.Grades[1].Grader = "" }, "grades[1].name"},
		{"grade without verdict", func(r *Record) { r.Grades[0].Verdict = " " }, "grades[0].grade"},
		{"no text", func(r *Record) { r.Texts = nil }, "text"},
	} {
		r := record()
		c.edit(r)
		err := r.Check()
		if err == nil || !strings.HasPrefix(err.Error(), c.field+": ") {
			t.Errorf("%s: Check = %v, want an error on %s", c.name, err, c.field)
		}
	}
	if err := record().Check(); err != nil {
		t.Fatal(err)
	}
}
