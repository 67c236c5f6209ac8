package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/testsupport"
)

const atiqIsAnEntity = "<https://w3id.org/athar/person/atiq> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"

// TestWritingCommandsGoThroughTheLog runs every writing command in the scale-out mode, each
// on one of two replica stores (or a throwaway one), and checks after each that both
// replicas and a replica rebuilt from the log alone export byte-identical graphs, and that
// the command's change is in them: nothing writes to a replica's store behind the log.
func TestWritingCommandsGoThroughTheLog(t *testing.T) {
	db := testsupport.Database(t)
	dir := t.TempDir()
	a, b := "bbolt:"+filepath.Join(dir, "a"), "bbolt:"+filepath.Join(dir, "b")
	env := map[string]string{"ATHAR_DATABASE": db}
	doc := filepath.Join(dir, "dup.yaml")
	if err := os.WriteFile(doc, []byte(dupDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	var seeded string // the graph after the seeds, for restore
	converged := func(t *testing.T) string {
		t.Helper()
		fresh := mustCLI(t, env, "export").stdout
		for _, store := range []string{a, b} {
			if got := mustCLI(t, env, "export", "--store", store).stdout; got != fresh {
				t.Fatalf("replica %s differs from the log's graph", store)
			}
		}
		return fresh
	}
	tests := []struct {
		name string
		args []string
		says string // in the command's output
		// check looks at the converged export.
		check func(t *testing.T, export string)
	}{
		{"seed", []string{"seed", "--store", a}, "through the log", func(t *testing.T, x string) {
			if !strings.Contains(x, "narration/ahmad-208") {
				t.Error("the seeds are not in the graph")
			}
			seeded = x
		}},
		{"load", []string{"load", "--store", b, doc}, "1 imported", func(t *testing.T, x string) {
			if !strings.Contains(x, atiqIsAnEntity) {
				t.Error("the loaded document is not in the graph")
			}
		}},
		{"merge", []string{"merge", "--store", a, "person:abu-bakr", "person:atiq"}, "merged person:atiq into person:abu-bakr", func(t *testing.T, x string) {
			if strings.Contains(x, atiqIsAnEntity) {
				t.Error("person:atiq is still an entity")
			}
		}},
		{"delete", []string{"delete", "--store", b, "narration:dup"}, "deleted narration:dup", func(t *testing.T, x string) {
			if strings.Contains(x, "narration/dup") {
				t.Error("narration:dup is still in the graph")
			}
		}},
		{"verses import", []string{"verses", "import", "--store", a, quranFixture}, "verse text(s) imported", func(t *testing.T, x string) {
			if !strings.Contains(x, "graph/quran") {
				t.Error("no verse texts in the graph")
			}
		}},
		{"restore", nil, "restored", func(t *testing.T, x string) {
			if x != seeded {
				t.Error("restore --replace did not make the graph the backup")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.name == "restore" {
				args = []string{"restore", "--replace", "--store", b, filepath.Join(dir, "seeded.nq")}
				if err := os.WriteFile(args[len(args)-1], []byte(seeded), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			r := mustCLI(t, env, args...)
			if !strings.Contains(r.stdout, tt.says) || !strings.Contains(r.stdout, "through the log") {
				t.Fatalf("athar %s: %q, want it to say %q and that it went through the log", strings.Join(args, " "), r.stdout, tt.says)
			}
			tt.check(t, converged(t))
		})
	}
}
