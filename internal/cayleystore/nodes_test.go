package cayleystore

import (
	"context"
	"reflect"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

// A whole scan (a text index's build) reads through the node cache but adds nothing to it:
// at 10,000 narrations a build that filled it left ~260,000 objects for the collector to
// mark on every cycle of the server's life. An ordinary read still fills it.
func TestWholeScanLeavesTheNodeCacheAlone(t *testing.T) {
	ctx := context.Background()
	st, err := Open("bbolt:"+t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	label := athar.Base + "narration/n"
	add := []athar.Quad{
		{Subject: athar.Base + "person/umar", Predicate: athar.RDFSLabel, Object: athar.Term{Literal: "'Umar"}, Label: label},
		{Subject: athar.Base + "person/umar", Predicate: athar.RDFSLabel, Object: athar.Term{Literal: "عمر", Lang: "ar"}, Label: label},
		{Subject: athar.Base + "event/badr", Predicate: athar.RDFSLabel, Object: athar.Term{Literal: "Badr"}, Label: label},
	}
	if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n", Add: add}); err != nil {
		t.Fatal(err)
	}
	st.nodes.Purge()
	scanned, err := st.NarrationQuads(athar.WholeScan(ctx), "narration:n")
	if err != nil {
		t.Fatal(err)
	}
	if len(scanned) != len(add) {
		t.Fatalf("whole scan: %d quads, want %d: %v", len(scanned), len(add), scanned)
	}
	if n := st.nodes.Len(); n != 0 {
		t.Errorf("after a whole scan the node cache holds %d values, want none", n)
	}
	read, err := st.NarrationQuads(ctx, "narration:n")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(scanned, read) {
		t.Errorf("whole scan read %v, an ordinary read %v", scanned, read)
	}
	if st.nodes.Len() == 0 {
		t.Error("an ordinary read left the node cache empty")
	}
	// Quads (an export) reads every quad: a whole scan of its own, whatever ctx says.
	st.nodes.Purge()
	n := 0
	if err := st.Quads(ctx, func(athar.Quad) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if n != len(add) {
		t.Errorf("Quads: %d quads, want %d", n, len(add))
	}
	if l := st.nodes.Len(); l != 0 {
		t.Errorf("after Quads the node cache holds %d values, want none", l)
	}
}
