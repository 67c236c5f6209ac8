package athar_test

import (
	"reflect"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

func TestRoute(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    athar.Narration
		want []athar.ID
	}{
		{"chain ending with the narrator", athar.Narration{Narrator: "person:u", Chain: []athar.ID{"person:a", "person:u"}}, []athar.ID{"person:a", "person:u"}},
		{"chain without the narrator", athar.Narration{Narrator: "person:u", Chain: []athar.ID{"person:a"}}, []athar.ID{"person:a", "person:u"}},
		{"narrator only", athar.Narration{Narrator: "person:u"}, []athar.ID{"person:u"}},
		{"neither", athar.Narration{}, nil},
	} {
		if got := tc.n.Route(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Route() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRoutes(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    athar.Narration
		want [][]athar.ID
	}{
		{"two chains, the narrator added to the one that omits them", athar.Narration{Narrator: "person:u",
			Chain: []athar.ID{"person:a", "person:u"}, MoreRoutes: [][]athar.ID{{"person:b"}}},
			[][]athar.ID{{"person:a", "person:u"}, {"person:b", "person:u"}}},
		{"narrator only", athar.Narration{Narrator: "person:u"}, [][]athar.ID{{"person:u"}}},
		{"neither", athar.Narration{}, nil},
	} {
		if got := tc.n.Routes(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Routes() = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFindCommonLink(t *testing.T) {
	r := func(ids ...athar.ID) [][]athar.ID { return [][]athar.ID{ids} }
	rr := func(routes ...[][]athar.ID) [][]athar.ID {
		var out [][]athar.ID
		for _, x := range routes {
			out = append(out, x...)
		}
		return out
	}
	ids := func(ids ...athar.ID) []athar.ID { return ids }
	first := func(ns ...athar.ID) map[athar.ID]int {
		m := map[athar.ID]int{}
		for _, n := range ns {
			m[n] = 0
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		routes map[athar.ID][][]athar.ID
		want   athar.CommonLink
		ok     bool
	}{
		{
			name: "routes converging on one transmitter",
			routes: map[athar.ID][][]athar.ID{
				"narration:1": r("person:a1", "person:cl", "person:s1", "person:src"),
				"narration:2": r("person:b1", "person:b2", "person:cl", "person:s1", "person:src"),
			},
			want: athar.CommonLink{Person: "person:cl", Shared: ids("person:cl", "person:s1", "person:src"),
				Positions: map[athar.ID]int{"narration:1": 2, "narration:2": 3}, Routes: first("narration:1", "narration:2")},
			ok: true,
		},
		{
			name: "the same route",
			routes: map[athar.ID][][]athar.ID{
				"narration:1": r("person:a", "person:b"),
				"narration:2": r("person:a", "person:b"),
			},
			want: athar.CommonLink{Person: "person:a", Shared: ids("person:a", "person:b"), Positions: map[athar.ID]int{"narration:1": 1, "narration:2": 1}, Routes: first("narration:1", "narration:2")},
			ok:   true,
		},
		{
			name: "a person repeated in one route counts at the nearest position",
			routes: map[athar.ID][][]athar.ID{
				"narration:1": r("person:x", "person:a", "person:x"),
				"narration:2": r("person:y", "person:x"),
			},
			want: athar.CommonLink{Person: "person:x", Shared: ids("person:x"), Positions: map[athar.ID]int{"narration:1": 1, "narration:2": 2}, Routes: first("narration:1", "narration:2")},
			ok:   true,
		},
		{
			name: "orders that disagree: the smallest greatest position wins",
			routes: map[athar.ID][][]athar.ID{
				"narration:1": r("person:p", "person:q", "person:r"),
				"narration:2": r("person:z", "person:q", "person:p"),
			},
			want: athar.CommonLink{Person: "person:q", Shared: ids("person:q", "person:p"), Positions: map[athar.ID]int{"narration:1": 2, "narration:2": 2}, Routes: first("narration:1", "narration:2")},
			ok:   true,
		},
		{
			name: "nothing shared",
			routes: map[athar.ID][][]athar.ID{
				"narration:1": r("person:a"),
				"narration:2": r("person:b"),
			},
		},
		{
			name: "a narration with two routes: the common link is in its second",
			routes: map[athar.ID][][]athar.ID{
				"narration:1": rr(r("person:h", "person:m", "person:cl", "person:s", "person:src"), r("person:z", "person:y", "person:cl", "person:a", "person:src")),
				"narration:2": r("person:q", "person:a", "person:src"),
				"narration:3": r("person:w", "person:a", "person:src"),
			},
			want: athar.CommonLink{Person: "person:a", Shared: ids("person:a", "person:src"),
				Positions: map[athar.ID]int{"narration:1": 4, "narration:2": 2, "narration:3": 2},
				Routes:    map[athar.ID]int{"narration:1": 1, "narration:2": 0, "narration:3": 0}},
			ok: true,
		},
		{name: "no routes", routes: map[athar.ID][][]athar.ID{}},
	} {
		got, ok := athar.FindCommonLink(tc.routes)
		if ok != tc.ok || ok && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: FindCommonLink = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseGrade(t *testing.T) {
	for in, want := range map[string]athar.Grade{
		"sahih": athar.GradeSahih, "Sahih": athar.GradeSahih, "Da'if": athar.GradeDaif, "daif": athar.GradeDaif,
		"hasan sahih": athar.GradeHasanSahih, "Hasan-Sahih": athar.GradeHasanSahih, "HASAN_SAHIH": athar.GradeHasanSahih,
		"mawdu'": athar.GradeMawdu, " hasan ": athar.GradeHasan,
	} {
		if got, ok := athar.ParseGrade(in); !ok || got != want {
			t.Errorf("ParseGrade(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "authentic", "sahih muslim", "munkar"} {
		if _, ok := athar.ParseGrade(in); ok {
			t.Errorf("ParseGrade(%q) accepted", in)
		}
	}
}

func TestVerseTextQuadsRoundTrip(t *testing.T) {
	texts := []athar.VerseText{{Verse: "verse:8:67", Arabic: "مَا كَانَ", Translation: "It is not"}}
	src := athar.TextSource{Title: "t", URL: "https://example.org/f.json", License: "https://example.org/l", Rights: "r", Translator: "x"}
	qs := athar.VerseTextQuads(texts, src)
	for _, q := range qs {
		if q.Label != athar.QuranGraph.IRI() || !athar.IsReservedGraph(q.Label) {
			t.Fatalf("quad outside the reserved graph: %s", q.Key())
		}
	}
	got, gotSrc := athar.ReadVerseTexts(qs)
	if !reflect.DeepEqual(got, map[athar.ID]athar.VerseText{"verse:8:67": texts[0]}) || gotSrc != src {
		t.Fatalf("read back %+v %+v", got, gotSrc)
	}
	if !reflect.DeepEqual(qs, athar.VerseTextQuads(texts, src)) {
		t.Fatal("VerseTextQuads is not deterministic")
	}
}
