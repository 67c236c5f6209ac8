package athar

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestQuranStructure(t *testing.T) {
	q := TheQuran()
	total := 0
	for _, s := range q.Surahs() {
		total += s.Verses
	}
	if len(q.Surahs()) != 114 || total != 6236 {
		t.Fatalf("%d surahs, %d verses", len(q.Surahs()), total)
	}
	s, ok := q.Surah(8)
	if !ok || s.Verses != 75 || s.Transliteration != "Al-Anfal" || s.Arabic != "الأنفال" {
		t.Fatalf("surah 8: %+v", s)
	}
	if _, ok := q.Surah(0); ok {
		t.Error("surah 0 exists")
	}
	if _, ok := q.Surah(115); ok {
		t.Error("surah 115 exists")
	}
}

func TestParseVerseRange(t *testing.T) {
	cases := []struct {
		in      string
		want    []VerseRef
		wantErr string
	}{
		{"8:67", []VerseRef{{8, 67}}, ""},
		{"verse:8:67", []VerseRef{{8, 67}}, ""},
		{"8:67-68", []VerseRef{{8, 67}, {8, 68}}, ""},
		{"verse:3:165", []VerseRef{{3, 165}}, ""},
		{"1:1", []VerseRef{{1, 1}}, ""},
		{"114:6", []VerseRef{{114, 6}}, ""},
		{"2:286", []VerseRef{{2, 286}}, ""},
		{"8:76", nil, "surah 8 (Al-Anfal) has verses 1 to 75, not 76"},
		{"115:1", nil, "there is no surah 115"},
		{"0:1", nil, "there is no surah 0"},
		{"8:0", nil, "not 0"},
		{"8:68-67", nil, "ends before it starts"},
		{"8", nil, "expected surah:ayah"},
		{"8:", nil, "is not a number"},
		{"a:1", nil, "surah \"a\" is not a number"},
		{"08:67", nil, "is not a number"},
		{"8:+67", nil, "is not a number"},
		{"8:67-", nil, "is not a number"},
		{"2:1-287", nil, "not 287"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseVerseRange(c.in)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, %v; want error containing %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
	if _, err := ParseVerseRef("8:67-68"); err == nil {
		t.Error("ParseVerseRef accepted a range")
	}
	v := VerseRef{8, 67}
	if v.ID() != "verse:8:67" || v.Name() != "Al-Anfal 8:67" || v.ArabicName() != "الأنفال ٨:٦٧" {
		t.Errorf("names of 8:67: %s %s %s", v.ID(), v.Name(), v.ArabicName())
	}
}

func FuzzParseVerseRange(f *testing.F) {
	for _, s := range []string{"8:67", "8:67-68", "verse:3:165", "115:1", "8:", "1:1-7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		vs, err := ParseVerseRange(s)
		if err != nil {
			return
		}
		for _, v := range vs {
			sur, ok := TheQuran().Surah(v.Surah)
			if !ok || v.Ayah < 1 || v.Ayah > sur.Verses {
				t.Fatalf("%q gave a verse that does not exist: %v", s, v)
			}
			back, err := ParseVerseRef(string(v.ID()))
			if err != nil || back != v {
				t.Fatalf("%v does not round-trip through its id: %v %v", v, back, err)
			}
		}
	})
}

func TestIDs(t *testing.T) {
	good := map[string]EntityType{
		"person:abu-bakr":       TypePerson,
		"narration:ahmad-208":   TypeNarration,
		"narration:muslim-235a": TypeNarration,
		"event:badr":            TypeEvent,
		"verse:8:67":            TypeVerse,
		"place:x.y":             TypePlace,
	}
	for s, want := range good {
		id, typ, err := ParseEntityID(s)
		if err != nil || typ != want || string(id) != s {
			t.Errorf("ParseEntityID(%q) = %q %q %v", s, id, typ, err)
		}
		back, ok := ParseIRI(id.IRI())
		if !ok || back != id {
			t.Errorf("%s -> %s -> %s", id, id.IRI(), back)
		}
	}
	if got := ID("person:abu-bakr").IRI(); got != "https://w3id.org/athar/person/abu-bakr" {
		t.Errorf("IRI = %s", got)
	}
	for _, s := range []string{"abu-bakr", "human:abu-bakr", "person:Abu-Bakr", "person:abu--bakr", "person:-x", "person:", "verse:8:67-68", "verse:200:1", "person:abu bakr"} {
		if _, _, err := ParseEntityID(s); err == nil {
			t.Errorf("ParseEntityID(%q) accepted", s)
		}
	}
	for _, iri := range []string{"http://example.org/x", VocabBase + "advises", Base + "person", Base} {
		if id, ok := ParseIRI(iri); ok {
			t.Errorf("ParseIRI(%q) = %q", iri, id)
		}
	}
}

func TestDiff(t *testing.T) {
	q := func(s string) Quad { return Quad{Subject: s, Predicate: RDFSLabel, Object: StringTerm(s), Label: "n"} }
	cs := Diff("narration:n", []Quad{q("a"), q("b")}, []Quad{q("b"), q("c"), q("c")})
	if !reflect.DeepEqual(cs.Add, []Quad{q("c")}) || !reflect.DeepEqual(cs.Remove, []Quad{q("a")}) {
		t.Fatalf("diff = %+v", cs)
	}
	if !Diff("narration:n", []Quad{q("a")}, []Quad{q("a")}).Empty() {
		t.Error("equal sets give a non-empty diff")
	}
	// the changes come sorted by their canonical form, whatever the order given
	cs = Diff("narration:n", []Quad{q("z"), q("b"), q("a")}, []Quad{q("d"), q("b"), q("c"), q("c")})
	if !reflect.DeepEqual(cs.Add, []Quad{q("c"), q("d")}) || !reflect.DeepEqual(cs.Remove, []Quad{q("a"), q("z")}) {
		t.Fatalf("diff = %+v", cs)
	}
	if got := SortUniqueQuads([]Quad{q("b"), q("a"), q("b"), q("c"), q("a")}); !reflect.DeepEqual(got, []Quad{q("a"), q("b"), q("c")}) {
		t.Errorf("SortUniqueQuads = %+v", got)
	}
}

func TestTermKeyDistinguishesKinds(t *testing.T) {
	terms := []Term{
		IRITerm("http://x"), StringTerm("http://x"), StringTerm("70"),
		{Literal: "70", Datatype: XSDInteger}, {Literal: "70", Lang: "ar"}, StringTerm("a\"b"), StringTerm("a\nb"),
	}
	seen := map[string]Term{}
	for _, term := range terms {
		k := term.Key()
		if other, dup := seen[k]; dup {
			t.Errorf("%+v and %+v have the same key %s", term, other, k)
		}
		seen[k] = term
	}
	if StringTerm("x").Key() != (Term{Literal: "x", Datatype: XSDString}).Key() {
		t.Error("xsd:string and a plain literal differ")
	}
}

func TestClaimIDsAreDeterministic(t *testing.T) {
	a := ClaimID("person:abu-bakr", "advises", IRITerm(ID("concept:ransom").IRI()))
	b := ClaimID("person:abu-bakr", "advises", IRITerm(ID("concept:ransom").IRI()))
	c := ClaimID("person:abu-bakr", "advises", StringTerm(ID("concept:ransom").IRI()))
	if a != b || a == c || a.Prefix() != ClaimPrefix {
		t.Fatalf("%s %s %s", a, b, c)
	}
}

func TestErrors(t *testing.T) {
	base := errors.New("disk on fire")
	cases := []struct {
		err      error
		code     Code
		userText string
	}{
		{nil, "", ""},
		{base, Internal, "internal error"},
		{fmt.Errorf("load: %w", base), Internal, "internal error"},
		{E("apply", Internal, base), Internal, "internal error"},
		{fmt.Errorf("x: %w", E("", NotFound, "no such narration")), NotFound, "no such narration"},
		{&ValidationError{Document: "d.yaml", Problems: []Problem{{Path: "claims[0].subject", Line: 3, Msg: "missing"}}}, Invalid, "d.yaml:3: claims[0].subject: missing"},
		// A context's error, however wrapped, is never INTERNAL and never a verdict.
		{fmt.Errorf("read: %w", context.DeadlineExceeded), DeadlineExceeded, "stopped before it was done: the deadline passed (retry)"},
		{E("apply", Internal, context.Canceled), Cancelled, "stopped before it was done: cancelled"},
		{Stopped(expired(), "read"), DeadlineExceeded, "stopped before it was done: the deadline passed (retry)"},
		// E records the operation, the cause and a formatted message, in that order.
		{E("merge a into b", Invalid, "%s is a %s", "a", "place"), Invalid, "merge a into b: a is a place"},
		{E("restore", Invalid, base, "bad arguments"), Invalid, "restore: bad arguments: disk on fire"},
		{E("store", Unavailable, base), Unavailable, "store: disk on fire"},
	}
	for _, c := range cases {
		if got := ErrorCode(c.err); got != c.code {
			t.Errorf("ErrorCode(%v) = %q, want %q", c.err, got, c.code)
		}
		if c.err != nil {
			if got := ErrorMessage(c.err); got != c.userText {
				t.Errorf("ErrorMessage(%v) = %q, want %q", c.err, got, c.userText)
			}
		}
	}
}

func expired() context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	cancel()
	return ctx
}

func TestStoppedIsNilUntilTheContextIsDone(t *testing.T) {
	if err := Stopped(context.Background(), "read"); err != nil {
		t.Errorf("Stopped with a live context: %v", err)
	}
	if !DeadlineExceeded.Retryable() || !Cancelled.Retryable() || Invalid.Retryable() || Internal.Retryable() {
		t.Error("only DEADLINE_EXCEEDED and CANCELLED are retryable")
	}
}

func TestChooseName(t *testing.T) {
	tests := []struct {
		name        string
		votes       map[string]int
		aliases     []string
		want        string
		wantAliases []string
	}{
		{"most narrations win", map[string]int{"Abu Bakr": 3, "al-Siddiq": 1}, nil, "Abu Bakr", []string{"al-Siddiq"}},
		{"a tie goes to the first in order", map[string]int{"Umar": 2, "'Umar": 2}, nil, "'Umar", []string{"Umar"}},
		{"unnamed: the id's local part", nil, []string{"b", "a", "b"}, "abu-bakr", []string{"a", "b"}},
		{"an alias equal to the name is dropped", map[string]int{"Hamzah": 1}, []string{"Hamzah", "Asad Allah"}, "Hamzah", []string{"Asad Allah"}},
		{"no aliases: nil", map[string]int{"Hamzah": 1}, nil, "Hamzah", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, aliases := ChooseName("person:abu-bakr", tt.votes, tt.aliases)
			if got != tt.want || !reflect.DeepEqual(aliases, tt.wantAliases) {
				t.Errorf("ChooseName = %q, %q; want %q, %q", got, aliases, tt.want, tt.wantAliases)
			}
		})
	}
}
