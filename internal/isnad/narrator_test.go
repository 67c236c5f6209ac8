package isnad

import "testing"

func TestNarratorOfRecord(t *testing.T) {
	cases := []struct{ text, want string }{
		{"Narrated 'Umar bin Al-Khattab: I heard", "'Umar bin Al-Khattab"},
		{"It has been narrated on the authority of `Umar b. al-Khattab who said:When", "`Umar b. al-Khattab"},
		{"Abu Huraira (Allah be pleased with him) reported Allah's Messenger", "Abu Huraira"},
		{"On the authority of Abu Hurayrah (may Allah be pleased with him), who said", "Abu Hurayrah"},
		{"It was narrated that Anas bin Malik said:", "Anas bin Malik"},
		{"It was narrated from 'Aishah that the Messenger", "'Aishah"},
		{"Khalid narrated from Dawud bin Abi Hind, from Abu Az-Zubair, from Jabir, who said:", "Jabir"},
		{"Narrated Abu Ghifar Al-Muthanna bin Sa'eed At-Ta'i:from Abu Tamimah al-Hujaimi from Jabir bin Sulaim who said:", "Jabir bin Sulaim"},
		{"Yahya related to me from Malik from Ibn Shihab from Salim ibn Abdullah that Abdullah ibn Umar said,", "Abdullah ibn Umar"},
		{"Jabir b. Samurah said:The prayer", "Jabir b. Samurah"},
		{"War is deception", ""},
	}
	for _, c := range cases {
		name, s, e, ok := NarratorOfRecord(c.text)
		if c.want == "" {
			if ok {
				t.Errorf("%q: got %q, want none", c.text, name)
			}
			continue
		}
		if !ok || name != c.want {
			t.Errorf("%q: got %q (%v), want %q", c.text, name, ok, c.want)
			continue
		}
		if got := string([]rune(c.text)[s:e]); got != name {
			t.Errorf("%q: offsets %d-%d give %q", c.text, s, e, got)
		}
	}
}
