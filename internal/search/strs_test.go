package search

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// The index's arrays must hold no pointers: the collector would then mark every string
// of every name on each cycle (strs.go). A field of type string, slice or map added to one
// of these types fails here.
func TestIndexArraysHoldNoPointers(t *testing.T) {
	for _, v := range []any{doc{}, name{}, skel{}, filter{}, str{}} {
		typ := reflect.TypeOf(v)
		if p := pointerField(typ, typ.Name()); p != "" {
			t.Errorf("%s holds a pointer (%s): keep strings in Index.strs", typ.Name(), p)
		}
	}
}

// pointerField names a field of t that is or holds a pointer, or "" if none does.
func pointerField(t reflect.Type, path string) string {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return ""
	case reflect.Array:
		return pointerField(t.Elem(), path+"[]")
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if p := pointerField(f.Type, path+"."+f.Name); p != "" {
				return p
			}
		}
		return ""
	}
	return path + " " + t.Kind().String()
}

func TestStrsRoundTrip(t *testing.T) {
	var a strs
	long := strings.Repeat("ابن ", strChunk/8) // over a quarter of a chunk: a chunk of its own
	in := []string{"", "umar", long, "abu bakr"}
	for i := range 2 * strChunk / 1000 { // more than one chunk of short strings
		in = append(in, fmt.Sprintf("%0999d", i))
	}
	refs := make([]str, len(in))
	for i, s := range in {
		refs[i] = a.add(s)
	}
	if len(a.chunks) < 3 {
		t.Fatalf("%d chunks for %d bytes", len(a.chunks), a.bytes)
	}
	for i, s := range in {
		if got := a.get(refs[i]); got != s {
			t.Fatalf("string %d: got %d bytes %.20q, want %d bytes %.20q", i, len(got), got, len(s), s)
		}
	}
}

// Compaction moves the live strings into a new arena and leaves the dead ones behind;
// hits handed out before it keep their values.
func TestCompactionDropsDeadStrings(t *testing.T) {
	ix := NewIndex()
	const n = 4000
	for i := range n {
		ix.Put(Doc{ID: fmt.Sprintf("person:p%05d", i), Type: "Person", Names: []string{fmt.Sprintf("Name %05d", i), "ʿUmar"}})
	}
	before := ix.Search("name 00000", 1)
	full := ix.strs.bytes
	for i := 1; i < n; i++ {
		ix.Delete(fmt.Sprintf("person:p%05d", i))
	}
	runtime.GC()
	if ix.strs.bytes*10 > full {
		t.Errorf("arena holds %d bytes for 1 of %d documents (%d before)", ix.strs.bytes, n, full)
	}
	if len(before) != 1 || before[0].ID != "person:p00000" || before[0].Name != "Name 00000" || before[0].Type != "Person" {
		t.Errorf("a hit from before the compaction changed: %+v", before)
	}
	ix.Put(Doc{ID: "event:badr", Type: "Event", Names: []string{"Badr"}})
	if p, e, x := ix.LenOf("Person"), ix.LenOf("Event"), ix.LenOf("Place"); p != 1 || e != 1 || x != 0 {
		t.Errorf("LenOf Person, Event, Place = %d, %d, %d; want 1, 1, 0", p, e, x)
	}
	hits := ix.Forgiving("omar", 5)
	if len(hits) != 1 || hits[0].ID != "person:p00000" || hits[0].Name != "ʿUmar" {
		t.Errorf("Forgiving(omar) after compaction = %+v", hits)
	}
}
