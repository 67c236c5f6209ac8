// The drawing: Cytoscape.js, nodes coloured and shaped by entity type (shape too, so the
// legend reads without colour vision) and sized by how many narrations attest them.
//
// The controller createGraph returns draws a view (show), grows and prunes it in place
// (expand, hide, filter), keeps every earlier state of it for undo, lays it out four ways,
// keeps its labels legible at any zoom (relabel), and renders it as PNG or SVG.
import cytoscape from 'cytoscape';
import fcose from 'cytoscape-fcose';
import svg from 'cytoscape-svg';

cytoscape.use(fcose);
cytoscape.use(svg);

/** Entity types in legend order, with their colour (Okabe-Ito palette) and node shape. */
export const types = [
  { type: 'Person', color: '#0072B2', shape: 'ellipse' },
  { type: 'Group', color: '#56B4E9', shape: 'hexagon' },
  { type: 'Event', color: '#D55E00', shape: 'round-rectangle' },
  { type: 'Place', color: '#009E73', shape: 'round-triangle' },
  { type: 'Concept', color: '#CC79A7', shape: 'diamond' },
  { type: 'Verse', color: '#E69F00', shape: 'star' },
  { type: 'Narration', color: '#6B6B6B', shape: 'round-tag' },
  // Not entities: what a narration's own graph adds (a literal value it gives, a grading).
  { type: 'Value', color: '#A0A0AA', shape: 'rectangle' },
  { type: 'Grading', color: '#882255', shape: 'pentagon' },
];

/** The layouts offered, by name: cose is the default of a neighbourhood. */
export const layouts = [
  { name: 'cose', label: 'Force (fCoSE)' },
  { name: 'breadthfirst', label: 'Tree' },
  { name: 'concentric', label: 'Rings around the centre' },
  { name: 'column', label: 'In order (a column)' },
];

const FONT = '"Noto Sans", "Noto Naskh Arabic", system-ui, sans-serif';

/** No label is drawn smaller than this many CSS pixels: it is hidden instead. */
export const MIN_LABEL_PX = 11;
// A label longer than this is shortened (…) until the reader zooms in.
const SHORT_LABEL = 28;

function style() {
  const s = [
    {
      selector: 'node',
      style: {
        label: 'data(display)',
        'font-family': FONT,
        'font-size': 'data(fs)',
        color: '#1d1d1f',
        'text-valign': 'bottom',
        'text-margin-y': 4,
        'text-wrap': 'wrap',
        'text-max-width': 'data(tmw)',
        'text-background-color': '#ffffff',
        'text-background-opacity': 0.85,
        'text-background-padding': 2,
        'text-background-shape': 'round-rectangle',
        width: 'data(size)',
        height: 'data(size)',
        'border-width': 2,
        'border-color': '#ffffff',
        'background-color': '#888888',
      },
    },
    { selector: 'node.root', style: { 'font-weight': 600, 'border-color': '#1d1d1f', 'border-width': 3 } },
    { selector: 'node.side', style: { 'text-valign': 'center', 'text-halign': 'right', 'text-margin-x': 6, 'text-margin-y': 0 } },
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
        'font-size': 'data(fs)',
        color: '#55555c',
        'text-rotation': 'autorotate',
        'text-background-color': '#ffffff',
        'text-background-opacity': 0.85,
        'text-background-padding': 1,
      },
    },
    { selector: 'edge.labelled', style: { label: 'data(predicate)' } },
    { selector: 'edge.sequence', style: { 'line-style': 'dashed', 'line-color': '#8c8c96', 'target-arrow-color': '#8c8c96' } },
    { selector: 'edge.chain', style: { 'line-color': '#0072B2', 'target-arrow-color': '#0072B2', width: 3 } },
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
    { selector: '.filtered', style: { display: 'none' } },
  ];
  for (const t of types) {
    s.push({ selector: `node[type = "${t.type}"]`, style: { 'background-color': t.color, shape: t.shape } });
  }
  return s;
}

const LABEL_ALL_EDGES = 12;

/** The node's size in model units: by the narrations attesting it (its weight). */
function nodeSize(weight, root) {
  const s = Math.min(60, 20 + 7 * Math.sqrt(Math.max(0, weight)));
  return root ? Math.max(40, s) : s;
}

function shorten(name) {
  const cps = Array.from(name);
  return cps.length > SHORT_LABEL ? `${cps.slice(0, SHORT_LABEL - 2).join('').trimEnd()}…` : name;
}

/**
 * A view to draw: nodes {id, type, name, weight?, classes?} and edges {source, target,
 * predicate, attestations, claim?: {id}, classes?}, as the API's Subgraph gives them.
 */
function nodeElement(n, rootId) {
  const classes = [n.id === rootId ? 'root' : '', n.classes ?? ''].join(' ').trim();
  return {
    group: 'nodes',
    data: { id: n.id, label: n.name, display: n.name, type: n.type, weight: n.weight ?? n.narrationCount ?? 0, fs: 12, tmw: 140, size: 26, order: n.order },
    classes,
  };
}

function edgeElement(e) {
  return {
    group: 'edges',
    data: {
      id: e.claim?.id ?? e.id ?? `${e.source} ${e.predicate} ${e.target}`,
      claim: e.claim?.id,
      source: e.source,
      target: e.target,
      predicate: e.predicate,
      attestations: e.attestations ?? 1,
      fs: 10,
    },
    classes: e.classes ?? '',
  };
}

/**
 * Draws the graph in container and returns a controller. onNode(id) and onEdge(claimId)
 * are called when the user taps a node or an edge; onBackground when they tap the empty
 * canvas; onExpand(id) when they double-tap a node; onChange() after anything changes
 * what is drawn (show, expand, hide, filter, undo).
 */
export function createGraph(container, { onNode, onEdge, onBackground, onExpand, onChange }) {
  const cy = cytoscape({
    container,
    style: style(),
    minZoom: 0.1,
    maxZoom: 4,
    // Cytoscape's own wheel speed: the explorer once set a third of it (0.3), which took
    // ten notches to zoom 1.11 times.
    boxSelectionEnabled: false,
    autoungrabify: false,
  });
  let rootId = '';
  let layoutName = 'cose';
  // The roots of the tree layout when the view names them (a common link's narrations).
  let treeRoots = null;
  let selected = cy.collection();
  const hiddenTypes = new Set();
  const hiddenPredicates = new Set();
  const undoStack = [];
  // Whether the reader has zoomed or panned since the last fit: until they do, the drawing
  // is fitted again whenever the canvas changes size (a phone's details pane arriving, a
  // rotated screen).
  let userMoved = false;

  // Edge labels are drawn for every edge while there are few enough to read, and
  // otherwise for the selected edge and the edges of the selected node.
  const labelEdges = () => {
    const edges = cy.edges(':visible');
    cy.edges().removeClass('labelled');
    if (edges.length <= LABEL_ALL_EDGES) {
      edges.addClass('labelled');
    } else if (selected.nonempty()) {
      selected.union(selected.connectedEdges()).edges().addClass('labelled');
    }
  };

  // Labels by zoom and importance: every label drawn is at least MIN_LABEL_PX on screen
  // (its font grows in the model as the view zooms out), and a label is drawn only where it
  // does not cover one already placed, placed in order of importance: the centre, the
  // selected node and its neighbours, then by narrations attesting, then by degree. So at
  // fit the important names are legible and the rest appear as the reader zooms in. Long
  // names are shortened until then too.
  const relabel = () => {
    const z = cy.zoom();
    const nodes = cy.nodes(':visible');
    // A column has room to the right of its nodes: its names are not shortened.
    const side = layoutName === 'column';
    const short = !side && z < 1.5 && nodes.length > 8;
    const fs = Math.max(12, MIN_LABEL_PX / z);
    const px = fs * z; // the labels' size on screen
    const tmw = Math.max(side ? 220 : 140, (side ? 260 : 150) / z);
    const maxW = tmw * z;
    const near = selected.nonempty() ? selected.closedNeighborhood().nodes() : cy.collection();
    const importance = (n) =>
      (n.hasClass('root') ? 1e9 : 0) + (near.contains(n) ? 1e8 : 0) + n.data('weight') * 1000 + n.degree();
    const ranked = nodes.toArray().sort((a, b) => importance(b) - importance(a) || (a.id() < b.id() ? -1 : 1));
    const placed = [];
    const labelled = new Set();
    const w = cy.width();
    const h = cy.height();
    for (const n of ranked) {
      const root = n.hasClass('root');
      const p = n.renderedPosition();
      const text = short && !root ? shorten(n.data('label')) : n.data('label');
      // The label's box on screen, estimated from its length: under the node, or right of it.
      const textW = Array.from(text).length * px * 0.56;
      const lines = Math.ceil(textW / maxW);
      const bw = Math.min(textW, maxW) + 6;
      const bh = lines * px * 1.3 + 4;
      const r = (nodeSize(n.data('weight'), root) * z) / 2;
      const box = n.hasClass('side')
        ? { x1: p.x + r + 4, y1: p.y - bh / 2, x2: p.x + r + 4 + bw, y2: p.y + bh / 2 }
        : { x1: p.x - bw / 2, y1: p.y + r + 2, x2: p.x + bw / 2, y2: p.y + r + 2 + bh };
      if (!root && (box.x1 < 0 || box.y1 < 0 || box.x2 > w || box.y2 > h)) continue; // cut by the edge
      if (!root && placed.some((o) => box.x1 < o.x2 && o.x1 < box.x2 && box.y1 < o.y2 && o.y1 < box.y2)) continue;
      placed.push(box);
      labelled.add(n.id());
    }
    cy.batch(() => {
      for (const n of nodes) {
        const root = n.hasClass('root');
        const show = labelled.has(n.id());
        const name = n.data('label');
        n.data({
          display: show ? (short && !root ? shorten(name) : name) : '',
          fs: root ? Math.max(14, fs * 1.1) : fs,
          tmw,
          size: nodeSize(n.data('weight'), root),
        });
      }
      const efs = Math.max(10, (MIN_LABEL_PX - 1) / z);
      cy.edges().data('fs', efs);
    });
  };
  let relabelFrame = 0;
  const relabelSoon = () => {
    if (relabelFrame) return;
    relabelFrame = requestAnimationFrame(() => {
      relabelFrame = 0;
      relabel();
    });
  };
  cy.on('zoom pan', relabelSoon);
  cy.on('scrollzoom pinchzoom dragpan', () => {
    userMoved = true;
  });

  // Fits the nodes, not their labels: a label keeps its size on screen (relabel), so a fit
  // that counted labels would shrink the drawing the more, the more it zooms out. The
  // margins leave room for labels under the nodes, or to their right in a column.
  const fit = () => {
    const nodes = cy.nodes(':visible');
    if (nodes.empty()) return;
    const bb = nodes.boundingBox({ includeLabels: false, includeOverlays: false });
    const side = layoutName === 'column';
    const narrow = cy.width() < 500;
    const m = { left: side ? 20 : narrow ? 40 : 70, right: side ? Math.min(240, cy.width() * 0.55) : narrow ? 40 : 70, top: 20, bottom: side ? 20 : 40 };
    const w = Math.max(1, cy.width() - m.left - m.right);
    const h = Math.max(1, cy.height() - m.top - m.bottom);
    const zoom = Math.max(cy.minZoom(), Math.min(1.6, w / Math.max(1, bb.w), h / Math.max(1, bb.h)));
    cy.viewport({
      zoom,
      pan: {
        x: m.left + (w - bb.w * zoom) / 2 - bb.x1 * zoom,
        y: m.top + (h - bb.h * zoom) / 2 - bb.y1 * zoom,
      },
    });
    userMoved = false;
    relabel();
  };
  new ResizeObserver(() => {
    cy.resize();
    if (!userMoved && cy.nodes().nonempty()) fit();
  }).observe(container);

  cy.on('tap', 'node', (ev) => onNode(ev.target.id()));
  cy.on('dbltap', 'node', (ev) => onExpand?.(ev.target.id()));
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

  const applyFilter = () => {
    cy.batch(() => {
      cy.elements().removeClass('filtered');
      cy.nodes().filter((n) => hiddenTypes.has(n.data('type')) && !n.hasClass('root')).addClass('filtered');
      cy.edges().filter((e) => hiddenPredicates.has(e.data('predicate')) || e.source().hasClass('filtered') || e.target().hasClass('filtered')).addClass('filtered');
      // An entity joined to the view only by relations filtered out goes with them.
      cy.nodes()
        .filter((n) => !n.hasClass('root') && !n.hasClass('filtered') && n.connectedEdges().nonempty() && n.connectedEdges().every((e) => e.hasClass('filtered')))
        .addClass('filtered');
    });
  };

  const snapshot = () => ({
    root: rootId,
    elements: cy.elements().jsons(),
    hiddenTypes: [...hiddenTypes],
    hiddenPredicates: [...hiddenPredicates],
    zoom: cy.zoom(),
    pan: { ...cy.pan() },
  });
  const remember = () => {
    undoStack.push(snapshot());
    if (undoStack.length > 50) undoStack.shift();
  };
  const changed = () => {
    labelEdges();
    relabel();
    onChange?.();
  };

  const runLayout = (name, { fresh }) => {
    const visible = cy.elements(':visible');
    if (visible.empty()) return;
    layout(cy, visible, rootId, name, { fresh, roots: treeRoots });
    fit();
  };

  const controller = {
    cy,
    /** Replaces the drawing with view {nodes, edges} around rootId, laid out by layoutName. */
    show(root, { nodes, edges, roots }, { layout: name = 'cose' } = {}) {
      rootId = root;
      treeRoots = roots ?? null;
      layoutName = name;
      undoStack.length = 0;
      hiddenTypes.clear();
      hiddenPredicates.clear();
      cy.elements().remove();
      cy.add(nodes.map((n) => nodeElement(n, root)));
      const ids = new Set(nodes.map((n) => n.id));
      cy.add(edges.filter((e) => ids.has(e.source) && ids.has(e.target)).map(edgeElement));
      selected = cy.collection();
      relabel();
      runLayout(layoutName, { fresh: true });
      changed();
    },
    /** Adds view {nodes, edges} to the drawing around node id; returns how many nodes it added. */
    expand(id, { nodes, edges }) {
      remember();
      const at = cy.getElementById(id);
      const c = at.nonempty() ? at.position() : { x: 0, y: 0 };
      const fresh = nodes.filter((n) => cy.getElementById(n.id).empty());
      cy.add(
        fresh.map((n, i) => ({
          ...nodeElement(n, rootId),
          position: { x: c.x + 120 * Math.cos((2 * Math.PI * i) / fresh.length), y: c.y + 120 * Math.sin((2 * Math.PI * i) / fresh.length) },
        })),
      );
      cy.add(edges.filter((e) => cy.getElementById(edgeElement(e).data.id).empty()).map(edgeElement));
      applyFilter();
      runLayout(layoutName, { fresh: false });
      changed();
      return fresh.length;
    },
    /** Removes the nodes (and their relations) from the drawing; the centre stays. */
    hide(ids) {
      const gone = cy.collection(ids.map((id) => cy.getElementById(id))).filter((n) => !n.hasClass('root'));
      if (gone.empty()) return 0;
      remember();
      gone.remove();
      selected = selected.filter((x) => !x.removed());
      changed();
      return gone.length;
    },
    /** Shows only the entity types and predicates not in hideTypes and hidePredicates. */
    filter({ hideTypes = [], hidePredicates = [] }) {
      remember();
      hiddenTypes.clear();
      hideTypes.forEach((t) => hiddenTypes.add(t));
      hiddenPredicates.clear();
      hidePredicates.forEach((p) => hiddenPredicates.add(p));
      applyFilter();
      changed();
    },
    hidden() {
      return { types: new Set(hiddenTypes), predicates: new Set(hiddenPredicates) };
    },
    canUndo() {
      return undoStack.length > 0;
    },
    /** Takes the drawing back to before the last expand, hide or filter. */
    undo() {
      const s = undoStack.pop();
      if (!s) return false;
      cy.elements().remove();
      cy.add(s.elements);
      hiddenTypes.clear();
      s.hiddenTypes.forEach((t) => hiddenTypes.add(t));
      hiddenPredicates.clear();
      s.hiddenPredicates.forEach((p) => hiddenPredicates.add(p));
      applyFilter();
      selected = cy.$(':selected');
      cy.viewport({ zoom: s.zoom, pan: s.pan });
      changed();
      return true;
    },
    /** Lays the drawing out again with the named layout (layouts). */
    setLayout(name) {
      layoutName = name;
      runLayout(name, { fresh: true });
      relabel();
    },
    layoutName() {
      return layoutName;
    },
    /** Marks one node or edge as selected (none for null), and names its relations. */
    select(id) {
      cy.elements().unselect();
      selected = id ? cy.getElementById(id) : cy.collection();
      selected.select();
      labelEdges();
      relabel();
    },
    /** Emphasises the edge of a claim while the reader looks at the claim. */
    hover(id, on) {
      cy.getElementById(id).toggleClass('hover', on);
    },
    fit,
    counts() {
      return { nodes: cy.nodes(':visible').length, edges: cy.edges(':visible').length };
    },
    has(id) {
      return cy.getElementById(id).nonempty();
    },
    /** The ids of the drawn nodes of a type. */
    idsOfType(type) {
      return cy.nodes(':visible').filter((n) => n.data('type') === type).map((n) => n.id());
    },
    typesShown() {
      return new Set(cy.nodes(':visible').map((n) => n.data('type')));
    },
    /** Every type and predicate drawn, hidden by the filter or not. */
    typesDrawn() {
      return [...new Set(cy.nodes().map((n) => n.data('type')))];
    },
    predicatesDrawn() {
      return [...new Set(cy.edges().map((e) => e.data('predicate')))].sort();
    },
    /** The drawing, whole, as a PNG Blob at twice its size on screen (at most 4096 px wide). */
    png() {
      const bb = cy.elements(':visible').boundingBox();
      const scale = Math.min(2, 4096 / Math.max(1, bb.w), 4096 / Math.max(1, bb.h));
      return cy.png({ output: 'blob-promise', full: true, bg: '#ffffff', scale });
    },
    /** The drawing, whole, as SVG text. */
    svg() {
      // cytoscape-svg's canvas2svg logs an error for each fill Cytoscape makes right after a
      // label without beginning a path; the fill has nothing to draw, the SVG is whole.
      // The message is kept out of the console (the browser test fails on console errors).
      const error = console.error;
      console.error = (...args) => {
        if (args[0] !== 'Attempted to apply path command to node') error(...args);
      };
      try {
        return cy.svg({ full: true, bg: '#ffffff', scale: 1 });
      } finally {
        console.error = error;
      }
    },
  };
  return controller;
}

// The layouts. cose starts from rings around the root by distance (breadth-first) and fCoSE
// refines it without randomising, so the same view is always drawn the same way; column
// puts the nodes in their given order (data order: a path, a chain, a timeline) top to
// bottom, their labels to the right.
function layout(cy, eles, rootId, name, { fresh, roots }) {
  const nodes = eles.nodes();
  const root = cy.getElementById(rootId);
  const depth = new Map();
  if (root.nonempty()) {
    eles.bfs({ roots: root, directed: false, visit: (v, e, u, i, d) => depth.set(v.id(), d) });
  }
  nodes.removeClass('side');
  const common = { animate: false, fit: false, padding: 30 };
  if (name === 'column') {
    const ordered = nodes.toArray().sort((a, b) => (a.data('order') ?? 1e9) - (b.data('order') ?? 1e9) || (depth.get(a.id()) ?? 99) - (depth.get(b.id()) ?? 99) || (a.id() < b.id() ? -1 : 1));
    nodes.addClass('side');
    const pos = new Map(ordered.map((n, i) => [n.id(), { x: 0, y: i * 70 }]));
    nodes.layout({ name: 'preset', positions: (n) => pos.get(n.id()), ...common }).run();
    return;
  }
  if (name === 'breadthfirst') {
    const from = roots ? cy.collection(roots.map((id) => cy.getElementById(id))).filter((n) => eles.contains(n)) : root;
    eles.layout({ name: 'breadthfirst', roots: from.nonempty() ? from : undefined, directed: !!roots, spacingFactor: 1.1, avoidOverlap: true, ...common }).run();
    return;
  }
  if (name === 'concentric') {
    eles.layout({ name: 'concentric', concentric: (n) => 10 - (depth.get(n.id()) ?? 9), levelWidth: () => 1, minNodeSpacing: 40, avoidOverlap: true, ...common }).run();
    return;
  }
  if (root.empty()) {
    eles.layout({ name: 'grid', ...common }).run();
    return;
  }
  if (fresh) {
    const ids = nodes.map((n) => n.id()).sort();
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
  }
  // Nodes the view gives an order (a narration's chain) stay in a column left of the rest.
  const fixed = [{ nodeId: rootId, position: { x: 0, y: 0 } }];
  const chain = nodes.filter((n) => n.data('order') != null && n.id() !== rootId).sort((a, b) => a.data('order') - b.data('order'));
  chain.forEach((n, i) => fixed.push({ nodeId: n.id(), position: { x: -420, y: (i - (chain.length - 1) / 2) * 90 } }));
  const many = nodes.length > 20;
  eles.layout({
    name: 'fcose',
    quality: 'proof',
    randomize: false,
    nodeDimensionsIncludeLabels: true,
    // Larger views get more room, so that their labels stay apart.
    idealEdgeLength: many ? 170 : 140,
    nodeRepulsion: many ? 30000 : 9000,
    edgeElasticity: 0.3,
    gravity: 0.2,
    numIter: 2500,
    fixedNodeConstraint: fixed,
    ...common,
  }).run();
}
