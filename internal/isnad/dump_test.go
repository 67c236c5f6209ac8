package isnad

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// corpusDir is where the full collections are, for the measurements that need them
// (ATHAR_CORPUS; the tests that read it are skipped without it).
func corpusDir() string { return os.Getenv("ATHAR_CORPUS") }

type edition struct {
	Hadiths []struct {
		Number float64 `json:"hadithnumber"`
		Text   string  `json:"text"`
	} `json:"hadiths"`
}

func loadEdition(t testing.TB, name string) map[int]string {
	f, err := os.Open(corpusDir() + "/" + name + ".json.gz")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var e edition
	if err := json.NewDecoder(z).Decode(&e); err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, h := range e.Hadiths {
		if _, dup := out[int(h.Number)]; !dup {
			out[int(h.Number)] = h.Text
		}
	}
	return out
}

func describe(text string, is Isnad) string {
	var b strings.Builder
	for ri, r := range is.Routes {
		fmt.Fprintf(&b, "  route %d:", ri+1)
		for _, l := range r.Links {
			p := ""
			if l.Parallel {
				p = "+"
			}
			fmt.Fprintf(&b, " [%s]%s%s", l.Term.Text, p, l.Name.Text)
			if !l.Gloss.Empty() {
				fmt.Fprintf(&b, "{=%s}", l.Gloss.Text)
			}
			b.WriteString(" >")
		}
		if !r.Prophet.Empty() {
			fmt.Fprintf(&b, " PROPHET(%s)", r.Prophet.Text)
		}
		b.WriteString("\n")
	}
	if is.Ref != nil {
		fmt.Fprintf(&b, "  ref %s %q\n", is.Ref.Kind, is.Ref.Phrase.Text)
	}
	rs := []rune(text)
	m := is.MatnStart
	e := m + 60
	if e > len(rs) {
		e = len(rs)
	}
	fmt.Fprintf(&b, "  matn@%d: %s\n", m, string(rs[m:e]))
	return b.String()
}

var dumpResolver = NewResolver()

// TestDump prints the segmentation of the hadiths named in ISNAD_DUMP ("muslim:4588,bukhari:1"),
// for reading against the Arabic.
func TestDump(t *testing.T) {
	spec := os.Getenv("ISNAD_DUMP")
	if spec == "" {
		t.Skip("ISNAD_DUMP not set")
	}
	cache := map[string]map[int]string{}
	for _, item := range strings.Split(spec, ",") {
		col, num, _ := strings.Cut(item, ":")
		if cache[col] == nil {
			cache[col] = loadEdition(t, "ara-"+col)
		}
		var n int
		fmt.Sscan(num, &n)
		text := cache[col][n]
		rs := []rune(text)
		if len(rs) > 400 {
			rs = rs[:400]
		}
		is := Segment(text)
		fmt.Printf("== %s:%d %s\n%s", col, n, string(rs), describe(text, is))
		for ri, rr := range dumpResolver.ResolveIsnad(is) {
			fmt.Printf("  ids %d:", ri+1)
			for _, x := range rr {
				if x.ID != "" {
					fmt.Printf(" %s(%s)", x.ID, x.By)
				} else {
					fmt.Printf(" ?%s%v", x.Key, x.Candidates)
				}
			}
			fmt.Println()
		}
	}
}
