package ingest_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/hadith"
	"github.com/athar-hadith/athar/internal/hadithapi"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/ingest/load"
	"github.com/athar-hadith/athar/internal/testsupport"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

// fixtureRecords reads the repository's corpus fixture (internal/hadithapi/testdata).
func fixtureRecords(t *testing.T) []hadith.Record {
	t.Helper()
	paths, _ := filepath.Glob("../hadithapi/testdata/corpus/*.json")
	var eds []*hadithapi.Edition
	for _, p := range paths {
		ed, probs, err := hadithapi.ReadFile(p)
		if err != nil || len(probs) > 0 {
			t.Fatal(err, probs)
		}
		eds = append(eds, ed)
	}
	recs, probs := hadithapi.Pair(eds)
	if len(probs) > 0 || len(recs) != 26 {
		t.Fatalf("%d records, %v", len(recs), probs)
	}
	return recs
}

func newStore(t *testing.T) (*cayleystore.Store, *ingest.Local) {
	t.Helper()
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, ingest.NewLocal(st, schema.Vocabulary())
}

func loadSeeds(t *testing.T, w ingest.Writer) {
	t.Helper()
	var srcs []load.Source
	for _, f := range seeds.Files() {
		srcs = append(srcs, load.Source{Name: f.Name, Data: f.Data})
	}
	if st := load.Run(context.Background(), w, srcs, load.Options{}); st.Refused > 0 {
		t.Fatalf("seeds refused: %+v", st)
	}
}

func importRecords(t *testing.T, w ingest.Writer, recs []hadith.Record) []ingest.HadithResult {
	t.Helper()
	res := w.ImportHadiths(context.Background(), recs)
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Key, r.Err)
		}
	}
	return res
}

func changed(res []ingest.HadithResult) int {
	n := 0
	for _, r := range res {
		if r.Changed {
			n++
		}
	}
	return n
}

// The corpus and the seed documents give the same graph, byte for byte, whichever is
// imported first; the documents sit on the corpus narrations (never a duplicate), and
// deleting a document gives back the corpus record on its own id.
func TestCorpusAndDocumentsInEitherOrder(t *testing.T) {
	ctx := context.Background()
	recs := fixtureRecords(t)
	// hadith-api's Muslim 1763 is another report than the seed narration:muslim-1763
	// ('Abd al-Baqi's 1763, hadith-api's 4588): it must not land on the seed's narration.
	other := recs[len(recs)-5]
	if other.Key() != "muslim-4588" {
		t.Fatalf("fixture order: %s", other.Key())
	}
	other.Number, other.Texts = "1763", []hadith.Text{{Language: "en", Edition: "eng-muslim", Text: "another report"}}
	recs = append(recs, other)

	a, wa := newStore(t)
	loadSeeds(t, wa)
	importRecords(t, wa, recs)

	b, wb := newStore(t)
	importRecords(t, wb, recs)
	loadSeeds(t, wb)

	qa, qb := testsupport.Quads(t, a), testsupport.Quads(t, b)
	if qa != qb {
		t.Fatalf("the graphs differ with the order of import:\n%s", testsupport.FirstDiff(qa, qb))
	}
	// Muslim 4588 is the seed muslim-1763: one narration, with the document's text and
	// both of the corpus's, the document's claims on it, and no narration:muslim-4588.
	ns, err := a.Narrations(ctx, []athar.ID{"narration:muslim-1763", "narration:muslim-4588", "narration:abudawud-2690", "narration:abudawud-2689"})
	if err != nil {
		t.Fatal(err)
	}
	m := ns[0]
	if m == nil || ns[1] != nil || m.Corpus != "muslim-4588" || len(m.Texts) != 3 || m.Texts[0].Source != athar.TextFromDocument || m.Chapter != "chapter:muslim-32" {
		t.Fatalf("muslim-1763 read as %+v; muslim-4588 %v", m, ns[1])
	}
	if m.Texts[2].Text != m.Text {
		t.Errorf("the seed's English text differs from the corpus's, though the corpus README says they are the same bytes")
	}
	if !strings.HasPrefix(m.Title, "'Umar") {
		t.Errorf("title %q: the document's title should win", m.Title)
	}
	// Abu Dawud 2690: the seed's three gradings, then the corpus's, each with its grader.
	ad := ns[2]
	var graders []athar.ID
	for _, g := range ad.Gradings {
		graders = append(graders, g.Grader)
	}
	if len(ad.Gradings) < 6 || ad.Gradings[len(ad.Gradings)-1].Grader == "" {
		t.Fatalf("abudawud-2690 gradings %+v", ad.Gradings)
	}
	if c := ns[3]; c == nil || c.Text == "" || c.Language != "en" || c.Title != "Sunan Abi Dawud 2689" || len(c.Texts) != 2 {
		t.Fatalf("a corpus-only narration read as %+v", c)
	}
	if q, _ := a.NarrationQuads(ctx, "corpus:muslim-1763"); hadith.NodeOf(q) != "narration:muslim-1763-hadith-api" {
		t.Fatalf("hadith-api's Muslim 1763 is on %s", hadith.NodeOf(q))
	}
	claims, err := a.FindClaims(ctx, athar.ClaimFilter{Narration: "narration:muslim-1763"})
	if err != nil || len(claims) == 0 {
		t.Fatalf("the seed's claims: %d, %v", len(claims), err)
	}

	// Deleting the document leaves the corpus record, on its own id again (tirmidhi-3081
	// uses a narrator only muslim-1763 defines: it goes first).
	for _, id := range []athar.ID{"narration:tirmidhi-3081", "narration:muslim-1763"} {
		if err := wa.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	ns, err = a.Narrations(ctx, []athar.ID{"narration:muslim-1763", "narration:muslim-4588"})
	if err != nil {
		t.Fatal(err)
	}
	if ns[0] == nil || ns[0].Corpus != "muslim-1763" || ns[0].Text != "another report" || ns[1] == nil || len(ns[1].Texts) != 2 {
		t.Fatalf("after deleting the document: muslim-1763 %+v, muslim-4588 %+v", ns[0], ns[1])
	}
	c, wc := newStore(t)
	loadSeeds(t, wc)
	for _, id := range []athar.ID{"narration:tirmidhi-3081", "narration:muslim-1763"} {
		if err := wc.Delete(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	importRecords(t, wc, recs)
	if qa, qc := testsupport.Quads(t, a), testsupport.Quads(t, c); qa != qc {
		t.Fatalf("deleting the document after the corpus differs from before it:\n%s", testsupport.FirstDiff(qa, qc))
	}
}

func TestCorpusIdempotentAndCorrected(t *testing.T) {
	ctx := context.Background()
	st, w := newStore(t)
	recs := fixtureRecords(t)
	if n := changed(importRecords(t, w, recs)); n != len(recs) {
		t.Fatalf("first import changed %d of %d", n, len(recs))
	}
	before := testsupport.Quads(t, st)
	if n := changed(importRecords(t, w, recs)); n != 0 {
		t.Fatalf("importing again changed %d records", n)
	}
	if testsupport.Quads(t, st) != before {
		t.Fatal("importing again changed the graph")
	}
	// A corrected grade replaces exactly that record's quad.
	fixed := append([]hadith.Record(nil), recs...)
	i := 4 // abudawud-2690
	fixed[i].Grades = append([]hadith.Grade(nil), fixed[i].Grades...)
	fixed[i].Grades[0].Verdict = "Sahih"
	res := importRecords(t, w, fixed)
	if n := changed(res); n != 1 || !res[i].Changed || res[i].QuadsAdded != 2 || res[i].QuadsRemoved != 2 {
		t.Fatalf("the correction: %d changed; %+v", n, res[i])
	}
	ns, _ := st.Narrations(ctx, []athar.ID{"narration:abudawud-2690"})
	if g := ns[0].Gradings[0]; g.Verdict != "Sahih" || g.Grade != athar.GradeSahih || g.Grader != "person:al-albani" {
		t.Fatalf("corrected grading %+v", g)
	}
}

func TestCorpusRefusesOnlyTheBadRecord(t *testing.T) {
	st, w := newStore(t)
	recs := fixtureRecords(t)[:3]
	recs[1].Grades = append([]hadith.Grade(nil), hadith.Grade{Verdict: "Sahih"})
	res := w.ImportHadiths(context.Background(), recs)
	if res[0].Err != nil || res[2].Err != nil || res[1].Err == nil || !strings.Contains(res[1].Err.Error(), "grades[0].name") || athar.ErrorCode(res[1].Err) != athar.Invalid {
		t.Fatalf("results %+v", res)
	}
	q, err := st.NarrationQuads(context.Background(), recs[1].Label())
	if err != nil || len(q) != 0 {
		t.Fatalf("the refused record stored %d quads (%v)", len(q), err)
	}
}

// A document whose text differs from the corpus's keeps its own text and offsets; the
// import says so.
func TestCorpusTextDiffers(t *testing.T) {
	st, w := newStore(t)
	loadSeeds(t, w)
	recs := fixtureRecords(t)
	for i := range recs {
		if recs[i].Key() == "bukhari-3953" {
			recs[i].Texts[1].Text += " (revised)"
		}
	}
	var notes []string
	for _, r := range importRecords(t, w, recs) {
		notes = append(notes, r.Notes...)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "narration:bukhari-3953") || !strings.Contains(notes[0], "differs") {
		t.Fatalf("notes %q", notes)
	}
	ns, _ := st.Narrations(context.Background(), []athar.ID{"narration:bukhari-3953"})
	if n := ns[0]; n.Texts[0].Source != athar.TextFromDocument || n.Text != n.Texts[0].Text || n.Texts[2].Text == n.Text {
		t.Fatalf("texts %+v", n.Texts)
	}
}

// The same, the corpus first: importing the document says so.
func TestDocumentTextDiffersFromCorpus(t *testing.T) {
	_, w := newStore(t)
	recs := fixtureRecords(t)
	for i := range recs {
		if recs[i].Key() == "bukhari-3953" {
			recs[i].Texts[1].Text += " (revised)"
		}
	}
	importRecords(t, w, recs)
	var report strings.Builder
	var srcs []load.Source
	for _, f := range seeds.Files() {
		srcs = append(srcs, load.Source{Name: f.Name, Data: f.Data})
	}
	if st := load.Run(context.Background(), w, srcs, load.Options{Report: &report}); st.Refused > 0 {
		t.Fatal(report.String())
	}
	if got := report.String(); strings.Count(got, "note: ") != 1 || !strings.Contains(got, "note: narration:bukhari-3953: the text of eng-bukhari (en) differs from the document's") {
		t.Fatalf("report: %s", got)
	}
}
