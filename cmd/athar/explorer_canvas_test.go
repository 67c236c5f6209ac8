package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// rect is an element's box on the page, in CSS pixels.
type rect struct{ X, Y, W, H float64 }

func (r rect) inside(o rect, slack float64) bool {
	return r.X >= o.X-slack && r.Y >= o.Y-slack && r.X+r.W <= o.X+o.W+slack && r.Y+r.H <= o.Y+o.H+slack
}

func (r rect) overlaps(o rect) bool {
	return r.W > 0 && o.W > 0 && r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H
}

func (r rect) center() (float64, float64) { return r.X + r.W/2, r.Y + r.H/2 }

// canvasProbe is what the page shows of the drawing, measured in the page.
type canvasProbe struct {
	Graph, Legend, Fit, Tools, Details rect
	Root                               *rect // the centre node's box (without its label)
	Zoom                               float64
	Nodes, Edges, Labelled, InView     int
	MinLabelPx                         float64 // the smallest label drawn, on screen
	RootLabelled                       bool
	Layout                             string
	Types                              []string
}

// probeJS measures the drawing: boxes on the page, the zoom, the labels' size on screen.
const probeJS = `(() => {
  const cy = window.atharGraph.cy;
  const box = (sel) => { const e = document.querySelector(sel); if (!e) return {}; const r = e.getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; };
  const c = cy.container().getBoundingClientRect();
  const nodes = cy.nodes(':visible');
  const root = cy.nodes('.root');
  const rb = root.nonempty() ? root.renderedBoundingBox({includeLabels: false}) : null;
  const labelled = nodes.filter((n) => n.data('display'));
  const inView = nodes.filter((n) => { const p = n.renderedPosition(); return p.x >= 0 && p.y >= 0 && p.x <= c.width && p.y <= c.height; });
  return {
    Graph: box('#graph'), Legend: box('#legend'), Fit: box('#fit'), Tools: box('#tools'), Details: box('#details'),
    Root: rb && {X: c.x + rb.x1, Y: c.y + rb.y1, W: rb.w, H: rb.h},
    Zoom: cy.zoom(), Nodes: nodes.length, Edges: cy.edges(':visible').length, Labelled: labelled.length, InView: inView.length,
    MinLabelPx: labelled.length ? Math.min(...labelled.map((n) => n.data('fs') * cy.zoom())) : 0,
    RootLabelled: root.nonempty() && !!root.data('display'),
    Layout: window.atharGraph.layoutName(),
    Types: [...new Set(nodes.map((n) => n.data('type')))],
  };
})()`

// nodeAt is where node id is drawn on the page, for a click.
func nodeAt(t *testing.T, b *browser, id string) (float64, float64) {
	t.Helper()
	p := read(t, b, chromedp.Evaluate[struct{ X, Y float64 }](fmt.Sprintf(`(() => {
  const cy = window.atharGraph.cy, n = cy.getElementById(%q), c = cy.container().getBoundingClientRect();
  const p = n.renderedPosition(); return {X: c.x + p.x, Y: c.y + p.y}; })()`, id)))
	return p.X, p.Y
}

// idle waits until the page has drawn what it loaded.
var idle = chromedp.Poll[chromedp.Void](`!document.querySelector('#graph-status').textContent.startsWith('Loading') && document.querySelector('#graph-status').textContent.includes('relation') && !document.querySelector('#details[aria-busy]')`)

// TestExplorerCanvas is issue 18's canvas: it drives each feature of the drawing in
// headless Chromium at a desktop size and at a phone's (390 x 844), and checks what the
// reader sees: where the centre node is drawn (inside the canvas, behind nothing), how large
// the labels are on screen at fit, how far a wheel notch zooms, that expand, hide, filter
// and undo change the drawing in place, that each layout and each answer (path, common
// link, timeline, a narration's own graph) is drawn in its order, and that the drawing
// renders as PNG and SVG. With UPDATE_SCREENSHOTS=1 it rewrites the screenshots of
// docs/explorer.md.
func TestExplorerCanvas(t *testing.T) {
	chromium := chromiumPath(t)
	base, stop := startServer(t, map[string]string{"ATHAR_STORE": "memory:"})
	defer stop()
	shots := os.Getenv("UPDATE_SCREENSHOTS") != ""

	for _, size := range []struct {
		name          string
		width, height int64
	}{
		{"desktop", 1400, 900},
		{"phone", 390, 844},
	} {
		t.Run(size.name, func(t *testing.T) {
			b := newBrowser(t, chromium, base)
			phone := size.width < 500
			opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
			if phone {
				// A phone's viewport: the page's meta viewport applies, scrollbars overlay.
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
			}
			b.do(t, chromedp.EmulateViewport(size.width, size.height, opts...))
			probe := func(t *testing.T) canvasProbe {
				t.Helper()
				return read(t, b, chromedp.Evaluate[canvasProbe](probeJS))
			}
			screenshot := func(t *testing.T, name string) {
				t.Helper()
				if !shots {
					return
				}
				// JPEG keeps the docs' images small (text-heavy PNGs run to 350 KB each).
				jpeg := read(t, b, func(ctx context.Context, tg *chromedp.Target) ([]byte, error) {
					r, err := cdp.Call(ctx, tg, page.CaptureScreenshot, page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormatJpeg, Quality: ptrTo(int64(60))})
					if err != nil {
						return nil, err
					}
					return r.Data, nil
				})
				dir := filepath.Join("..", "..", "docs", "images")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "explorer-"+name+".jpg"), jpeg, 0o644); err != nil {
					t.Fatal(err)
				}
			}

			t.Run("a shared link at depth 2 and 3: fitted, legible, the centre in view", func(t *testing.T) {
				for _, depth := range []string{"2", "3"} {
					// A link that selects a claim: the details pane fills while the drawing is fitted.
					b.do(t, chromedp.Navigate(base+"/?id=event:badr&depth="+depth+"&select=person:abu-bakr"), idle,
						chromedp.WaitVisible(chromedp.CSS(`#details .claims`)), chromedp.Sleep(300))
					p := probe(t)
					if p.Root == nil {
						t.Fatalf("depth %s: no centre node drawn", depth)
					}
					if !p.Root.inside(p.Graph, 1) {
						t.Errorf("depth %s: the centre node %+v is not inside the canvas %+v", depth, *p.Root, p.Graph)
					}
					for name, r := range map[string]rect{"legend": p.Legend, "Fit button": p.Fit, "tools": p.Tools} {
						if p.Root.overlaps(r) {
							t.Errorf("depth %s: the centre node %+v is behind the %s %+v", depth, *p.Root, name, r)
						}
					}
					if p.InView != p.Nodes {
						t.Errorf("depth %s: %d of %d nodes in view at fit", depth, p.InView, p.Nodes)
					}
					if p.MinLabelPx < 11 || !p.RootLabelled || p.Labelled < min(p.Nodes, 6) {
						t.Errorf("depth %s: %d of %d nodes labelled, the smallest at %.1f px (centre labelled: %v); want every label at 11 px or more, the centre's and at least 6",
							depth, p.Labelled, p.Nodes, p.MinLabelPx, p.RootLabelled)
					}
					// Nodes are sized by the narrations attesting them.
					sized := read(t, b, chromedp.Evaluate[bool](`(() => { const ns = atharGraph.cy.nodes(':visible').not('.root').sort((a, b) => a.data('weight') - b.data('weight'));
  const lo = ns.first(), hi = ns.last(); return hi.data('weight') > lo.data('weight') && hi.renderedWidth() > lo.renderedWidth(); })()`))
					if !sized {
						t.Errorf("depth %s: the most attested entity is not drawn larger than the least", depth)
					}
					t.Logf("depth %s: %d nodes, %d labelled, smallest label %.1f px, zoom %.2f, canvas %.0fx%.0f", depth, p.Nodes, p.Labelled, p.MinLabelPx, p.Zoom, p.Graph.W, p.Graph.H)
					if depth == "2" {
						screenshot(t, size.name+"-depth2")
					}
				}
			})

			t.Run("wheel zoom at Cytoscape's speed", func(t *testing.T) {
				b.do(t, chromedp.Navigate(base+"/?id=event:badr&depth=2"), idle, chromedp.Sleep(200))
				before := probe(t)
				x, y := before.Graph.center()
				for range 10 {
					b.do(t, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, x, y, func(p *input.DispatchMouseEventParams) {
						// deltaX must be sent, and omitzero drops a 0.
						p.DeltaX, p.DeltaY = 1e-6, -100
					}), chromedp.Sleep(20))
				}
				b.do(t, chromedp.Sleep(200))
				after := probe(t)
				factor := after.Zoom / before.Zoom
				t.Logf("ten wheel notches zoom %.2fx (%.3fx a notch)", factor, math.Pow(factor, 0.1))
				if factor < 1.25 {
					t.Errorf("ten wheel notches zoom %.2fx, want 1.25x or more (0.3 sensitivity gave 1.11x)", factor)
				}
				// Zoomed in, the labels stay as large on screen or larger; Fit to view comes back.
				if after.MinLabelPx < 11 {
					t.Errorf("zoomed in: the smallest label is %.1f px", after.MinLabelPx)
				}
				b.do(t, chromedp.Click(chromedp.CSS("#fit"), chromedp.NodeVisible), chromedp.Sleep(100))
				if z := probe(t).Zoom; math.Abs(z-before.Zoom) > 0.01 {
					t.Errorf("Fit to view: zoom %.3f, want %.3f as at first", z, before.Zoom)
				}
			})

			t.Run("expand, hide, filter, undo in place", func(t *testing.T) {
				b.do(t, chromedp.Navigate(base+"/?id=event:badr"), idle, chromedp.Sleep(200))
				start := probe(t)
				// Click (tap, on the phone) a node on the canvas: it is selected and its claims are shown.
				x, y := nodeAt(t, b, "person:abu-bakr")
				click := chromedp.MouseClickXY(x, y)
				if phone {
					click = chromedp.TapXY(x, y) // a finger: touch events, as a phone sends
				}
				b.do(t, click,
					chromedp.Poll[chromedp.Void](`new URLSearchParams(location.search).get('select') === 'person:abu-bakr'`),
					chromedp.Poll[chromedp.Void](`!document.querySelector('#expand').disabled`),
					chromedp.Click(chromedp.CSS("#expand")),
					chromedp.Poll[chromedp.Void](`document.querySelector('#graph-note').textContent.startsWith('Added')`),
				)
				expanded := probe(t)
				if expanded.Nodes <= start.Nodes || expanded.InView != expanded.Nodes {
					t.Fatalf("Expand Abu Bakr: %d nodes (%d in view), want more than %d, all in view", expanded.Nodes, expanded.InView, start.Nodes)
				}
				if !read(t, b, chromedp.Evaluate[bool](`atharGraph.has('concept:ransom') && new URLSearchParams(location.search).get('id') === 'event:badr'`)) {
					t.Error("Expand Abu Bakr: his advice of ransom is not drawn, or the view was replaced (the centre changed)")
				}
				// Hide him, then undo.
				b.do(t, chromedp.Click(chromedp.CSS("#hide")), chromedp.Poll[chromedp.Void](`!atharGraph.has('person:abu-bakr')`))
				if p := probe(t); p.Nodes != expanded.Nodes-1 {
					t.Errorf("Hide: %d nodes, want %d", p.Nodes, expanded.Nodes-1)
				}
				b.do(t, chromedp.Click(chromedp.CSS("#undo")), chromedp.Poll[chromedp.Void](`atharGraph.has('person:abu-bakr')`))
				if p := probe(t); p.Nodes != expanded.Nodes {
					t.Errorf("Undo the hide: %d nodes, want %d", p.Nodes, expanded.Nodes)
				}
				// Filter out the people.
				b.do(t, chromedp.Click(chromedp.CSS("#filter summary")),
					chromedp.Click(chromedp.CSS(`#filter-body input[data-kind="type"][value="Person"]`), chromedp.NodeVisible),
					chromedp.Poll[chromedp.Void](`!atharGraph.typesShown().has('Person')`))
				filtered := probe(t)
				if filtered.Nodes >= expanded.Nodes || strings.Contains(strings.Join(filtered.Types, ","), "Person") {
					t.Errorf("Filter out Person: %d nodes of types %v, want fewer than %d and no Person", filtered.Nodes, filtered.Types, expanded.Nodes)
				}
				b.do(t, chromedp.Click(chromedp.CSS("#filter summary")))
				// Undo the filter, then the expansion: back to the start.
				b.do(t, chromedp.Click(chromedp.CSS("#undo")), chromedp.Poll[chromedp.Void](`atharGraph.typesShown().has('Person')`),
					chromedp.Click(chromedp.CSS("#undo")), chromedp.Sleep(100))
				if p := probe(t); p.Nodes != start.Nodes {
					t.Errorf("Undo twice more: %d nodes, want %d as at first", p.Nodes, start.Nodes)
				}
				if !read(t, b, chromedp.Evaluate[bool](`document.querySelector('#undo').disabled`)) {
					t.Error("nothing left to undo, but Undo is enabled")
				}
			})

			t.Run("layouts", func(t *testing.T) {
				b.do(t, chromedp.Navigate(base+"/?id=event:badr&depth=2"), idle)
				for _, layout := range []string{"concentric", "breadthfirst", "column", "cose"} {
					b.do(t, chromedp.SetValue(chromedp.CSS("#layout"), layout),
						chromedp.Evaluate[chromedp.Void](`document.querySelector('#layout').dispatchEvent(new Event('change'))`),
						chromedp.Poll[chromedp.Void](fmt.Sprintf(`atharGraph.layoutName() === %q`, layout)), chromedp.Sleep(100))
					p := probe(t)
					if p.InView != p.Nodes || !p.Root.inside(p.Graph, 1) || p.MinLabelPx < 11 {
						t.Errorf("%s: %d of %d nodes in view, centre %+v in %+v, smallest label %.1f px", layout, p.InView, p.Nodes, *p.Root, p.Graph, p.MinLabelPx)
					}
					geo := read(t, b, chromedp.Evaluate[struct {
						RootX, RootY, MinY, MinX, MaxX float64
						Distinct                       int
					}](`(() => { const cy = atharGraph.cy, r = cy.nodes('.root').position(), ps = cy.nodes().map((n) => n.position());
  return {RootX: r.x, RootY: r.y, MinY: Math.min(...ps.map((p) => p.y)), MinX: Math.min(...ps.map((p) => p.x)), MaxX: Math.max(...ps.map((p) => p.x)), Distinct: new Set(ps.map((p) => Math.round(p.x) + ',' + Math.round(p.y))).size}; })()`))
					if geo.Distinct != p.Nodes {
						t.Errorf("%s: %d distinct positions for %d nodes", layout, geo.Distinct, p.Nodes)
					}
					switch layout {
					case "concentric": // the centre in the middle
						if cx := (geo.MinX + geo.MaxX) / 2; math.Abs(geo.RootX-cx) > 0.1*(geo.MaxX-geo.MinX) {
							t.Errorf("concentric: the centre at x %.0f, the drawing's middle %.0f", geo.RootX, cx)
						}
					case "breadthfirst": // the centre on the top row
						if geo.RootY > geo.MinY+1 {
							t.Errorf("breadthfirst: the centre at y %.0f, not on the top row (%.0f)", geo.RootY, geo.MinY)
						}
					case "column":
						if geo.MaxX-geo.MinX > 1 {
							t.Errorf("column: nodes from x %.0f to %.0f, want one column", geo.MinX, geo.MaxX)
						}
					}
				}
				if !strings.Contains(read(t, b, chromedp.Evaluate[string](`location.search`)), "layout=cose") {
					t.Error("the layout chosen is not in the URL")
				}
			})

			t.Run("a shortest path, drawn in order", func(t *testing.T) {
				b.do(t, chromedp.Navigate(base+"/?id=person:abu-bakr"), idle,
					chromedp.SendKeys(chromedp.CSS(`.path-form input`), "8:67", chromedp.NodeVisible),
					chromedp.Click(chromedp.CSS(`.path-form button`)),
					chromedp.Poll[chromedp.Void](`document.querySelector('#graph-status').textContent.includes('shortest path')`), idle)
				order := read(t, b, chromedp.Evaluate[[]string](`atharGraph.cy.nodes().sort((a, b) => a.position('y') - b.position('y')).map((n) => n.id())`))
				if strings.Join(order, " ") != "person:abu-bakr concept:ransom verse:8:67" {
					t.Errorf("the path top to bottom: %v, want Abu Bakr, ransom, 8:67", order)
				}
				if q := read(t, b, chromedp.Evaluate[string](`location.search`)); !strings.Contains(q, "view=path") || !strings.Contains(q, "to=verse%3A8%3A67") {
					t.Errorf("the path's URL: %s", q)
				}
				if p := probe(t); p.InView != p.Nodes || p.Labelled != p.Nodes || p.Graph.Y < 0 {
					t.Errorf("the path: %d of %d nodes in view, %d labelled, the canvas at y %.0f (scrolled out of view when negative)", p.InView, p.Nodes, p.Labelled, p.Graph.Y)
				}
				if phone {
					screenshot(t, "phone-path")
				}
			})

			t.Run("a narration's own graph: every claim, its chain in order, its gradings", func(t *testing.T) {
				b.do(t, chromedp.Navigate(base+"/?view=narration&id=narration:abudawud-2690"), idle)
				got := read(t, b, chromedp.Evaluate[struct {
					Status                      string
					Claims, Total, Gradings     int
					ChainX                      []float64
					ChainY                      []float64
					ChainIDs                    []string
					NarrationExport, TypesShown string
				}](`(async () => {
  const cy = atharGraph.cy;
  const r = await fetch('graphql', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({query: '{ narration(id: "narration:abudawud-2690") { chain { id } attestedClaims { totalCount } } }'})}).then((r) => r.json());
  const chain = r.data.narration.chain.map((p) => p.id);
  return {
    Status: document.querySelector('#graph-status').textContent,
    Claims: cy.edges().filter((e) => e.data('claim')).length,
    Total: r.data.narration.attestedClaims.totalCount,
    Gradings: cy.nodes('[type = "Grading"]').length,
    ChainIDs: chain,
    ChainX: chain.map((id) => cy.getElementById(id).position('x')),
    ChainY: chain.map((id) => cy.getElementById(id).position('y')),
    NarrationExport: document.querySelector('#exports a[data-format="gexf12"]')?.getAttribute('href') ?? '',
  }; })()`, chromedp.EvalAwaitPromise))
				if got.Claims != got.Total || got.Total < 20 {
					t.Errorf("%d claims drawn of the %d the narration asserts (status %q)", got.Claims, got.Total, got.Status)
				}
				if got.Gradings != 3 {
					t.Errorf("%d gradings drawn, want Abu Dawud 2690's 3", got.Gradings)
				}
				if len(got.ChainY) < 3 {
					t.Fatalf("chain %v", got.ChainIDs)
				}
				for i := range got.ChainY {
					if got.ChainX[i] != got.ChainX[0] || (i > 0 && got.ChainY[i] <= got.ChainY[i-1]) {
						t.Errorf("the chain %v is not drawn as a column in order: x %v, y %v", got.ChainIDs, got.ChainX, got.ChainY)
						break
					}
				}
				// Its details say what it asserts and how it is graded.
				b.do(t, chromedp.WaitVisible(chromedp.CSS(`#details .asserts`)))
				if d := read(t, b, chromedp.Evaluate[string](`document.querySelector('#details .asserts').textContent + ' | ' + document.querySelector('#details .gradings').textContent`)); !strings.Contains(d, fmt.Sprintf("It asserts %d claims", got.Total)) || !strings.Contains(d, "al-Albani: Hasan Sahih") {
					t.Errorf("the narration's details: %q", d)
				}
				if got.NarrationExport != "export/gexf12?narration=narration%3Aabudawud-2690" {
					t.Errorf("a narration's GEXF 1.2 download: %q", got.NarrationExport)
				}
				if !phone {
					screenshot(t, "desktop-narration")
				}
				// Ahmad 208 asserts more than a hundred claims: every one is drawn.
				b.do(t, chromedp.Navigate(base+"/?view=narration&id=narration:ahmad-208"), idle)
				n := read(t, b, chromedp.Evaluate[struct{ Drawn, Total int }](`(async () => {
  const r = await fetch('graphql', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({query: '{ narration(id: "narration:ahmad-208") { attestedClaims { totalCount } } }'})}).then((r) => r.json());
  return {Drawn: atharGraph.cy.edges().filter((e) => e.data('claim')).length, Total: r.data.narration.attestedClaims.totalCount}; })()`, chromedp.EvalAwaitPromise))
				if n.Total <= 100 || n.Drawn != n.Total {
					t.Errorf("Ahmad 208: %d claims drawn of the %d it asserts", n.Drawn, n.Total)
				}
				if p := probe(t); p.InView != p.Nodes || p.MinLabelPx < 11 || !p.RootLabelled {
					t.Errorf("Ahmad 208: %d of %d nodes in view, smallest label %.1f px, centre labelled %v", p.InView, p.Nodes, p.MinLabelPx, p.RootLabelled)
				}
			})

			t.Run("the common link of the narrations drawn, and the timeline", func(t *testing.T) {
				b.do(t, chromedp.Navigate(base+"/?id=verse:8:67"), idle,
					chromedp.Poll[chromedp.Void](`!document.querySelector('#common').disabled`),
					chromedp.Click(chromedp.CSS("#common")),
					chromedp.Poll[chromedp.Void](`document.querySelector('#graph-status').textContent.includes('common link of')`), idle)
				cl := read(t, b, chromedp.Evaluate[struct {
					Root       string
					Narrations int
					Above      bool
				}](`(() => { const cy = atharGraph.cy, root = cy.nodes('.root'), ns = cy.nodes('[type = "Narration"]');
  return {Root: root.id(), Narrations: ns.length, Above: ns.every((n) => n.position('y') < root.position('y'))}; })()`))
				if !strings.HasPrefix(cl.Root, "person:") || cl.Narrations < 2 || !cl.Above {
					t.Errorf("common link: centre %q, %d narrations, all above it: %v", cl.Root, cl.Narrations, cl.Above)
				}
				b.do(t, chromedp.Click(chromedp.CSS("#timeline")),
					chromedp.Poll[chromedp.Void](`document.querySelector('#graph-status').textContent.includes('events in order')`), idle)
				tl := read(t, b, chromedp.Evaluate[struct {
					InOrder bool
					N       int
				}](`(async () => {
  const r = await fetch('graphql', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({query: '{ timeline(first: 200) { id } }'})}).then((r) => r.json());
  const ids = r.data.timeline.map((e) => e.id), cy = atharGraph.cy;
  return {N: ids.length, InOrder: ids.every((id, i) => i === 0 || cy.getElementById(id).position('y') > cy.getElementById(ids[i - 1]).position('y'))}; })()`,
					chromedp.EvalAwaitPromise))
				if tl.N < 5 || !tl.InOrder {
					t.Errorf("timeline: %d events, drawn in order top to bottom: %v", tl.N, tl.InOrder)
				}
				if p := probe(t); p.Nodes != tl.N || p.InView != p.Nodes || p.MinLabelPx < 11 || p.Labelled < min(p.Nodes, 6) {
					t.Errorf("timeline: %d nodes drawn of %d, %d in view, %d labelled, smallest label %.1f px", p.Nodes, tl.N, p.InView, p.Labelled, p.MinLabelPx)
				}
				// The same by its link.
				b.do(t, chromedp.Navigate(base+"/?view=timeline"), chromedp.Poll[chromedp.Void](`document.querySelector('#graph-status').textContent.includes('events in order')`), idle)
				if p := probe(t); p.Nodes != tl.N || p.InView != p.Nodes || p.Labelled < min(p.Nodes, 6) {
					t.Errorf("timeline by its link: %d nodes drawn of %d, %d in view, %d labelled; %+v", p.Nodes, tl.N, p.InView, p.Labelled, p)
				}
			})

			t.Run("PNG and SVG of the drawing", func(t *testing.T) {
				b.do(t, chromedp.Navigate(base+"/?id=event:badr&depth=2"), idle)
				img := read(t, b, chromedp.Evaluate[struct {
					PNGType          string
					PNGW, PNGH       int
					SVGW, SVGH       float64
					SVGShapes        int
					SVGHasRootLabel  bool
					ButtonsOnToolbar bool
				}](`(async () => {
  const blob = await atharGraph.png();
  const bmp = await createImageBitmap(blob);
  const doc = new DOMParser().parseFromString(atharGraph.svg(), 'image/svg+xml');
  const svg = doc.documentElement;
  return {
    PNGType: blob.type, PNGW: bmp.width, PNGH: bmp.height,
    SVGW: parseFloat(svg.getAttribute('width')), SVGH: parseFloat(svg.getAttribute('height')),
    SVGShapes: doc.querySelectorAll('path').length,
    SVGHasRootLabel: svg.textContent.includes('The battle of Badr'),
    ButtonsOnToolbar: !!document.querySelector('#tools #png') && !!document.querySelector('#tools #svg'),
  }; })()`, chromedp.EvalAwaitPromise))
				if img.PNGType != "image/png" || img.PNGW < 400 || img.PNGH < 300 {
					t.Errorf("PNG: %s %dx%d", img.PNGType, img.PNGW, img.PNGH)
				}
				if img.SVGW < 200 || img.SVGH < 150 || img.SVGShapes < 20 || !img.SVGHasRootLabel || !img.ButtonsOnToolbar {
					t.Errorf("SVG: %+v", img)
				}
				// The buttons save files: catch the download link each one clicks (the PNG is made
				// asynchronously, so the two may come in either order).
				b.do(t, chromedp.Evaluate[chromedp.Void](`window.saved = []; window.blobs = new Map();
  const objectURL = URL.createObjectURL; URL.createObjectURL = (blob) => { const u = objectURL(blob); window.blobs.set(u, blob); return u; };
  HTMLAnchorElement.prototype.click = function () { if (this.download) window.saved.push({name: this.download, url: this.href}); };`))
				b.do(t, chromedp.Click(chromedp.CSS("#png"), chromedp.NodeVisible), chromedp.Click(chromedp.CSS("#svg"), chromedp.NodeVisible),
					chromedp.Poll[chromedp.Void](`window.saved.length === 2`))
				saved := read(t, b, chromedp.Evaluate[[]struct{ Name, Type string }](`window.saved.map((s) => ({Name: s.name, Type: window.blobs.get(s.url)?.type ?? ''})).sort((a, b) => (a.Name < b.Name ? -1 : 1))`))
				if len(saved) != 2 || saved[0].Name != "athar-event-badr.png" || saved[0].Type != "image/png" || saved[1].Name != "athar-event-badr.svg" || saved[1].Type != "image/svg+xml" {
					t.Errorf("PNG and SVG buttons saved %+v", saved)
				}
			})

			t.Run("search, details and a verse's name", func(t *testing.T) {
				b.do(t, chromedp.Navigate(base+"/?id=verse:8:67"), idle, chromedp.WaitVisible(chromedp.CSS(`#details .entity-head h2`)))
				if n := read(t, b, chromedp.Evaluate[int](`document.querySelectorAll('#details .entity-head .arabic').length`)); n != 1 {
					t.Errorf("the verse's Arabic name is shown %d times, want once", n)
				}
				b.do(t, chromedp.SendKeys(chromedp.CSS("#q"), "Umar", chromedp.NodeVisible), chromedp.WaitVisible(chromedp.CSS(`#results li[data-id]`)))
				res := read(t, b, chromedp.Evaluate[struct {
					Width, Viewport float64
					Clipped         int
				}](`(() => { const l = document.querySelector('#results').getBoundingClientRect();
  return {Width: l.width, Viewport: innerWidth, Clipped: [...document.querySelectorAll('#results .result-arabic, #results .result-name')].filter((e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > innerWidth).length}; })()`))
				if res.Width < math.Min(360, res.Viewport-30) || res.Clipped > 0 {
					t.Errorf("search results %.0f px wide in a %.0f px window, %d names clipped", res.Width, res.Viewport, res.Clipped)
				}
				if phone {
					screenshot(t, "phone-search")
				}
				b.do(t, chromedp.KeyEvent("\x1b"))
				p := probe(t)
				if phone {
					// The details follow the drawing at the full width and their whole height.
					h := read(t, b, chromedp.Evaluate[struct{ Scroll, Client, DocScroll float64 }](`({Scroll: document.querySelector('#details').scrollHeight, Client: document.querySelector('#details').clientHeight, DocScroll: document.scrollingElement.scrollHeight})`))
					if p.Details.W < float64(size.width)-2 || h.Scroll > h.Client+1 || p.Details.Y < p.Graph.Y+p.Graph.H {
						t.Errorf("phone details pane %+v (scroll height %.0f, shown %.0f) below the canvas %+v: want the full width, unclipped, after the drawing", p.Details, h.Scroll, h.Client, p.Graph)
					}
					if p.Graph.H < 0.5*float64(size.height) {
						t.Errorf("phone canvas %.0f px tall of %d", p.Graph.H, size.height)
					}
				}
			})
			b.check(t)
		})
	}
}

func ptrTo[T any](v T) *T { return &v }
