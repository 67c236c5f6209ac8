package zzseedcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/schema"
)

var files = []struct{ name, src string }{
	{"ahmad-208", ""},
	{"muslim-1763", "eng-muslim-4588.json"},
	{"bukhari-3953", "eng-bukhari-3953.json"},
	{"bukhari-3986", "eng-bukhari-3986.json"},
	{"tirmidhi-1567", "eng-tirmidhi-1567.json"},
	{"tirmidhi-3081", "eng-tirmidhi-3081.json"},
	{"abudawud-2690", "eng-abudawud-2690.json"},
}

func TestSeeds(t *testing.T) {
	ctx := context.Background()
	store, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	im := narration.NewImporter(store, schema.Vocabulary())
	var docs []*narration.Document
	for _, f := range files {
		path := "../../seeds/" + f.name + ".yaml"
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := narration.Parse("seeds/"+f.name+".yaml", data)
		if err != nil {
			report(t, err)
			continue
		}
		if f.src != "" {
			raw, err := os.ReadFile("/tmp/hadith/" + f.src)
			if err != nil {
				t.Fatal(err)
			}
			var h struct{ Text string }
			if err := json.Unmarshal(raw, &h); err != nil {
				t.Fatal(err)
			}
			if h.Text != doc.Narration.Text {
				t.Errorf("%s: text differs from the JSON text field", f.name)
			}
		}
		docs = append(docs, doc)
		r, err := im.Import(ctx, doc)
		if err != nil {
			report(t, err)
			continue
		}
		fmt.Printf("%-14s entities-defined=%d claims=%d | changed=%v claimsAdded=%d entitiesAdded=%d quads=%d\n",
			f.name, len(doc.Entities), len(doc.Claims), r.Changed, r.ClaimsAdded, r.EntitiesAdded, r.QuadsAdded)
	}
	// second import: nothing may change
	for _, d := range docs {
		r, err := im.Import(ctx, d)
		if err != nil {
			report(t, err)
			continue
		}
		if r.Changed {
			t.Errorf("%s: second import changed the graph", d.Narration.ID)
		}
	}
	// claims per narration (expanded verse ranges, plus narrates/transmits)
	for _, f := range files {
		cs, err := store.FindClaims(ctx, athar.ClaimFilter{Narration: athar.ID("narration:" + f.name)})
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("claims attested by narration:%s: %d\n", f.name, len(cs))
	}
	fmt.Println("\n== memberCount of group:companions-at-badr ==")
	cs, err := store.FindClaims(ctx, athar.ClaimFilter{Subject: "group:companions-at-badr", Predicate: "memberCount"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		printClaim(c)
	}
	if len(cs) != 3 {
		t.Errorf("want 3 memberCount variants, got %d", len(cs))
	}
	for _, subj := range []athar.ID{"group:mushrikeen-at-badr", "group:thousand-angels"} {
		fmt.Printf("\n== memberCount of %s ==\n", subj)
		cs, _ := store.FindClaims(ctx, athar.ClaimFilter{Subject: subj, Predicate: "memberCount"})
		for _, c := range cs {
			printClaim(c)
		}
	}
	fmt.Println("\n== corroborated claims (MinAttestations 2) ==")
	cs, err = store.FindClaims(ctx, athar.ClaimFilter{MinAttestations: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		printClaim(c)
	}
	fmt.Printf("total corroborated: %d\n", len(cs))
}

func printClaim(c *athar.Claim) {
	obj := string(c.Object)
	if c.Value != nil {
		obj = fmt.Sprintf("%q", c.Value.Literal)
	}
	var ns []string
	for _, a := range c.Attestations {
		ns = append(ns, string(a.Narration))
	}
	sort.Strings(ns)
	fmt.Printf("  %s %s %s  <- %v\n", c.Subject, c.Predicate, obj, ns)
}

func report(t *testing.T, err error) {
	t.Helper()
	var ve *athar.ValidationError
	if errors.As(err, &ve) {
		for _, p := range ve.Problems {
			t.Errorf("%s:%d: %s: %s", ve.Document, p.Line, p.Path, p.Msg)
		}
		return
	}
	t.Error(err)
}
