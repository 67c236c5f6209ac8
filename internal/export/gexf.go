package export

import (
	"io"
	"strconv"
)

// WriteGEXF writes sg as GEXF 1.3 (https://gexf.net/), a static directed graph. Nodes have
// their primary name as label and a declared "type" attribute; edges have a declared
// "predicate" attribute, the predicate as label and as kind (so that Gephi keeps two
// relations between the same entities apart instead of merging them), and the number of
// attestations as weight. Node ids are entity ids and edge ids claim ids (see EdgeID). It
// is written for Gephi 0.9.3 and later (the first to read GEXF 1.3 fully) and
// graphology-gexf (web/exportcheck loads it with the latter).
func WriteGEXF(w io.Writer, sg *Subgraph) error {
	sw := newStickyWriter(w)
	sw.str(`<?xml version="1.0" encoding="UTF-8"?>
<gexf xmlns="http://gexf.net/1.3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://gexf.net/1.3 http://gexf.net/1.3/gexf.xsd" version="1.3">
  <meta>
    <creator>Athar</creator>
  </meta>
  <graph defaultedgetype="directed" mode="static">
    <attributes class="node">
      <attribute id="type" title="type" type="string"/>
    </attributes>
    <attributes class="edge">
      <attribute id="predicate" title="predicate" type="string"/>
    </attributes>
    <nodes count="`, strconv.Itoa(len(sg.Nodes)), `">`, "\n")
	for _, n := range sg.Nodes {
		sw.str(`      <node id="`, xmlEscape(string(n.ID)), `" label="`, xmlEscape(n.Name), `">`, "\n",
			"        <attvalues>\n",
			`          <attvalue for="type" value="`, xmlEscape(string(n.Type)), `"/>`, "\n",
			"        </attvalues>\n",
			"      </node>\n")
	}
	sw.str("    </nodes>\n", `    <edges count="`, strconv.Itoa(len(sg.Edges)), `">`, "\n")
	for _, e := range sg.Edges {
		p := xmlEscape(e.Predicate)
		sw.str(`      <edge id="`, xmlEscape(string(EdgeID(e))), `" source="`, xmlEscape(string(e.Source)),
			`" target="`, xmlEscape(string(e.Target)), `" kind="`, p, `" label="`, p,
			`" weight="`, strconv.Itoa(e.Attestations), `">`, "\n",
			"        <attvalues>\n",
			`          <attvalue for="predicate" value="`, p, `"/>`, "\n",
			"        </attvalues>\n",
			"      </edge>\n")
	}
	sw.str("    </edges>\n  </graph>\n</gexf>\n")
	return sw.flush()
}
