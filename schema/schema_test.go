package schema

import (
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

func TestVocabularyLoads(t *testing.T) {
	v, err := ParseVocabulary(VocabularyYAML)
	if err != nil {
		t.Fatal(err)
	}
	// The core predicates of NARRATION-FORMAT.md keep their names, domains and ranges.
	core := []struct {
		name    string
		subject athar.EntityType
		object  athar.EntityType
		literal string
	}{
		{"precedes", athar.TypeEvent, athar.TypeEvent, ""},
		{"participatedIn", athar.TypePerson, athar.TypeEvent, ""},
		{"participatedIn", athar.TypeGroup, athar.TypeEvent, ""},
		{"advises", athar.TypePerson, athar.TypeConcept, ""},
		{"consults", athar.TypePerson, athar.TypePerson, ""},
		{"inclinesTo", athar.TypePerson, athar.TypePerson, ""},
		{"inclinesTo", athar.TypePerson, athar.TypeConcept, ""},
		{"revealedRegarding", athar.TypeVerse, athar.TypeEvent, ""},
		{"revealedRegarding", athar.TypeVerse, athar.TypeConcept, ""},
		{"killedCount", athar.TypeEvent, "", athar.RangeInteger},
		{"capturedCount", athar.TypeEvent, "", athar.RangeInteger},
		// Counts of one side go on that side's group (issue 17).
		{"killedCount", athar.TypeGroup, "", athar.RangeInteger},
		{"capturedCount", athar.TypeGroup, "", athar.RangeInteger},
		{"narrates", athar.TypePerson, athar.TypeNarration, ""},
	}
	for _, c := range core {
		p, ok := v.Predicate(c.name)
		if !ok {
			t.Errorf("core predicate %s missing", c.name)
			continue
		}
		if !p.AllowsSubject(c.subject) {
			t.Errorf("%s: domain %v lacks %s", c.name, p.Domain, c.subject)
		}
		if c.literal != "" && p.Literal != c.literal {
			t.Errorf("%s: literal range %q, want %q", c.name, p.Literal, c.literal)
		}
		if c.object != "" && !p.AllowsObject(c.object) {
			t.Errorf("%s: range %v lacks %s", c.name, p.Range, c.object)
		}
	}
	for _, p := range v.Predicates {
		if p.Literal == "" && p.Inverse == "" && !p.Symmetric {
			t.Errorf("%s: entity-valued predicates need an inverse name for traversal", p.Name)
		}
	}
}

func TestParseVocabularyRejects(t *testing.T) {
	cases := map[string]string{
		"unknown field": "types: []\npredicates: []\nextra: 1\n",
		"missing types": "predicates: []\n",
		"unknown type in domain": `types:
  - {name: Person, prefix: person, description: x}
  - {name: Group, prefix: group, description: x}
  - {name: Event, prefix: event, description: x}
  - {name: Place, prefix: place, description: x}
  - {name: Concept, prefix: concept, description: x}
  - {name: Verse, prefix: verse, description: x}
  - {name: Narration, prefix: narration, description: x}
predicates:
  - {name: p, domain: [Robot], range: [Person], inverse: q, description: x}
`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseVocabulary([]byte(src)); err == nil || !strings.Contains(err.Error(), "vocabulary") {
				t.Fatalf("got %v, want a vocabulary error", err)
			}
		})
	}
}
