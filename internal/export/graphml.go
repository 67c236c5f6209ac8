package export

import (
	"io"
	"strconv"
)

// WriteGraphML writes sg as GraphML (http://graphml.graphdrawing.org/), directed, with
// declared keys: label, type and arabic on nodes; predicate, attestations (int), routes
// (int), narrations, titles and gradings on edges -- the lists of Cytoscape JSON joined by
// " | " (see WriteCytoscape for what each holds). Node
// ids are entity ids and edge ids claim ids (see EdgeID); both are valid XML name tokens.
// It is written for Gephi, yEd and graphology-graphml (web/exportcheck loads it with the
// last); parallel edges (two relations between the same entities) are kept apart by id.
func WriteGraphML(w io.Writer, sg *Subgraph) error {
	sw := newStickyWriter(w)
	sw.str(`<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">
  <key id="label" for="node" attr.name="label" attr.type="string"/>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="arabic" for="node" attr.name="arabic" attr.type="string"/>
  <key id="predicate" for="edge" attr.name="predicate" attr.type="string"/>
  <key id="attestations" for="edge" attr.name="attestations" attr.type="int"/>
  <key id="routes" for="edge" attr.name="routes" attr.type="int"/>
  <key id="narrations" for="edge" attr.name="narrations" attr.type="string"/>
  <key id="titles" for="edge" attr.name="titles" attr.type="string"/>
  <key id="gradings" for="edge" attr.name="gradings" attr.type="string"/>
  <graph id="athar" edgedefault="directed">
`)
	for _, n := range sg.Nodes {
		sw.str(`    <node id="`, xmlEscape(string(n.ID)), `">`, "\n",
			`      <data key="label">`, xmlEscape(n.Name), "</data>\n",
			`      <data key="type">`, xmlEscape(string(n.Type)), "</data>\n",
			`      <data key="arabic">`, xmlEscape(joinList(n.Arabic)), "</data>\n",
			"    </node>\n")
	}
	for _, e := range sg.Edges {
		a := sg.attrs(e)
		sw.str(`    <edge id="`, xmlEscape(string(EdgeID(e))), `" source="`, xmlEscape(string(e.Source)),
			`" target="`, xmlEscape(string(e.Target)), `">`, "\n",
			`      <data key="predicate">`, xmlEscape(e.Predicate), "</data>\n",
			`      <data key="attestations">`, strconv.Itoa(e.Attestations), "</data>\n",
			`      <data key="routes">`, strconv.Itoa(a.routes), "</data>\n",
			`      <data key="narrations">`, xmlEscape(joinList(a.narrations)), "</data>\n",
			`      <data key="titles">`, xmlEscape(joinList(a.titles)), "</data>\n",
			`      <data key="gradings">`, xmlEscape(joinList(a.gradings)), "</data>\n",
			"    </edge>\n")
	}
	sw.str("  </graph>\n</graphml>\n")
	return sw.flush()
}
