// The neighbourhood drawing: Cytoscape.js with the fCoSE layout, nodes coloured and shaped
// by entity type (shape too, so the legend reads without colour vision).
import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';

cytoscape.use(fcose);

/** Entity types in legend order, with their colour (Okabe-Ito palette) and node shape. */
export const types = [
  { type: 'Person', color: '#0072B2', shape: 'ellipse' },
  { type: 'Group', color: '#56B4E9', shape: 'hexagon' },
  { type: 'Event', color: '#D55E00', shape: 'round-rectangle' },
  { type: 'Place', color: '#009E73', shape: 'round-triangle' },
  { type: 'Concept', color: '#CC79A7', shape: 'diamond' },
  { type: 'Verse', color: '#E69F00', shape: 'star' },
  { type: 'Narration', color: '#6B6B6B', shape: 'round-tag' },
];

const FONT = '"Noto Sans", "Noto Naskh Arabic", system-ui, sans-serif';

function style() {
  const s = [
    {
      selector: 'node',
      style: {
        label: 'data(label)',
        'font-family': FONT,
        'font-size': 12,
        color: '#1d1d1f',
        'text-valign': 'bottom',
        'text-margin-y': 5,
        'text-wrap': 'wrap',
        'text-max-width': 130,
        'text-background-color': '#ffffff',
        'text-background-opacity': 0.85,
        'text-background-padding': 2,
        'text-background-shape': 'round-rectangle',
        width: 26,
        height: 26,
        'border-width': 2,
        'border-color': '#ffffff',
        'background-color': '#888888',
      },
    },
    {
      selector: 'node.root',
      style: { width: 40, height: 40, 'font-size': 14, 'font-weight': 600, 'border-color': '#1d1d1f', 'border-width': 3 },
    },
    {
      selector: 'edge',
      style: {
        width: 'mapData(attestations, 1, 6, 1.5, 5)',
        'line-color': '#b5b5bd',
        'target-arrow-color': '#b5b5bd',
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.9,
        'curve-style': 'bezier',
        'control-point-step-size': 50,
        'font-family': FONT,
        'font-size': 10,
        color: '#55555c',
        'text-rotation': 'autorotate',
        'text-background-color': '#ffffff',
        'text-background-opacity': 0.85,
        'text-background-padding': 1,
      },
    },
    { selector: 'edge.labelled', style: { label: 'data(predicate)' } },
    {
      selector: 'node:selected',
      style: { 'border-color': '#ffbf00', 'border-width': 5, 'overlay-opacity': 0 },
    },
    {
      selector: 'edge:selected, edge.hover',
      style: {
        label: 'data(predicate)',
        'line-color': '#1d1d1f',
        'target-arrow-color': '#1d1d1f',
        color: '#1d1d1f',
        'font-weight': 600,
        'z-index': 10,
        'overlay-opacity': 0,
      },
    },
    { selector: '.faded', style: { opacity: 0.25 } },
  ];
  for (const t of types) {
    s.push({ selector: `node[type = "${t.type}"]`, style: { 'background-color': t.color, shape: t.shape } });
  }
  return s;
}

const LABEL_ALL_EDGES = 12;

/**
 * Draws the graph in container and returns a controller. onNode(id) and onEdge(claimId)
 * are called when the user taps a node or an edge; onBackground when they tap the empty
 * canvas.
 */
export function createGraph(container, { onNode, onEdge, onBackground }) {
  const cy = cytoscape({
    container,
    style: style(),
    minZoom: 0.2,
    maxZoom: 3,
    wheelSensitivity: 0.3,
    boxSelectionEnabled: false,
    autoungrabify: false,
  });
  let selected = cy.collection();
  // Edge labels are drawn for every edge while there are few enough to read, and
  // otherwise for the selected edge and the edges of the selected node.
  const labelEdges = () => {
    const edges = cy.edges();
    edges.removeClass('labelled');
    if (edges.length <= LABEL_ALL_EDGES) {
      edges.addClass('labelled');
    } else if (selected.nonempty()) {
      selected.union(selected.connectedEdges()).edges().addClass('labelled');
    }
  };
  cy.on('tap', 'node', (ev) => onNode(ev.target.id()));
  cy.on('tap', 'edge', (ev) => {
    if (ev.target.data('claim')) onEdge(ev.target.data('claim'));
  });
  cy.on('tap', (ev) => {
    if (ev.target === cy) onBackground();
  });
  // Hovering a node brings its relations forward.
  cy.on('mouseover', 'node', (ev) => {
    const near = ev.target.closedNeighborhood();
    cy.elements().not(near).addClass('faded');
    near.edges().addClass('labelled');
  });
  cy.on('mouseout', 'node', () => {
    cy.elements().removeClass('faded');
    labelEdges();
  });

  return {
    /** Replaces the drawing with the subgraph {nodes, edges} around rootId. */
    show(rootId, { nodes, edges }) {
      cy.elements().remove();
      cy.add(nodes.map((n) => ({ group: 'nodes', data: { id: n.id, label: n.name, type: n.type }, classes: n.id === rootId ? 'root' : '' })));
      cy.add(
        edges.map((e) => ({
          group: 'edges',
          data: {
            id: e.claim?.id ?? `${e.source} ${e.predicate} ${e.target}`,
            claim: e.claim?.id,
            source: e.source,
            target: e.target,
            predicate: e.predicate,
            attestations: e.attestations,
          },
        })),
      );
      selected = cy.collection();
      labelEdges();
      layout(cy, rootId);
    },
    /** Marks one node or edge as selected (none for null), and names its relations. */
    select(id) {
      cy.elements().unselect();
      selected = id ? cy.getElementById(id) : cy.collection();
      selected.select();
      labelEdges();
    },
    /** Emphasises the edge of a claim while the reader looks at the claim. */
    hover(id, on) {
      cy.getElementById(id).toggleClass('hover', on);
    },
    fit() {
      cy.fit(undefined, 40);
    },
    counts() {
      return { nodes: cy.nodes().length, edges: cy.edges().length };
    },
    typesShown() {
      return new Set(cy.nodes().map((n) => n.data('type')));
    },
  };
}

// The layout starts from rings around the root by distance (breadth-first), and fCoSE
// refines it without randomising, so the same neighbourhood is always drawn the same way.
function layout(cy, rootId) {
  const root = cy.getElementById(rootId);
  if (root.empty()) {
    cy.layout({ name: 'grid' }).run();
    return;
  }
  const depth = new Map();
  cy.elements().bfs({
    roots: root,
    directed: false,
    visit: (v, e, u, i, d) => {
      depth.set(v.id(), d);
    },
  });
  const ids = cy.nodes().map((n) => n.id()).sort();
  const rings = new Map();
  for (const id of ids) {
    const d = depth.get(id) ?? 1;
    if (!rings.has(d)) rings.set(d, []);
    rings.get(d).push(id);
  }
  for (const [d, members] of rings) {
    members.forEach((id, i) => {
      const angle = (2 * Math.PI * i) / members.length + d * 0.5;
      const r = d * 180;
      cy.getElementById(id).position({ x: r * Math.cos(angle), y: r * Math.sin(angle) });
    });
  }
  cy.layout({
    name: 'fcose',
    quality: 'proof',
    randomize: false,
    animate: false,
    fit: true,
    padding: 40,
    nodeDimensionsIncludeLabels: true,
    // Larger neighbourhoods get more room, so that their labels stay apart.
    idealEdgeLength: cy.nodes().length > 20 ? 170 : 140,
    nodeRepulsion: cy.nodes().length > 20 ? 30000 : 9000,
    edgeElasticity: 0.3,
    gravity: 0.2,
    numIter: 2500,
    fixedNodeConstraint: [{ nodeId: rootId, position: { x: 0, y: 0 } }],
  }).run();
}
