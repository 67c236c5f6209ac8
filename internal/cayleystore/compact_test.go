package cayleystore

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

// compactFixture is n narrations of a few claims each about shared people, so that
// deleting most of them frees pages across Cayley's indexes and the read model.
func compactFixture(n int) []athar.Changeset {
	var out []athar.Changeset
	for i := range n {
		id := athar.ID(fmt.Sprintf("narration:c%d", i))
		l := id.IRI()
		q := func(s, p string, o athar.Term) athar.Quad {
			return athar.Quad{Subject: s, Predicate: p, Object: o, Label: l}
		}
		person := func(j int) string { return athar.ID(fmt.Sprintf("person:p%d", j)).IRI() }
		c := athar.Changeset{Narration: id, Add: []athar.Quad{
			q(l, athar.RDFType, athar.IRITerm(athar.TypeNarration.IRI())),
			q(l, athar.RDFSLabel, athar.Term{Literal: fmt.Sprintf("a narration numbered %d, with words enough to fill a page or two", i)}),
		}}
		for j := range 8 {
			c.Add = append(c.Add,
				q(person(i%7), predNarrates, athar.IRITerm(l)),
				q(person((i+j)%40), athar.Base+"vocab#advises", athar.IRITerm(person((i*j+3)%40))),
				q(person(j), athar.RDFSLabel, athar.Term{Literal: fmt.Sprintf("person %d as narration %d names them", j, i)}),
			)
		}
		out = append(out, c)
	}
	return out
}

func allQuads(t *testing.T, st *Store) []string {
	t.Helper()
	var out []string
	if err := st.Quads(context.Background(), func(q athar.Quad) error { out = append(out, q.Key()); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestCompact: compacting a store that deletes left with free pages gives a smaller file
// with (almost) none, holding exactly the same quads, manifest and read model, which then
// takes writes as before.
func TestCompact(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openBbolt(t, dir)
	fx := compactFixture(400)
	for i := 0; i < len(fx); i += 50 {
		if err := st.Apply(ctx, fx[i:i+50]...); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range fx[:350] { // most of it deleted, one narration a commit
		if err := st.Apply(ctx, athar.Changeset{Narration: c.Narration, Remove: c.Add}); err != nil {
			t.Fatal(err)
		}
	}
	wantQuads := allQuads(t, st)
	st.Close()
	// Open says when the file holds many free pages; not once it is compacted.
	defer func(n int) { compactHintPages = n }(compactHintPages)
	compactHintPages = 100
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	if st, err := Open("bbolt:"+dir, logger); err != nil {
		t.Fatal(err)
	} else {
		st.Close()
	}
	if !strings.Contains(logs.String(), "athar compact") || !strings.Contains(logs.String(), "free_pages=") {
		t.Errorf("opening a store with many free pages logged %q, want a hint to compact it", logs.String())
	}
	wantRM := dumpReadModel(t, dir)
	wantMan, _ := dumpManifest(t, dir)
	// A copy left by a compaction cut short is no obstacle.
	stale := filepath.Join(dir, "indexes.bolt.compact")
	if err := os.WriteFile(stale, []byte("half a file"), 0o644); err != nil {
		t.Fatal(err)
	}

	stats, err := Compact(ctx, "bbolt:"+dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", stats)
	if stats.After >= stats.Before {
		t.Errorf("file %d bytes before, %d after: not smaller", stats.Before, stats.After)
	}
	if stats.FreeBefore < 100 || stats.FreeAfter*10 > stats.FreeBefore {
		t.Errorf("free pages %d before, %d after: want many before, a tenth of them at most after", stats.FreeBefore, stats.FreeAfter)
	}
	if fi, err := os.Stat(filepath.Join(dir, "indexes.bolt")); err != nil || fi.Size() != stats.After {
		t.Errorf("the store's file: %v, %v; want %d bytes", fi, err, stats.After)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the compaction's copy is still beside the store: %v", err)
	}
	if got := dumpReadModel(t, dir); !mapsEqual(got, wantRM) {
		t.Error("the read model differs after compaction")
	}
	if got, pending := dumpManifest(t, dir); !mapsEqual(got, wantMan) || len(pending) > 0 {
		t.Errorf("the manifest differs after compaction (pending: %q)", pending)
	}
	logs.Reset()
	st, err = Open("bbolt:"+dir, logger)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if logs.Len() > 0 {
		t.Errorf("opening the compacted store logged %q", logs.String())
	}
	if n := st.FullScans(); n != 0 {
		t.Errorf("opening the compacted store scanned it %d times: something was rebuilt", n)
	}
	if got := allQuads(t, st); !slices.Equal(got, wantQuads) {
		t.Fatalf("after compaction %d quads, before %d (or others)", len(got), len(wantQuads))
	}
	// Writes go on: a deleted narration back, a kept one gone.
	if err := st.Apply(ctx, fx[0], athar.Changeset{Narration: fx[399].Narration, Remove: fx[399].Add}); err != nil {
		t.Fatal(err)
	}
	if err := st.CheckReadModel(ctx); err != nil {
		t.Fatal(err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestCompactRefusals: a store in use, a store that is not a bbolt directory and a
// directory without a store are refused, and leave nothing behind.
func TestCompactRefusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openBbolt(t, dir)
	if err := st.Apply(ctx, compactFixture(3)...); err != nil {
		t.Fatal(err)
	}
	want := allQuads(t, st)
	if _, err := Compact(ctx, "bbolt:"+dir, nil); athar.ErrorCode(err) != athar.Conflict {
		t.Errorf("compacting a store in use: %v, want a %s error", err, athar.Conflict)
	}
	if got := allQuads(t, st); !slices.Equal(got, want) {
		t.Error("a refused compaction changed the store")
	}
	st.Close()
	if _, err := os.Stat(filepath.Join(dir, "indexes.bolt.compact")); !os.IsNotExist(err) {
		t.Errorf("a refused compaction left a copy: %v", err)
	}
	if _, err := Compact(ctx, "memory:", nil); athar.ErrorCode(err) != athar.Invalid {
		t.Errorf("compacting memory: %v, want a %s error", err, athar.Invalid)
	}
	empty := t.TempDir()
	if _, err := Compact(ctx, "bbolt:"+empty, nil); err == nil || !strings.Contains(err.Error(), "indexes.bolt") {
		t.Errorf("compacting a directory without a store: %v, want an error naming the missing file", err)
	}
	if ents, _ := os.ReadDir(empty); len(ents) != 0 {
		t.Errorf("compacting a directory without a store created %d files in it", len(ents))
	}
}

// TestCompactAfterACrash: a store a crash left with its read model pending is rebuilt as
// Open would before it is copied, so the compacted store is in step.
func TestCompactAfterACrash(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openBbolt(t, dir)
	fx := compactFixture(20)
	if err := st.Apply(ctx, fx[:10]...); err != nil {
		t.Fatal(err)
	}
	crashAfterCayleyCommit(t, st, fx[10:])
	if _, err := Compact(ctx, "bbolt:"+dir, nil); err != nil {
		t.Fatal(err)
	}
	st = openBbolt(t, dir)
	defer st.Close()
	if n := st.FullScans(); n != 0 {
		t.Errorf("opening the compacted store scanned it %d times: the compaction copied a pending rebuild", n)
	}
	if err := st.CheckReadModel(ctx); err != nil {
		t.Fatal(err)
	}
	if got := len(allQuads(t, st)); got == 0 {
		t.Fatal("no quads after compaction")
	}
}
