package isnad

import (
	"testing"
	"unicode/utf8"
)

// Muslim 4588 (Abd al-Baqi 1763), the done-when example: both routes, split at ح,
// and أبو زميل (glossed هو سماك الحنفي) the same person as سماك الحنفي.
const muslim4588 = "حَدَّثَنَا هَنَّادُ بْنُ السَّرِيِّ، حَدَّثَنَا ابْنُ الْمُبَارَكِ، عَنْ عِكْرِمَةَ بْنِ عَمَّارٍ، حَدَّثَنِي سِمَاكٌ، الْحَنَفِيُّ قَالَ سَمِعْتُ ابْنَ عَبَّاسٍ، يَقُولُ حَدَّثَنِي عُمَرُ بْنُ الْخَطَّابِ، قَالَ لَمَّا كَانَ يَوْمُ بَدْرٍ ح وَحَدَّثَنَا زُهَيْرُ بْنُ حَرْبٍ - وَاللَّفْظُ لَهُ - حَدَّثَنَا عُمَرُ بْنُ يُونُسَ الْحَنَفِيُّ حَدَّثَنَا عِكْرِمَةُ بْنُ عَمَّارٍ حَدَّثَنِي أَبُو زُمَيْلٍ - هُوَ سِمَاكٌ الْحَنَفِيُّ - حَدَّثَنِي عَبْدُ اللَّهِ بْنُ عَبَّاسٍ قَالَ حَدَّثَنِي عُمَرُ بْنُ الْخَطَّابِ قَالَ لَمَّا كَانَ يَوْمُ بَدْرٍ نَظَرَ رَسُولُ اللَّهِ صلى الله عليه وسلم إِلَى الْمُشْرِكِينَ"

func TestMuslim4588(t *testing.T) {
	is := Segment(muslim4588)
	if len(is.Routes) != 2 {
		t.Fatalf("got %d routes, want 2:\n%s", len(is.Routes), describe(muslim4588, is))
	}
	want := [][]string{
		{"person:hannad-ibn-al-sari", "person:ibn-al-mubarak", "person:ikrimah-ibn-ammar", "person:abu-zumayl", "person:ibn-abbas", "person:umar-ibn-al-khattab"},
		{"person:zuhayr-ibn-harb", "person:umar-ibn-yunus-al-hanafi", "person:ikrimah-ibn-ammar", "person:abu-zumayl", "person:ibn-abbas", "person:umar-ibn-al-khattab"},
	}
	res := NewResolver().ResolveIsnad(is)
	for i := range want {
		if len(res[i]) != len(want[i]) {
			t.Fatalf("route %d: %d links, want %d:\n%s", i+1, len(res[i]), len(want[i]), describe(muslim4588, is))
		}
		for j, id := range want[i] {
			if string(res[i][j].ID) != id {
				t.Errorf("route %d link %d (%s): got %q, want %s", i+1, j+1, is.Routes[i].Links[j].Name.Text, res[i][j].ID, id)
			}
		}
	}
	if g := is.Routes[1].Links[3].Gloss.Text; g != "سِمَاكٌ الْحَنَفِيُّ" {
		t.Errorf("gloss of أبو زميل: %q", g)
	}
	// Without the built-in table the two are still one new person: the same Key.
	bare := NewBareResolver().ResolveIsnad(is)
	if a, b := bare[0][3].Key, bare[1][3].Key; a != b || a == "" {
		t.Errorf("سماك الحنفي and أبو زميل (هو سماك الحنفي): keys %q and %q, want one", a, b)
	}
	if got := string([]rune(muslim4588)[is.MatnStart:][:4]); got != "قَال" {
		t.Errorf("matn starts at %q", got)
	}
}

func TestJoinByReference(t *testing.T) {
	prev := Segment("حَدَّثَنَا مُحَمَّدُ بْنُ جَعْفَرٍ، حَدَّثَنَا شُعْبَةُ، عَنْ سَيَّارٍ، عَنْ أَبِي وَائِلٍ، عَنْ عَبْدِ اللَّهِ، عَنِ النَّبِيِّ صلى الله عليه وسلم قَالَ")
	cur := Segment("وَحَدَّثَنِيهِ يَحْيَى بْنُ حَبِيبٍ، حَدَّثَنَا رَوْحُ بْنُ عُبَادَةَ، حَدَّثَنَا شُعْبَةُ، حَدَّثَنَا سَيَّارٌ، بِهَذَا الإِسْنَادِ مِثْلَهُ ‏.‏")
	if cur.Ref == nil || cur.Ref.Kind != "isnad" {
		t.Fatalf("reference not found: %+v", cur.Ref)
	}
	r, ok := Join(cur.Routes[0], prev.Routes[0])
	if !ok {
		t.Fatal("Join found no junction at سيار")
	}
	var names []string
	for _, l := range r.Chain() {
		names = append(names, ArabicKey(l.Name.Text))
	}
	want := []string{"يحيي بن حبيب", "روح بن عباده", "شعبه", "سيار", "ابو وايل", "عبد الله"}
	if len(names) != len(want) || r.Prophet.Empty() {
		t.Fatalf("joined route %v (Prophet %q), want %v", names, r.Prophet.Text, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("link %d: %q, want %q", i+1, names[i], want[i])
		}
	}
}

// checkOffsets verifies the invariants of Segment's result on any text.
func checkOffsets(t *testing.T, text string, is Isnad) {
	n := utf8.RuneCountInString(text)
	if is.MatnStart < 0 || is.MatnStart > n {
		t.Fatalf("MatnStart %d outside 0..%d", is.MatnStart, n)
	}
	rs := []rune(text)
	prev := -1
	check := func(what string, s Span) {
		if s.Empty() {
			return
		}
		if s.Start < 0 || s.End > n || s.Start >= s.End {
			t.Fatalf("%s %q: bad offsets %d-%d (text %d)", what, s.Text, s.Start, s.End, n)
		}
		// (invalid UTF-8 is one code point, U+FFFD, on both sides)
		if string(rs[s.Start:s.End]) != string([]rune(s.Text)) {
			t.Fatalf("%s: offsets %d-%d give %q, not %q", what, s.Start, s.End, string(rs[s.Start:s.End]), s.Text)
		}
	}
	for _, r := range is.Routes {
		for _, l := range r.Links {
			check("name", l.Name)
			check("term", l.Term)
			check("gloss", l.Gloss)
			if l.Name.Start <= prev {
				t.Fatalf("links not in text order at %q (%d after %d)", l.Name.Text, l.Name.Start, prev)
			}
			prev = l.Name.Start
		}
		check("prophet", r.Prophet)
	}
	if is.Ref != nil {
		check("reference", is.Ref.Phrase)
	}
}

func TestOffsetsOnSample(t *testing.T) {
	for _, file := range []string{"testdata/sample.json", "testdata/heldout.json"} {
		for _, it := range loadSample(t, file) {
			checkOffsets(t, it.Arabic, Segment(it.Arabic))
		}
	}
}

func FuzzSegment(f *testing.F) {
	f.Add(muslim4588)
	f.Add("حَدَّثَنَا ح ح، - يَعْنِي - ـ رضى")
	f.Add("عَنْ أَبِي هُرَيْرَةَ رَضِيَ اللهُ عَنْهُ قَالَ: قَالَ رَسُولُ اللَّهِ")
	f.Add("\xff\xfeحدثنا \u0640\u064e")
	f.Fuzz(func(t *testing.T, text string) {
		checkOffsets(t, text, Segment(text))
		NarratorOfRecord(text)
		Mentions(text, "en", nil)
	})
}

// BenchmarkExtract is Segment + NarratorOfRecord + resolution of one hadith, over the
// sample's texts (and, with ATHAR_CORPUS, the first 2,000 full texts of Muslim).
func BenchmarkExtract(b *testing.B) {
	var ara, eng []string
	for _, file := range []string{"testdata/sample.json", "testdata/heldout.json"} {
		for _, it := range loadSample(b, file) {
			ara = append(ara, it.Arabic)
			eng = append(eng, it.English)
		}
	}
	if corpusDir() != "" {
		a, e := loadEdition(b, "ara-muslim"), loadEdition(b, "eng-muslim")
		for k := 1; k <= 2000; k++ {
			if a[k] != "" {
				ara, eng = append(ara, a[k]), append(eng, e[k])
			}
		}
	}
	r := NewResolver()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(ara)
		is := Segment(ara[k])
		r.ResolveIsnad(is)
		if name, _, _, ok := NarratorOfRecord(eng[k]); ok {
			r.Resolve(name)
		}
	}
}

func TestResolveHadith(t *testing.T) {
	r := NewResolver()
	// Bukhari's "Narrated 'Abdullah" is Ibn Mas'ud: the chain (Masruq from عبد الله) says so.
	is := Segment("حَدَّثَنَا عُمَرُ بْنُ حَفْصٍ، حَدَّثَنَا أَبِي، حَدَّثَنَا الأَعْمَشُ، عَنْ إِبْرَاهِيمَ، عَنْ مَسْرُوقٍ، عَنْ عَبْدِ اللَّهِ، قَالَ قَالَ رَسُولُ اللَّهِ صلى الله عليه وسلم")
	if got := r.Resolve("`Abdullah"); got.ID != "" {
		t.Fatalf("'Abdullah alone resolved to %s; it is ambiguous", got.ID)
	}
	links, nar := r.ResolveHadith(is, "`Abdullah")
	if nar.ID != "person:ibn-masud" || nar.By != "chain" {
		t.Errorf("narrator: %+v, want person:ibn-masud by chain", nar)
	}
	if l := links[0][len(links[0])-1]; l.ID != "person:ibn-masud" {
		t.Errorf("last link: %+v", l)
	}
	// The other way: an unresolved last link named by the narrator of record.
	is = Segment("حَدَّثَنَا قُتَيْبَةُ، حَدَّثَنَا لَيْثٌ، عَنْ يَزِيدَ، عَنْ أَبِي الْخَيْرِ، عَنْ عُقْبَةَ بْنِ عَامِرٍ، قَالَ")
	links, nar = r.ResolveHadith(is, "Uqbah bin Amir")
	if nar.ID != "person:uqbah-ibn-amir" || links[0][len(links[0])-1].ID != "person:uqbah-ibn-amir" {
		t.Errorf("got narrator %+v, last link %+v", nar, links[0][len(links[0])-1])
	}
}
