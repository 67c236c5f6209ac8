package search

import "testing"

func TestSkeleton(t *testing.T) {
	same := [][2]string{
		{"Omar", "'Umar"},
		{"Abu Bakr as-Siddiq", "Abu Bakr al-Siddiq"},
		{"Hamzah ibn Abdul Muttalib", "Hamzah ibn 'Abd al-Muttalib"},
		{"Hamza bin Abd al-Mutalib", "Hamzah ibn 'Abd al-Muttalib"},
		{"Umar b. al-Khattab", "'Umar ibn al-Khattab"},
		{"Aqeel", "'Aqil"},
		{"Ikrima", "'Ikrimah"},
		{"Ash-Shafi'i", "al-Shafi'i"},
		{"Soofyan", "Sufyan"},
	}
	for _, p := range same {
		a, b := Skeleton(Normalize(p[0])), Skeleton(Normalize(p[1]))
		if a != b {
			t.Errorf("Skeleton(%q) = %q, Skeleton(%q) = %q: want equal", p[0], a, p[1], b)
		}
	}
	differ := [][2]string{{"Umar", "Amr"}, {"Ali", "Ala"}, {"Badr", "Bakr"}}
	for _, p := range differ {
		if a, b := Skeleton(Normalize(p[0])), Skeleton(Normalize(p[1])); a == b {
			t.Errorf("Skeleton(%q) = Skeleton(%q) = %q: want different", p[0], p[1], a)
		}
	}
	// Arabic words are left as Normalize leaves them; an article alone is kept.
	for _, s := range []string{"عمر بن الخطاب", "al"} {
		if got := Skeleton(Normalize(s)); got != Normalize(s) {
			t.Errorf("Skeleton(%q) = %q, want %q", s, got, Normalize(s))
		}
	}
}

func TestForgiving(t *testing.T) {
	ix := NewIndex()
	ix.Put(Doc{ID: "person:umar", Type: "Person", Names: []string{"'Umar ibn al-Khattab", "'Umar"}})
	ix.Put(Doc{ID: "person:abu-bakr", Type: "Person", Names: []string{"Abu Bakr", "Abu Bakr al-Siddiq"}})
	ix.Put(Doc{ID: "person:hamzah", Type: "Person", Names: []string{"Hamzah ibn 'Abd al-Muttalib"}})
	ix.Put(Doc{ID: "person:amr", Type: "Person", Names: []string{"'Amr ibn Khalid"}})
	for q, want := range map[string]string{
		"Omar":                      "person:umar",
		"Omar bin al-Khattab":       "person:umar",
		"Abu Bakr as-Siddiq":        "person:abu-bakr",
		"Hamzah ibn Abdul Muttalib": "person:hamzah",
	} {
		hits := ix.Forgiving(q, 5)
		if len(hits) == 0 || hits[0].ID != want {
			t.Errorf("Forgiving(%q) = %+v, want %s first", q, hits, want)
		}
		if len(ix.Search(q, 5)) != 0 {
			t.Errorf("Search(%q) finds it already: the test does not test Forgiving", q)
		}
	}
	// Exact hits come first; variants only fill what is left.
	hits := ix.Forgiving("Umar", 5)
	if len(hits) != 1 || hits[0].ID != "person:umar" {
		t.Errorf("Forgiving(Umar) = %+v", hits)
	}
	if hits := ix.Forgiving("Omar", 0); len(hits) != 0 {
		t.Errorf("first 0: %+v", hits)
	}
	ix.Delete("person:umar")
	if hits := ix.Forgiving("Omar", 5); len(hits) != 0 {
		t.Errorf("after delete: %+v", hits)
	}
}
