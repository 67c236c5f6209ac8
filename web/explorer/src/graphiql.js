// The GraphQL query page: GraphiQL, bundled with its editor (Monaco) and the editor's
// workers, over this server's /graphql. The docs pane reads the schema by introspection.
// ?query=...&variables=... opens a query (the explorer links here with one).
import 'graphiql/setup-workers/vite';
import 'graphiql/style.css';
import './graphiql.css';

import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { GraphiQL } from 'graphiql';
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';

const example = `# Athar's GraphQL API. The docs (top left) describe every type and field.
# Run a query with the play button or Ctrl-Enter.
#
# Who advised what about the captives of Badr,
# according to which narrations, in which words?
{
  claims(predicate: "advises") {
    nodes {
      subject { id name }
      predicate
      object { id name }
      attestations {
        narration { id name }
        evidence
        start
        end
      }
    }
  }
}
`;

const params = new URLSearchParams(location.search);
const props = {
  fetcher: createGraphiQLFetcher({ url: new URL('graphql', document.baseURI).href }),
  defaultQuery: example,
};
if (params.has('query')) {
  props.initialQuery = params.get('query');
  props.initialVariables = params.get('variables') ?? '';
}

createRoot(document.getElementById('graphiql')).render(
  h(GraphiQL, props, h(GraphiQL.Logo, null, h('a', { href: './', className: 'athar-logo' }, 'Athar'), ' GraphQL')),
);
