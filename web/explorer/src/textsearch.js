// Full-text search of the narration texts (searchTexts, docs/search.md): a search box and
// its ranked hits, each with its reference and a snippet whose highlights are marked, under
// a heading for each group of hits (the words side by side, every word, some of them).
//
// Self-contained: mountTextSearch(container, {onOpen}) renders into any element; the
// explorer mounts it where it wants and passes onOpen to show a narration. The snippet's
// offsets are Unicode code points into the whole text (as attestations' are), so the
// snippet is cut and marked by code point, never by UTF-16 unit.

import { gql } from './api.js';

export const SEARCH_TEXTS = `query SearchTexts($query: String!, $language: String, $first: Int, $after: String) {
  searchTexts(query: $query, language: $language, first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges { node {
      narration { id }
      language title match
      references { collection number edition }
      snippet { text start end highlights { start end } }
    } }
  }
}`;

/**
 * Splits a snippet into runs of plain and highlighted text: [{text, mark}], whose texts
 * join to snippet.text. Highlights are code point offsets into the whole text; those that
 * fall outside the snippet or overlap an earlier one are ignored.
 */
export function segments(snippet) {
  const cps = Array.from(snippet.text);
  const out = [];
  let at = 0; // code points of the snippet consumed
  for (const h of snippet.highlights ?? []) {
    const from = h.start - snippet.start;
    const to = h.end - snippet.start;
    if (from < at || to > cps.length || from >= to) {
      continue;
    }
    if (from > at) {
      out.push({ text: cps.slice(at, from).join(''), mark: false });
    }
    out.push({ text: cps.slice(from, to).join(''), mark: true });
    at = to;
  }
  if (at < cps.length) {
    out.push({ text: cps.slice(at).join(''), mark: false });
  }
  return out;
}

/** The heading of a group of hits, by its match (TextMatch). */
export function groupLabel(match) {
  switch (match) {
    case 'SIDE_BY_SIDE':
      return 'With the words side by side';
    case 'EVERY_WORD':
      return 'With every word';
    default:
      return 'With some of the words';
  }
}

/**
 * The hits of a page with the group headings they need: [{heading}] before the first hit
 * of each group, [{node}] for each hit. previous is the match of the hit before the page
 * (null for the first page); a page continuing a group gets no heading for it.
 */
export function withGroups(nodes, previous) {
  const out = [];
  for (const node of nodes) {
    if (node.match !== previous) {
      out.push({ heading: groupLabel(node.match) });
      previous = node.match;
    }
    out.push({ node });
  }
  return out;
}

/** The reference shown with a hit: its first reference, e.g. "Sahih Muslim 1763". */
export function referenceLabel(node) {
  const r = node.references?.[0];
  return r ? `${r.collection} ${r.number}` : node.narration.id;
}

const PAGE = 20;

/**
 * Renders a search box and its hits into container. onOpen(narrationId) is called when a
 * hit is chosen. Returns a function that removes what it rendered.
 */
export function mountTextSearch(container, { onOpen } = {}) {
  const root = document.createElement('section');
  root.className = 'text-search';
  root.setAttribute('aria-label', 'Search the narration texts');
  root.innerHTML = `
    <form role="search">
      <label>Search the texts
        <input type="search" name="q" dir="auto" spellcheck="false" autocomplete="off"
          placeholder='Words or "a phrase", English or Arabic' />
      </label>
      <select name="language" aria-label="Language">
        <option value="">Any language</option>
        <option value="en">English</option>
        <option value="ar">Arabic</option>
      </select>
      <button type="submit">Search</button>
    </form>
    <p class="text-search-status" aria-live="polite"></p>
    <ol class="text-search-hits"></ol>
    <button type="button" class="text-search-more" hidden>More</button>`;
  container.append(root);
  const form = root.querySelector('form');
  const status = root.querySelector('.text-search-status');
  const list = root.querySelector('.text-search-hits');
  const more = root.querySelector('.text-search-more');
  let current = null; // {query, language, after}
  let lastMatch = null; // the group of the last hit shown
  let aborter = null;

  async function load(append) {
    aborter?.abort();
    aborter = new AbortController();
    status.textContent = 'Searching…';
    try {
      const data = await gql(SEARCH_TEXTS, { ...current, first: PAGE }, { signal: aborter.signal });
      const conn = data.searchTexts;
      if (!append) {
        list.replaceChildren();
        lastMatch = null;
      }
      const nodes = conn.edges.map((e) => e.node);
      for (const item of withGroups(nodes, lastMatch)) {
        list.append(item.heading ? renderHeading(item.heading) : renderHit(item.node, onOpen));
      }
      if (nodes.length > 0) {
        lastMatch = nodes[nodes.length - 1].match;
      }
      status.textContent = `${conn.totalCount} ${conn.totalCount === 1 ? 'text' : 'texts'}`;
      current.after = conn.pageInfo.endCursor;
      more.hidden = !conn.pageInfo.hasNextPage;
    } catch (err) {
      if (err.name !== 'AbortError') {
        status.textContent = err.message; // the API's message names what is wrong
        more.hidden = true;
      }
    }
  }

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const query = form.elements.q.value.trim();
    if (!query) {
      return;
    }
    current = { query, language: form.elements.language.value || null, after: null };
    load(false);
  });
  more.addEventListener('click', () => current && load(true));
  return () => {
    aborter?.abort();
    root.remove();
  };
}

function renderHeading(text) {
  const li = document.createElement('li');
  li.className = 'text-search-group';
  li.setAttribute('role', 'presentation');
  li.textContent = text;
  return li;
}

function renderHit(node, onOpen) {
  const li = document.createElement('li');
  const head = document.createElement('a');
  head.href = `#${encodeURIComponent(node.narration.id)}`;
  head.textContent = `${referenceLabel(node)} — ${node.title}`;
  head.addEventListener('click', (ev) => {
    if (onOpen) {
      ev.preventDefault();
      onOpen(node.narration.id);
    }
  });
  const p = document.createElement('p');
  p.lang = node.language;
  p.dir = 'auto';
  for (const s of segments(node.snippet)) {
    if (s.mark) {
      const m = document.createElement('mark');
      m.textContent = s.text;
      p.append(m);
    } else {
      p.append(document.createTextNode(s.text));
    }
  }
  li.append(head, p);
  return li;
}
