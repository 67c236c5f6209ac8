package athar

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// The Qur'an's structure: 114 surahs with their verse counts and names. The data file is
// taken from the quran-json package (npm, version 3.1.2, CC BY-SA 4.0; see data/NOTICE).
//
//go:embed data/quran-surahs.tsv
var surahsTSV string

// Surah describes one surah of the Qur'an.
type Surah struct {
	Number          int
	Verses          int
	Transliteration string // e.g. "Al-Anfal"
	Arabic          string // e.g. "الأنفال"
	Meaning         string // e.g. "The Spoils of War"
	Revelation      string // "meccan" or "medinan"
}

// Quran gives the structure of the Qur'an. It is immutable once built.
type Quran struct {
	surahs []Surah // index 0 is surah 1
}

// quran is parsed once from the embedded data; it is read-only, so sharing it is safe.
var quran = mustParseQuran(surahsTSV)

// TheQuran returns the Qur'an's structure.
func TheQuran() *Quran { return quran }

func mustParseQuran(tsv string) *Quran {
	q := &Quran{}
	total := 0
	for i, line := range strings.Split(tsv, "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "surah\t") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			panic(fmt.Sprintf("quran-surahs.tsv:%d: want 6 fields, got %d", i+1, len(f)))
		}
		n, err1 := strconv.Atoi(f[0])
		v, err2 := strconv.Atoi(f[1])
		if err1 != nil || err2 != nil || n != len(q.surahs)+1 {
			panic(fmt.Sprintf("quran-surahs.tsv:%d: bad surah line %q", i+1, line))
		}
		q.surahs = append(q.surahs, Surah{n, v, f[2], f[3], f[4], f[5]})
		total += v
	}
	if len(q.surahs) != 114 || total != 6236 {
		panic(fmt.Sprintf("quran-surahs.tsv: want 114 surahs and 6236 verses, got %d and %d", len(q.surahs), total))
	}
	return q
}

// Surah returns surah n (1..114).
func (q *Quran) Surah(n int) (Surah, bool) {
	if n < 1 || n > len(q.surahs) {
		return Surah{}, false
	}
	return q.surahs[n-1], true
}

// Surahs returns all 114 surahs in order.
func (q *Quran) Surahs() []Surah { return append([]Surah(nil), q.surahs...) }

// VerseRef is one verse, surah:ayah.
type VerseRef struct {
	Surah, Ayah int
}

// ID returns the verse's id, e.g. verse:8:67.
func (v VerseRef) ID() ID { return ID(fmt.Sprintf("verse:%d:%d", v.Surah, v.Ayah)) }

func (v VerseRef) String() string { return fmt.Sprintf("%d:%d", v.Surah, v.Ayah) }

// Name is the verse's display name, e.g. "Al-Anfal 8:67".
func (v VerseRef) Name() string {
	s, _ := quran.Surah(v.Surah)
	return fmt.Sprintf("%s %d:%d", s.Transliteration, v.Surah, v.Ayah)
}

// ArabicName is the verse's name in Arabic, e.g. "الأنفال ٨:٦٧" (with Arabic-Indic digits).
func (v VerseRef) ArabicName() string {
	s, _ := quran.Surah(v.Surah)
	return s.Arabic + " " + arabicDigits(strconv.Itoa(v.Surah)) + ":" + arabicDigits(strconv.Itoa(v.Ayah))
}

func arabicDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '٠' + (r - '0')
		}
		return r
	}, s)
}

// ParseVerseRef parses "S:A" (as written by Quran.com: "8:67"), optionally prefixed by
// "verse:", and checks that the verse exists.
func ParseVerseRef(s string) (VerseRef, error) {
	vs, err := ParseVerseRange(s)
	if err != nil {
		return VerseRef{}, err
	}
	if len(vs) != 1 {
		return VerseRef{}, fmt.Errorf("%q is a range of verses: expected a single verse S:A", s)
	}
	return vs[0], nil
}

// ParseVerseRange parses "S:A" or "S:A-B" (optionally prefixed by "verse:") into the verses
// it names, in order, checking each against the Qur'an's structure.
func ParseVerseRange(s string) ([]VerseRef, error) {
	ref := strings.TrimPrefix(strings.TrimSpace(s), "verse:")
	ss, ayahs, ok := strings.Cut(ref, ":")
	if !ok {
		return nil, fmt.Errorf("%q is not a verse reference: expected surah:ayah, e.g. 8:67, or a range 8:67-68", s)
	}
	surah, err := strictAtoi(ss)
	if err != nil {
		return nil, fmt.Errorf("%q: surah %q is not a number", s, ss)
	}
	sur, ok := quran.Surah(surah)
	if !ok {
		return nil, fmt.Errorf("%q: there is no surah %d (the Qur'an has 114)", s, surah)
	}
	from, to := ayahs, ayahs
	if a, b, isRange := strings.Cut(ayahs, "-"); isRange {
		from, to = a, b
	}
	a, err := strictAtoi(from)
	if err != nil {
		return nil, fmt.Errorf("%q: ayah %q is not a number", s, from)
	}
	b, err := strictAtoi(to)
	if err != nil {
		return nil, fmt.Errorf("%q: ayah %q is not a number", s, to)
	}
	for _, n := range []int{a, b} {
		if n < 1 || n > sur.Verses {
			return nil, fmt.Errorf("%q: surah %d (%s) has verses 1 to %d, not %d", s, surah, sur.Transliteration, sur.Verses, n)
		}
	}
	if b < a {
		return nil, fmt.Errorf("%q: the range ends before it starts", s)
	}
	out := make([]VerseRef, 0, b-a+1)
	for n := a; n <= b; n++ {
		out = append(out, VerseRef{surah, n})
	}
	return out, nil
}

// strictAtoi accepts only plain decimal digits (no sign, no spaces, no leading zeros).
func strictAtoi(s string) (int, error) {
	if s == "" || len(s) > 4 || (len(s) > 1 && s[0] == '0') {
		return 0, fmt.Errorf("not a number")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("not a number")
		}
	}
	return strconv.Atoi(s)
}
