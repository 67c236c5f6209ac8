package export

import (
	"io"
	"strconv"
)

// WriteGEXF writes sg as GEXF 1.3 (https://gexf.net/), a static directed graph. Nodes have
// their primary name as label and declared "type" and "arabic" attributes; edges have
// declared "predicate", "routes", "narrations", "titles" and "gradings" attributes (the
// lists of WriteCytoscape joined by " | "), the predicate as label and as kind (so that
// Gephi keeps two relations between the same entities apart instead of merging them), and
// the number of attestations as weight. Node ids are entity ids and edge ids claim ids (see EdgeID). It
// is written for Gephi 0.9.3 and later (the first to read GEXF 1.3 fully) and
// graphology-gexf (web/exportcheck loads it with the latter).
func WriteGEXF(w io.Writer, sg *Subgraph) error {
	return writeGEXF(w, sg, `<gexf xmlns="http://gexf.net/1.3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd" version="1.3">`)
}

// WriteGEXF12 writes sg as WriteGEXF does, in GEXF 1.2draft, the namespace NetworkX's
// read_gexf reads (2.8, Debian's, refuses 1.3: "No <graph> element"; 3.6 reads both), as
// do Gephi and graphology-gexf.
// The elements and attributes are the same; only the namespace and version differ.
func WriteGEXF12(w io.Writer, sg *Subgraph) error {
	return writeGEXF(w, sg, `<gexf xmlns="http://www.gexf.net/1.2draft" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.gexf.net/1.2draft http://www.gexf.net/1.2draft/gexf.xsd" version="1.2">`)
}

// writeGEXF writes sg as GEXF under the root element start tag root.
func writeGEXF(w io.Writer, sg *Subgraph, root string) error {
	sw := newStickyWriter(w)
	sw.str(`<?xml version="1.0" encoding="UTF-8"?>
`, root, `
  <meta>
    <creator>Athar</creator>
  </meta>
  <graph defaultedgetype="directed" mode="static">
    <attributes class="node">
      <attribute id="type" title="type" type="string"/>
      <attribute id="arabic" title="arabic" type="string"/>
    </attributes>
    <attributes class="edge">
      <attribute id="predicate" title="predicate" type="string"/>
      <attribute id="routes" title="routes" type="integer"/>
      <attribute id="narrations" title="narrations" type="string"/>
      <attribute id="titles" title="titles" type="string"/>
      <attribute id="gradings" title="gradings" type="string"/>
    </attributes>
    <nodes count="`, strconv.Itoa(len(sg.Nodes)), `">`, "\n")
	for _, n := range sg.Nodes {
		sw.str(`      <node id="`, xmlEscape(string(n.ID)), `" label="`, xmlEscape(n.Name), `">`, "\n",
			"        <attvalues>\n",
			`          <attvalue for="type" value="`, xmlEscape(string(n.Type)), `"/>`, "\n",
			`          <attvalue for="arabic" value="`, xmlEscape(joinList(n.Arabic)), `"/>`, "\n",
			"        </attvalues>\n",
			"      </node>\n")
	}
	sw.str("    </nodes>\n", `    <edges count="`, strconv.Itoa(len(sg.Edges)), `">`, "\n")
	for _, e := range sg.Edges {
		a := sg.attrs(e)
		p := xmlEscape(e.Predicate)
		sw.str(`      <edge id="`, xmlEscape(string(EdgeID(e))), `" source="`, xmlEscape(string(e.Source)),
			`" target="`, xmlEscape(string(e.Target)), `" kind="`, p, `" label="`, p,
			`" weight="`, strconv.Itoa(e.Attestations), `">`, "\n",
			"        <attvalues>\n",
			`          <attvalue for="predicate" value="`, p, `"/>`, "\n",
			`          <attvalue for="routes" value="`, strconv.Itoa(a.routes), `"/>`, "\n",
			`          <attvalue for="narrations" value="`, xmlEscape(joinList(a.narrations)), `"/>`, "\n",
			`          <attvalue for="titles" value="`, xmlEscape(joinList(a.titles)), `"/>`, "\n",
			`          <attvalue for="gradings" value="`, xmlEscape(joinList(a.gradings)), `"/>`, "\n",
			"        </attvalues>\n",
			"      </edge>\n")
	}
	sw.str("    </edges>\n  </graph>\n</gexf>\n")
	return sw.flush()
}
