// What the explorer can draw, each from one GraphQL query: a neighbourhood, a shortest path
// between two entities, the common link of several narrations, the timeline of the events,
// and one narration's own graph (every claim it asserts, its chain of narrators in order,
// its gradings). Each loader returns {root, nodes, edges, layout, status, truncated}: the
// nodes and edges as graph.js draws them, and a sentence saying what is drawn.
import { gql } from './api.js';

/** The views, by the name the URL gives them (?view=...). */
export const VIEWS = ['neighbourhood', 'path', 'common', 'timeline', 'narration'];

const NODE = 'id type name narrationCount';

const NEIGHBOURHOOD = `query Neighbourhood($id: ID!, $depth: Int!, $first: Int!) {
  entity(id: $id) { id name }
  neighbourhood(id: $id, depth: $depth, first: $first) {
    truncated
    pageInfo { hasNextPage }
    nodes { ${NODE} }
    edges { source target predicate attestations claim { id } }
  }
}`;

const PATH = `query Path($from: ID!, $to: ID!) {
  a: entity(id: $from) { id name }
  b: entity(id: $to) { id name }
  shortestPath(from: $from, to: $to, maxLength: 10) {
    nodes { ${NODE} }
    edges { source target predicate attestations claim { id } }
  }
}`;

const PERSON = 'id type name narrationCount';
const COMMON = `query Common($ids: [ID!]!) {
  commonLink(narrations: $ids) {
    person { ${PERSON} }
    sharedRoute { ${PERSON} }
    positions { position narration { id type name narrationCount } branch { ${PERSON} } }
  }
}`;

const TIMELINE = `query Timeline {
  timeline(first: 200) { ${NODE} }
}`;

const NARRATION = `query NarrationGraph($id: ID!, $after: String) {
  narration(id: $id) {
    ${NODE}
    routes { ${PERSON} }
    gradings { position graderName verdict grader { ${PERSON} } }
    attestedClaims(first: 100, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes {
        id predicate value attestationCount
        subject { ${NODE} }
        object { ${NODE} }
      }
    }
  }
}`;

/** The largest neighbourhood drawn at once; "Expand" adds more around a node. */
export const NEIGHBOURHOOD_FIRST = 200;

/** The neighbourhood of id, depth steps out. */
export async function neighbourhood(id, depth) {
  const data = await gql(NEIGHBOURHOOD, { id, depth, first: NEIGHBOURHOOD_FIRST });
  if (!data.entity) return null;
  const nb = data.neighbourhood;
  return {
    root: id,
    rootName: data.entity.name,
    nodes: nb.nodes,
    edges: nb.edges,
    layout: 'cose',
    truncated: nb.truncated || nb.pageInfo.hasNextPage,
    status: `depth ${depth}`,
  };
}

/** The neighbours of id, to add to a drawing (Expand). */
export async function neighbours(id) {
  const data = await gql(NEIGHBOURHOOD, { id, depth: 1, first: NEIGHBOURHOOD_FIRST });
  return { nodes: data.neighbourhood.nodes, edges: data.neighbourhood.edges };
}

/** A shortest path from one entity to another, in order. */
export async function path(from, to) {
  const data = await gql(PATH, { from, to });
  if (!data.a || !data.b) return null;
  const p = data.shortestPath;
  if (!p) {
    return { root: from, rootName: data.a.name, nodes: [{ ...data.a, type: '', order: 0 }], edges: [], layout: 'column', status: `no path to ${data.b.name} within 10 steps` };
  }
  return {
    root: from,
    rootName: data.a.name,
    nodes: p.nodes.map((n, i) => ({ ...n, order: i })),
    edges: p.edges,
    layout: 'column',
    status: `shortest path to ${data.b.name}: ${p.nodes.length - 1} ${p.nodes.length === 2 ? 'step' : 'steps'}`,
  };
}

/**
 * The common link of the narrations: each narration's own branch of its route, down to the
 * common link, then the route they share to the source. Drawn as a tree from the narrations.
 */
export async function commonLink(ids) {
  const data = await gql(COMMON, { ids });
  const cl = data.commonLink;
  if (!cl) return { root: '', rootName: '', nodes: [], edges: [], layout: 'breadthfirst', status: 'these narrations share no one in their routes' };
  const nodes = new Map();
  const edges = new Map();
  const node = (p, extra = {}) => {
    if (!nodes.has(p.id)) nodes.set(p.id, { ...p, ...extra });
  };
  const edge = (a, b, predicate, classes) => {
    const id = `${a} ${predicate} ${b}`;
    if (a !== b && !edges.has(id)) edges.set(id, { id, source: a, target: b, predicate, attestations: 1, classes });
  };
  node(cl.person);
  for (const pos of cl.positions) {
    node(pos.narration);
    let prev = pos.narration.id;
    for (const p of pos.branch) {
      node(p);
      edge(prev, p.id, 'from', 'chain');
      prev = p.id;
    }
    edge(prev, cl.person.id, 'from', 'chain');
  }
  let prev = cl.person.id;
  for (const p of cl.sharedRoute) {
    node(p);
    edge(prev, p.id, 'from', 'chain');
    prev = p.id;
  }
  return {
    root: cl.person.id,
    rootName: cl.person.name,
    nodes: [...nodes.values()],
    edges: [...edges.values()],
    layout: 'breadthfirst',
    roots: cl.positions.map((p) => p.narration.id),
    status: `the common link of ${ids.length} narrations`,
  };
}

/** Every event in chronological order, joined one to the next. */
export async function timeline() {
  const data = await gql(TIMELINE);
  const events = data.timeline;
  return {
    root: events[0]?.id ?? '',
    rootName: 'Timeline',
    nodes: events.map((e, i) => ({ ...e, order: i })),
    edges: events.slice(1).map((e, i) => ({ id: `then ${i}`, source: events[i].id, target: e.id, predicate: 'then', attestations: 1, classes: 'sequence' })),
    layout: 'column',
    status: `${events.length} events in order`,
  };
}

/** The largest number of claims of one narration drawn. */
export const NARRATION_CLAIMS = 500;

/**
 * One narration's own graph: every claim it asserts (subject to object, or to its value),
 * its chain of narrators in order (its first route; further routes join it), and each
 * grading of it.
 */
export async function narration(id) {
  let data = await gql(NARRATION, { id });
  const n = data.narration;
  if (!n) return null;
  const claims = [...n.attestedClaims.nodes];
  let page = n.attestedClaims.pageInfo;
  while (page.hasNextPage && claims.length < NARRATION_CLAIMS) {
    data = await gql(NARRATION, { id, after: page.endCursor });
    claims.push(...data.narration.attestedClaims.nodes);
    page = data.narration.attestedClaims.pageInfo;
  }
  const nodes = new Map([[n.id, { id: n.id, type: n.type, name: n.name, narrationCount: n.narrationCount }]]);
  const edges = new Map();
  const node = (x, extra = {}) => {
    if (!nodes.has(x.id)) nodes.set(x.id, { ...x, ...extra });
    else if (extra.order != null && nodes.get(x.id).order == null) nodes.get(x.id).order = extra.order;
  };
  const edge = (e) => {
    const id = e.claim?.id ?? e.id;
    if (!edges.has(id)) edges.set(id, { id, ...e });
  };
  // The chain: the narration from its compiler's teacher, and so on to the source.
  n.routes.forEach((route, r) => {
    let prev = n.id;
    route.forEach((p, i) => {
      node(p, r === 0 ? { order: i + 1 } : {});
      edge({ id: `route ${r} ${i}`, source: prev, target: p.id, predicate: 'from', attestations: 1, classes: 'chain' });
      prev = p.id;
    });
  });
  for (const c of claims) {
    node(c.subject);
    let target;
    if (c.object) {
      node(c.object);
      target = c.object.id;
    } else {
      target = `value:${c.id}`;
      node({ id: target, type: 'Value', name: c.value ?? '', weight: c.attestationCount });
    }
    edge({ source: c.subject.id, target, predicate: c.predicate, attestations: c.attestationCount, claim: { id: c.id } });
  }
  for (const g of n.gradings) {
    const gid = `grading:${n.id}:${g.position}`;
    node({ id: gid, type: 'Grading', name: `${g.graderName}: ${g.verdict}`, weight: 1 });
    edge({ id: `${gid} grades`, source: gid, target: n.id, predicate: 'grades', attestations: 1 });
    if (g.grader) {
      node(g.grader);
      edge({ id: `${gid} by`, source: g.grader.id, target: gid, predicate: 'gave', attestations: 1 });
    }
  }
  const total = n.attestedClaims.totalCount;
  return {
    root: n.id,
    rootName: n.name,
    nodes: [...nodes.values()],
    edges: [...edges.values()],
    layout: 'cose',
    truncated: claims.length < total,
    status: `${claims.length === total ? 'every one' : `${claims.length}`} of the ${total} claims it asserts, its chain of ${n.routes[0]?.length ?? 0} narrators${n.gradings.length ? ` and ${n.gradings.length} ${n.gradings.length === 1 ? 'grading' : 'gradings'}` : ''}`,
  };
}
