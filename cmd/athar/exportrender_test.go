package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// exportPage draws the export at /export.json with Cytoscape.js, the way a front-end that
// knows nothing of Athar would: cy.add, a layout, a fit, then reports what it drew.
const exportPage = `<!doctype html>
<html><head><meta charset="utf-8"><title>An Athar export in Cytoscape.js</title>
<style>html,body{margin:0;height:100%;font-family:sans-serif}#cy{position:absolute;inset:0}</style>
<script src="/cytoscape.min.js"></script></head>
<body><div id="cy"></div><script>
(async () => {
  const data = await (await fetch('/export.json')).json();
  const cy = cytoscape({
    container: document.getElementById('cy'),
    elements: data.elements,
    style: [
      { selector: 'node', style: { label: 'data(label)', 'font-size': 10, width: 16, height: 16,
        'background-color': '#4a6fa5', 'text-valign': 'bottom', 'text-margin-y': 2,
        'text-wrap': 'wrap', 'text-max-width': 110 } },
      { selector: 'node[id = "event:badr"]', style: { width: 28, height: 28, 'font-size': 13, 'font-weight': 'bold' } },
      { selector: 'node[type = "Event"]', style: { 'background-color': '#c0392b' } },
      { selector: 'node[type = "Verse"]', style: { 'background-color': '#27ae60' } },
      { selector: 'edge', style: { width: 'mapData(attestations, 1, 7, 1, 5)', 'line-color': '#999',
        'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'target-arrow-color': '#999' } },
    ],
  });
  // Badr in the middle, everything the export reached around it.
  cy.layout({ name: 'concentric', animate: false, minNodeSpacing: 40,
    concentric: (n) => (n.id() === 'event:badr' ? 2 : 1), levelWidth: () => 1 }).run();
  cy.fit(undefined, 20);
  const ext = cy.extent();
  const inside = cy.nodes().filter((n) => {
    const p = n.position();
    return p.x >= ext.x1 && p.x <= ext.x2 && p.y >= ext.y1 && p.y <= ext.y2;
  }).length;
  window.result = {
    nodes: cy.nodes().length, edges: cy.edges().length, inside,
    withNarrations: cy.edges().filter((e) => (e.data('narrations') || []).length > 0).length,
  };
})();
</script></body></html>`

// TestExportRendersInCytoscape: the Cytoscape JSON export of Badr's neighbourhood, fetched
// from a running athar serve, is drawn by Cytoscape.js itself (the npm package the explorer
// builds with) in headless Chromium, on a page of another origin: every node and edge of
// the export is drawn, every node in view after the fit, every edge carrying the narrations
// that attest it. With UPDATE_SCREENSHOTS=1 it writes the screenshot of docs/exports.md.
func TestExportRendersInCytoscape(t *testing.T) {
	chromium := chromiumPath(t)
	lib := filepath.Join("..", "..", "web", "explorer", "node_modules", "cytoscape", "dist", "cytoscape.min.js")
	if _, err := os.Stat(lib); err != nil {
		t.Fatalf("Cytoscape.js is not installed (%v): run 'make web' (npm ci in web/explorer)", err)
	}
	base, stop := startServer(t, map[string]string{"ATHAR_STORE": "memory:"})
	defer stop()
	resp, err := http.Get(base + "/export/cytoscape?root=event:badr&depth=1")
	if err != nil {
		t.Fatal(err)
	}
	export, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("export: %d %v", resp.StatusCode, err)
	}
	var want struct {
		Elements struct{ Nodes, Edges []json.RawMessage }
	}
	if err := json.Unmarshal(export, &want); err != nil {
		t.Fatal(err)
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/cytoscape.min.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		http.ServeFile(w, r, lib)
	})
	mux.HandleFunc("/export.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(export)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, exportPage)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	b := newBrowser(t, chromium, srv.URL)
	b.do(t, chromedp.EmulateViewport(1100, 900), chromedp.Navigate(srv.URL+"/"),
		chromedp.Poll[chromedp.Void](`window.result !== undefined`))
	type drawn struct{ Nodes, Edges, Inside, WithNarrations int }
	got := read(t, b, chromedp.Evaluate[drawn](`window.result`))
	n, e := len(want.Elements.Nodes), len(want.Elements.Edges)
	if n < 10 || e < 10 {
		t.Fatalf("the export of Badr's neighbourhood has %d nodes and %d edges: too few to test", n, e)
	}
	if got != (drawn{Nodes: n, Edges: e, Inside: n, WithNarrations: e}) {
		t.Errorf("Cytoscape.js drew %+v; the export has %d nodes and %d edges, all to be in view with their narrations", got, n, e)
	}
	if os.Getenv("UPDATE_SCREENSHOTS") != "" {
		jpeg := read(t, b, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
			r, err := cdp.Call(ctx, tg, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: ptrTo(int64(60))})
			if err != nil {
				return nil, err
			}
			return r.Data, nil
		})
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "images", "export-cytoscape-badr.jpg"), jpeg, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b.check(t)
}
