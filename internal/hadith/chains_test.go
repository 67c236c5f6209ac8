package hadith_test

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/hadith"
	"github.com/athar-hadith/athar/internal/hadithapi"
	"github.com/athar-hadith/athar/internal/isnad"
)

// fixture reads the repository's corpus fixture (internal/hadithapi/testdata), each record
// carrying its predecessor's routes as the import sets them.
func fixture(t *testing.T) map[string]*hadith.Record {
	t.Helper()
	paths, _ := filepath.Glob("../hadithapi/testdata/corpus/*.json")
	var eds []*hadithapi.Edition
	for _, p := range paths {
		ed, probs, err := hadithapi.ReadFile(p)
		if err != nil || len(probs) > 0 {
			t.Fatal(err, probs)
		}
		eds = append(eds, ed)
	}
	recs, probs := hadithapi.Pair(eds)
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	out := map[string]*hadith.Record{}
	var prev []isnad.Route
	for i := range recs {
		if i > 0 && recs[i].Collection == recs[i-1].Collection {
			recs[i].Previous = prev
		}
		prev, _, _ = hadith.Routes(&recs[i])
		out[recs[i].Key()] = &recs[i]
	}
	return out
}

func extractor() *hadith.Extractor {
	return &hadith.Extractor{Resolver: isnad.NewResolver()}
}

func ids(links []hadith.ExtractedLink) []athar.ID {
	out := make([]athar.ID, len(links))
	for i, l := range links {
		out[i] = l.ID
	}
	return out
}

func text(r *hadith.Record, lang string) string {
	for _, t := range r.Texts {
		if t.Language == lang {
			return t.Text
		}
	}
	return ""
}

func span(s string, start, end int) string {
	r := []rune(s)
	if start < 0 || end > len(r) || start > end {
		return "<out of range>"
	}
	return string(r[start:end])
}

// Muslim 4588 (the seed's Muslim 1763): both routes its Arabic gives, split at the ح, with
// the seed's ids; Simak al-Hanafi (route 1) and Abu Zumayl (route 2) one person, as the text
// says (أبو زميل هو سماك الحنفي).
func TestExtractMuslim4588(t *testing.T) {
	r := fixture(t)["muslim-4588"]
	ex := hadith.Extract(r, extractor())
	want := [][]athar.ID{
		{"person:hannad-ibn-al-sari", "person:ibn-al-mubarak", "person:ikrimah-ibn-ammar", "person:abu-zumayl", "person:ibn-abbas", "person:umar-ibn-al-khattab"},
		{"person:zuhayr-ibn-harb", "person:umar-ibn-yunus-al-hanafi", "person:ikrimah-ibn-ammar", "person:abu-zumayl", "person:ibn-abbas", "person:umar-ibn-al-khattab"},
	}
	if len(ex.Routes) != 2 {
		t.Fatalf("%d routes, want 2: %v", len(ex.Routes), ex.Routes)
	}
	ar := text(r, "ar")
	for i := range want {
		if got := ids(ex.Routes[i]); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("route %d = %v, want %v", i+1, got, want[i])
		}
		for _, l := range ex.Routes[i] {
			if got := span(ar, l.Start, l.End); got != l.Written || l.Edition != "ara-muslim" {
				t.Errorf("link %s: [%d,%d) of %s is %q, want %q", l.ID, l.Start, l.End, l.Edition, got, l.Written)
			}
		}
	}
	if ex.Routes[0][3].Written == ex.Routes[1][3].Written {
		t.Errorf("route 1 should write Simak, route 2 Abu Zumayl: %q, %q", ex.Routes[0][3].Written, ex.Routes[1][3].Written)
	}
	n := ex.Narrator
	if n == nil || n.ID != "person:umar-ibn-al-khattab" || n.Edition != "eng-muslim" {
		t.Fatalf("narrator of record %+v", n)
	}
	if got := span(text(r, "en"), n.Start, n.End); got != n.Written || !strings.Contains(got, "Umar") {
		t.Errorf("narrator evidence [%d,%d) = %q, written %q", n.Start, n.End, got, n.Written)
	}
	if len(ex.People) != 0 {
		t.Errorf("no one should be created for Muslim 4588: %v", ex.People)
	}
}

// Every narrator of record's and every link's evidence indexes its text (code points).
func TestExtractOffsets(t *testing.T) {
	x := extractor()
	for key, r := range fixture(t) {
		ex := hadith.Extract(r, x)
		if ex.Narrator != nil {
			if got := span(text(r, "en"), ex.Narrator.Start, ex.Narrator.End); got != ex.Narrator.Written {
				t.Errorf("%s: narrator [%d,%d) = %q, want %q", key, ex.Narrator.Start, ex.Narrator.End, got, ex.Narrator.Written)
			}
		}
		for _, rt := range ex.Routes {
			for _, l := range rt {
				if l.Start >= 0 && span(text(r, "ar"), l.Start, l.End) != l.Written {
					t.Errorf("%s: link %s [%d,%d) does not index %q", key, l.ID, l.Start, l.End, l.Written)
				}
			}
		}
		for _, m := range ex.Mentions {
			lang := "en"
			if strings.HasPrefix(m.Edition, "ara") {
				lang = "ar"
			}
			if got := span(text(r, lang), m.Start, m.End); got != m.Text {
				t.Errorf("%s: mention %v [%d,%d) = %q, want %q", key, m.IDs, m.Start, m.End, got, m.Text)
			}
		}
	}
}

// A chain given by reference joins the route of the hadith before it where they meet:
// Muslim 986 ("... الدراوردي - عن سهيل، بهذا الإسناد") takes Muslim 985's route after Suhayl
// (his father, Abu Hurayrah); without 985 its route is what its own text gives. (The
// fixture's own Muslim 4584 and 4587 refer to routes the segmenter cuts short: 4583's "قال
// قرأت على مالك", 4586's "قال يحيى أخبرنا", docs/corpus.md.)
func TestExtractByReference(t *testing.T) {
	ar := func(n, s string) *hadith.Record {
		return &hadith.Record{Collection: "muslim", Number: n, Texts: []hadith.Text{{Language: "ar", Edition: "ara-muslim", Text: s}}}
	}
	prev := ar("985", "حَدَّثَنَا زُهَيْرُ بْنُ حَرْبٍ، حَدَّثَنَا جَرِيرٌ، عَنْ سُهَيْلٍ، عَنْ أَبِيهِ، عَنْ أَبِي هُرَيْرَةَ، قَالَ قَالَ رَسُولُ اللَّهِ صلى الله عليه وسلم ‏ \"‏ خَيْرُ صُفُوفِ الرِّجَالِ أَوَّلُهَا ‏\"‏ ‏.‏")
	r := ar("986", "حَدَّثَنَا قُتَيْبَةُ بْنُ سَعِيدٍ، قَالَ حَدَّثَنَا عَبْدُ الْعَزِيزِ، - يَعْنِي الدَّرَاوَرْدِيَّ - عَنْ سُهَيْلٍ، بِهَذَا الإِسْنَادِ ‏.‏")
	alone := hadith.Extract(r, extractor())
	if len(alone.Routes) != 1 || len(alone.Routes[0]) != 3 {
		t.Fatalf("alone: %v", alone.Routes)
	}
	r.Previous, _, _ = hadith.Routes(prev)
	joined := hadith.Extract(r, extractor())
	if len(joined.Routes) != 1 {
		t.Fatalf("joined: %v", joined.Routes)
	}
	rt := joined.Routes[0]
	got := ids(rt)
	if len(got) != 5 || got[0] != "person:qutaybah-ibn-said" || got[4] != "person:abu-hurayrah" || !hadith.Relative(rt[3].Written) {
		t.Fatalf("joined route %v: want Qutaybah, al-Darawardi, Suhayl, his father, Abu Hurayrah", got)
	}
	for i, l := range rt {
		if own := i < 3; own != (l.Start >= 0) {
			t.Errorf("link %d %s: own text %v, has offsets %v", i, l.ID, own, l.Start >= 0)
		}
	}
}

// Verse citations in the English become mentions of each verse, with offsets.
func TestExtractVerseMentions(t *testing.T) {
	x := extractor()
	found := map[athar.ID]bool{}
	for _, r := range fixture(t) {
		for _, m := range hadith.Extract(r, x).Mentions {
			for _, id := range m.IDs {
				if id.Prefix() == "verse" {
					found[id] = true
				}
			}
		}
	}
	if len(found) == 0 {
		t.Fatal("no verse cited in the fixture's texts found")
	}
	t.Logf("verses cited: %v", found)
}

// Compile with the extraction is pure and Rebind still moves it: Compile(r, b) ==
// Rebind(Compile(r, a), a, b), claims and attestations included.
func TestCompileWithRebind(t *testing.T) {
	r := fixture(t)["abudawud-2690"]
	x := extractor()
	a := hadith.CompileWith(r, r.ID(), x)
	b := hadith.CompileWith(r, "narration:abudawud-2690-doc", x)
	if !reflect.DeepEqual(hadith.Rebind(a, r.ID(), "narration:abudawud-2690-doc"), b) {
		t.Fatal("Rebind(CompileWith(r, a), a, b) differs from CompileWith(r, b)")
	}
	if !reflect.DeepEqual(hadith.CompileWith(r, r.ID(), x), a) {
		t.Fatal("CompileWith is not deterministic")
	}
}

// A created person merged into another: CompileWith with Merged gives what Rename gives
// from the quads compiled before the merge.
func TestCompileWithMerged(t *testing.T) {
	r := fixture(t)["bukhari-3953"]
	x := extractor()
	ex := hadith.Extract(r, x)
	var created athar.ID
	for id := range ex.People {
		if created == "" || id < created {
			created = id
		}
	}
	if created == "" {
		t.Fatal("no one created for Bukhari 3953")
	}
	before := hadith.CompileWith(r, r.ID(), x)
	keep := athar.ID("person:someone-documented")
	x.Merged = map[athar.ID]athar.ID{created: keep}
	after := hadith.CompileWith(r, r.ID(), x)
	if got := hadith.Rename(before, x.Merged); !reflect.DeepEqual(got, after) {
		t.Fatalf("Rename(before) and CompileWith(merged) differ:\n%v\n%v", diff(got, after), diff(after, got))
	}
	for _, q := range after {
		if q.Subject == created.IRI() || q.Object.IRI == created.IRI() {
			t.Fatalf("the merged id is still used: %s", q.Key())
		}
	}
}

func diff(a, b []athar.Quad) []string {
	in := map[string]bool{}
	for _, q := range b {
		in[q.Key()] = true
	}
	var out []string
	for _, q := range a {
		if !in[q.Key()] {
			out = append(out, q.Key())
		}
	}
	return out
}

func TestWrittenID(t *testing.T) {
	for _, c := range []struct{ written, want string }{
		{"عِكْرِمَةَ بْنِ عَمَّارٍ", "person:w.3krmh-bn-3mar"},
		{"Ka'b bin Malik", ""},
	} {
		id, ok := hadith.WrittenID("", c.written)
		if !ok || !strings.HasPrefix(string(id), "person:w.") || c.want != "" && string(id) != c.want {
			t.Errorf("WrittenID(%q) = %q, %v; want %q", c.written, id, ok, c.want)
		}
		if _, _, err := athar.ParseEntityID(string(id)); err != nil {
			t.Error(err)
		}
	}
	if !hadith.Relative("أَبِيهِ") || hadith.Relative("أَبِي هُرَيْرَةَ") {
		t.Error("Relative")
	}
	_ = utf8.RuneLen
}
