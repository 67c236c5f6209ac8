package isnad

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/athar-hadith/athar/internal/athar"
)

// The hand-checked sample (testdata/sample.json): per hadith, the start of its Arabic text
// (the isnad and the first words of the matn) and of its English translation, with the
// routes, the narrator of record and the mentions as a reader finds them.
type sampleItem struct {
	Collection string `json:"collection"`
	Number     int    `json:"number"`
	Note       string `json:"note,omitempty"`
	Arabic     string `json:"arabic"`
	English    string `json:"english"`
	// Routes: each an ordered list of links, nearest the compiler first.
	Routes   [][]sampleLink `json:"routes"`
	Ref      string         `json:"ref,omitempty"` // kind of chain-by-reference, if any
	Narrator *sampleLink    `json:"narrator,omitempty"`
	// Mentions: the correct mentions of entities and verses in the two excerpts (text and
	// id); a predicted mention not listed is counted wrong.
	Mentions []sampleMention `json:"mentions"`
}

type sampleLink struct {
	Name     string   `json:"name"`
	ID       athar.ID `json:"id,omitempty"`
	Parallel bool     `json:"parallel,omitempty"`
}

type sampleMention struct {
	Text string   `json:"text"`
	ID   athar.ID `json:"id"`
}

// TestWriteSample drafts sample entries from the extractor's own output, for checking by
// hand (ISNAD_SAMPLE=out.json, ISNAD_PICK="muslim:4588,..."). The committed sample is the
// checked and corrected result, not this draft.
func TestWriteSample(t *testing.T) {
	out := os.Getenv("ISNAD_SAMPLE")
	if out == "" || corpusDir() == "" {
		t.Skip("ISNAD_SAMPLE or ATHAR_CORPUS not set")
	}
	r := NewResolver()
	ara := map[string]map[int]string{}
	eng := map[string]map[int]string{}
	var items []sampleItem
	for _, p := range strings.Split(os.Getenv("ISNAD_PICK"), ",") {
		col, num, _ := strings.Cut(p, ":")
		var n int
		fmt.Sscan(num, &n)
		if ara[col] == nil {
			ara[col], eng[col] = loadEdition(t, "ara-"+col), loadEdition(t, "eng-"+col)
		}
		a, e := ara[col][n], eng[col][n]
		is := Segment(a)
		cut := is.MatnStart + 60
		if cut < 350 {
			cut = 350
		}
		it := sampleItem{Collection: col, Number: n, Arabic: runePrefix(a, cut), English: runePrefix(e, 160)}
		res := r.ResolveIsnad(is)
		for i, rt := range is.Routes {
			var links []sampleLink
			for j, l := range rt.Links {
				links = append(links, sampleLink{Name: l.Name.Text, ID: res[i][j].ID, Parallel: l.Parallel})
			}
			it.Routes = append(it.Routes, links)
		}
		if is.Ref != nil {
			it.Ref = is.Ref.Kind
		}
		if name, _, _, ok := NarratorOfRecord(e); ok {
			it.Narrator = &sampleLink{Name: name, ID: r.Resolve(name).ID}
		}
		for _, m := range append(Mentions(it.Arabic, "ar", r), Mentions(it.English, "en", r)...) {
			it.Mentions = append(it.Mentions, sampleMention{m.Text, m.ID})
		}
		items = append(items, it)
	}
	b, _ := json.MarshalIndent(items, "", "  ")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runePrefix returns the first n code points of s, cut back to the end of a word.
func runePrefix(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if i == n {
			s = s[:k]
			break
		}
		i++
	}
	if j := strings.LastIndexAny(s, " \n"); j > len(s)/2 {
		s = s[:j]
	}
	return s
}
