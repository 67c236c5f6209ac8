// Athar's HTTP API as the explorer uses it: GraphQL at graphql, exports at export/{format}.
// URLs are relative to the page, so the explorer works wherever the server is mounted.

const endpoint = () => new URL('graphql', document.baseURI);

/**
 * Runs a GraphQL query and returns its data. Rejects with the API's messages when the answer
 * has errors (the API never leaks internals in them), or with the HTTP status otherwise.
 */
export async function gql(query, variables = {}, { signal } = {}) {
  const res = await fetch(endpoint(), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal,
  });
  let body;
  try {
    body = await res.json();
  } catch {
    throw new Error(`the server answered ${res.status} ${res.statusText}`);
  }
  if (body.errors?.length) {
    throw new Error(body.errors.map((e) => e.message).join('; '));
  }
  return body.data;
}

/** The export formats of GET export/{format}, as docs/exports.md describes them. */
export const exportFormats = [
  { format: 'cytoscape', label: 'Cytoscape JSON', ext: '.cyjs' },
  { format: 'graphml', label: 'GraphML', ext: '.graphml' },
  { format: 'gexf', label: 'GEXF', ext: '.gexf' },
  { format: 'gexf12', label: 'GEXF 1.2 (NetworkX)', ext: '.gexf' },
  { format: 'jsonld', label: 'JSON-LD', ext: '.jsonld' },
  { format: 'nquads', label: 'N-Quads', ext: '.nq' },
];

/**
 * The URL of the export of root's neighbourhood, relative to the page; with narration, of
 * what the narration root asserts.
 */
export function exportURL(format, root, depth, { narration = false } = {}) {
  const q = narration ? new URLSearchParams({ narration: root }) : new URLSearchParams({ root, depth: String(depth) });
  return `export/${format}?${q}`;
}

/** The file name the server gives the export (athar-person-abu-bakr.gexf). */
export function exportFileName(root, ext) {
  return `athar-${root.replaceAll(':', '-').replaceAll('/', '-')}${ext}`;
}

export const SEARCH = `query Search($text: String!) {
  search(text: $text, first: 12) { id type name arabic }
}`;

const CLAIM_FIELDS = `
  id predicate value attestationCount
  subject { id type name }
  object { id type name }
  attestations { narration { id name } evidence start end }`;

// A page of 50 claims keeps the query well inside the API's complexity limit.
export const ENTITY = `query Entity($id: ID!, $after: String) {
  entity(id: $id) {
    id type name aliases arabic description
    ... on Verse { ref surahName surahNameArabic surahMeaning }
    ... on Narration {
      references { collection number edition url }
      narrator { id name }
      gradings { graderName verdict }
      attestedClaims(first: 0) { totalCount }
    }
    claims(first: 50, after: $after) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges { node { ${CLAIM_FIELDS} } }
    }
  }
}`;

export const CLAIM = `query Claim($id: ID!) {
  claim(id: $id) { ${CLAIM_FIELDS} }
}`;

/** A query for the texts of the given narrations, one aliased field per id. */
export function narrationTexts(ids) {
  const fields = ids.map((_, i) => `n${i}: narration(id: $id${i}) { id text language }`).join('\n  ');
  const params = ids.map((_, i) => `$id${i}: ID!`).join(', ');
  return `query Texts(${params}) {\n  ${fields}\n}`;
}
