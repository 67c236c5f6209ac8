package export_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/export"
)

// checker is the directory of the Node.js consumer checks, relative to this package.
var checker = filepath.Join("..", "..", "web", "exportcheck")

// TestConsumers writes every export of a few selections and loads them in the libraries
// visualisation tools use (cytoscape, graphology's GraphML and GEXF parsers, n3, jsonld.js),
// through web/exportcheck/check.mjs. It needs Node.js 18 or later and npm; without them it
// fails, saying what to install.
func TestConsumers(t *testing.T) {
	node := requireNode(t)
	dir, err := filepath.Abs(checker)
	if err != nil {
		t.Fatal(err)
	}
	installCheckerModules(t, dir)

	seedStore, fixtureStore := seeded(t), fixture(t)
	tests := []struct {
		name      string
		store     athar.Store
		opts      export.Options
		sameBytes bool // whether jsonld.js must write the very N-Quads lines Cayley writes
	}{
		{"badr-depth1", seedStore, export.Options{Root: "event:badr", Depth: 1}, true},
		{"badr-depth2", seedStore, export.Options{Root: "event:badr", Depth: 2}, true},
		{"seeds-all", seedStore, export.Options{}, true},
		// The fixture's text holds a form feed and a bell, which Cayley writes as they are
		// and jsonld.js escapes: the same statements, not the same bytes.
		{"fixture-all", fixtureStore, export.Options{}, false},
		// person:c's graph is fixture-1, whose text (form feed and bell) it describes.
		{"fixture-isolated", fixtureStore, export.Options{Root: "person:c"}, false},
	}
	out := t.TempDir()
	for _, tc := range tests {
		sg, err := export.Select(context.Background(), tc.store, tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		writeExports(t, out, tc.name, sg)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "check.mjs"), out)
	report, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node check.mjs %s: %v\n%s", out, err, report)
	}
	t.Logf("web/exportcheck:\n%s", report)
	for _, tc := range tests {
		line := lineStarting(string(report), tc.name+":")
		switch {
		case line == "":
			t.Errorf("%s: not checked", tc.name)
		case tc.sameBytes && !strings.Contains(line, "the same bytes"):
			t.Errorf("%s: jsonld.js wrote the statements differently from the N-Quads export: %s", tc.name, line)
		}
	}
}

// TestNetworkX is issue 18's item 11: NetworkX's read_gexf refuses GEXF 1.3, so the gexf12
// format exists for it. web/exportcheck/check_networkx.py loads the GEXF 1.2 and GraphML
// exports of a few selections in NetworkX and checks their counts and edges' provenance.
// It skips, saying why, when python3 or its networkx module is missing (.ci/test.sh
// installs python3-networkx).
func TestNetworkX(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the NetworkX check is skipped (apt-get install python3-networkx)")
	}
	if out, err := exec.Command(python, "-c", "import networkx").CombinedOutput(); err != nil {
		t.Skipf("python3 cannot import networkx, so the NetworkX check is skipped (apt-get install python3-networkx): %v\n%s", err, out)
	}
	seedStore, fixtureStore := seeded(t), fixture(t)
	out := t.TempDir()
	for _, tc := range []struct {
		name  string
		store athar.Store
		opts  export.Options
	}{
		{"badr-depth2", seedStore, export.Options{Root: "event:badr", Depth: 2}},
		{"seeds-all", seedStore, export.Options{}},
		{"ahmad-208", seedStore, export.Options{Narration: "narration:ahmad-208"}},
		{"fixture-all", fixtureStore, export.Options{}},
	} {
		sg, err := export.Select(context.Background(), tc.store, tc.opts)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		writeExports(t, out, tc.name, sg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	report, err := exec.CommandContext(ctx, python, filepath.Join(checker, "check_networkx.py"), out).CombinedOutput()
	if err != nil {
		t.Fatalf("python3 check_networkx.py %s: %v\n%s", out, err, report)
	}
	t.Logf("web/exportcheck/check_networkx.py:\n%s", report)
}

// writeExports writes sg in every format to dir/name+extension, and the counts the checks
// expect to dir/name.expect.json.
func writeExports(t *testing.T, dir, name string, sg *export.Subgraph) {
	t.Helper()
	for _, f := range export.Formats() {
		var buf bytes.Buffer
		if err := export.Write(&buf, f, sg); err != nil {
			t.Fatalf("%s as %s: %v", name, f, err)
		}
		if err := os.WriteFile(filepath.Join(dir, fileName(name, f)), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	graphs := map[string]bool{}
	for _, q := range sg.Quads {
		graphs[q.Label] = true
	}
	expect, err := json.Marshal(map[string]int{
		"nodes": len(sg.Nodes), "edges": len(sg.Edges), "quads": len(sg.Quads), "graphs": len(graphs),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".expect.json"), expect, 0o644); err != nil {
		t.Fatal(err)
	}
}

// requireNode returns the path of node, failing the test (never skipping it) when Node.js
// 18 or later is not installed.
func requireNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("Node.js is not installed (no node on PATH): the exports are checked in the JavaScript " +
			"libraries that load them. Install Node.js 18 or later with npm (e.g. apt-get install nodejs npm, " +
			"or https://nodejs.org/) and run the test again.")
	}
	v, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", node, err)
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(v)), "v"), ".")
	if n, err := strconv.Atoi(major); err != nil || n < 18 {
		t.Fatalf("%s is Node.js %s; the checks need 18 or later (jsonld.js requires it): upgrade Node.js", node, strings.TrimSpace(string(v)))
	}
	return node
}

// installCheckerModules runs npm ci in dir when its node_modules is missing, installing
// exactly the versions of package-lock.json.
func installCheckerModules(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "package-lock.json")); err != nil {
		t.Fatalf("the consumer checks are missing: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil {
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("%s/node_modules is missing and npm is not installed: install npm (it comes with Node.js) "+
			"or run npm ci in %s", dir, dir)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "ci", "--prefix", dir, "--no-audit", "--no-fund").CombinedOutput()
	if err != nil {
		t.Fatalf("npm ci --prefix %s: %v\n%s", dir, err, out)
	}
	t.Logf("npm ci --prefix %s:\n%s", dir, out)
}

func lineStarting(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
