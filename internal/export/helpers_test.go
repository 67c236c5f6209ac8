package export_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/export"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/testsupport"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata from the current output")

// seeded returns a memory store holding every seed narration.
func seeded(t *testing.T) *cayleystore.Store {
	t.Helper()
	return storeWith(t, seeds.Files())
}

// fixture returns a memory store holding the made-up narrations testdata/fixture-*.yaml.
func fixture(t *testing.T) *cayleystore.Store {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "fixture-*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no testdata/fixture-*.yaml: %v", err)
	}
	var files []seeds.File
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, seeds.File{Name: p, Data: data})
	}
	return storeWith(t, files)
}

// storeWith returns a memory store holding the documents, imported in dependency order.
func storeWith(t *testing.T, files []seeds.File) *cayleystore.Store {
	t.Helper()
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var docs []*narration.Document
	for _, f := range files {
		d, err := narration.Parse(f.Name, f.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		docs = append(docs, d)
	}
	im := ingest.NewLocal(st, schema.Vocabulary())
	for _, d := range narration.Order(docs) {
		if _, err := im.Import(context.Background(), d); err != nil {
			t.Fatalf("%s: %v", d.Source, err)
		}
	}
	return st
}

// writeNQuads is the N-Quads writer the CLI and the HTTP handler pass to export.Write.

// fileName is the file a test writes an export of name in format to: name and the
// format's extension, but ".gexf12" for GEXF 1.2 (whose extension, .gexf, is GEXF 1.3's).
func fileName(name, format string) string {
	if format == export.GEXF12 {
		return name + ".gexf12"
	}
	return name + export.Extension(format)
}

// golden compares got with testdata/name, or rewrites the file under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testsupport.Golden(t, filepath.Join("testdata", name), got, *update)
}

func itoa(n int) string { return string(appendInt(nil, n)) }

func appendInt(b []byte, n int) []byte {
	if n >= 10 {
		b = appendInt(b, n/10)
	}
	return append(b, byte('0'+n%10))
}

func sortStrings(ss []string) { sort.Strings(ss) }
