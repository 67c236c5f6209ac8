// The explorer: search an entity, see its neighbourhood drawn, read the claims about it
// with the narrations attesting each one and the attested words highlighted in their text.
// The drawing grows and shrinks in place (expand, hide, filter, undo), and can show answers
// as well as neighbourhoods (views.js: a path, a common link, the timeline, a narration).
//
// The page's state lives in its URL (?id=ROOT&depth=N&select=ID or &claim=CLAIM, and
// &view=path&to=ID, view=common&n=ID,ID, view=timeline, view=narration; &layout=NAME), so
// that a view can be linked to, reloaded, and walked back with the browser's history.
// What the reader then adds or hides by hand is not in the URL.
import './fonts.css';
import './explorer.css';

import { CLAIM, ENTITY, SEARCH, exportFileName, exportFormats, exportURL, gql, narrationTexts } from './api.js';
import { createGraph, layouts, types } from './graph.js';
import { excerpt, locate } from './text.js';
import * as views from './views.js';
import { mountTextSearch } from './textsearch.js';

const $ = (sel) => document.querySelector(sel);

/** el('a', {href: '#'}, 'text', child) builds an element; text is never parsed as HTML. */
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c != null && c !== false) e.append(c);
  }
  return e;
}

const typeInfo = new Map(types.map((t) => [t.type, t]));

function badge(type) {
  const t = typeInfo.get(type);
  return el('span', { class: 'badge', style: t ? `--type-color: ${t.color}` : null }, type);
}

// --- State and navigation ---------------------------------------------------------------

const MAX_DEPTH = 3;

function readState() {
  const p = new URLSearchParams(location.search);
  const depth = Math.min(MAX_DEPTH, Math.max(1, parseInt(p.get('depth'), 10) || 1));
  const view = views.VIEWS.includes(p.get('view')) ? p.get('view') : 'neighbourhood';
  const layout = layouts.some((l) => l.name === p.get('layout')) ? p.get('layout') : '';
  return {
    id: p.get('id') || '',
    depth,
    select: p.get('select') || '',
    claim: p.get('claim') || '',
    view,
    to: p.get('to') || '',
    n: (p.get('n') || '').split(',').filter(Boolean),
    layout,
  };
}

function stateURL(s) {
  const p = new URLSearchParams();
  if (s.view && s.view !== 'neighbourhood') p.set('view', s.view);
  if (s.id) p.set('id', s.id);
  if (s.depth !== 1 && (!s.view || s.view === 'neighbourhood')) p.set('depth', String(s.depth));
  if (s.view === 'path' && s.to) p.set('to', s.to);
  if (s.view === 'common' && s.n?.length) p.set('n', s.n.join(','));
  if (s.layout) p.set('layout', s.layout);
  if (s.select && s.select !== s.id) p.set('select', s.select);
  if (s.claim) p.set('claim', s.claim);
  const q = p.toString();
  return q ? `?${q}` : location.pathname;
}

/** The key of what is drawn: a state with another key redraws the graph. */
const drawKey = (s) => JSON.stringify([s.view ?? 'neighbourhood', s.id, s.view === 'neighbourhood' || !s.view ? s.depth : 0, s.to, s.n ?? []]);

let state = readState();
// Each load bumps its counter; answers to a load that was overtaken are dropped.
let graphLoad = 0;
let detailsLoad = 0;

/** Moves to state s: redraws the graph if the root or depth changed, then the details. */
function navigate(next, { push = true } = {}) {
  next = { view: 'neighbourhood', to: '', n: [], layout: '', ...next };
  const redraw = drawKey(next) !== drawKey(state) || !drawn;
  const relayout = !redraw && next.layout !== state.layout;
  state = next;
  const url = stateURL(state);
  if (url !== (location.search || location.pathname)) {
    (push ? history.pushState : history.replaceState).call(history, null, '', url);
  }
  $('#depth').value = String(state.depth);
  $('#depth').disabled = state.view !== 'neighbourhood';
  if (redraw) {
    // On a phone the details follow the drawing: a new drawing asked for from them (a path,
    // a narration, a new centre) is brought back into view.
    if ($('#graph-pane').getBoundingClientRect().top < 0) window.scrollTo({ top: 0 });
    loadGraph();
  } else if (relayout) {
    graph.setLayout(state.layout || graph.layoutName());
  }
  renderTools();
  loadDetails();
}

/** A link to another entity: a real href (new tabs work) that navigates in place on click. */
function entityLink(entity, { root = true } = {}) {
  const s = root ? { id: entity.id, depth: state.depth, layout: state.layout } : { ...state, select: entity.id, claim: '' };
  return el(
    'a',
    {
      href: stateURL(s),
      dir: 'auto',
      class: 'entity-link',
      onclick: (ev) => {
        if (ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.button !== 0) return;
        ev.preventDefault();
        navigate(s);
      },
    },
    entity.name,
  );
}

window.addEventListener('popstate', () => navigate(readState(), { push: false }));

// --- The graph --------------------------------------------------------------------------

let drawn = false;
let rootName = '';
let drawnStatus = null;
const graph = createGraph($('#graph'), {
  onNode: (id) => navigate({ ...state, select: id, claim: '' }, { push: false }),
  onEdge: (claimId) => navigate({ ...state, select: '', claim: claimId }, { push: false }),
  onBackground: () => navigate({ ...state, select: '', claim: '' }, { push: false }),
  onExpand: (id) => expand(id),
  onChange: () => {
    renderStatus();
    renderLegend();
    renderTools();
  },
});
// For the browser test and the curious: the drawing's controller (graph.cy is Cytoscape).
window.atharGraph = graph;

/** Loads and draws what the state asks for: a neighbourhood or one of the answers. */
function loadView(s) {
  switch (s.view) {
    case 'path':
      return views.path(s.id, s.to);
    case 'common':
      return views.commonLink(s.n);
    case 'timeline':
      return views.timeline();
    case 'narration':
      return views.narration(s.id);
    default:
      return views.neighbourhood(s.id, s.depth);
  }
}

async function loadGraph() {
  const n = ++graphLoad;
  const status = $('#graph-status');
  renderExports();
  const wanted = state.id || state.view === 'timeline' || (state.view === 'common' && state.n.length);
  if (!wanted) {
    drawn = false;
    drawnStatus = null;
    graph.show('', { nodes: [], edges: [] });
    status.textContent = '';
    renderLegend();
    renderTools();
    return;
  }
  status.textContent = 'Loading…';
  try {
    const v = await loadView(state);
    if (n !== graphLoad) return;
    if (!v) {
      graph.show('', { nodes: [], edges: [] });
      status.textContent = `Nothing in the graph has the id ${state.view === 'path' ? `${state.id} or ${state.to}` : state.id}.`;
      drawn = false;
      drawnStatus = null;
      renderLegend();
      renderTools();
      return;
    }
    rootName = v.rootName;
    drawnStatus = v;
    drawn = true;
    graph.show(v.root, v, { layout: state.layout || v.layout });
    graph.select(state.claim || state.select || v.root);
    renderStatus();
  } catch (err) {
    if (n !== graphLoad) return;
    status.textContent = `Could not load this: ${err.message}`;
  }
}

function renderStatus() {
  const v = drawnStatus;
  if (!v) return;
  const { nodes, edges } = graph.counts();
  $('#graph-status').replaceChildren(
    el('span', { dir: 'auto', class: 'status-root' }, v.rootName || v.root),
    ` · ${v.status} · ${nodes} ${nodes === 1 ? 'entity' : 'entities'}, ${edges} ${edges === 1 ? 'relation' : 'relations'}`,
    v.truncated ? ' (cut short: too large to draw whole)' : '',
  );
}

/** Adds the neighbours of id to the drawing. */
async function expand(id) {
  const button = $('#expand');
  button.disabled = true;
  const load = graphLoad;
  try {
    const nb = await views.neighbours(id);
    if (load !== graphLoad) return; // another view was drawn meanwhile
    const added = graph.expand(id, nb);
    $('#graph-note').textContent = added ? `Added ${added} ${added === 1 ? 'entity' : 'entities'} around ${nameOf(id)}.` : `Everything around ${nameOf(id)} is drawn already.`;
  } catch (err) {
    $('#graph-note').textContent = `Could not expand: ${err.message}`;
  } finally {
    renderTools();
  }
}

function nameOf(id) {
  return graph.cy.getElementById(id).data('label') ?? id;
}

// --- The tools above the drawing ----------------------------------------------------------

/** The node the tools act on: the selected one, when it is drawn. */
function focusNode() {
  const id = state.select || '';
  return id && graph.has(id) ? id : '';
}

function renderTools() {
  const on = drawn && graph.counts().nodes > 0;
  $('#tools').hidden = !on;
  $('#fit').hidden = !on;
  if (!on) return;
  const node = focusNode();
  const name = node ? nameOf(node) : '';
  $('#expand').disabled = !node;
  $('#expand').title = node ? `Add the neighbours of ${name}` : 'Select a node to add its neighbours';
  $('#hide').disabled = !node || node === drawnStatus?.root;
  $('#hide').title = node ? `Hide ${name}` : 'Select a node to hide it';
  $('#undo').disabled = !graph.canUndo();
  $('#layout').value = graph.layoutName();
  const narrations = graph.idsOfType('Narration');
  $('#common').disabled = narrations.length < 2;
  $('#common').title = narrations.length < 2 ? 'Needs two narrations or more in the drawing' : `Where the chains of the ${narrations.length} narrations drawn meet`;
  renderFilter();
}

function renderFilter() {
  const hidden = graph.hidden();
  const box = (kind, value, label, checked) =>
    el('label', {}, el('input', { type: 'checkbox', 'data-kind': kind, value, checked: checked || null, onchange: applyFilter }), label);
  const drawnTypes = new Set(graph.typesDrawn());
  $('#filter-body').replaceChildren(
    el('fieldset', {}, el('legend', {}, 'Types'), ...types.filter((t) => drawnTypes.has(t.type)).map((t) => box('type', t.type, t.type, !hidden.types.has(t.type)))),
    el('fieldset', {}, el('legend', {}, 'Relations'), ...graph.predicatesDrawn().map((p) => box('predicate', p, p, !hidden.predicates.has(p)))),
  );
  const n = hidden.types.size + hidden.predicates.size;
  $('#filter summary').textContent = n ? `Filter (${n} hidden)` : 'Filter';
}

function applyFilter() {
  const off = (kind) => [...document.querySelectorAll(`#filter-body input[data-kind="${kind}"]`)].filter((i) => !i.checked).map((i) => i.value);
  graph.filter({ hideTypes: off('type'), hidePredicates: off('predicate') });
}

/** Saves a Blob as a file, as a download link would. */
function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function imageName(ext) {
  const base = state.view === 'neighbourhood' ? state.id : [state.view, state.id, state.to].filter(Boolean).join('-');
  return exportFileName(base || 'view', ext);
}

function setUpTools() {
  $('#layout').replaceChildren(...layouts.map((l) => el('option', { value: l.name }, l.label)));
  $('#layout').addEventListener('change', (ev) => navigate({ ...state, layout: ev.target.value }, { push: false }));
  $('#expand').addEventListener('click', () => focusNode() && expand(focusNode()));
  $('#hide').addEventListener('click', () => {
    const id = focusNode();
    if (!id) return;
    const name = nameOf(id);
    graph.hide([id]);
    $('#graph-note').textContent = `Hid ${name}.`;
    navigate({ ...state, select: '', claim: '' }, { push: false });
  });
  $('#undo').addEventListener('click', () => {
    graph.undo();
    $('#graph-note').textContent = '';
  });
  $('#timeline').addEventListener('click', () => navigate({ view: 'timeline', id: '', depth: state.depth }));
  $('#common').addEventListener('click', () => navigate({ view: 'common', id: '', n: graph.idsOfType('Narration').sort(), depth: state.depth }));
  $('#png').addEventListener('click', async () => save(await graph.png(), imageName('.png')));
  $('#svg').addEventListener('click', () => save(new Blob([graph.svg()], { type: 'image/svg+xml' }), imageName('.svg')));
}
setUpTools();

function renderLegend() {
  const shown = graph.typesShown();
  const items = types
    .filter((t) => shown.has(t.type))
    .map((t) => el('li', {}, swatch(t), t.type));
  $('#legend').replaceChildren(...(items.length ? [el('h2', { class: 'visually-hidden' }, 'Legend'), el('ul', {}, items)] : []));
  $('#legend').hidden = items.length === 0;
}

// A small SVG of the node's shape in its colour.
function swatch(t) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 16 16');
  svg.setAttribute('width', '14');
  svg.setAttribute('height', '14');
  svg.setAttribute('aria-hidden', 'true');
  const shapes = {
    ellipse: ['circle', { cx: 8, cy: 8, r: 7 }],
    hexagon: ['polygon', { points: '4,1.5 12,1.5 15.5,8 12,14.5 4,14.5 0.5,8' }],
    'round-rectangle': ['rect', { x: 1, y: 2.5, width: 14, height: 11, rx: 3 }],
    'round-triangle': ['polygon', { points: '8,1 15,14.5 1,14.5', 'stroke-linejoin': 'round' }],
    diamond: ['polygon', { points: '8,0.5 15.5,8 8,15.5 0.5,8' }],
    star: ['polygon', { points: '8,0.5 10.2,5.6 15.6,5.9 11.4,9.4 12.8,14.8 8,11.8 3.2,14.8 4.6,9.4 0.4,5.9 5.8,5.6' }],
    'round-tag': ['polygon', { points: '1,2 11,2 15,8 11,14 1,14' }],
    rectangle: ['rect', { x: 1.5, y: 3, width: 13, height: 10 }],
    pentagon: ['polygon', { points: '8,0.8 15.4,6.2 12.6,15 3.4,15 0.6,6.2' }],
  };
  const [name, attrs] = shapes[t.shape] ?? shapes.ellipse;
  const shape = document.createElementNS(ns, name);
  for (const [k, v] of Object.entries(attrs)) shape.setAttribute(k, v);
  shape.setAttribute('fill', t.color);
  svg.append(shape);
  return svg;
}

// The server's exports of what is drawn: a neighbourhood, or a narration's own graph.
function renderExports() {
  const box = $('#exports');
  const exportable = state.id && (state.view === 'neighbourhood' || state.view === 'narration');
  if (!exportable) {
    box.replaceChildren();
    return;
  }
  const url = (f) => (state.view === 'narration' ? exportURL(f.format, state.id, 0, { narration: true }) : exportURL(f.format, state.id, state.depth));
  // A disclosure, so that the list takes one line of the toolbar until it is opened.
  box.replaceChildren(
    el(
      'details',
      {},
      el('summary', {}, 'Download'),
      el('div', { class: 'exports-list' }, ...exportFormats.map((f) => el('a', { href: url(f), download: exportFileName(state.id, f.ext), 'data-format': f.format }, f.label))),
    ),
  );
}

// --- Details: an entity, or one claim ---------------------------------------------------

// The texts of narrations already fetched, by id.
const texts = new Map();

async function loadTexts(ids) {
  const missing = [...new Set(ids)].filter((id) => !texts.has(id));
  if (missing.length === 0) return;
  const vars = Object.fromEntries(missing.map((id, i) => [`id${i}`, id]));
  const data = await gql(narrationTexts(missing), vars);
  for (const n of Object.values(data)) {
    if (n) texts.set(n.id, n);
  }
}

function narrationIds(claims) {
  return claims.flatMap((c) => c.attestations.map((a) => a.narration.id));
}

async function loadDetails() {
  const n = ++detailsLoad;
  const pane = $('#details');
  if (!state.id && !state.claim && !state.select) {
    pane.replaceChildren(state.view === 'timeline' ? about('The timeline', 'Every event in the order the graph gives them, earliest at the top. Click an event to read its claims.') : state.view === 'common' ? about('The common link', 'Where the chains of transmission of these narrations meet (the madar): each narration’s own branch, the common link (the centre), and the route they share to the source.') : welcome());
    return;
  }
  pane.setAttribute('aria-busy', 'true');
  try {
    let content;
    if (state.claim) {
      const data = await gql(CLAIM, { id: state.claim });
      if (!data.claim) throw new Error(`there is no claim ${state.claim}`);
      await loadTexts(narrationIds([data.claim]));
      content = [backLink(), el('p', { class: 'kicker' }, 'Claim'), renderClaim(data.claim, { open: true })];
    } else {
      const id = state.select || state.id;
      const data = await gql(ENTITY, { id });
      if (!data.entity) throw new Error(`nothing in the graph has the id ${id}`);
      const claims = data.entity.claims.edges.map((e) => e.node);
      await loadTexts([...narrationIds(claims), ...(data.entity.type === 'Narration' ? [id] : [])]);
      content = renderEntity(data.entity, claims);
    }
    if (n !== detailsLoad) return;
    pane.replaceChildren(...[content].flat());
    pane.scrollTop = 0;
    graph.select(state.claim || state.select || state.id);
  } catch (err) {
    if (n !== detailsLoad) return;
    pane.replaceChildren(el('p', { role: 'alert', class: 'error' }, `Could not load this: ${err.message}`));
  } finally {
    if (n === detailsLoad) pane.removeAttribute('aria-busy');
  }
}

// From a claim back to the claims of the entity the graph is drawn around.
function backLink() {
  if (!state.id) return null;
  const s = { ...state, select: '', claim: '' };
  const go = (ev) => {
    if (ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.button !== 0) return;
    ev.preventDefault();
    navigate(s, { push: false });
  };
  return el('p', { class: 'back' }, el('a', { href: stateURL(s), onclick: go }, '← Every claim about ', el('span', { dir: 'auto' }, rootName || state.id)));
}

function about(title, text) {
  return el('div', { class: 'welcome' }, el('h2', {}, title), el('p', {}, text));
}

function welcome() {
  return el(
    'div',
    { class: 'welcome' },
    el('h2', {}, 'Explore the narrations'),
    el(
      'p',
      {},
      'Search for a person, group, event, place, concept, Qur’an verse (e.g. 8:67) or narration. ',
      'Its neighbourhood is drawn on the left; click an entity to read every claim about it, ',
      'or a line to read that one claim, each with the narrations that attest it and their words highlighted.',
    ),
    el('p', {}, 'Press ', el('kbd', {}, '/'), ' to search from anywhere on the page.'),
    textSearch(),
  );
}

// The full-text search of the narrations' texts (docs/search.md): a hit opens its narration.
function textSearch() {
  const box = el('div', { class: 'welcome-texts' });
  mountTextSearch(box, { onOpen: (id) => navigate({ id, depth: state.depth }) });
  return box;
}

function renderEntity(entity, claims) {
  const out = [];
  const head = el(
    'header',
    { class: 'entity-head' },
    badge(entity.type),
    el('h2', { dir: 'auto' }, entity.name),
    entity.arabic.length ? el('p', { class: 'arabic', lang: 'ar', dir: 'rtl' }, entity.arabic.join(' · ')) : null,
    // A verse's Arabic name (arabic) is already its surah's name and reference.
    entity.surahNameArabic && !entity.arabic.length ? el('p', { class: 'arabic', lang: 'ar', dir: 'rtl' }, `${entity.surahNameArabic} ${entity.ref}`) : null,
    entity.surahMeaning ? el('p', { class: 'muted' }, `Surah ${entity.surahName}, “${entity.surahMeaning}”`) : null,
    entity.aliases.length ? el('p', { class: 'aliases' }, 'Also: ', ...joined(entity.aliases.map((a) => el('span', { dir: 'auto' }, a)), ' · ')) : null,
    entity.description ? el('p', { class: 'description', dir: 'auto' }, entity.description) : null,
    entity.references?.length ? el('p', { class: 'muted' }, ...joined(entity.references.map(reference), '; ')) : null,
    entity.narrator ? el('p', { class: 'muted' }, 'Narrated by ', entityLink(entity.narrator)) : null,
    entity.gradings?.length
      ? el('p', { class: 'muted gradings' }, 'Graded: ', ...joined(entity.gradings.map((g) => el('span', { dir: 'auto' }, `${g.graderName}: ${g.verdict}`)), '; '))
      : null,
    // The claims about a narration are few; the claims it asserts are drawn by its own graph.
    entity.attestedClaims
      ? el('p', { class: 'muted asserts' }, `It asserts ${entity.attestedClaims.totalCount} ${entity.attestedClaims.totalCount === 1 ? 'claim' : 'claims'}: `, el('em', {}, 'Draw this narration'), ' shows them all.')
      : null,
    el(
      'p',
      { class: 'entity-actions' },
      el('code', { class: 'entity-id' }, entity.id),
      entity.id !== state.id || state.view !== 'neighbourhood'
        ? el('button', { type: 'button', onclick: () => navigate({ id: entity.id, depth: state.depth, layout: state.layout }) }, 'Centre the graph here')
        : null,
      entity.type === 'Narration' && !(state.view === 'narration' && state.id === entity.id)
        ? el('button', { type: 'button', class: 'draw-narration', onclick: () => navigate({ view: 'narration', id: entity.id, depth: state.depth }) }, 'Draw this narration')
        : null,
      el('a', { href: graphiqlURL(entity.id) }, 'Query in GraphiQL'),
    ),
    pathForm(entity),
  );
  out.push(head);
  if (entity.type === 'Narration') {
    const t = texts.get(entity.id);
    out.push(lazyText(entity.id, t?.language, 'Read the narration', () => texts.get(entity.id)?.text ?? null));
  }
  const total = entity.claims.totalCount;
  out.push(el('h3', { class: 'claims-head' }, total === 1 ? '1 claim' : `${total} claims`));
  const list = el('ol', { class: 'claims' }, claims.map((c) => el('li', {}, renderClaim(c, { open: false }))));
  out.push(list);
  if (entity.claims.pageInfo.hasNextPage) {
    out.push(moreClaims(entity.id, entity.claims.pageInfo.endCursor, list));
  }
  return out;
}

// A button that appends the next page of an entity's claims to list.
function moreClaims(id, after, list) {
  const button = el('button', { type: 'button', class: 'more' }, 'More claims');
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const data = await gql(ENTITY, { id, after });
      const claims = data.entity.claims.edges.map((e) => e.node);
      await loadTexts(narrationIds(claims));
      list.append(...claims.map((c) => el('li', {}, renderClaim(c, { open: false }))));
      const page = data.entity.claims.pageInfo;
      button.replaceWith(...(page.hasNextPage ? [moreClaims(id, page.endCursor, list)] : []));
    } catch (err) {
      button.disabled = false;
      button.textContent = `More claims (the last try failed: ${err.message})`;
    }
  });
  return button;
}

// A shortest path from this entity to another, found by search.
function pathForm(entity) {
  const input = el('input', { type: 'search', name: 'to', placeholder: 'a name or id', dir: 'auto', 'aria-label': `Shortest path from ${entity.name} to` });
  const note = el('span', { class: 'muted', 'aria-live': 'polite' });
  return el(
    'form',
    {
      class: 'path-form',
      onsubmit: async (ev) => {
        ev.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        try {
          // The best match of a search, or else the text as an id.
          const found = await gql(SEARCH, { text });
          let to = found.search[0]?.id;
          if (!to) {
            const exact = await gql(`query($id: ID!) { entity(id: $id) { id } }`, { id: text }).catch(() => null);
            to = exact?.entity?.id;
          }
          if (!to) {
            note.textContent = ` Nothing matches ${text}.`;
            return;
          }
          navigate({ view: 'path', id: entity.id, to, depth: state.depth });
        } catch (err) {
          note.textContent = ` ${err.message}`;
        }
      },
    },
    el('label', {}, 'Shortest path to ', input),
    ' ',
    el('button', { type: 'submit' }, 'Draw'),
    note,
  );
}

function reference(r) {
  const text = `${r.collection} ${r.number}${r.edition ? ` (${r.edition})` : ''}`;
  return r.url && /^https?:\/\//.test(r.url) ? el('a', { href: r.url, rel: 'noopener noreferrer', target: '_blank' }, text) : text;
}

function joined(items, sep) {
  return items.flatMap((x, i) => (i === 0 ? [x] : [sep, x]));
}

function graphiqlURL(id) {
  const query = `{
  entity(id: "${id}") {
    id type name aliases
    claims(first: 10) {
      totalCount
      nodes {
        subject { id name } predicate object { id name } value
        attestations { narration { id name } evidence start end }
      }
    }
  }
}`;
  return `graphiql?${new URLSearchParams({ query })}`;
}

/** A claim: subject, predicate, object or value, and each narration's attestation. */
function renderClaim(c, { open }) {
  const obj = c.object ? entityLink(c.object) : el('span', { class: 'value', dir: 'auto' }, c.value ?? '');
  const n = c.attestationCount;
  const card = el(
    'article',
    {
      class: 'claim',
      'data-claim': c.id,
      'data-subject': c.subject.id,
      'data-predicate': c.predicate,
      'data-object': c.object?.id ?? '',
      onmouseenter: () => graph.hover(c.id, true),
      onmouseleave: () => graph.hover(c.id, false),
    },
    el('h4', { class: 'claim-title' }, entityLink(c.subject), ' ', el('span', { class: 'predicate' }, c.predicate), ' ', obj),
    el('p', { class: 'claim-meta' }, `attested by ${n} ${n === 1 ? 'narration' : 'narrations'}`),
    el('ol', { class: 'attestations' }, c.attestations.map((a) => el('li', {}, renderAttestation(a, open)))),
  );
  return card;
}

function renderAttestation(a, open) {
  const t = texts.get(a.narration.id);
  const head = el('p', { class: 'narration' }, entityLink(a.narration), ' ', el('code', {}, a.narration.id));
  if (a.evidence == null) {
    return [head, el('p', { class: 'muted' }, 'From the chain of transmission (isnad), not from words in the text.')];
  }
  const parts = t ? locate(t.text, a.evidence, a.start, a.end) : null;
  if (!parts) {
    // The offsets do not slice out the evidence: show the words, without pretending to know where they are.
    return [head, el('blockquote', { class: 'evidence', dir: 'auto', lang: t?.language ?? null }, `“${a.evidence}”`)];
  }
  const ex = excerpt(parts, open ? 320 : 200);
  return [
    head,
    el('blockquote', { class: 'evidence', dir: 'auto', lang: t.language ?? null }, ex.clippedBefore ? '… ' : '', ex.before, el('mark', {}, ex.match), ex.after, ex.clippedAfter ? ' …' : ''),
    ex.clippedBefore || ex.clippedAfter ? lazyText(a.narration.id, t.language, 'The whole narration', () => parts) : null,
  ];
}

/**
 * A disclosure that renders a narration's text when first opened: get() returns the text,
 * or located parts whose match is highlighted.
 */
function lazyText(id, language, summary, get) {
  const body = el('div', { class: 'narration-text', dir: 'auto', lang: language ?? null });
  const d = el('details', { class: 'whole' }, el('summary', {}, summary), body);
  d.addEventListener('toggle', () => {
    if (!d.open || body.childElementCount || body.textContent) return;
    const v = get();
    if (v == null) body.textContent = `The text of ${id} is not available.`;
    else if (typeof v === 'string') body.textContent = v;
    else body.append(v.before, el('mark', {}, v.match), v.after);
  });
  return d;
}

// --- Search: an ARIA combobox -----------------------------------------------------------

const input = $('#q');
const list = $('#results');
let results = [];
let active = -1;
let searchLoad = 0;
let debounce;

function openList(open) {
  list.hidden = !open;
  input.setAttribute('aria-expanded', String(open));
  if (!open) {
    active = -1;
    input.removeAttribute('aria-activedescendant');
  }
}

function setActive(i) {
  active = i;
  for (const [j, li] of [...list.children].entries()) {
    li.setAttribute('aria-selected', String(j === i));
  }
  if (i >= 0 && list.children[i]) {
    input.setAttribute('aria-activedescendant', list.children[i].id);
    list.children[i].scrollIntoView({ block: 'nearest' });
  } else {
    input.removeAttribute('aria-activedescendant');
  }
}

function choose(i) {
  const r = results[i];
  if (!r) return;
  openList(false);
  input.value = r.name;
  navigate({ id: r.id, depth: state.depth });
}

async function search(text) {
  const n = ++searchLoad;
  if (text.trim() === '') {
    results = [];
    openList(false);
    return;
  }
  try {
    const data = await gql(SEARCH, { text });
    if (n !== searchLoad) return;
    results = data.search;
  } catch (err) {
    if (n !== searchLoad) return;
    results = [];
    list.replaceChildren(el('li', { class: 'no-results', role: 'option', 'aria-disabled': 'true' }, `Search failed: ${err.message}`));
    openList(true);
    return;
  }
  list.replaceChildren(
    ...results.map((r, i) =>
      el(
        'li',
        { id: `result-${i}`, role: 'option', 'aria-selected': 'false', 'data-id': r.id, onmousedown: (ev) => ev.preventDefault(), onclick: () => choose(i) },
        badge(r.type),
        el('span', { class: 'result-name', dir: 'auto' }, r.name),
        r.arabic.length ? el('span', { class: 'result-arabic', lang: 'ar', dir: 'rtl' }, r.arabic[0]) : null,
      ),
    ),
  );
  if (results.length === 0) {
    list.replaceChildren(el('li', { class: 'no-results', role: 'option', 'aria-disabled': 'true' }, 'No matches'));
  }
  openList(true);
  setActive(results.length ? 0 : -1);
}

input.addEventListener('input', () => {
  clearTimeout(debounce);
  debounce = setTimeout(() => search(input.value), 120);
});
input.addEventListener('keydown', (ev) => {
  const open = !list.hidden && results.length > 0;
  switch (ev.key) {
    case 'ArrowDown':
      ev.preventDefault();
      if (!open) search(input.value);
      else setActive((active + 1) % results.length);
      break;
    case 'ArrowUp':
      if (open) {
        ev.preventDefault();
        setActive((active - 1 + results.length) % results.length);
      }
      break;
    case 'Enter':
      if (open && active >= 0) {
        ev.preventDefault();
        choose(active);
      }
      break;
    case 'Escape':
      if (!list.hidden) {
        ev.preventDefault();
        openList(false);
      }
      break;
  }
});
input.addEventListener('blur', () => openList(false));
document.addEventListener('keydown', (ev) => {
  if (ev.key === '/' && !/^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement?.tagName ?? '') && !ev.ctrlKey && !ev.metaKey) {
    ev.preventDefault();
    input.focus();
    input.select();
  }
});

// --- Controls ---------------------------------------------------------------------------

$('#depth').addEventListener('change', (ev) => navigate({ ...state, depth: Number(ev.target.value) }));
$('#fit').addEventListener('click', () => graph.fit());

navigate(state, { push: false });
