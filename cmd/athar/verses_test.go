package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quranFixture is a cut of quran-json 3.1.2's quran_en.json (see its NOTICE).
var quranFixture = filepath.Join("..", "..", "internal", "narration", "testdata", "quran_en.fixture.json")

func TestVersesImport(t *testing.T) {
	a, b := storeEnv(t), storeEnv(t)
	mustCLI(t, a, "seed")
	seeded := mustCLI(t, a, "export").stdout

	r := mustCLI(t, a, "verses", "import", quranFixture)
	if !strings.Contains(r.stdout, "7 verse text(s) imported under <https://w3id.org/athar/graph/quran>") {
		t.Fatalf("first import: %s", r.stdout)
	}
	exported := mustCLI(t, a, "export").stdout
	if r := mustCLI(t, a, "verses", "import", quranFixture); !strings.Contains(r.stdout, "nothing changed") {
		t.Fatalf("second import: %s", r.stdout)
	}
	if again := mustCLI(t, a, "export").stdout; again != exported {
		t.Fatal("importing the same texts twice changed the graph")
	}
	// Only quads under the reserved label were added (the trailers, which count and hash
	// every quad, differ).
	var rest []string
	for _, l := range strings.SplitAfter(exported, "\n") {
		if !strings.HasSuffix(l, "<https://w3id.org/athar/graph/quran> .\n") && !strings.HasPrefix(l, "#") {
			rest = append(rest, l)
		}
	}
	if strings.Join(rest, "") != seeded[:strings.LastIndex(seeded, "# athar-export end ")] {
		t.Fatal("verses import touched narrations' quads")
	}
	if !strings.Contains(exported, `<https://w3id.org/athar/verse/8:67> <https://w3id.org/athar/vocab#verseTranslation> "It is not for a prophet to have captives`) {
		t.Error("the export lacks 8:67's translation")
	}
	// export -> load restores the reserved graph too.
	file := filepath.Join(t.TempDir(), "graph.nq")
	if err := os.WriteFile(file, []byte(exported), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, b, "load", file)
	if got := mustCLI(t, b, "export").stdout; got != exported {
		t.Fatal("export -> load -> export with verse texts is not identical")
	}

	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`[{"id": 8, "total_verses": 75, "verses": [{"id": 76, "text": "x", "translation": "y"}]}]`), 0o644)
	if r := cli(t, a, "", "verses", "import", bad); r.err == nil || !strings.Contains(r.err.Error(), "has verses 1 to 75") {
		t.Errorf("a verse that does not exist: %v", r.err)
	}
	if r := cli(t, a, "", "verses"); exitCode(r.err) != 2 {
		t.Errorf("no subcommand: %v", r.err)
	}
	if r := cli(t, a, "", "verses", "import"); exitCode(r.err) != 2 {
		t.Errorf("no file: %v", r.err)
	}
}
