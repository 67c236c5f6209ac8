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
