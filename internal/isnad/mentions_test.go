package isnad

import (
	"testing"
)

func TestVerseMentions(t *testing.T) {
	r := NewResolver()
	cases := []struct {
		text string
		want []string // first verse id of each citation, in order
		n    []int    // verses per citation
	}{
		{"the Prophet recited [23:51] and", []string{"verse:23:51"}, []int{1}},
		{"Allah revealed (8:67) then", []string{"verse:8:67"}, []int{1}},
		{"so Allah revealed: [al Anfal 8:67-68]", []string{"verse:8:67"}, []int{2}},
		{"(Al-Qur'an, Surat Najm 53:13)", []string{"verse:53:13"}, []int{1}},
		{"He recited (74.1-5)", []string{"verse:74:1"}, []int{5}},
		{"(The same Hadith as 6.556, adding)", nil, nil},
		{"(i.e. 2.5%)", nil, nil},
		{"[115:1] and (8:76)", nil, nil},
		{"[al Baqarah 8:67]", nil, nil}, // the name does not fit the number
	}
	for _, c := range cases {
		got := Mentions(c.text, "en", r)
		var vs []Mention
		for _, m := range got {
			if len(m.Verses) > 0 {
				vs = append(vs, m)
			}
		}
		if len(vs) != len(c.want) {
			t.Errorf("%q: got %d citations %+v, want %v", c.text, len(vs), vs, c.want)
			continue
		}
		for i, m := range vs {
			if string(m.ID) != c.want[i] || len(m.Verses) != c.n[i] {
				t.Errorf("%q: got %s (%d verses), want %s (%d)", c.text, m.ID, len(m.Verses), c.want[i], c.n[i])
			}
			if string([]rune(c.text)[m.Start:m.End]) != m.Text {
				t.Errorf("%q: offsets %d-%d do not give %q", c.text, m.Start, m.End, m.Text)
			}
		}
	}
}

func TestNameMentions(t *testing.T) {
	r := NewResolver()
	ar := "حَدَّثَنَا هَنَّادُ بْنُ السَّرِيِّ، عَنِ الزُّهْرِيِّ، عَنْ سَالِمٍ، قَالَ سَمِعْتُ ابْنَ عَبَّاسٍ يَقُولُ قَالَ النَّبِيُّ"
	got := Mentions(ar, "ar", r)
	want := []string{"person:hannad-ibn-al-sari", "person:al-zuhri", "person:ibn-abbas", "person:muhammad"}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %v", got, want)
	}
	for i, m := range got {
		if string(m.ID) != want[i] || string([]rune(ar)[m.Start:m.End]) != m.Text {
			t.Errorf("mention %d: %+v, want %s", i, m, want[i])
		}
	}
	en := "Narrated 'Umar bin Al-Khattab: I asked Abu Huraira and Ibn `Abbas about it."
	got = Mentions(en, "en", r)
	want = []string{"person:umar-ibn-al-khattab", "person:abu-hurayrah", "person:ibn-abbas"}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %v", got, want)
	}
	for i, m := range got {
		if string(m.ID) != want[i] || string([]rune(en)[m.Start:m.End]) != m.Text {
			t.Errorf("mention %d: %+v, want %s", i, m, want[i])
		}
	}
}

// The comparison form of a run of words is its words' folds put together (arabicKeyOf),
// which is what lets Mentions fold each word once: checked on every run of up to six
// words of the samples' Arabic texts, and on runs with tanween, marks alone, tatweel,
// spaces other than U+0020 and the case forms at either end.
func TestRunKeyIsItsWordsFolds(t *testing.T) {
	texts := []string{
		"حدثنا أَبِي عَنْ أَنَسًا ابن مالك ـ عن ابي بكر\u00a0ابن\u2003ابا هريرة \u200Bقال ً ٌ أبا",
		"أخبرنا أبو بكر بن أبي شيبة ، ثنا وكيع ( عن ) ابنِ عُمَرَ رضي الله عنهما",
	}
	for _, file := range []string{"testdata/sample.json", "testdata/heldout.json"} {
		for _, it := range loadSample(t, file) {
			texts = append(texts, it.Arabic)
		}
	}
	runs := 0
	for _, text := range texts {
		var ws []word
		for _, tk := range tokenize(text, 1<<30, nil) {
			if tk.kind == tWord {
				ws = append(ws, word{tk.start, tk.end, tk.bs, tk.be})
			}
		}
		for i := range ws {
			var folds []string
			for n := 1; n <= 6 && i+n <= len(ws); n++ {
				folds = append(folds, arabicFold(text[ws[i+n-1].bs:ws[i+n-1].be])...)
				run := text[ws[i].bs:ws[i+n-1].be]
				if got, want := arabicKeyOf(folds), ArabicKey(run); got != want {
					t.Fatalf("%q: from its words %q, ArabicKey %q", run, got, want)
				}
				runs++
			}
		}
	}
	if runs < 10000 {
		t.Fatalf("only %d runs checked", runs)
	}
}
