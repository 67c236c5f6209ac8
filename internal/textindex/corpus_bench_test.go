//go:build textbench

package textindex_test

// The full-text index over the canonical corpus (about 71,000 texts): indexing time, size on
// disk, memory, and search latency. Not part of make test (it reads files outside the
// repository and takes minutes):
//
//	go test -tags textbench -run TestCorpusBench -v -timeout 30m ./internal/textindex/
//
// ATHAR_CORPUS names the directory of the edition files (default /work/shared/corpus);
// ATHAR_TEXTBENCH_DIR keeps the index there instead of in a temporary directory.

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/textindex"
)

var corpusCollections = map[string]string{
	"abudawud": "Sunan Abi Dawud", "bukhari": "Sahih al-Bukhari", "muslim": "Sahih Muslim",
	"tirmidhi": "Jami' at-Tirmidhi", "nasai": "Sunan an-Nasa'i", "ibnmajah": "Sunan Ibn Majah",
	"malik": "Muwatta Malik", "nawawi": "Forty Hadith of an-Nawawi", "qudsi": "Forty Hadith Qudsi",
	"dehlawi": "Shah Waliullah Dehlawi's forty",
}

type edition struct {
	Metadata struct {
		Sections map[string]string `json:"sections"`
	} `json:"metadata"`
	Hadiths []struct {
		Number    float64 `json:"hadithnumber"`
		Text      string  `json:"text"`
		Grades    []struct{ Name, Grade string }
		Reference struct{ Book int } `json:"reference"`
	} `json:"hadiths"`
}

func readEdition(t testing.TB, path string) edition {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var e edition
	if err := json.NewDecoder(z).Decode(&e); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return e
}

// corpusDocs builds one Doc per hadith: its English and Arabic texts, collection, chapter
// (the edition's section) and grades.
func corpusDocs(t testing.TB, dir string) []textindex.Doc {
	var docs []textindex.Doc
	stems := make([]string, 0, len(corpusCollections))
	for s := range corpusCollections {
		stems = append(stems, s)
	}
	sort.Strings(stems)
	for _, stem := range stems {
		byNum := map[string]*textindex.Doc{}
		var order []string
		for _, lang := range []string{"eng", "ara"} {
			ed := readEdition(t, filepath.Join(dir, lang+"-"+stem+".json.gz"))
			for _, h := range ed.Hadiths {
				num := strconv.FormatFloat(h.Number, 'f', -1, 64)
				d := byNum[num]
				if d == nil {
					d = &textindex.Doc{
						Narration:  "narration:" + stem + "-" + strings.ReplaceAll(num, ".", "-"),
						Title:      corpusCollections[stem] + " " + num,
						References: []textindex.Reference{{Collection: corpusCollections[stem], Edition: "hadith-api", Number: num}},
						Collection: []string{corpusCollections[stem]},
					}
					byNum[num] = d
					order = append(order, num)
				}
				if lang == "eng" {
					book := strconv.Itoa(h.Reference.Book)
					d.Chapter = textindex.Chapter{ID: stem + ":" + book, Name: ed.Metadata.Sections[book]}
					for _, g := range h.Grades {
						grade, _ := athar.ParseGrade(g.Grade)
						d.Grades = append(d.Grades, textindex.Grade{Grader: g.Name, Verdict: g.Grade, Grade: string(grade)})
					}
				}
				language := "en"
				if lang == "ara" {
					language = "ar"
				}
				d.Texts = append(d.Texts, textindex.Text{Language: language, Edition: lang + "-" + stem, Text: h.Text})
			}
		}
		for _, n := range order {
			docs = append(docs, *byNum[n])
		}
	}
	return docs
}

func dirSize(t testing.TB, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// rss returns the process's resident set now and at its peak, from /proc.
func rss() (now, peak string) {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 {
			switch f[0] {
			case "VmRSS:":
				now = f[1] + " kB"
			case "VmHWM:":
				peak = f[1] + " kB"
			}
		}
	}
	return now, peak
}

func TestCorpusBench(t *testing.T) {
	src := os.Getenv("ATHAR_CORPUS")
	if src == "" {
		src = "/work/shared/corpus"
	}
	dir := os.Getenv("ATHAR_TEXTBENCH_DIR")
	if dir == "" {
		dir = filepath.Join(t.TempDir(), "texts")
	}
	ctx := context.Background()

	start := time.Now()
	docs := corpusDocs(t, src)
	texts := 0
	for _, d := range docs {
		texts += len(d.Texts)
	}
	t.Logf("read %d narrations, %d texts in %v", len(docs), texts, time.Since(start).Round(time.Millisecond))

	ix, err := textindex.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	const chunk = 1024 // as graph.BuildTextIndex puts them
	for i := 0; i < len(docs); i += chunk {
		if err := ix.Put(ctx, docs[i:min(i+chunk, len(docs))]...); err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(start)
	n, _ := ix.Len()
	now, peak := rss()
	t.Logf("indexed %d texts in %v (%.0f texts/s); RSS %s, peak %s; on disk %.1f MiB", n, took.Round(time.Millisecond), float64(n)/took.Seconds(), now, peak, float64(dirSize(t, dir))/(1<<20))
	start = time.Now()
	if err := ix.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	now, peak = rss()
	t.Logf("compacted in %v; RSS %s, peak %s; on disk %.1f MiB", time.Since(start).Round(time.Millisecond), now, peak, float64(dirSize(t, dir))/(1<<20))
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("index on disk: %.1f MiB", float64(dirSize(t, dir))/(1<<20))

	// Searches on the index reopened, as a server would hold it.
	docs = nil
	runtime.GC()
	if ix, err = textindex.Open(dir); err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	queries := []textindex.Query{
		{Text: "strike his neck"},
		{Text: "strike his neck", All: true},
		{Text: `"strike his neck"`},
		{Text: "عكرمة بن عمار"},
		{Text: "عكرمة بن عمار", All: true},
		{Text: `"عكرمة بن عمار"`},
		{Text: `"ʿAbd al-Muṭṭalib"`},
		{Text: "ransom prisoners Badr", All: true},
		{Text: "prayer", Collection: "Sunan Abi Dawud", Grade: "sahih", Grader: "al-albani"},
		{Text: "the"}, // the most common word: every English text
		{Text: "الله", Language: "ar", First: 100},
	}
	fmt.Printf("| query | hits | p50 | p99 | max |\n| --- | ---: | ---: | ---: | ---: |\n")
	for _, q := range queries {
		var lat []time.Duration
		var total int
		for range 200 {
			s := time.Now()
			p, err := ix.Search(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			lat = append(lat, time.Since(s))
			total = p.Total
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		label := q.Text
		if q.Collection != "" || q.Language != "" || q.All || q.First != 0 {
			label += fmt.Sprintf(" %+v", struct {
				All                                 bool
				Collection, Grade, Grader, Language string
				First                               int
			}{q.All, q.Collection, q.Grade, q.Grader, q.Language, q.First})
		}
		fmt.Printf("| `%s` | %d | %v | %v | %v |\n", label, total,
			lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*99/100].Round(10*time.Microsecond), lat[len(lat)-1].Round(10*time.Microsecond))
	}
	now, peak = rss()
	t.Logf("after searching: RSS %s, peak %s", now, peak)

	// One narration at a time, as the subscriber puts each change: a batch, synced, each.
	docs = corpusDocs(t, src)[:200]
	start = time.Now()
	for i := range docs {
		docs[i].Title += " (v2)"
		if err := ix.Put(ctx, docs[i]); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("200 single-narration puts: %v each", (time.Since(start) / 200).Round(10*time.Microsecond))
}
