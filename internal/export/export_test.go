package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/piprate/json-gold/ld"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/export"
)

// TestGolden keeps the exports of a few selections, byte for byte, in testdata as NAME + the
// format's extension. They come from the made-up narrations, so that the seeds can grow
// without touching these files.
func TestGolden(t *testing.T) {
	st := fixture(t)
	tests := []struct {
		name string
		opts *export.Options // nil for the empty subgraph
	}{
		{"fixture-all", &export.Options{}},
		{"fixture-badr", &export.Options{Root: "event:badr"}},
		{"fixture-badr-participants", &export.Options{Root: "event:badr", Depth: 2, Predicates: []string{"participatedIn"}}},
		{"fixture-isolated", &export.Options{Root: "person:c"}},
		{"empty", nil},
	}
	for _, gc := range tests {
		sg := &export.Subgraph{}
		if gc.opts != nil {
			var err error
			if sg, err = export.Select(context.Background(), st, *gc.opts); err != nil {
				t.Fatal(err)
			}
		}
		for _, f := range export.Formats() {
			t.Run(gc.name+"/"+f, func(t *testing.T) {
				var buf bytes.Buffer
				if err := export.Write(&buf, f, sg); err != nil {
					t.Fatal(err)
				}
				golden(t, fileName(gc.name, f), buf.Bytes())
			})
		}
	}
}

func TestFormats(t *testing.T) {
	tests := []struct {
		format, contentType, extension string
	}{
		{"cytoscape", "application/json", ".cyjs"},
		{"graphml", "application/graphml+xml", ".graphml"},
		{"gexf", "application/gexf+xml", ".gexf"},
		{"gexf12", "application/gexf+xml", ".gexf"},
		{"jsonld", "application/ld+json", ".jsonld"},
		{"nquads", "application/n-quads", ".nq"},
		{"dot", "", ""},
		{"", "", ""},
	}
	var known []string
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			if got := export.ContentType(tc.format); got != tc.contentType {
				t.Errorf("ContentType = %q, want %q", got, tc.contentType)
			}
			if got := export.Extension(tc.format); got != tc.extension {
				t.Errorf("Extension = %q, want %q", got, tc.extension)
			}
		})
		if tc.contentType != "" {
			known = append(known, tc.format)
		}
	}
	if got := export.Formats(); !reflect.DeepEqual(got, known) {
		t.Errorf("Formats() = %q, want %q", got, known)
	}
	export.Formats()[0] = "changed"
	if export.Formats()[0] != known[0] {
		t.Error("changing the slice Formats returned changed the registry")
	}
}

func TestWriteUnknownFormat(t *testing.T) {
	var buf bytes.Buffer
	err := export.Write(&buf, "dot", &export.Subgraph{})
	if athar.ErrorCode(err) != athar.Invalid {
		t.Fatalf("error %v: code %s, want %s", err, athar.ErrorCode(err), athar.Invalid)
	}
	want := `export: unknown format "dot": expected one of cytoscape, graphml, gexf, gexf12, jsonld, nquads`
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	if buf.Len() != 0 {
		t.Errorf("wrote %d bytes for an unknown format", buf.Len())
	}
}

// failingWriter accepts limit bytes, then fails every write, counting the writes it refused.
type failingWriter struct {
	limit, written, refused int
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.written+len(p) > w.limit {
		n := w.limit - w.written
		w.written = w.limit
		w.refused++
		return n, errDiskFull
	}
	w.written += len(p)
	return len(p), nil
}

// TestEncodersStopAtTheFirstError checks the sticky error: each encoder returns the first
// write error and makes no further write after it, wherever it happens.
func TestEncodersStopAtTheFirstError(t *testing.T) {
	sg, err := export.Select(context.Background(), seeded(t), export.Options{Root: "event:badr", Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range export.Formats() {
		var full bytes.Buffer
		if err := export.Write(&full, f, sg); err != nil {
			t.Fatal(err)
		}
		for _, limit := range []int{0, 1, 4095, 4096, full.Len() / 2, full.Len() - 1} {
			t.Run(f+"/"+itoa(limit), func(t *testing.T) {
				w := &failingWriter{limit: limit}
				if err := export.Write(w, f, sg); !errors.Is(err, errDiskFull) {
					t.Fatalf("error %v, want %v", err, errDiskFull)
				}
				if w.refused != 1 {
					t.Errorf("%d writes after the first error, want none", w.refused-1)
				}
			})
		}
	}
}

// TestJSONLDIsTheNQuads converts the JSON-LD export back to RDF with json-gold and compares
// it with the subgraph's quads, statement by statement.
func TestJSONLDIsTheNQuads(t *testing.T) {
	ctx := context.Background()
	stores := map[string]athar.Store{"fixture": fixture(t), "seeds": seeded(t)}
	tests := []struct {
		store string
		opts  export.Options
	}{
		{"fixture", export.Options{}},
		{"fixture", export.Options{Root: "person:c"}},
		{"seeds", export.Options{}},
		{"seeds", export.Options{Root: "event:badr", Depth: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.store+"/"+string(tc.opts.Root), func(t *testing.T) {
			sg, err := export.Select(ctx, stores[tc.store], tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := export.WriteJSONLD(&buf, sg); err != nil {
				t.Fatal(err)
			}
			var doc any
			if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			opts := ld.NewJsonLdOptions("")
			opts.ProcessingMode = ld.JsonLd_1_1
			rdf, err := ld.NewJsonLdProcessor().ToRDF(doc, opts)
			if err != nil {
				t.Fatal(err)
			}
			ds, ok := rdf.(*ld.RDFDataset)
			if !ok {
				t.Fatalf("ToRDF gave %T", rdf)
			}
			var got []string
			for label, qs := range ds.Graphs {
				if label == "@default" && len(qs) > 0 {
					t.Errorf("%d statements in the default graph; every statement belongs to a narration", len(qs))
				}
				for _, q := range qs {
					got = append(got, fromLD(t, q, label).Key())
				}
			}
			want := keys(sg.Quads)
			sortStrings(got)
			sortStrings(want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the JSON-LD holds %d statements, the subgraph %d quads\n%s", len(got), len(want), setDiff(want, got))
			}
		})
	}
}

func fromLD(t *testing.T, q *ld.Quad, label string) athar.Quad {
	t.Helper()
	out := athar.Quad{Subject: q.Subject.GetValue(), Predicate: q.Predicate.GetValue(), Label: label}
	switch o := q.Object.(type) {
	case ld.IRI:
		out.Object = athar.IRITerm(o.Value)
	case ld.Literal:
		out.Object = athar.Term{Literal: o.Value, Lang: o.Language}
		if o.Language == "" && o.Datatype != athar.XSDString {
			out.Object.Datatype = o.Datatype
		}
	default:
		t.Fatalf("object %T %v: Athar has no blank nodes", q.Object, q.Object)
	}
	return out
}

func setDiff(want, got []string) string {
	in := func(ss []string) map[string]bool {
		m := map[string]bool{}
		for _, s := range ss {
			m[s] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, s := range want {
		if !g[s] {
			b.WriteString("  missing: " + s + "\n")
		}
	}
	for _, s := range got {
		if !w[s] {
			b.WriteString("  extra:   " + s + "\n")
		}
	}
	return b.String()
}

// TestXMLIsWellFormed reads every GraphML and GEXF golden file with a strict XML decoder,
// and checks the root element and its namespace.
func TestXMLIsWellFormed(t *testing.T) {
	roots := map[string]xml.Name{
		".graphml": {Space: "http://graphml.graphdrawing.org/xmlns", Local: "graphml"},
		".gexf":    {Space: "http://gexf.net/1.3", Local: "gexf"},
		".gexf12":  {Space: "http://www.gexf.net/1.2draft", Local: "gexf"},
	}
	for ext, root := range roots {
		paths, err := filepath.Glob(filepath.Join("testdata", "*"+ext))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no testdata/*%s: %v", ext, err)
		}
		for _, p := range paths {
			t.Run(filepath.Base(p), func(t *testing.T) {
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				dec := xml.NewDecoder(bytes.NewReader(data))
				var first *xml.Name
				for {
					tok, err := dec.Token()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("not well-formed: %v", err)
					}
					if se, ok := tok.(xml.StartElement); ok && first == nil {
						first = &se.Name
					}
				}
				if first == nil || *first != root {
					t.Errorf("root element %v, want %v", first, root)
				}
			})
		}
	}
}
