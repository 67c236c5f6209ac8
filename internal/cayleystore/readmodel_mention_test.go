package cayleystore

import (
	"context"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

// TestMentionsOfRebuiltEntries: the mention counts of a label whose entry is rebuilt from a
// scan rather than moved by the change's records -- an entry left pending by a failed
// write, a label one change both adds a quad to and removes it from -- are set from the
// rebuilt entry, and the read model is in step after the change, on both backends.
func TestMentionsOfRebuiltEntries(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{"memory", "bbolt"} {
		t.Run(backend, func(t *testing.T) {
			spec := "memory:"
			if backend == "bbolt" {
				spec = "bbolt:" + t.TempDir()
			}
			st, err := Open(spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.Apply(ctx, fixtureBase...); err != nil {
				t.Fatal(err)
			}
			check := func(step string, want map[athar.ID][]athar.ID) {
				t.Helper()
				if err := st.CheckReadModel(ctx); err != nil {
					t.Fatalf("%s: %v", step, err)
				}
				st.mentions = mentionCache{} // read the rows, not the memo
				ids := make([]athar.ID, 0, len(want))
				for id := range want {
					ids = append(ids, id)
				}
				got, err := st.Mentions(ctx, ids)
				if err != nil {
					t.Fatal(err)
				}
				for id, ns := range want {
					if !reflect.DeepEqual(got[id], ns) {
						t.Errorf("%s: Mentions(%s) = %v, want %v", step, id, got[id], ns)
					}
				}
			}
			// n1 left pending, then person:a's name taken out of it: still its advises.
			leaveStale(t, st, "narration:n1")
			if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n1", Remove: fixtureBase[0].Add[1:2]}); err != nil {
				t.Fatal(err)
			}
			check("a pending entry", map[athar.ID][]athar.ID{
				"person:a":  {"narration:n1", "narration:n2"},
				"concept:c": {"narration:n1", "narration:n2"},
				"event:e":   {"narration:n1"},
			})
			// One quad of n3 both removed and added, person:d and concept:c added.
			b := fixtureBase[2].Add[0]
			if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n3",
				Remove: []athar.Quad{b},
				Add:    []athar.Quad{b, mquad("narration:n3", "person:d", "advises", athar.IRITerm(athar.ID("concept:c").IRI()))},
			}); err != nil {
				t.Fatal(err)
			}
			check("a quad added and removed", map[athar.ID][]athar.ID{
				"person:b":  {"narration:n2", "narration:n3"},
				"person:d":  {"narration:n3"},
				"concept:c": {"narration:n1", "narration:n2", "narration:n3"},
			})
			// And removed again, with the quad both ways once more.
			if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n3",
				Remove: []athar.Quad{b, mquad("narration:n3", "person:d", "advises", athar.IRITerm(athar.ID("concept:c").IRI()))},
				Add:    []athar.Quad{b},
			}); err != nil {
				t.Fatal(err)
			}
			check("removed again", map[athar.ID][]athar.ID{
				"person:d":  nil,
				"concept:c": {"narration:n1", "narration:n2"},
			})
			if pending := pendingKeys(st); len(pending) != 0 {
				t.Errorf("still pending: %q", pending)
			}
		})
	}
}

// TestMentionsOfACarriedRecord: a record that a document carries is that document's
// narration, even where another narration bears the record's own id (narration:KEY, here
// a document of that name): its row's corpus field is not the record, so the record's
// narration is looked up.
func TestMentionsOfACarriedRecord(t *testing.T) {
	ctx := context.Background()
	for _, spec := range []string{"memory:", "bbolt:" + t.TempDir()} {
		st, err := Open(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		typed := func(label, id string) athar.Quad {
			return athar.Quad{Subject: athar.ID(id).IRI(), Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypeNarration.IRI()), Label: athar.ID(label).IRI()}
		}
		if err := st.Apply(ctx,
			athar.Changeset{Narration: "narration:k1", Add: []athar.Quad{typed("narration:k1", "narration:k1"), mquad("narration:k1", "person:x", "name", athar.StringTerm("x"))}},
			athar.Changeset{Narration: "narration:r2", Add: []athar.Quad{typed("narration:r2", "narration:r2")}},
			recordChange("k1", "narration:r2", func(rec string) athar.Quad {
				return mquad(rec, "person:y", "transmits", athar.IRITerm(athar.ID("narration:r2").IRI()))
			}),
		); err != nil {
			t.Fatal(err)
		}
		got, err := st.Mentions(ctx, []athar.ID{"person:x", "person:y"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[athar.ID][]athar.ID{"person:x": {"narration:k1"}, "person:y": {"narration:r2"}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Mentions = %v, want %v", spec, got, want)
		}
		st.Close()
	}
}

// recordChange adds corpus record KEY, stating that it is narration, and the quad that
// about makes under its label (an id).
func recordChange(key, narration string, about func(rec string) athar.Quad) athar.Changeset {
	rec := athar.ID(athar.CorpusPrefix + ":" + key)
	return athar.Changeset{Narration: rec, Add: []athar.Quad{
		{Subject: athar.ID(narration).IRI(), Predicate: athar.PredCorpusRecord, Object: athar.IRITerm(rec.IRI()), Label: rec.IRI()},
		about(string(rec)),
	}}
}

// TestMentionsInIDOrder: an entity's narrations come in id order, each once, whether read
// from its rows or from Cayley (the read model stale): documents imported out of order,
// records whose narrations fall between them, and a record a document carries.
func TestMentionsInIDOrder(t *testing.T) {
	ctx := context.Background()
	for _, spec := range []string{"memory:", "bbolt:" + t.TempDir()} {
		st, err := Open(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		about := func(label string) athar.Quad {
			return mquad(label, "person:x", "name", athar.StringTerm(label))
		}
		record := func(key, narration string) athar.Changeset { return recordChange(key, narration, about) }
		if err := st.Apply(ctx,
			athar.Changeset{Narration: "narration:d3", Add: []athar.Quad{about("narration:d3")}},
			record("b2", "narration:b2"),
			athar.Changeset{Narration: "narration:a1", Add: []athar.Quad{about("narration:a1")}},
			record("z9", "narration:a1"), // carried by a1
			record("c5", "narration:c5"),
			athar.Changeset{Narration: "narration:c4", Add: []athar.Quad{about("narration:c4")}},
		); err != nil {
			t.Fatal(err)
		}
		want := []athar.ID{"narration:a1", "narration:b2", "narration:c4", "narration:c5", "narration:d3"}
		for _, stale := range []bool{false, true} {
			st.mentions = mentionCache{}
			st.rmStale = stale // true: the labels come from Cayley
			got, err := st.Mentions(ctx, []athar.ID{"person:x"})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got["person:x"], want) {
				t.Errorf("%s, stale %v: Mentions = %v, want %v", spec, stale, got["person:x"], want)
			}
		}
		st.rmStale = false
		st.Close()
	}
}

// TestPacked: strings gathered across many chunks, one longer than a chunk, come back as
// added, none overwritten by the chunk's reuse.
func TestPacked(t *testing.T) {
	var p packed[string]
	var want []string
	for i := 0; i < 20000; i++ {
		s := strings.Repeat(string(rune('a'+i%26)), i%40) + strconv.Itoa(i)
		if i == 7000 {
			s = strings.Repeat("x", packChunk+10)
		}
		want = append(want, s)
		p.add([]byte("k:"), []byte(s))
	}
	got := p.strings()
	if len(got) != len(want) {
		t.Fatalf("%d strings, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != "k:"+want[i] {
			t.Fatalf("string %d = %.40q, want %.40q", i, got[i], "k:"+want[i])
		}
	}
}

// TestSplitLabel: the rows' byte-level reading of a label agrees with narrationLabel and
// athar.IsCorpusLabel, the rules everything else reads labels by.
func TestSplitLabel(t *testing.T) {
	for _, l := range []string{
		athar.ID("narration:a1").IRI(), athar.Base + "narration/", athar.Base + "narration/a/b",
		athar.ID(athar.CorpusPrefix + ":muslim-1").IRI(), athar.Base + athar.CorpusPrefix + "/",
		athar.ID("person:x").IRI(), athar.VocabBase + "narration", athar.QuranGraph.IRI(), "urn:x",
	} {
		var ds packed[athar.ID]
		var rs packed[string]
		splitLabel(&ds, &rs, []byte(l))
		docs, records := ds.strings(), rs.strings()
		var wantDocs []athar.ID
		if n, ok := narrationLabel(l); ok {
			wantDocs = []athar.ID{n}
		}
		var wantRecords []string
		if len(wantDocs) == 0 && athar.IsCorpusLabel(l) {
			wantRecords = []string{l}
		}
		if !reflect.DeepEqual(docs, wantDocs) || !reflect.DeepEqual(records, wantRecords) {
			t.Errorf("%q: docs %q, records %q; want %q, %q", l, docs, records, wantDocs, wantRecords)
		}
	}
}
