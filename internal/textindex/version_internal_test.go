package textindex

import (
	"path/filepath"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

// An index written with another schema version is refused with CONFLICT, so that its owner
// removes it and builds it again (graph.OpenTextIndex).
func TestOpenRefusesAnotherVersion(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "texts")
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.bx.SetInternal([]byte(keyVersion), []byte("0")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); athar.ErrorCode(err) != athar.Conflict {
		t.Fatalf("Open of a version 0 index: %v", err)
	}
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
}
