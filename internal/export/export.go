// Package export writes the graph, or the neighbourhood of one entity, in the formats
// visualisation and linked-data tools load: Cytoscape.js elements JSON, GraphML, GEXF 1.3
// (and 1.2draft, for NetworkX), JSON-LD (one named graph per narration) and N-Quads.
//
// Select chooses what to export; Write encodes it. The encoders are pure functions of the
// Subgraph: they stream to an io.Writer, keep the first write error (later writes do
// nothing), and give the same bytes for the same subgraph. The graph formats (cytoscape,
// graphml, gexf, gexf12) carry entities and relations; the RDF formats (jsonld, nquads) carry the
// quads with their provenance, and describe the same selection (see Subgraph).
//
// N-Quads bytes come from the store package's writer (the only one that imports Cayley),
// which the caller passes to Write.
package export

import (
	"io"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

// The formats, by the names users give them.
const (
	Cytoscape = "cytoscape"
	GraphML   = "graphml"
	GEXF      = "gexf"
	GEXF12    = "gexf12" // GEXF 1.2draft, for NetworkX
	JSONLD    = "jsonld"
	NQuads    = "nquads"
)

type format struct {
	name        string
	contentType string
	extension   string
	write       func(io.Writer, *Subgraph) error
}

// formats is the registry, in the order Formats lists it. It is never modified.
var formats = []format{
	{Cytoscape, "application/json", ".cyjs", WriteCytoscape},
	{GraphML, "application/graphml+xml", ".graphml", WriteGraphML},
	{GEXF, "application/gexf+xml", ".gexf", WriteGEXF},
	{GEXF12, "application/gexf+xml", ".gexf", WriteGEXF12},
	{JSONLD, "application/ld+json", ".jsonld", WriteJSONLD},
	{NQuads, "application/n-quads", ".nq", writeNQuads},
}

func writeNQuads(w io.Writer, sg *Subgraph) error {
	return cayleystore.WriteNQuadsSealed(w, sg.Quads)
}

func lookup(name string) (format, bool) {
	for _, f := range formats {
		if f.name == name {
			return f, true
		}
	}
	return format{}, false
}

// Formats returns the names of the supported formats.
func Formats() []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = f.name
	}
	return out
}

// ContentType returns the media type to serve a format with, "" for an unknown format.
func ContentType(format string) string {
	f, _ := lookup(format)
	return f.contentType
}

// Extension returns the file name extension for a format (with its dot, e.g. ".gexf"),
// "" for an unknown format.
func Extension(format string) string {
	f, _ := lookup(format)
	return f.extension
}

// Write encodes sg to w in the named format. N-Quads are written by the store's encoder
// (cayleystore.WriteNQuadsSealed, which uses Cayley's, the same that reads them back) in the
// order given, ended by the trailer that tells a whole export from a cut one.
//
// An unknown format is an *athar.Error with code Invalid naming the supported formats,
// returned before anything is written. Write errors are returned as they are.
func Write(w io.Writer, format string, sg *Subgraph) error {
	f, ok := lookup(format)
	if !ok {
		return athar.E("export", athar.Invalid, "unknown format %q: expected one of %s", format, strings.Join(Formats(), ", "))
	}
	return f.write(w, sg)
}

// ParsePredicates splits a comma-separated list of predicate names and checks each against
// the vocabulary; unknown names are an Invalid error naming them. Empty input means all.
func ParsePredicates(vocab *athar.Vocabulary, list string) ([]string, error) {
	var out, unknown []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if _, ok := vocab.Predicate(p); !ok {
			unknown = append(unknown, p)
			continue
		}
		out = append(out, p)
	}
	if len(unknown) > 0 {
		return nil, athar.E("export", athar.Invalid, "unknown predicate(s) %s: see the vocabulary (GraphQL `predicates`, docs/vocabulary.md)", strings.Join(unknown, ", "))
	}
	return out, nil
}
