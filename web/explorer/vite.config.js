// Builds the explorer (index.html) and the GraphQL query page (graphiql.html) into dist/,
// which is committed and embedded in the athar binary (package web). Everything the pages
// load -- scripts, styles, fonts, workers -- is bundled here: nothing comes from a CDN.
//
// The build must be deterministic (CI rebuilds and diffs dist/): no source maps, no
// timestamps, content-hashed file names.
import { defineConfig } from 'vite';

export default defineConfig({
  // Relative URLs, so that the pages work wherever the server is mounted (behind a proxy's
  // path prefix too); the pages reach the API the same way (graphql, export/...).
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // GraphiQL's editor (Monaco) is large and cannot be split further usefully.
    chunkSizeWarningLimit: 5000,
    rollupOptions: {
      input: {
        index: 'index.html',
        graphiql: 'graphiql.html',
      },
      onwarn(warning, warn) {
        // GraphiQL's dependencies carry React's directives ("use client", "use no memo"),
        // which mean nothing in a browser bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  worker: { format: 'es' },
  // npm run dev: the pages with live reload, against `athar serve` on :8080.
  server: {
    proxy: {
      '/graphql': 'http://127.0.0.1:8080',
      '/export': 'http://127.0.0.1:8080',
    },
  },
});
