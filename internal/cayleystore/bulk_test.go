package cayleystore

import (
	"bytes"
	"fmt"
	"testing"
)

// openBulk opens a new bbolt store in bulk mode, closed when the test ends.
func openBulk(t *testing.T) *Store {
	t.Helper()
	st, err := Open("bbolt:"+t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.BeginBulk(); err != nil {
		t.Fatal(err)
	}
	return st
}

// TestBulkArena: the bulk buffer keeps its own copies of keys and values (in its arena), an
// empty value stays distinct from an absent one, and a row rewritten over and over -- a
// hub's count -- fills the arena though the buffer's live rows stay small, which writes
// the buffer out like any other excess: the arena's memory is bounded by the budget too.
func TestBulkArena(t *testing.T) {
	st := openBulk(t)
	m := st.man.(*bulkManifest)
	const bucket = "athar.test.bulk"
	get := func(key string) []byte {
		t.Helper()
		var v []byte
		if err := m.view(func(tx manifestTx) error {
			v = bytes.Clone(tx.get(bucket, key)) // nil stays nil, empty stays empty
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return v
	}

	key, val := []byte("a-key"), []byte("one")
	if err := m.update(func(tx manifestTx) error {
		if err := tx.put(bucket, string(key), val); err != nil {
			return err
		}
		return tx.put(bucket, "empty", []byte{})
	}); err != nil {
		t.Fatal(err)
	}
	copy(key, "X")
	copy(val, "XXX")
	if got := get("a-key"); string(got) != "one" {
		t.Fatalf("after the caller reused its slice, the buffer holds %q, want %q", got, "one")
	}
	if got := get("empty"); got == nil || len(got) != 0 {
		t.Fatalf("an empty value reads back as %#v, want a present empty value", got)
	}
	if got := get("absent"); got != nil {
		t.Fatalf("an absent key reads back as %q", got)
	}

	defer func(b int) { bulkBudget = b }(bulkBudget)
	bulkBudget = 64 << 10
	value := func(i int) []byte { return fmt.Appendf(bytes.Repeat([]byte{'v'}, 1000), "%06d", i) }
	for i := range 200 {
		if err := m.update(func(tx manifestTx) error { return tx.put(bucket, "hub", value(i)) }); err != nil {
			t.Fatal(err)
		}
	}
	if m.bytes > bulkBudget || m.arena.used <= bulkBudget {
		t.Fatalf("buffer %d bytes, arena %d: the test needs live rows under the budget (%d) and the arena over it", m.bytes, m.arena.used, bulkBudget)
	}
	flushes := m.flushes
	st.mu.Lock()
	st.bulkSpill()
	st.mu.Unlock()
	if m.flushes != flushes+1 || m.arena.used != 0 {
		t.Fatalf("after the spill: %d flush(es) (before: %d), arena %d bytes; want the buffer written out and the arena dropped", m.flushes, flushes, m.arena.used)
	}
	if got := get("hub"); !bytes.Equal(got, value(199)) {
		t.Fatalf("the rewritten row reads back from disk as %d bytes ending %q, want its last value (ending %q)", len(got), got[max(0, len(got)-6):], "000199")
	}
	if got := get("a-key"); string(got) != "one" {
		t.Fatalf("after the spill, a-key reads %q, want %q", got, "one")
	}
	if err := st.EndBulk(); err != nil {
		t.Fatal(err)
	}
}

// TestBulkBudgetGrows: the buffer's budget doubles at each flush, to four times bulkBudget,
// and a spill waits for the budget of the moment.
func TestBulkBudgetGrows(t *testing.T) {
	st := openBulk(t)
	defer func(b int) { bulkBudget = b }(bulkBudget)
	bulkBudget = 64 << 10
	m := st.man.(*bulkManifest)
	row := 0
	// fill writes rows of about 1 KB until the buffer holds kb of them.
	fill := func(kb int) {
		t.Helper()
		for m.bytes < kb<<10 {
			row++
			if err := m.update(func(tx manifestTx) error {
				return tx.put("athar.test.bulk", fmt.Sprintf("row-%06d", row), bytes.Repeat([]byte{'v'}, 1000))
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	spill := func() int {
		st.mu.Lock()
		defer st.mu.Unlock()
		before := m.flushes
		st.bulkSpill()
		return m.flushes - before
	}
	for i, tc := range []struct{ under, over int }{{60, 66}, {120, 130}, {250, 260}, {250, 260}} {
		fill(tc.under)
		if n := spill(); n != 0 {
			t.Fatalf("flush %d: %d KB buffered, budget %d KB: spilled", i+1, m.bytes>>10, m.budget()>>10)
		}
		fill(tc.over)
		if n := spill(); n != 1 {
			t.Fatalf("flush %d: %d KB buffered, over the budget of %d KB: %d flushes, want 1", i+1, tc.over, tc.under, n)
		}
	}
	if got, want := m.budget(), 4*bulkBudget; got != want {
		t.Fatalf("after %d flushes the budget is %d, want %d", m.flushes, got, want)
	}
	if err := st.EndBulk(); err != nil {
		t.Fatal(err)
	}
}
