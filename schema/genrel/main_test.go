package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGeneratedFilesAreCurrent fails when the vocabulary changed and `go generate ./graph`
// was not run: the committed SDL and resolvers must be what genrel writes now.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	dir := t.TempDir()
	sdl, src := filepath.Join(dir, "relations.graphqls"), filepath.Join(dir, "relations_gen.go")
	if err := run(sdl, src); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ got, committed string }{
		{sdl, "../relations.graphqls"},
		{src, "../../graph/relations_gen.go"},
	} {
		got, err := os.ReadFile(f.got)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(f.committed)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s is stale: run go generate ./graph", f.committed)
		}
	}
}
