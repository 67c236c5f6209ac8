// Package hadithapi reads hadith-api's edition format (fawazahmed0/hadith-api): a whole
// edition (editions/eng-bukhari.json) or one hadith of it (editions/eng-bukhari/3953.json),
// plain or gzip-compressed, streamed with encoding/json's Decoder so that a 40 MB edition
// is decoded hadith by hadith and never held as bytes beside its values. Pair joins the
// editions of a collection into hadith.Records. See docs/corpus.md.
package hadithapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/athar-hadith/athar/internal/hadith"
)

// Edition is one edition file as read: its name (eng-bukhari), language, collection, the
// section names of its metadata and its hadiths in file order.
type Edition struct {
	File       string // the path it was read from, for messages
	Name       string // eng-bukhari
	Language   string // BCP 47: en
	Collection string // slug: bukhari
	Title      string // metadata.name
	Sections   map[int]string
	Native     map[int]string // section_details' name_native
	Hadiths    []Hadith
}

// Hadith is one hadith of an edition.
type Hadith struct {
	Number       string
	ArabicNumber string
	Text         string
	Grades       []hadith.Grade
	Book, InBook int
}

// Problem is one thing wrong with an input, naming the file, the hadith number (when it
// is about one hadith) and the field.
type Problem struct {
	File   string
	Number string // "" for a problem with the file as a whole
	Field  string
	Msg    string
}

func (p Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Number != "" {
		b.WriteString(": hadith " + p.Number)
	}
	if p.Field != "" {
		b.WriteString(": " + p.Field)
	}
	b.WriteString(": " + p.Msg)
	return b.String()
}

var languages = map[string]string{"eng": "en", "ara": "ar", "urd": "ur", "ben": "bn", "tur": "tr", "ind": "id", "fra": "fr", "rus": "ru", "tam": "ta"}

var nameRE = regexp.MustCompile(`^([a-z]{3})-([a-z0-9]+)$`)

// EditionName finds the edition a path names: .../eng-bukhari.json(.gz) or
// .../eng-bukhari/3953.json(.gz).
func EditionName(path string) (lang, slug string, ok bool) {
	base := filepath.Base(path)
	for _, ext := range []string{".gz", ".json", ".min"} {
		base = strings.TrimSuffix(base, ext)
	}
	for _, cand := range []string{base, filepath.Base(filepath.Dir(path))} {
		if m := nameRE.FindStringSubmatch(cand); m != nil {
			return m[1], m[2], true
		}
	}
	return "", "", false
}

// ReadFile reads an edition file, plain or gzip-compressed. The error is the file's as a
// whole (unreadable, not an edition, truncated): a truncated or malformed file returns
// the hadiths read before the fault with it, which the caller may import. Problems are
// the hadiths refused one by one (a field of the wrong type, a missing number).
func ReadFile(path string) (*Edition, []Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return Read(path, f)
}

// Read reads an edition from r; name is its path (the edition's name is taken from it).
func Read(name string, r io.Reader) (*Edition, []Problem, error) {
	lang, slug, ok := EditionName(name)
	if !ok {
		return nil, nil, Problem{File: name, Msg: "not an edition file name: expected {lang}-{collection}.json, e.g. eng-bukhari.json(.gz), or {lang}-{collection}/{number}.json"}
	}
	ed := &Edition{File: name, Name: lang + "-" + slug, Language: languages[lang], Collection: slug, Sections: map[int]string{}, Native: map[int]string{}}
	if ed.Language == "" {
		ed.Language = lang
	}
	br := bufio.NewReaderSize(r, 1<<16)
	if head, err := br.Peek(2); err == nil && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, Problem{File: name, Msg: "not gzip: " + err.Error()}
		}
		defer zr.Close()
		r = zr
	} else {
		r = br
	}
	probs, err := ed.decode(json.NewDecoder(r))
	if err != nil {
		msg := err.Error()
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			msg = "truncated: the file ends in the middle of the JSON"
		}
		last := ""
		if n := len(ed.Hadiths); n > 0 {
			last = fmt.Sprintf(" (after hadith %s, the %d%s read whole)", ed.Hadiths[n-1].Number, n, ordinal(n))
		}
		return ed, probs, Problem{File: name, Msg: msg + last}
	}
	if _, ok := hadith.CollectionBySlug(slug); !ok {
		return ed, probs, Problem{File: name, Field: "collection", Msg: fmt.Sprintf("unknown collection %q (known: %s; docs/corpus.md says how to add one)", slug, hadith.Slugs())}
	}
	return ed, probs, nil
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return "th"
	case n%10 == 1:
		return "st"
	case n%10 == 2:
		return "nd"
	case n%10 == 3:
		return "rd"
	}
	return "th"
}

type rawMeta struct {
	Name           string                      `json:"name"`
	Sections       map[string]string           `json:"sections"`
	Section        map[string]string           `json:"section"` // a one-hadith file's
	SectionDetails map[string]rawSectionDetail `json:"section_details"`
	SectionDetail  map[string]rawSectionDetail `json:"section_detail"`
}

type rawSectionDetail struct {
	NameNative string `json:"name_native"`
}

type rawHadith struct {
	HadithNumber json.RawMessage `json:"hadithnumber"`
	ArabicNumber json.RawMessage `json:"arabicnumber"`
	Text         json.RawMessage `json:"text"`
	Grades       json.RawMessage `json:"grades"`
	Reference    json.RawMessage `json:"reference"`
}

// decode reads the top-level object: metadata whole, hadiths one by one.
func (ed *Edition) decode(dec *json.Decoder) ([]Problem, error) {
	var probs []Problem
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return probs, err
		}
		key, _ := t.(string)
		switch key {
		case "metadata":
			var m rawMeta
			if err := dec.Decode(&m); err != nil {
				return probs, fmt.Errorf("metadata: %w", err)
			}
			ed.Title = m.Name
			for _, secs := range []map[string]string{m.Sections, m.Section} {
				for k, v := range secs {
					if n, err := strconv.Atoi(k); err == nil && v != "" {
						ed.Sections[n] = v
					}
				}
			}
			for _, dets := range []map[string]rawSectionDetail{m.SectionDetails, m.SectionDetail} {
				for k, v := range dets {
					if n, err := strconv.Atoi(k); err == nil && v.NameNative != "" {
						ed.Native[n] = v.NameNative
					}
				}
			}
		case "hadiths":
			if err := expectDelim(dec, '['); err != nil {
				return probs, fmt.Errorf("hadiths: %w", err)
			}
			for i := 0; dec.More(); i++ {
				var raw rawHadith
				if err := dec.Decode(&raw); err != nil {
					var te *json.UnmarshalTypeError
					if errors.As(err, &te) { // the value was read whole: go on with the next
						probs = append(probs, Problem{File: ed.File, Number: fmt.Sprintf("#%d", i+1), Msg: "not a hadith object: " + err.Error()})
						continue
					}
					return probs, fmt.Errorf("hadiths[%d]: %w", i, err)
				}
				h, p := ed.hadith(raw, i)
				if p != nil {
					probs = append(probs, *p)
					continue
				}
				ed.Hadiths = append(ed.Hadiths, h)
			}
			if _, err := dec.Token(); err != nil {
				return probs, err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return probs, err
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return probs, err
	}
	return probs, nil
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, t)
	}
	return nil
}

// number reads a hadith number written as a JSON number or string.
func number(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false
		}
	} else {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", false
		}
		s = n.String()
	}
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil && f == float64(int64(f)) && !strings.ContainsAny(s, "eE") {
		s = strconv.FormatInt(int64(f), 10) // 3953.0 is 3953
	}
	return s, true
}

func (ed *Edition) hadith(raw rawHadith, i int) (Hadith, *Problem) {
	bad := func(num, field, msg string) (Hadith, *Problem) {
		if num == "" {
			num = fmt.Sprintf("#%d", i+1)
		}
		return Hadith{}, &Problem{File: ed.File, Number: num, Field: field, Msg: msg}
	}
	num, ok := number(raw.HadithNumber)
	if !ok || num == "" {
		return bad("", "hadithnumber", "missing or not a number")
	}
	var h Hadith
	h.Number = num
	if h.ArabicNumber, ok = number(raw.ArabicNumber); !ok {
		return bad(num, "arabicnumber", "not a number")
	}
	if err := json.Unmarshal(raw.Text, &h.Text); err != nil || len(raw.Text) == 0 {
		return bad(num, "text", "missing or not a string")
	}
	if len(raw.Grades) > 0 && string(raw.Grades) != "null" {
		var gs []struct {
			Name  *string `json:"name"`
			Grade *string `json:"grade"`
		}
		if err := json.Unmarshal(raw.Grades, &gs); err != nil {
			return bad(num, "grades", "not a list of {name, grade}")
		}
		for j, g := range gs {
			if g.Name == nil || strings.TrimSpace(*g.Name) == "" {
				return bad(num, fmt.Sprintf("grades[%d].name", j), "a grade without a grader")
			}
			if g.Grade == nil || strings.TrimSpace(*g.Grade) == "" {
				return bad(num, fmt.Sprintf("grades[%d].grade", j), fmt.Sprintf("grader %q gives no verdict", *g.Name))
			}
			h.Grades = append(h.Grades, hadith.Grade{Grader: strings.TrimSpace(*g.Name), Verdict: strings.TrimSpace(*g.Grade)})
		}
	}
	if len(raw.Reference) > 0 && string(raw.Reference) != "null" {
		var ref struct {
			Book   json.RawMessage `json:"book"`
			Hadith json.RawMessage `json:"hadith"`
		}
		if err := json.Unmarshal(raw.Reference, &ref); err != nil {
			return bad(num, "reference", "not an object {book, hadith}")
		}
		b, ok1 := number(ref.Book)
		n, ok2 := number(ref.Hadith)
		var e1, e2 error
		if b != "" {
			h.Book, e1 = strconv.Atoi(b)
		}
		if n != "" {
			h.InBook, e2 = strconv.Atoi(n)
		}
		if !ok1 || e1 != nil {
			return bad(num, "reference.book", "not a section number")
		}
		if !ok2 || e2 != nil {
			return bad(num, "reference.hadith", "not a number")
		}
	}
	return h, nil
}

// Pair joins editions into records, one per collection and hadith number: the editions
// of one collection (eng-bukhari, ara-bukhari) pair by hadithnumber into one record
// holding every edition's text (ordered by edition name), the union of their grades (in
// edition order, without repeats) and the chapter's name in English (eng- or another
// non-Arabic edition's sections) and Arabic (the ara- edition's name_native). A number
// not in every edition of its collection, a number twice in one edition, two editions of
// one collection in the same language, or a record failing hadith.Record.Check is a
// problem, and that record is refused; the others are returned, sorted by collection and
// number.
func Pair(eds []*Edition) ([]hadith.Record, []Problem) {
	byCol := map[string][]*Edition{}
	for _, ed := range eds {
		byCol[ed.Collection] = append(byCol[ed.Collection], ed)
	}
	cols := make([]string, 0, len(byCol))
	for c := range byCol {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	var out []hadith.Record
	var probs []Problem
	for _, c := range cols {
		group := byCol[c]
		sort.SliceStable(group, func(i, j int) bool { return group[i].Name < group[j].Name })
		recs, ps := pairCollection(group)
		out = append(out, recs...)
		probs = append(probs, ps...)
	}
	return out, probs
}

func pairCollection(group []*Edition) ([]hadith.Record, []Problem) {
	var probs []Problem
	langs := map[string]string{}
	var usable []*Edition
	for _, ed := range group {
		if other, dup := langs[ed.Language]; dup {
			probs = append(probs, Problem{File: ed.File, Msg: fmt.Sprintf("a second %s edition of %s (the first: %s): give one edition per language", ed.Language, ed.Collection, other)})
			continue
		}
		langs[ed.Language] = ed.File
		usable = append(usable, ed)
	}
	type entry struct {
		h  Hadith
		ed *Edition
	}
	byNum := map[string][]entry{}
	refused := map[string]bool{}
	var order []string
	for _, ed := range usable {
		seen := map[string]bool{}
		for _, h := range ed.Hadiths {
			if seen[h.Number] {
				probs = append(probs, Problem{File: ed.File, Number: h.Number, Field: "hadithnumber", Msg: "appears twice in the edition"})
				refused[h.Number] = true
				continue
			}
			seen[h.Number] = true
			if _, ok := byNum[h.Number]; !ok {
				order = append(order, h.Number)
			}
			byNum[h.Number] = append(byNum[h.Number], entry{h, ed})
		}
	}
	var out []hadith.Record
	for _, num := range order {
		es := byNum[num]
		if refused[num] {
			continue
		}
		if len(es) != len(usable) {
			have := map[*Edition]bool{}
			for _, e := range es {
				have[e.ed] = true
			}
			for _, ed := range usable {
				if !have[ed] {
					probs = append(probs, Problem{File: ed.File, Number: num, Field: "hadithnumber", Msg: fmt.Sprintf("no hadith %s here, but %s has one: the editions do not pair", num, es[0].ed.Name)})
				}
			}
			continue
		}
		r := hadith.Record{Collection: es[0].ed.Collection, Number: num}
		seenGrade := map[hadith.Grade]bool{}
		for _, e := range es {
			r.Texts = append(r.Texts, hadith.Text{Language: e.ed.Language, Edition: e.ed.Name, Text: e.h.Text})
			if r.ArabicNumber == "" {
				r.ArabicNumber = e.h.ArabicNumber
			}
			if r.Section == 0 && e.h.Book > 0 {
				r.Section, r.InSection = e.h.Book, e.h.InBook
			}
			for _, g := range e.h.Grades {
				if !seenGrade[g] {
					seenGrade[g] = true
					r.Grades = append(r.Grades, g)
				}
			}
		}
		if r.Section > 0 {
			r.Chapter.Number = r.Section
			for _, e := range es {
				if e.ed.Language == "ar" {
					if n := e.ed.Native[r.Section]; n != "" && r.Chapter.Arabic == "" {
						r.Chapter.Arabic = n
					}
				} else if n := e.ed.Sections[r.Section]; n != "" && r.Chapter.Name == "" {
					r.Chapter.Name = n
				}
			}
		}
		if err := r.Check(); err != nil {
			field, msg, _ := strings.Cut(err.Error(), ": ")
			probs = append(probs, Problem{File: es[0].ed.File, Number: num, Field: field, Msg: msg})
			continue
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return lessNumber(out[i].Number, out[j].Number) })
	return out, probs
}

// lessNumber orders hadith numbers as numbers (2 before 10), then as text (235a after 235).
func lessNumber(a, b string) bool {
	fa, ea := strconv.ParseFloat(strings.TrimRight(a, "abcdefghijklmnopqrstuvwxyz"), 64)
	fb, eb := strconv.ParseFloat(strings.TrimRight(b, "abcdefghijklmnopqrstuvwxyz"), 64)
	if ea == nil && eb == nil && fa != fb {
		return fa < fb
	}
	return a < b
}
