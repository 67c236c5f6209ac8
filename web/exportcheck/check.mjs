// Loads Athar's exports in the libraries visualisation and linked-data tools use, and checks
// that each gives the graph Athar meant. Run by internal/export's TestConsumers:
//
//   node web/exportcheck/check.mjs DIR
//
// DIR holds, for each case NAME, the files NAME.cyjs, NAME.graphml, NAME.gexf, NAME.gexf12
// (GEXF 1.2draft), NAME.jsonld
// and NAME.nq (one subgraph in every format), and NAME.expect.json with the counts Athar
// selected: {"nodes": N, "edges": M, "quads": Q, "graphs": G}. For each case it checks that
//
//   - cytoscape (headless) loads the elements with N nodes and M edges, and no edge names a
//     node that is not there;
//   - graphology's GraphML and GEXF (1.3 and 1.2draft) parsers give the same N nodes and M edges, with the
//     same ids, labels, types, Arabic names, predicates, attestation counts and provenance
//     (routes, attesting narrations, their titles and gradings) as the Cytoscape export,
//     whose edges list one narration per attestation;
//   - n3's parser reads Q quads from the N-Quads;
//   - jsonld.js turns the JSON-LD into G named graphs and exactly the N-Quads export's
//     statements (compared term by term, so that a literal escaped differently is the
//     same; the report says whether the sorted lines are also the same bytes).
//
// It prints one line per case and exits 1 after the first failing case, naming what failed.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

import cytoscape from 'cytoscape';
import graphology from 'graphology';
import graphml from 'graphology-graphml';
import gexf from 'graphology-gexf';
import jsonld from 'jsonld';
import N3 from 'n3';

const { Graph } = graphology;

class CheckError extends Error {}

function check(ok, message) {
  if (!ok) throw new CheckError(message);
}

function equal(got, want, what) {
  check(got === want, `${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

// The graph as the Cytoscape export describes it, keyed by id, for comparing the others.
function cytoscapeGraph(name, text, expect) {
  const doc = JSON.parse(text);
  check(doc && doc.elements && Array.isArray(doc.elements.nodes) && Array.isArray(doc.elements.edges),
    `${name}.cyjs: expected {"elements": {"nodes": [...], "edges": [...]}}`);
  const cy = cytoscape({ headless: true, styleEnabled: false, elements: doc.elements });
  equal(cy.nodes().length, expect.nodes, `${name}.cyjs: cytoscape node count`);
  equal(cy.edges().length, expect.edges, `${name}.cyjs: cytoscape edge count`);
  const nodes = new Map();
  for (const { data } of doc.elements.nodes) {
    check(!nodes.has(data.id), `${name}.cyjs: node ${data.id} twice`);
    check(Array.isArray(data.arabic), `${name}.cyjs: node ${data.id} has no arabic list`);
    nodes.set(data.id, { label: data.label, type: data.type, arabic: data.arabic.join(' | ') });
  }
  const edges = new Map();
  for (const { data } of doc.elements.edges) {
    check(!edges.has(data.id), `${name}.cyjs: edge ${data.id} twice`);
    for (const end of [data.source, data.target]) {
      check(nodes.has(end), `${name}.cyjs: edge ${data.id} is dangling: no node ${end}`);
      check(cy.getElementById(end).nonempty(), `${name}.cyjs: cytoscape has no node ${end} for edge ${data.id}`);
    }
    check(Array.isArray(data.narrations) && data.narrations.length === data.attestations,
      `${name}.cyjs: edge ${data.id} lists ${JSON.stringify(data.narrations)} for ${data.attestations} attestations`);
    check(data.routes >= 1 && data.routes <= data.attestations,
      `${name}.cyjs: edge ${data.id} has ${data.routes} routes for ${data.attestations} attestations`);
    edges.set(data.id, {
      source: data.source, target: data.target, predicate: data.predicate, attestations: data.attestations,
      routes: data.routes, narrations: data.narrations.join(' | '), titles: data.titles.join(' | '),
      gradings: data.gradings.join(' | '),
    });
  }
  cy.edges().forEach((e) => {
    check(e.source().nonempty() && e.target().nonempty(), `${name}.cyjs: cytoscape edge ${e.id()} is dangling`);
  });
  cy.destroy();
  return { nodes, edges };
}

// sameGraph compares a graphology graph with the Cytoscape export's; attrs maps a
// graphology edge's attributes to the Cytoscape export's names.
function sameGraph(file, graph, want, edgeAttrs) {
  equal(graph.order, want.nodes.size, `${file}: node count`);
  equal(graph.size, want.edges.size, `${file}: edge count`);
  graph.forEachNode((id, a) => {
    const w = want.nodes.get(id);
    check(w, `${file}: node ${id} is not in the Cytoscape export`);
    equal(a.label, w.label, `${file}: label of ${id}`);
    equal(a.type, w.type, `${file}: type of ${id}`);
    equal(a.arabic, w.arabic, `${file}: arabic of ${id}`);
  });
  graph.forEachEdge((id, a, source, target) => {
    const w = want.edges.get(id);
    check(w, `${file}: edge ${id} is not in the Cytoscape export`);
    const got = { source, target, ...edgeAttrs(a) };
    for (const k of Object.keys(w)) equal(got[k], w[k], `${file}: ${k} of edge ${id}`);
  });
}

// termKey identifies a parsed quad by its terms' values, so that two spellings of the same
// literal (an escaped or a raw character) are the same statement.
function termKey(q) {
  const term = (t) => [t.termType, t.value, t.datatype ? t.datatype.value : '', t.language || ''];
  return JSON.stringify([q.subject, q.predicate, q.object, q.graph].map(term));
}

function sortedLines(text) {
  // Comments (the export's trailer, "# athar-export end ...") are not statements.
  return text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).sort();
}

async function checkCase(dir, name) {
  const read = (ext) => readFile(path.join(dir, name + ext), 'utf8');
  const expect = JSON.parse(await read('.expect.json'));

  const want = cytoscapeGraph(name, await read('.cyjs'), expect);

  const fromGraphML = graphml.parse(Graph, await read('.graphml'));
  const provenance = (a) => ({ routes: a.routes, narrations: a.narrations, titles: a.titles, gradings: a.gradings });
  sameGraph(`${name}.graphml`, fromGraphML, want, (a) => ({ predicate: a.predicate, attestations: a.attestations, ...provenance(a) }));

  const fromGEXF = gexf.parse(Graph, await read('.gexf'));
  sameGraph(`${name}.gexf`, fromGEXF, want, (a) => ({ predicate: a.predicate, attestations: a.weight, ...provenance(a) }));
  fromGEXF.forEachEdge((id, a) => equal(a.kind, a.predicate, `${name}.gexf: kind of edge ${id}`));

  const fromGEXF12 = gexf.parse(Graph, await read('.gexf12'));
  sameGraph(`${name}.gexf12`, fromGEXF12, want, (a) => ({ predicate: a.predicate, attestations: a.weight, ...provenance(a) }));

  const nquads = await read('.nq');
  const quads = new N3.Parser({ format: 'N-Quads' }).parse(nquads);
  equal(quads.length, expect.quads, `${name}.nq: n3 quad count`);
  const graphs = new Set(quads.map((q) => q.graph.value));
  equal(graphs.size, expect.graphs, `${name}.nq: named graphs (narrations)`);

  const doc = JSON.parse(await read('.jsonld'));
  const rdf = await jsonld.toRDF(doc, {
    format: 'application/n-quads',
    documentLoader: async (url) => {
      throw new Error(`the export must not need a remote document, yet it asked for ${url}`);
    },
  });
  const fromJSONLD = new N3.Parser({ format: 'N-Quads' }).parse(rdf);
  const got = fromJSONLD.map(termKey).sort();
  const wantKeys = quads.map(termKey).sort();
  const gotSet = new Set(got);
  const wantSet = new Set(wantKeys);
  const missing = quads.filter((q) => !gotSet.has(termKey(q)));
  const extra = fromJSONLD.filter((q) => !wantSet.has(termKey(q)));
  check(missing.length === 0 && extra.length === 0 && got.length === wantKeys.length,
    `${name}.jsonld: jsonld.toRDF gives ${got.length} statements, ${name}.nq has ${wantKeys.length}: ` +
    `${missing.length} missing, ${extra.length} extra` +
    (missing.length ? `\n  first missing: ${JSON.stringify(missing[0])}` : '') +
    (extra.length ? `\n  first extra:   ${JSON.stringify(extra[0])}` : ''));
  const jsonldGraphs = new Set(fromJSONLD.map((q) => q.graph.value));
  equal(jsonldGraphs.size, expect.graphs, `${name}.jsonld: named graphs (narrations)`);
  // Both sides are N-Quads; they may only differ in how a literal's characters are escaped
  // (jsonld.js escapes control characters that Cayley writes as they are).
  const sameBytes = sortedLines(rdf).join('\n') === sortedLines(nquads).join('\n');

  return `${name}: ${expect.nodes} nodes, ${expect.edges} edges, ${expect.quads} quads in ${expect.graphs} graphs: ` +
    'cytoscape, graphology-graphml, graphology-gexf (1.3 and 1.2), n3 and jsonld agree' +
    (sameBytes ? ' (JSON-LD to N-Quads: the same bytes)' : ' (JSON-LD to N-Quads: the same statements, escaped differently)');
}

async function main() {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node check.mjs DIR');
    process.exit(2);
  }
  const names = (await readdir(dir)).filter((f) => f.endsWith('.expect.json')).map((f) => f.slice(0, -'.expect.json'.length)).sort();
  if (names.length === 0) {
    console.error(`${dir}: no NAME.expect.json files: nothing to check`);
    process.exit(2);
  }
  for (const name of names) {
    try {
      console.log(await checkCase(dir, name));
    } catch (err) {
      console.error(err instanceof CheckError ? `FAIL ${err.message}` : `FAIL ${name}: ${err.stack || err}`);
      process.exit(1);
    }
  }
}

await main();
