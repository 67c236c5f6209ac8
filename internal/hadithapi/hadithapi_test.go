package hadithapi

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func read(t *testing.T, name string, data []byte) (*Edition, []Problem, error) {
	t.Helper()
	return Read(name, bytes.NewReader(data))
}

func TestReadFixture(t *testing.T) {
	for _, name := range []string{"eng-abudawud.json", "eng-abudawud.json.gz"} {
		data := fixture(t, "eng-abudawud.json")
		if strings.HasSuffix(name, ".gz") {
			data = gz(t, data)
		}
		ed, probs, err := read(t, name, data)
		if err != nil || len(probs) > 0 {
			t.Fatalf("%s: %v %v", name, err, probs)
		}
		if ed.Name != "eng-abudawud" || ed.Language != "en" || ed.Collection != "abudawud" || len(ed.Hadiths) != 9 {
			t.Fatalf("%s: read %s %s %s with %d hadiths", name, ed.Name, ed.Language, ed.Collection, len(ed.Hadiths))
		}
		var h *Hadith
		for i := range ed.Hadiths {
			if ed.Hadiths[i].Number == "2690" {
				h = &ed.Hadiths[i]
			}
		}
		if h == nil || len(h.Grades) != 3 || h.Grades[0].Grader != "Al-Albani" || h.Book != 15 || h.InBook != 214 || ed.Sections[15] == "" {
			t.Fatalf("%s: hadith 2690 read as %+v", name, h)
		}
	}
}

func TestReadOneHadithFile(t *testing.T) {
	// hadith-api serves one hadith per file, metadata with "section" and "section_detail".
	doc := `{"metadata":{"name":"Sahih Muslim","section":{"32":"The Book of Jihad and Expeditions"},
	  "section_detail":{"32":{"hadithnumber_first":4560,"hadithnumber_last":4681,"arabicnumber_first":1730,"arabicnumber_last":1817}}},
	  "hadiths":[{"hadithnumber":4588,"arabicnumber":1763,"text":"It has been narrated","grades":[],"reference":{"book":32,"hadith":58}}]}`
	ed, probs, err := read(t, "editions/eng-muslim/4588.json", []byte(doc))
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	if ed.Name != "eng-muslim" || len(ed.Hadiths) != 1 || ed.Hadiths[0].ArabicNumber != "1763" || ed.Sections[32] == "" {
		t.Fatalf("read %+v", ed)
	}
	recs, probs := Pair([]*Edition{ed})
	if len(probs) > 0 || len(recs) != 1 || recs[0].Key() != "muslim-4588" || recs[0].Chapter.Name != "The Book of Jihad and Expeditions" {
		t.Fatalf("paired %+v %v", recs, probs)
	}
}

func TestBadInput(t *testing.T) {
	eng := fixture(t, "eng-muslim.json")
	for _, c := range []struct {
		name, file string
		data       []byte
		whole      string   // the file's error, "" for none
		problems   []string // each problem's text contains one of these, in order
		kept       int      // hadiths read
	}{
		{"truncated", "eng-muslim.json", eng[:len(eng)*2/3], "eng-muslim.json: truncated", nil, -1},
		{"truncated gzip", "eng-muslim.json.gz", gz(t, eng)[:900], "eng-muslim.json.gz: truncated", nil, -1},
		{"not JSON", "eng-muslim.json", []byte("<html>"), "eng-muslim.json: invalid character", nil, 0},
		{"unknown collection", "eng-ahmad.json", []byte(`{"metadata":{},"hadiths":[{"hadithnumber":1,"text":"x"}]}`), `eng-ahmad.json: collection: unknown collection "ahmad"`, nil, 1},
		{"not an edition name", "hadiths.json", []byte(`{}`), "hadiths.json: not an edition file name", nil, 0},
		{"bad fields", "eng-muslim.json", []byte(`{"hadiths":[
			{"hadithnumber":1,"text":"ok"},
			{"hadithnumber":2,"text":"x","grades":[{"grade":"Sahih"}]},
			{"hadithnumber":3,"text":7},
			{"text":"no number"},
			{"hadithnumber":5,"text":"x","reference":{"book":"one","hadith":2}},
			"not an object",
			{"hadithnumber":7,"text":"ok too"}]}`), "",
			[]string{"hadith 2: grades[0].name: a grade without a grader", "hadith 3: text: missing or not a string", "hadith #4: hadithnumber", "hadith 5: reference.book", "hadith #6: not a hadith object"}, 2},
	} {
		ed, probs, err := read(t, c.file, c.data)
		switch {
		case c.whole == "" && err != nil:
			t.Errorf("%s: error %v", c.name, err)
		case c.whole != "" && (err == nil || !strings.HasPrefix(err.Error(), c.whole)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.whole)
		}
		if len(probs) != len(c.problems) {
			t.Errorf("%s: problems %v, want %d", c.name, probs, len(c.problems))
			continue
		}
		for i, p := range probs {
			if !strings.Contains(p.Error(), c.problems[i]) || !strings.HasPrefix(p.Error(), c.file+": ") {
				t.Errorf("%s: problem %q, want the file and %q", c.name, p.Error(), c.problems[i])
			}
		}
		if c.kept >= 0 && ed != nil && len(ed.Hadiths) != c.kept {
			t.Errorf("%s: kept %d hadiths, want %d", c.name, len(ed.Hadiths), c.kept)
		}
		if c.kept < 0 && (ed == nil || len(ed.Hadiths) == 0 || len(ed.Hadiths) >= 9) {
			t.Errorf("%s: a truncated file should give the hadiths before the cut", c.name)
		}
	}
}

func TestPair(t *testing.T) {
	var eds []*Edition
	for _, n := range []string{"eng-muslim.json", "ara-muslim.json", "eng-abudawud.json", "ara-abudawud.json"} {
		ed, probs, err := read(t, n, fixture(t, n))
		if err != nil || len(probs) > 0 {
			t.Fatal(err, probs)
		}
		eds = append(eds, ed)
	}
	recs, probs := Pair(eds)
	if len(probs) > 0 || len(recs) != 18 {
		t.Fatalf("%d records, problems %v", len(recs), probs)
	}
	r := recs[0+9+4] // muslim 4588: abudawud's nine come first
	if r.Key() != "muslim-4588" || len(r.Texts) != 2 || r.Texts[0].Language != "ar" || r.Texts[1].Edition != "eng-muslim" || r.Chapter.Arabic == "" || r.Chapter.Name == "" {
		t.Fatalf("muslim 4588 paired as %+v", r)
	}
	ad := recs[4]
	if ad.Key() != "abudawud-2690" || len(ad.Grades) < 3 {
		t.Fatalf("abudawud 2690 paired as %+v", ad)
	}

	// A number in one edition only is refused, in the edition that lacks it; the rest pairs.
	ara := *eds[1]
	ara.Hadiths = ara.Hadiths[1:]
	recs, probs = Pair([]*Edition{eds[0], &ara})
	if len(recs) != 8 || len(probs) != 1 || !strings.Contains(probs[0].Error(), "ara-muslim.json: hadith 4584: hadithnumber: no hadith 4584 here") {
		t.Fatalf("unpaired: %d records, problems %v", len(recs), probs)
	}
	// Two editions of one language.
	recs, probs = Pair([]*Edition{eds[0], eds[0]})
	if len(recs) != 9 || len(probs) != 1 || !strings.Contains(probs[0].Error(), "a second en edition") {
		t.Fatalf("two English editions: %d records, problems %v", len(recs), probs)
	}
}

// FuzzRead: any bytes are read without a panic; every problem names the file, and every
// hadith kept has a number and passes into Pair.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"x","sections":{"1":"A"}},"hadiths":[{"hadithnumber":1,"text":"t","grades":[{"name":"Al-Albani","grade":"Sahih"}],"reference":{"book":1,"hadith":1}}]}`))
	f.Add([]byte(`{"hadiths":[{"hadithnumber":"2a","arabicnumber":3.0,"text":"t"},7,{"text":1}]}`))
	f.Add([]byte(`{"hadiths":[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ed, probs, err := Read("eng-muslim.json", bytes.NewReader(data))
		for _, p := range probs {
			if !strings.HasPrefix(p.Error(), "eng-muslim.json: ") {
				t.Fatalf("problem without its file: %v", p)
			}
		}
		if err != nil && !strings.HasPrefix(err.Error(), "eng-muslim.json: ") {
			t.Fatalf("error without its file: %v", err)
		}
		if ed == nil {
			return
		}
		for _, h := range ed.Hadiths {
			if h.Number == "" {
				t.Fatalf("a hadith without a number kept: %+v", h)
			}
		}
		Pair([]*Edition{ed})
	})
}
