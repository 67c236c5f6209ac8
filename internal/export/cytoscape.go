package export

import (
	"bytes"
	"encoding/json"
	"io"
)

type cyNode struct {
	Data cyNodeData `json:"data"`
}

type cyNodeData struct {
	ID     string   `json:"id"`
	Label  string   `json:"label"`
	Type   string   `json:"type"`
	Arabic []string `json:"arabic"`
}

type cyEdge struct {
	Data cyEdgeData `json:"data"`
}

type cyEdgeData struct {
	ID           string   `json:"id"`
	Source       string   `json:"source"`
	Target       string   `json:"target"`
	Predicate    string   `json:"predicate"`
	Attestations int      `json:"attestations"`
	Routes       int      `json:"routes"`
	Narrations   []string `json:"narrations"`
	Titles       []string `json:"titles"`
	Gradings     []string `json:"gradings"`
}

// WriteCytoscape writes sg as Cytoscape.js elements JSON, the shape cytoscape({elements})
// and Cytoscape's .cyjs import take:
//
//	{"elements":{"nodes":[{"data":{"id","label","type","arabic"}},...],
//	             "edges":[{"data":{"id","source","target","predicate","attestations",
//	                               "routes","narrations","titles","gradings"}},...]}}
//
// Node ids are entity ids (event:badr), labels their primary names, types their entity
// types, arabic their names in Arabic script (a list, maybe empty). Edge ids are claim ids
// (see EdgeID); attestations is the number of narrations asserting the relation, routes the
// independent routes among them, narrations and titles their ids and titles (lists in the
// same order) and gradings each graded narration's gradings ("narration:x: grade
// (grader)"). One element per line, in the order of sg.
func WriteCytoscape(w io.Writer, sg *Subgraph) error {
	sw := newStickyWriter(w)
	sw.str(`{"elements":{"nodes":[`)
	for i, n := range sg.Nodes {
		sw.str(sep(i), "\n")
		sw.bytes(compactJSON(sw, cyNode{cyNodeData{ID: string(n.ID), Label: n.Name, Type: string(n.Type), Arabic: arabic(n)}}))
	}
	sw.str("\n", `],"edges":[`)
	for i, e := range sg.Edges {
		a := sg.attrs(e)
		sw.str(sep(i), "\n")
		sw.bytes(compactJSON(sw, cyEdge{cyEdgeData{
			ID: string(EdgeID(e)), Source: string(e.Source), Target: string(e.Target),
			Predicate: e.Predicate, Attestations: e.Attestations,
			Routes: a.routes, Narrations: a.narrations, Titles: a.titles, Gradings: a.gradings,
		}}))
	}
	sw.str("\n", "]}}\n")
	return sw.flush()
}

func sep(i int) string {
	if i == 0 {
		return ""
	}
	return ","
}

// compactJSON encodes v on one line, without escaping <, > and & (the output is data, not
// HTML). An encoding error is kept by sw.
func compactJSON(sw *stickyWriter, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		sw.fail(err)
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
