package cayleystore

import (
	"bytes"
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) athar.Store {
		st, err := Open("memory:", nil)
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}

func TestBboltConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) athar.Store {
		st, err := Open("bbolt:"+t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return st
	})
}

// TestBulkConformance runs the suite on a bbolt store in bulk mode, as a load leaves it
// between two of its writes: reads through the buffer, and a step 3 left running beside
// the next write (see finishing).
func TestBulkConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) athar.Store {
		st, err := Open("bbolt:"+t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.BeginBulk(); err != nil {
			t.Fatal(err)
		}
		return st
	})
}

func TestOpenRejectsBadSpecs(t *testing.T) {
	for _, spec := range []string{"", "bolt:/tmp/x", "bbolt:", "memory:/x", "postgres://x"} {
		if st, err := Open(spec, nil); err == nil {
			st.Close()
			t.Errorf("Open(%q) succeeded", spec)
		} else if athar.ErrorCode(err) != athar.Invalid {
			t.Errorf("Open(%q): code %s, want %s (%v)", spec, athar.ErrorCode(err), athar.Invalid, err)
		}
	}
}

func TestBboltIsExclusiveAndPersistent(t *testing.T) {
	dir := t.TempDir()
	st, err := Open("bbolt:"+dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := athar.Quad{Subject: athar.Base + "person/x", Predicate: athar.RDFSLabel, Object: athar.Term{Literal: "عمر", Lang: "ar"}, Label: athar.Base + "narration/n"}
	if err := st.Apply(context.Background(), athar.Changeset{Narration: "narration:n", Add: []athar.Quad{q}}); err != nil {
		t.Fatal(err)
	}
	if _, err := Open("bbolt:"+dir, nil); athar.ErrorCode(err) != athar.Conflict {
		t.Fatalf("second Open of a store in use: %v, want a %s error", err, athar.Conflict)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = Open("bbolt:"+dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var got []athar.Quad
	if err := st.Quads(context.Background(), func(q athar.Quad) error { got = append(got, q); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != q {
		t.Fatalf("after reopening: %+v, want %+v", got, q)
	}
}

func TestNQuadsRoundTrip(t *testing.T) {
	label := athar.Base + "narration/n"
	in := []athar.Quad{
		{Subject: athar.Base + "person/x", Predicate: athar.RDFSLabel, Object: athar.StringTerm("say \"hi\"\n\tand \\ go"), Label: label},
		{Subject: athar.Base + "person/x", Predicate: athar.RDFSLabel, Object: athar.Term{Literal: "عُمَر", Lang: "ar"}, Label: label},
		{Subject: athar.Base + "event/e", Predicate: athar.VocabBase + "killedCount", Object: athar.Term{Literal: "70", Datatype: athar.XSDInteger}, Label: label},
		{Subject: athar.Base + "event/e", Predicate: athar.VocabBase + "precedes", Object: athar.IRITerm(athar.Base + "event/f"), Label: label},
	}
	var buf bytes.Buffer
	w := NewNQuadsWriter(&buf)
	for _, q := range in {
		if err := w.Write(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := ReadNQuads(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n%+v\n%+v", in, out)
	}
}

func TestReadNQuadsErrors(t *testing.T) {
	cases := map[string]string{
		"not nquads":    "this is not rdf\n",
		"no label":      "<http://a> <http://b> <http://c> .\n",
		"blank subject": "_:b <http://b> <http://c> <http://g> .\n",
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ReadNQuads(strings.NewReader(src))
			if athar.ErrorCode(err) != athar.Invalid || !strings.Contains(err.Error(), "statement 1") {
				t.Fatalf("got %v, want an INVALID_ARGUMENT error naming statement 1", err)
			}
		})
	}
}

// TestPinsLeftByACrashAreRemovedAtOpen: a crash between Apply's transaction and the removal
// of its pins leaves pins; reads skip them and the next Open removes them.
func TestPinsLeftByACrashAreRemovedAtOpen(t *testing.T) {
	dir := t.TempDir()
	st, err := Open("bbolt:"+dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	label := athar.Base + "narration/n"
	q := athar.Quad{Subject: athar.Base + "person/x", Predicate: athar.RDFSLabel, Object: athar.StringTerm("x"), Label: label}
	if err := st.Apply(context.Background(), athar.Changeset{Narration: "narration:n", Add: []athar.Quad{q}}); err != nil {
		t.Fatal(err)
	}
	// What a crash leaves: a pin committed with the change, never removed.
	tx := graph.NewTransaction()
	tx.AddQuad(quad.Quad{Subject: quad.IRI(pinIRI + "/0"), Predicate: quad.IRI(pinIRI), Object: quad.String("x"), Label: quad.IRI(pinIRI)})
	if err := st.qs.ApplyDeltas(tx.Deltas, graph.IgnoreOpts{}); err != nil {
		t.Fatal(err)
	}
	var got []athar.Quad
	st.Quads(context.Background(), func(q athar.Quad) error { got = append(got, q); return nil })
	if len(got) != 1 || got[0] != q {
		t.Fatalf("reads see the pin: %+v", got)
	}
	st.Close()
	st, err = Open("bbolt:"+dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if ref, _ := st.qs.ValueOf(quad.IRI(pinIRI)); ref != nil {
		t.Fatal("Open left the pin in place")
	}
}

// TestRepeatedQuadsLeaveNoTerms: a change listing a quad more than once adds it once, so
// that Cayley counts its terms' references once and removing the quad removes the terms
// (counted twice, a term would outlive every quad using it).
func TestRepeatedQuadsLeaveNoTerms(t *testing.T) {
	for _, spec := range []string{"memory:", "bbolt:" + t.TempDir()} {
		st, err := Open(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		label := athar.Base + "narration/n"
		a := athar.Quad{Subject: athar.Base + "person/x", Predicate: athar.RDFSLabel, Object: athar.StringTerm("only here"), Label: label}
		b := athar.Quad{Subject: athar.Base + "person/x", Predicate: athar.RDFSComment, Object: athar.StringTerm("also only here"), Label: label}
		if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n", Add: []athar.Quad{a, b, a}}, athar.Changeset{Narration: "narration:n", Add: []athar.Quad{b}}); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.NarrationQuads(ctx, "narration:n"); len(got) != 2 {
			t.Fatalf("%s: %d quads stored, want 2", spec, len(got))
		}
		if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n", Remove: []athar.Quad{a, b}}); err != nil {
			t.Fatal(err)
		}
		for _, v := range []quad.Value{quad.String("only here"), quad.String("also only here"), quad.IRI(athar.Base + "person/x")} {
			if ref, _ := st.qs.ValueOf(v); ref != nil {
				t.Errorf("%s: %v outlives every quad that used it", spec, v)
			}
		}
		st.Close()
	}
}

// TestMentionsFollowWrites: Mentions is memoised until the next Apply, so what it answers
// after each write is what the store holds then.
func TestMentionsFollowWrites(t *testing.T) {
	for _, spec := range []string{"memory:", "bbolt:" + t.TempDir()} {
		st, err := Open(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		name := func(n string) athar.Quad {
			return athar.Quad{Subject: athar.ID("person:e").IRI(), Predicate: athar.RDFSLabel, Object: athar.StringTerm("E in " + n), Label: athar.ID(n).IRI()}
		}
		for i, step := range []struct {
			cs   athar.Changeset
			want []athar.ID
		}{
			{athar.Changeset{Narration: "narration:n1", Add: []athar.Quad{name("narration:n1")}}, []athar.ID{"narration:n1"}},
			{athar.Changeset{Narration: "narration:n2", Add: []athar.Quad{name("narration:n2")}}, []athar.ID{"narration:n1", "narration:n2"}},
			{athar.Changeset{Narration: "narration:n1", Remove: []athar.Quad{name("narration:n1")}}, []athar.ID{"narration:n2"}},
		} {
			for range 2 { // the second read comes from the memo
				got, err := st.Mentions(ctx, []athar.ID{"person:e"})
				if err != nil {
					t.Fatal(err)
				}
				if i > 0 && !slices.Equal(got["person:e"], prev(i)) {
					t.Errorf("%s, before step %d: Mentions = %v", spec, i, got["person:e"])
				}
			}
			if err := st.Apply(ctx, step.cs); err != nil {
				t.Fatal(err)
			}
			got, err := st.Mentions(ctx, []athar.ID{"person:e"})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got["person:e"], step.want) {
				t.Errorf("%s, after step %d: Mentions = %v, want %v", spec, i, got["person:e"], step.want)
			}
		}
		st.Close()
	}
}

// prev is what Mentions gives after step i-1 of TestMentionsFollowWrites.
func prev(i int) []athar.ID {
	return [][]athar.ID{{"narration:n1"}, {"narration:n1", "narration:n2"}, {"narration:n2"}}[i-1]
}
