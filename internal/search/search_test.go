package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// Case folding.
		{"ascii upper", "UMAR", "umar"},
		{"ascii mixed", "ʿUmAr IBN", "umar ibn"},
		{"latin upper with diacritic", "ḤADĪTH", "hadith"},
		{"greek final sigma", "ΟΔΟΣ οδος", "οδοσ οδοσ"},
		{"full folding sharp s", "Straße", "strasse"},
		{"capital sharp s", "STRAẞE", "strasse"},
		{"dotted capital I", "İbrahim", "ibrahim"},
		{"kelvin sign", "\u212Aalb", "kalb"},
		{"cyrillic", "МУХАММАД", "мухаммад"},

		// Transliteration marks, dropped without breaking the word.
		{"apostrophe", "Mu'awiya", "muawiya"},
		{"grave", "Mu`awiya", "muawiya"},
		{"ayn half ring", "Muʿawiya", "muawiya"},
		{"hamza half ring", "Maʾmun", "mamun"},
		{"right single quote", "Mu’awiya", "muawiya"},
		{"left single quote", "Mu‘awiya", "muawiya"},
		{"modifier apostrophe", "Muʼawiya", "muawiya"},
		{"turned comma", "Muʻawiya", "muawiya"},
		{"acute accent", "Mu´awiya", "muawiya"},
		{"leading ayn", "ʿUmar", "umar"},
		{"leading apostrophe", "'Umar", "umar"},
		{"trailing hamza", "Asmāʾ", "asma"},
		{"only marks", "'`ʿʾ’‘ʼʻ´", ""},

		// Latin diacritics, precomposed and combining.
		{"macron a", "ā", "a"},
		{"h dot below", "ḥ", "h"},
		{"s dot below", "ṣ", "s"},
		{"macron i", "ī", "i"},
		{"macron u", "ū", "u"},
		{"d dot below", "ḍ", "d"},
		{"t dot below", "ṭ", "t"},
		{"z dot below", "ẓ", "z"},
		{"h breve below", "ḫ", "h"},
		{"g caron", "ǧ", "g"},
		{"s caron", "š", "s"},
		{"latin-1 accents", "Àéîõüç", "aeiouc"},
		{"full name", "Ṣaḥīḥ al-Bukhārī", "sahih al bukhari"},
		{"combining macron", "a\u0304", "a"},
		{"combining dot below", "h\u0323adi\u0304th", "hadith"},

		// Arabic marks.
		{"fatha damma kasra", "عُمَرِ", "عمر"},
		{"tanwin", "كتابًا كتابٌ كتابٍ", "كتابا كتاب كتاب"},
		{"shadda sukun", "الخطّاْب", "الخطاب"},
		{"superscript alef", "رحمٰن", "رحمن"},
		{"tatweel", "عـــمـر", "عمر"},
		{"wavy hamza below U+065F", "ع\u065Fمر", "عمر"},

		// Arabic letter variants.
		{"alef hamza above", "أحمد", "احمد"},
		{"alef hamza below", "إبراهيم", "ابراهيم"},
		{"alef madda", "آدم", "ادم"},
		{"alef wasla", "ٱلله", "الله"},
		{"alef maqsura", "موسى", "موسي"},
		{"farsi yeh", "علی", "علي"},
		{"teh marbuta", "طلحة", "طلحه"},
		{"waw hamza", "مؤمن", "مومن"},
		{"yeh hamza", "عائشة", "عايشه"},
		{"decomposed alef hamza", "\u0627\u0654حمد", "احمد"},
		{"keheh", "کتاب", "كتاب"},
		{"presentation forms", "ﻋﻤﺮ", "عمر"},
		{"arabic-indic digits", "٨:٦٧", "8 67"},
		{"extended arabic-indic digits", "۸:۶۷", "8 67"},

		// Separators and spaces.
		{"hyphen", "al-Khattab", "al khattab"},
		{"underscore", "al_khattab", "al khattab"},
		{"punctuation", "(Abū) Bakr, al-Ṣiddīq!", "abu bakr al siddiq"},
		{"b dot kept as word", "ʿUmar b. al-Khaṭṭāb", "umar b al khattab"},
		{"ibn bin kept", "ibn bin", "ibn bin"},
		{"collapse whitespace", "umar \t\n  ibn", "umar ibn"},
		{"trim", "  umar  ", "umar"},
		{"nbsp and ideographic space", "umar\u00A0ibn\u3000al", "umar ibn al"},
		{"dash and slash", "badr–uhud/khandaq", "badr uhud khandaq"},
		{"zero width space separates", "umar\u200Bibn", "umar ibn"},
		{"zero width non-joiner dropped", "عم\u200Cر", "عمر"},
		{"soft hyphen dropped", "Mu\u00ADhammad", "muhammad"},
		{"direction mark dropped", "\u200Fعمر\u200E", "عمر"},

		// Compatibility forms.
		{"ligature", "ﬁqh", "fiqh"},
		{"fullwidth", "ＵＭＡＲ", "umar"},
		{"superscript digit", "x²", "x2"},

		// Degenerate input.
		{"empty", "", ""},
		{"blank", " \t\n", ""},
		{"punctuation only", "-_-.'", ""},
		{"invalid utf-8", "\xffumar\xfe ibn", "umar ibn"},
		{"invalid utf-8 inside word", "a\xffb", "a b"},
		{"already folded", "umar ibn al khattab", "umar ibn al khattab"},
		{"digits", "verse 8 67", "verse 8 67"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Normalize(tt.in); got != tt.want {
				t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestNormalizeArabicMarksRange(t *testing.T) {
	// Every harakat / Qur'anic annotation mark in U+064B–U+065F and the
	// superscript alef U+0670 disappears.
	for r := rune(0x064B); r <= 0x0670; r++ {
		if r > 0x065F && r < 0x0670 {
			continue
		}
		in := "ع" + string(r) + "مر"
		if got := Normalize(in); got != "عمر" {
			t.Errorf("Normalize(%q) [%U] = %q, want %q", in, r, got, "عمر")
		}
	}
}

func TestNormalizeEquivalent(t *testing.T) {
	groups := []struct {
		name  string
		forms []string
	}{
		{"umar", []string{"Umar", "ʿUmar", "'Umar", "'UMAR", "`umar", "‘Umar", "’Umar", "ʼUmar", "ʻUmar", "´Umar", "ʿUMAR", "Ｕｍａｒ"}},
		{"umar in arabic", []string{"عمر", "عُمَر", "عُمَرُ", "عـمـر"}},
		{"khattab", []string{"al-Khaṭṭāb", "al-Khattab", "Al Khattab", "AL_KHAṬṬĀB", "al–khaṭṭāb"}},
		{"aisha", []string{"ʿĀʾisha", "'A'isha", "Aisha", "ĀʾISHA"}},
		{"aisha in arabic", []string{"عائشة", "عايشه", "عَائِشَةُ"}},
		{"ahmad in arabic", []string{"أحمد", "احمد", "إحمد", "آحمد", "ٱحمد", "أَحْمَد"}},
	}
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			want := Normalize(g.forms[0])
			for _, f := range g.forms[1:] {
				if got := Normalize(f); got != want {
					t.Errorf("Normalize(%q) = %q, want %q (as %q)", f, got, want, g.forms[0])
				}
			}
		})
	}
}

// TestNormalizeEveryRune checks, for every code point, that Normalize is
// idempotent and its result well formed. Normalize treats runes
// independently apart from spacing, so this covers the whole table.
func TestNormalizeEveryRune(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		in := "a" + string(r) + "b"
		n := Normalize(in)
		if nn := Normalize(n); nn != n {
			t.Fatalf("%U: Normalize(%q) = %q, but Normalize(%q) = %q", r, in, n, n, nn)
		}
		checkWellFormed(t, in, n)
	}
}

func TestFoldTable(t *testing.T) {
	if foldUnicodeVersion != unicode.Version {
		t.Errorf("fold table is Unicode %s, package unicode is %s; run go generate", foldUnicodeVersion, unicode.Version)
	}
	tests := []struct {
		r    rune
		want string
		ok   bool
	}{
		{'A', "a", true},
		{'ß', "ss", true},
		{'Ḥ', "h", true},
		{'أ', "ا", true},
		{'ﷲ', "الله", true},
		{'ŉ', "ʼn", true},
		{'a', "", false},
		{'ا', "", false},
		{'\u0301', "", false}, // marks are dropped by category, not listed
		{unicode.MaxRune, "", false},
	}
	for _, tt := range tests {
		if got, ok := foldRune(tt.r); got != tt.want || ok != tt.ok {
			t.Errorf("foldRune(%U) = %q, %v; want %q, %v", tt.r, got, ok, tt.want, tt.ok)
		}
	}
}

func TestNormalizeFoldedDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { Normalize("umar ibn al khattab 8 67") }); n != 0 {
		t.Errorf("Normalize of a folded ASCII string allocates %v times", n)
	}
}

func checkWellFormed(t *testing.T, in, n string) {
	t.Helper()
	switch {
	case !utf8.ValidString(n):
		t.Fatalf("Normalize(%q) = %q: invalid UTF-8", in, n)
	case strings.TrimSpace(n) != n:
		t.Fatalf("Normalize(%q) = %q: leading or trailing space", in, n)
	case strings.Contains(n, "  "):
		t.Fatalf("Normalize(%q) = %q: double space", in, n)
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"", " ", "ʿUmar ibn al-Khaṭṭāb", "عُمَر بن الخطّاب", "Straße", "ﷺ",
		"ΟΔΟΣ", "\xff\xfe", "a\u0304\u0323", " - _ ' ", "ﻋﻤﺮ", "İ", "ǅ", "ŉ", "ꭰᏸ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if nn := Normalize(n); nn != n {
			t.Fatalf("not idempotent: Normalize(%q) = %q, Normalize(%q) = %q", s, n, n, nn)
		}
		checkWellFormed(t, s, n)
	})
}

// umarIndex returns an index with 'Umar and a few neighbours.
func umarIndex() *Index {
	ix := NewIndex()
	for _, d := range []Doc{
		{ID: "person:umar-ibn-al-khattab", Type: "Person", Names: []string{
			"'Umar ibn al-Khattab", "ʿUmar", "Umar", "son of al-Khattab", "عمر بن الخطاب", "عُمَر",
		}},
		{ID: "person:umar-ibn-abd-al-aziz", Type: "Person", Names: []string{
			"ʿUmar ibn ʿAbd al-ʿAzīz", "عمر بن عبد العزيز",
		}},
		{ID: "person:abu-bakr", Type: "Person", Names: []string{"Abū Bakr al-Ṣiddīq", "أبو بكر الصديق"}},
		{ID: "person:zayd-ibn-al-khattab", Type: "Person", Names: []string{"Zayd ibn al-Khaṭṭāb"}},
		{ID: "event:badr", Type: "Event", Names: []string{"Battle of Badr", "غزوة بدر"}},
		{ID: "verse:8:67", Type: "Verse", Names: []string{"al-Anfāl 8:67"}},
	} {
		ix.Put(d)
	}
	return ix
}

func TestSearchUmar(t *testing.T) {
	ix := umarIndex()
	const umar = "person:umar-ibn-al-khattab"
	tests := []struct {
		name     string
		query    string
		wantRank Rank
		wantName string
	}{
		{"plain", "umar", Exact, "ʿUmar"},
		{"ayn", "ʿUmar", Exact, "ʿUmar"},
		{"apostrophe upper", "'UMAR", Exact, "ʿUmar"},
		{"alias", "son of al-Khattab", Exact, "son of al-Khattab"},
		{"arabic", "عمر", Exact, "عُمَر"},
		{"arabic with harakat", "عُمَرُ", Exact, "عُمَر"},
		{"word of name", "khattab", WordPrefix, "son of al-Khattab"},
		{"word prefix", "khat", WordPrefix, "son of al-Khattab"},
		{"prefix", "umar ibn", Prefix, "'Umar ibn al-Khattab"},
		{"arabic word", "الخطاب", WordPrefix, "عمر بن الخطاب"},
		{"contains", "attab", Contains, "son of al-Khattab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := ix.Search(tt.query, 10)
			i := slices.IndexFunc(hits, func(h Hit) bool { return h.ID == umar })
			if i < 0 {
				t.Fatalf("Search(%q) = %v, want %s among them", tt.query, hits, umar)
			}
			h := hits[i]
			if h.Rank != tt.wantRank || h.Name != tt.wantName || h.Type != "Person" {
				t.Errorf("Search(%q) hit = %+v, want rank %v name %q type Person", tt.query, h, tt.wantRank, tt.wantName)
			}
			if n := len(slices.DeleteFunc(ids(hits), func(id string) bool { return id != umar })); n != 1 {
				t.Errorf("Search(%q) returns %s %d times", tt.query, umar, n)
			}
		})
	}

	// 'Umar ibn al-Khattab ranks above 'Umar ibn 'Abd al-'Aziz for "umar".
	hits := ix.Search("umar", 10)
	if got := ids(hits); !slices.Equal(got, []string{umar, "person:umar-ibn-abd-al-aziz"}) {
		t.Errorf("Search(umar) = %v", hits)
	}
}

func TestSearchRanking(t *testing.T) {
	ix := NewIndex()
	for _, d := range []Doc{
		{ID: "c", Names: []string{"Abubakr"}},
		{ID: "w", Names: []string{"Abu Bakr"}},
		{ID: "p2", Names: []string{"Bakr ibn Wail"}},
		{ID: "p1", Names: []string{"Bakra"}},
		{ID: "e", Names: []string{"Bakr"}},
		{ID: "none", Names: []string{"Umar"}},
		{ID: "w-and-c", Names: []string{"Ibn Abubakr", "Ibn Abu Bakr"}}, // WordPrefix beats Contains
		{ID: "p1b", Names: []string{"bakrz"}},                           // same length as p1: by ID
	} {
		ix.Put(d)
	}
	hits := ix.Search("bakr", 100)
	want := []Hit{
		{ID: "e", Name: "Bakr", Rank: Exact},
		{ID: "p1", Name: "Bakra", Rank: Prefix},
		{ID: "p1b", Name: "bakrz", Rank: Prefix},
		{ID: "p2", Name: "Bakr ibn Wail", Rank: Prefix},
		{ID: "w", Name: "Abu Bakr", Rank: WordPrefix},
		{ID: "w-and-c", Name: "Ibn Abu Bakr", Rank: WordPrefix},
		{ID: "c", Name: "Abubakr", Rank: Contains},
	}
	if !slices.Equal(hits, want) {
		t.Errorf("Search(bakr) =\n%v\nwant\n%v", hits, want)
	}
	if Exact >= Prefix || Prefix >= WordPrefix || WordPrefix >= Contains {
		t.Errorf("rank constants out of order")
	}
}

func TestSearchBestNameWithinEntity(t *testing.T) {
	tests := []struct {
		name     string
		names    []string
		query    string
		wantName string
		wantRank Rank
	}{
		{"better rank wins over order", []string{"Hasan al-Basri", "Hasan"}, "hasan", "Hasan", Exact},
		{"shorter name wins at equal rank", []string{"Hasan ibn Ali ibn Abi Talib", "Hasan ibn Ali"}, "hasan", "Hasan ibn Ali", Prefix},
		{"earlier name wins at equal rank and length", []string{"ʿUmar", "Umar"}, "umar", "ʿUmar", Exact},
		{"word prefix over contains", []string{"xhasan", "al hasan"}, "hasan", "al hasan", WordPrefix},
		{"later word occurrence counts", []string{"xhasan hasanx"}, "hasan", "xhasan hasanx", WordPrefix},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix := NewIndex()
			ix.Put(Doc{ID: "x", Names: tt.names})
			hits := ix.Search(tt.query, 5)
			if len(hits) != 1 || hits[0].Name != tt.wantName || hits[0].Rank != tt.wantRank {
				t.Errorf("Search(%q) = %v, want one hit %q %v", tt.query, hits, tt.wantName, tt.wantRank)
			}
		})
	}
}

func TestPutReplaces(t *testing.T) {
	ix := umarIndex()
	n := ix.Len()
	ix.Put(Doc{ID: "event:badr", Type: "Battle", Names: []string{"Ghazwat Badr al-Kubra"}})
	if ix.Len() != n {
		t.Errorf("Len after replace = %d, want %d", ix.Len(), n)
	}
	if hits := ix.Search("battle of badr", 10); hits != nil {
		t.Errorf("old name still found: %v", hits)
	}
	hits := ix.Search("badr", 10)
	want := []Hit{{ID: "event:badr", Type: "Battle", Name: "Ghazwat Badr al-Kubra", Rank: WordPrefix}}
	if !slices.Equal(hits, want) {
		t.Errorf("Search(badr) = %v, want %v", hits, want)
	}
	ix.Put(Doc{ID: "event:badr", Type: "Event"}) // no names at all
	if hits := ix.Search("badr", 10); hits != nil || ix.Len() != n {
		t.Errorf("after replacing with no names: Search = %v, Len = %d", hits, ix.Len())
	}
}

func TestPutCopiesNames(t *testing.T) {
	ix := NewIndex()
	names := []string{"Bilal ibn Rabah"}
	ix.Put(Doc{ID: "person:bilal", Names: names})
	names[0] = "changed"
	if hits := ix.Search("bilal", 1); len(hits) != 1 || hits[0].Name != "Bilal ibn Rabah" {
		t.Errorf("Search after caller mutated Names = %v", hits)
	}
}

func TestDelete(t *testing.T) {
	ix := umarIndex()
	n := ix.Len()
	ix.Delete("person:umar-ibn-al-khattab")
	ix.Delete("person:no-such-id")
	if ix.Len() != n-1 {
		t.Errorf("Len = %d, want %d", ix.Len(), n-1)
	}
	if got := ids(ix.Search("umar", 10)); !slices.Equal(got, []string{"person:umar-ibn-abd-al-aziz"}) {
		t.Errorf("Search(umar) after delete = %v", got)
	}
	if hits := ix.Search("son of al-Khattab", 10); hits != nil {
		t.Errorf("deleted alias still found: %v", hits)
	}
	ix.Put(Doc{ID: "person:umar-ibn-al-khattab", Names: []string{"Umar"}})
	if hits := ix.Search("umar", 1); len(hits) != 1 || hits[0].ID != "person:umar-ibn-al-khattab" {
		t.Errorf("Search after re-Put = %v", hits)
	}
}

// TestDeleteCompacts deletes enough to trigger compaction and checks that
// the survivors are still found and can be replaced and deleted.
func TestDeleteCompacts(t *testing.T) {
	ix := NewIndex()
	const n = 3000
	for i := range n {
		ix.Put(Doc{ID: fmt.Sprintf("d%04d", i), Names: []string{fmt.Sprintf("name%04d", i), "common"}})
	}
	for i := 0; i < n; i++ {
		if i%3 != 0 {
			ix.Delete(fmt.Sprintf("d%04d", i))
		}
	}
	if ix.Len() != n/3 {
		t.Fatalf("Len = %d, want %d", ix.Len(), n/3)
	}
	if len(ix.docs) >= n {
		t.Errorf("no compaction: %d doc slots for %d documents", len(ix.docs), ix.Len())
	}
	for i := range n {
		hits := ix.Search(fmt.Sprintf("name%04d", i), 5)
		switch {
		case i%3 == 0 && (len(hits) != 1 || hits[0].ID != fmt.Sprintf("d%04d", i) || hits[0].Rank != Exact):
			t.Fatalf("Search(name%04d) = %v", i, hits)
		case i%3 != 0 && hits != nil:
			t.Fatalf("deleted d%04d found: %v", i, hits)
		}
	}
	if hits := ix.Search("common", n); len(hits) != n/3 {
		t.Errorf("Search(common) = %d hits, want %d", len(hits), n/3)
	}
	ix.Put(Doc{ID: "d0000", Names: []string{"renamed"}})
	if hits := ix.Search("name0000", 5); hits != nil {
		t.Errorf("replaced name still found: %v", hits)
	}
}

func TestSearchFirst(t *testing.T) {
	ix := NewIndex()
	for i := range 5 {
		ix.Put(Doc{ID: fmt.Sprintf("person:%d", i), Names: []string{"Anas" + strings.Repeat("x", i)}})
	}
	tests := []struct {
		name  string
		first int
		want  []string
	}{
		{"zero", 0, nil},
		{"negative", -1, nil},
		{"one", 1, []string{"person:0"}},
		{"two", 2, []string{"person:0", "person:1"}},
		{"all", 5, []string{"person:0", "person:1", "person:2", "person:3", "person:4"}},
		{"more than all", 1000, []string{"person:0", "person:1", "person:2", "person:3", "person:4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := ix.Search("anas", tt.first)
			if got := ids(hits); !slices.Equal(got, tt.want) {
				t.Errorf("Search(anas, %d) = %v, want %v", tt.first, got, tt.want)
			}
			if tt.want == nil && hits != nil {
				t.Errorf("Search(anas, %d) = %#v, want nil", tt.first, hits)
			}
		})
	}
}

func TestSearchNothing(t *testing.T) {
	ix := umarIndex()
	tests := []struct{ name, query string }{
		{"empty", ""},
		{"blank", "   \t"},
		{"punctuation only", " - ' ʿ _ "},
		{"tatweel only", "ـــ"},
		{"no match", "zzzz"},
		{"longer than every name", strings.Repeat("umar ", 20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if hits := ix.Search(tt.query, 10); hits != nil {
				t.Errorf("Search(%q) = %v, want nil", tt.query, hits)
			}
		})
	}
	if hits := NewIndex().Search("umar", 10); hits != nil {
		t.Errorf("empty index: Search = %v, want nil", hits)
	}
}

// TestSearchMatchesReference compares Search with a brute-force
// implementation of its contract on random data, with replacements and
// deletions mixed in.
func TestSearchMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		const letters = "abcā ʿ-"
		var b strings.Builder
		for range 1 + rng.IntN(6) {
			b.WriteString(string([]rune(letters)[rng.IntN(len([]rune(letters)))]))
		}
		return b.String()
	}
	ix := NewIndex()
	ref := map[string]Doc{}
	for step := range 3000 {
		id := fmt.Sprintf("id%d", rng.IntN(400))
		switch rng.IntN(10) {
		case 0:
			ix.Delete(id)
			delete(ref, id)
		default:
			d := Doc{ID: id, Type: "T" + id}
			for range rng.IntN(4) {
				d.Names = append(d.Names, word()+" "+word())
			}
			ix.Put(d)
			ref[id] = d
		}
		if step%10 != 0 {
			continue
		}
		q := word()
		first := 1 + rng.IntN(20)
		got := ix.Search(q, first)
		want := referenceSearch(ref, q, first)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: Search(%q, %d) =\n%v\nwant\n%v", step, q, first, got, want)
		}
		if ix.Len() != len(ref) {
			t.Fatalf("Len = %d, want %d", ix.Len(), len(ref))
		}
	}
}

func referenceSearch(docs map[string]Doc, text string, first int) []Hit {
	q := Normalize(text)
	if q == "" || first <= 0 {
		return nil
	}
	type cand struct {
		hit   Hit
		runes int
	}
	var cands []cand
	for _, d := range docs {
		var best *cand
		for _, g := range d.Names {
			n := Normalize(g)
			var r Rank
			switch {
			case n == "":
				continue
			case n == q:
				r = Exact
			case strings.HasPrefix(n, q):
				r = Prefix
			case strings.Contains(" "+n, " "+q):
				r = WordPrefix
			case strings.Contains(n, q):
				r = Contains
			default:
				continue
			}
			c := cand{Hit{d.ID, d.Type, g, r}, utf8.RuneCountInString(n)}
			if best == nil || r < best.hit.Rank || r == best.hit.Rank && c.runes < best.runes {
				best = &c
			}
		}
		if best != nil {
			cands = append(cands, *best)
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.hit.Rank != b.hit.Rank {
			return int(a.hit.Rank - b.hit.Rank)
		}
		if a.runes != b.runes {
			return a.runes - b.runes
		}
		return strings.Compare(a.hit.ID, b.hit.ID)
	})
	var hits []Hit
	for _, c := range cands[:min(first, len(cands))] {
		hits = append(hits, c.hit)
	}
	return hits
}

func TestConcurrentUse(t *testing.T) {
	ix := umarIndex()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 300 {
				id := fmt.Sprintf("person:%d-%d", g, i%50)
				switch i % 3 {
				case 0:
					ix.Put(Doc{ID: id, Type: "Person", Names: []string{fmt.Sprintf("ʿUmar %d %d", g, i)}})
				case 1:
					ix.Delete(id)
				}
				hits := ix.Search("umar", 5)
				if len(hits) == 0 || hits[0].ID != "person:umar-ibn-al-khattab" {
					t.Errorf("Search(umar) = %v", hits)
					return
				}
				_ = ix.Len()
			}
		})
	}
	wg.Wait()
	if hits := ix.Search("son of al khattab", 1); len(hits) != 1 {
		t.Errorf("after concurrent use: %v", hits)
	}
}

func TestRankString(t *testing.T) {
	for r, want := range map[Rank]string{Exact: "Exact", Prefix: "Prefix", WordPrefix: "WordPrefix", Contains: "Contains", 7: "Rank(7)"} {
		if got := r.String(); got != want {
			t.Errorf("Rank(%d).String() = %q, want %q", int(r), got, want)
		}
	}
}

func ids(hits []Hit) []string {
	var s []string
	for _, h := range hits {
		s = append(s, h.ID)
	}
	return s
}

// syntheticDocs returns n documents shaped like Athar's: people with a
// transliterated full name, a short name, an Arabic name and sometimes a
// kunya; events; verses.
func syntheticDocs(n int) []Doc {
	given := []string{"Muḥammad", "ʿUmar", "ʿAlī", "ʿUthmān", "Abū Bakr", "Ḥasan", "Ḥusayn", "Khālid", "Saʿd", "Zayd",
		"ʿAbd Allāh", "Anas", "Jābir", "Muʿādh", "Bilāl", "Salmān", "Ṭalḥa", "Zubayr", "ʿĀʾisha", "Fāṭima",
		"Ḥafṣa", "Khadīja", "Asmāʾ", "Sufyān", "Hishām", "Nāfiʿ", "Mālik", "Yaḥyā", "Ibrāhīm", "Ismāʿīl"}
	arabic := []string{"محمد", "عمر", "علي", "عثمان", "أبو بكر", "حسن", "حسين", "خالد", "سعد", "زيد",
		"عبد الله", "أنس", "جابر", "معاذ", "بلال", "سلمان", "طلحة", "الزبير", "عائشة", "فاطمة",
		"حفصة", "خديجة", "أسماء", "سفيان", "هشام", "نافع", "مالك", "يحيى", "إبراهيم", "إسماعيل"}
	nisba := []string{"al-Anṣārī", "al-Qurashī", "al-Makhzūmī", "al-Thaqafī", "al-Bāhilī", "al-Kūfī", "al-Baṣrī",
		"al-Madanī", "al-Zuhrī", "al-Khuzāʿī", "al-Ghifārī", "al-Asadī", "al-Tamīmī", "al-Hāshimī"}
	rng := rand.New(rand.NewPCG(42, 42))
	docs := make([]Doc, 0, n)
	for i := range n {
		a, b, c := rng.IntN(len(given)), rng.IntN(len(given)), rng.IntN(len(nisba))
		switch i % 10 {
		case 0:
			docs = append(docs, Doc{ID: fmt.Sprintf("event:e%d", i), Type: "Event",
				Names: []string{fmt.Sprintf("Expedition of %s %d", given[a], i), fmt.Sprintf("سرية %s", arabic[a])}})
		case 1:
			docs = append(docs, Doc{ID: fmt.Sprintf("verse:%d:%d", 1+i%114, i), Type: "Verse",
				Names: []string{fmt.Sprintf("Sūrat %s %d:%d", given[a], 1+i%114, i)}})
		default:
			names := []string{
				fmt.Sprintf("%s ibn %s %s", given[a], given[b], nisba[c]),
				given[a],
				fmt.Sprintf("%s بن %s", arabic[a], arabic[b]),
			}
			if i%3 == 0 {
				names = append(names, "Abū "+given[b])
			}
			docs = append(docs, Doc{ID: fmt.Sprintf("person:p%d", i), Type: "Person", Names: names})
		}
	}
	return docs
}

func BenchmarkSearch(b *testing.B) {
	ix := NewIndex()
	for _, d := range syntheticDocs(100_000) {
		ix.Put(d)
	}
	for _, q := range []struct{ name, text string }{
		{"exact-common", "ʿUmar"},
		{"word-prefix", "ansari"},
		{"multi-word", "muhammad ibn ali"},
		{"arabic", "عمر بن"},
		{"one-letter", "a"},
		{"miss", "qqq"},
		{"digits", "12:"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				ix.Search(q.text, 20)
			}
		})
	}
}

func BenchmarkPut(b *testing.B) {
	docs := syntheticDocs(10_000)
	ix := NewIndex()
	i := 0
	for b.Loop() {
		ix.Put(docs[i%len(docs)])
		i++
	}
}

func BenchmarkNormalize(b *testing.B) {
	for b.Loop() {
		Normalize("ʿUmar ibn al-Khaṭṭāb عُمَر بن الخطّاب")
	}
}
