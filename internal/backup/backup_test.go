package backup

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

// quads is a store that holds its quads in a slice.
type quads []athar.Quad

func (qs quads) Quads(_ context.Context, fn func(athar.Quad) error) error {
	for _, q := range qs {
		if err := fn(q); err != nil {
			return err
		}
	}
	return nil
}

func testQuads(n int) quads {
	var qs quads
	for i := range n {
		qs = append(qs, athar.Quad{
			Subject:   athar.ID(fmt.Sprintf("person:p%03d", i)).IRI(),
			Predicate: athar.VocabBase + "advises",
			Object:    athar.Term{IRI: athar.ID("concept:ransom").IRI()},
			Label:     athar.ID(fmt.Sprintf("narration:n%03d", i)).IRI(),
		})
	}
	return qs
}

func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	want := testQuads(50)
	path := filepath.Join(t.TempDir(), "backup.nq.gz")
	n, err := WriteFile(ctx, want, path)
	if err != nil || n != len(want) {
		t.Fatalf("WriteFile: %d quads, %v", n, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, verified, err := Read(bytes.NewReader(data))
	if err != nil || !verified || !reflect.DeepEqual(quads(got), want) {
		t.Fatalf("Read: %d quads, verified %v, %v", len(got), verified, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("WriteFile left %d files, want only the backup", len(entries))
	}

	for _, tc := range []struct {
		name     string
		data     []byte
		verified bool
		err      string // "" for none
	}{
		{name: "cut short", data: data[:len(data)/2], err: "ends too early"},
		{name: "damaged checksum", data: append(append([]byte{}, data[:len(data)-8]...), 0, 0, 0, 0, 0, 0, 0, 0), err: "damaged"},
		{name: "plain N-Quads without a trailer", data: []byte(nquadsLine(want[0])), verified: false},
		{name: "not N-Quads", data: []byte("not n-quads\n"), err: "statement 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, verified, err := Read(bytes.NewReader(tc.data))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Read: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("Read: %v, want an error saying %q", err, tc.err)
			case err == nil && verified != tc.verified:
				t.Errorf("verified %v, want %v", verified, tc.verified)
			}
		})
	}
}

func nquadsLine(q athar.Quad) string {
	return fmt.Sprintf("<%s> <%s> <%s> <%s> .\n", q.Subject, q.Predicate, q.Object.IRI, q.Label)
}

// restorer records the restore it is asked to make.
type restorer struct{ calls int }

func (r *restorer) Restore(context.Context, []athar.Quad, bool) ([]athar.ID, error) {
	r.calls++
	return nil, nil
}

func TestRestore(t *testing.T) {
	all, some := testQuads(4), testQuads(2)
	for _, tc := range []struct {
		name              string
		store, backup     quads
		verified, replace bool
		err               string // "" when it restores
		add, remove       int
	}{
		{name: "into an empty store", backup: all, verified: true, add: 4},
		{name: "unverified into an empty store", backup: all, add: 4},
		{name: "over a store without --replace", store: some, backup: all, verified: true, err: "--replace"},
		{name: "replace", store: all, backup: some, verified: true, replace: true, remove: 2},
		{name: "unverified never removes", store: all, backup: some, replace: true, err: "never removes"},
		{name: "unverified may add", store: some, backup: all, replace: true, add: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var w restorer
			cs, err := Restore(context.Background(), &w, tc.store, tc.backup, tc.verified, tc.replace)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || w.calls != 0 {
					t.Fatalf("Restore: %v after %d writes, want a refusal saying %q and none", err, w.calls, tc.err)
				}
				return
			}
			if err != nil || w.calls != 1 || len(cs.Add) != tc.add || len(cs.Remove) != tc.remove {
				t.Fatalf("Restore: +%d -%d in %d writes, %v; want +%d -%d in one", len(cs.Add), len(cs.Remove), w.calls, err, tc.add, tc.remove)
			}
		})
	}
}
