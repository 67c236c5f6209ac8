package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

const dupDoc = `
narration:
  id: narration:dup
  title: A report naming Abu Bakr as 'Atiq
  references: [{collection: Test, number: "2"}]
  text: "'Atiq advised ransom."
entities:
  - {id: person:atiq, type: Person, name: "'Atiq"}
claims:
  - {subject: person:atiq, predicate: advises, object: concept:ransom, evidence: "'Atiq advised ransom"}
`

func TestMerge(t *testing.T) {
	env := storeEnv(t)
	mustCLI(t, env, "seed")
	doc := filepath.Join(t.TempDir(), "dup.yaml")
	if err := os.WriteFile(doc, []byte(dupDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, env, "load", doc)
	r := mustCLI(t, env, "merge", "person:abu-bakr", "person:atiq")
	if !strings.Contains(r.stdout, "merged person:atiq into person:abu-bakr: 1 narration(s) rewritten (narration:dup)") {
		t.Fatalf("merge: %s", r.stdout)
	}
	merged := mustCLI(t, env, "export", "--narration", "narration:dup").stdout
	for _, want := range []string{
		`<` + athar.ID("person:abu-bakr").IRI() + `> <` + athar.PredFormerID + `> "person:atiq"`,
		`<` + athar.ID("person:abu-bakr").IRI() + `> <` + athar.SKOSAltLbl + `> "'Atiq"`,
		`<` + athar.ID("person:abu-bakr").IRI() + `> <https://w3id.org/athar/vocab#advises> <` + athar.ID("concept:ransom").IRI() + `>`,
	} {
		if !strings.Contains(merged, want) {
			t.Errorf("after the merge, narration:dup lacks %s", want)
		}
	}
	if strings.Contains(merged, athar.ID("person:atiq").IRI()) {
		t.Error("narration:dup still names person:atiq")
	}
	if r := mustCLI(t, env, "merge", "person:abu-bakr", "person:atiq"); !strings.Contains(r.stdout, "nothing changed") {
		t.Errorf("second merge: %s", r.stdout)
	}
	// Loading the document again, which still says person:atiq, changes nothing.
	if r := mustCLI(t, env, "load", doc); !strings.Contains(r.stdout, "1 unchanged") {
		t.Errorf("reloading the merged document: %s", r.stdout)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"merge", "person:abu-bakr"}, 2, "give KEEP and REMOVE"},
		{[]string{"merge", "person:abu-bakr", "person:nobody"}, 1, "no entity person:nobody"},
		{[]string{"merge", "person:abu-bakr", "event:badr"}, 1, "only entities of one type"},
	} {
		r := cli(t, env, "", tc.args...)
		if exitCode(r.err) != tc.code || !strings.Contains(r.err.Error(), tc.msg) {
			t.Errorf("athar %s: %v (exit %d), want exit %d and %q", strings.Join(tc.args, " "), r.err, exitCode(r.err), tc.code, tc.msg)
		}
	}
}
