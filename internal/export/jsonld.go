package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/piprate/json-gold/ld"

	"github.com/athar-hadith/athar/internal/athar"
)

// Namespaces the JSON-LD context declares besides Athar's own.
const (
	nsRDF  = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsRDFS = "http://www.w3.org/2000/01/rdf-schema#"
	nsSKOS = "http://www.w3.org/2004/02/skos/core#"
	nsXSD  = "http://www.w3.org/2001/XMLSchema#"
)

// jsonldContext returns the @context of the JSON-LD export (see WriteJSONLD). The kinds of
// node with a prefix of their own are those of the entity id prefixes, claims and
// attestations. Each call returns a new map.
func jsonldContext() map[string]any {
	c := map[string]any{
		"@vocab": athar.VocabBase,
		"athar":  athar.Base,
		"vocab":  athar.VocabBase,
		"rdf":    nsRDF,
		"rdfs":   nsRDFS,
		"skos":   nsSKOS,
		"xsd":    nsXSD,
	}
	for _, p := range append(athar.Prefixes(), athar.ClaimPrefix, athar.AttestationPrefix) {
		c[p] = athar.Base + p + "/"
	}
	return c
}

// WriteJSONLD writes sg.Quads as one JSON-LD document: an inline @context, and in its
// @graph one named graph per narration (the quads' label), in label order:
//
//	{"@context": {...}, "@graph": [{"@id": "narration:ahmad-208", "@graph": [nodes...]}, ...]}
//
// The context makes the vocabulary the @vocab (relations read "advises"), declares the
// prefixes athar (https://w3id.org/athar/), vocab, rdf, rdfs, skos and xsd, and one prefix
// per kind of node, so that ids read as the API's: "person:abu-bakr", "claim:...".
//
// Converting the document to RDF gives exactly sg.Quads, the quads of the N-Quads export of
// the same subgraph. Literals keep their lexical form: integers are {"@value": "1437",
// "@type": "xsd:integer"}, never JSON numbers. The conversion from RDF and the compaction
// are json-gold's (the W3C algorithms), run one narration at a time, so that their working
// memory grows with the largest narration rather than with the export. No document is ever
// fetched.
func WriteJSONLD(w io.Writer, sg *Subgraph) error {
	ctx := jsonldContext()
	proc := ld.NewJsonLdProcessor()
	opts := ld.NewJsonLdOptions("")
	opts.DocumentLoader = noLoader{}
	opts.ProcessingMode = ld.JsonLd_1_1

	sw := newStickyWriter(w)
	sw.str("{\n", `  "@context": `)
	sw.bytes(indentJSON(sw, ctx, "  "))
	sw.str(",\n", `  "@graph": [`)
	for i, j := 0, 0; i < len(sg.Quads) && sw.err == nil; i = j {
		label := sg.Quads[i].Label
		for j = i; j < len(sg.Quads) && sg.Quads[j].Label == label; j++ {
		}
		graph, err := compactGraph(proc, opts, ctx, label, sg.Quads[i:j])
		if err != nil {
			sw.fail(fmt.Errorf("JSON-LD of %s: %w", label, err))
			break
		}
		sw.str(sep(i), "\n    {\n", `      "@id": `)
		sw.bytes(indentJSON(sw, graph["@id"], ""))
		sw.str(",\n", `      "@graph": `)
		sw.bytes(indentJSON(sw, graph["@graph"], "      "))
		sw.str("\n    }")
	}
	sw.str("\n  ]\n}\n")
	return sw.flush()
}

// compactGraph converts one narration's quads (all labelled label, sorted) to a compacted
// named graph: a map with "@id" (the narration) and "@graph" (its node objects, always an
// array, sorted by @id).
func compactGraph(proc *ld.JsonLdProcessor, opts *ld.JsonLdOptions, ctx map[string]any, label string, qs []athar.Quad) (map[string]any, error) {
	ds := ld.NewRDFDataset()
	for _, q := range qs {
		ds.Graphs[label] = append(ds.Graphs[label], ld.NewQuad(ld.NewIRI(q.Subject), ld.NewIRI(q.Predicate), ldObject(q.Object), label))
	}
	expanded, err := ld.NewJsonLdApi().FromRDF(ds, opts)
	if err != nil {
		return nil, err
	}
	compacted, err := proc.Compact(expanded, ctx, opts)
	if err != nil {
		return nil, err
	}
	graph, ok := compacted["@graph"]
	if !ok {
		return nil, fmt.Errorf("compaction gave no @graph")
	}
	if _, isArray := graph.([]any); !isArray {
		graph = []any{graph}
	}
	return map[string]any{"@id": compacted["@id"], "@graph": graph}, nil
}

// ldObject converts a quad's object to json-gold's term, with the datatypes RDF 1.1 gives
// plain (xsd:string) and language-tagged (rdf:langString) literals.
func ldObject(t athar.Term) ld.Node {
	switch {
	case t.IsIRI():
		return ld.NewIRI(t.IRI)
	case t.Lang != "":
		return ld.NewLiteral(t.Literal, nsRDF+"langString", t.Lang)
	case t.Datatype != "":
		return ld.NewLiteral(t.Literal, t.Datatype, "")
	default:
		return ld.NewLiteral(t.Literal, athar.XSDString, "")
	}
}

// noLoader refuses to load documents: the export's context is inline, and an encoder must
// never reach the network.
type noLoader struct{}

func (noLoader) LoadDocument(u string) (*ld.RemoteDocument, error) {
	return nil, fmt.Errorf("JSON-LD export: refusing to load %s", u)
}

// indentJSON encodes v indented by two spaces, every line after the first prefixed by
// prefix, without escaping <, > and &. An encoding error is kept by sw.
func indentJSON(sw *stickyWriter, v any, prefix string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		sw.fail(err)
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
