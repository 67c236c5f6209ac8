// Package schema holds Athar's contracts: the GraphQL SDL (schema.graphqls) and the triple
// vocabulary (vocabulary.yaml). Code and docs read them from here; nothing repeats them.
package schema

import (
	"bytes"
	_ "embed"
	"fmt"
	"sync"

	"github.com/athar-hadith/athar/internal/athar"
	"go.yaml.in/yaml/v3"
)

//go:generate go run ./gendocs -o ../docs/vocabulary.md

// VocabularyYAML is the vocabulary source file.
//
//go:embed vocabulary.yaml
var VocabularyYAML []byte

type vocabFile struct {
	Types []struct {
		Name        string   `yaml:"name"`
		Prefix      string   `yaml:"prefix"`
		Description string   `yaml:"description"`
		Align       []string `yaml:"align"`
	} `yaml:"types"`
	Predicates []struct {
		Name        string   `yaml:"name"`
		Domain      []string `yaml:"domain"`
		Range       any      `yaml:"range"`
		Inverse     string   `yaml:"inverse"`
		Single      bool     `yaml:"single"`
		Symmetric   bool     `yaml:"symmetric"`
		Description string   `yaml:"description"`
		Align       []string `yaml:"align"`
	} `yaml:"predicates"`
}

// ParseVocabulary parses a vocabulary file.
func ParseVocabulary(data []byte) (*athar.Vocabulary, error) {
	var f vocabFile
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("vocabulary: %w", err)
	}
	var types []athar.TypeDef
	for _, t := range f.Types {
		types = append(types, athar.TypeDef{Name: athar.EntityType(t.Name), Prefix: t.Prefix, Description: t.Description, Align: t.Align})
	}
	var preds []*athar.Predicate
	for _, p := range f.Predicates {
		ap := &athar.Predicate{Name: p.Name, Inverse: p.Inverse, Single: p.Single, Symmetric: p.Symmetric, Description: p.Description, Align: p.Align}
		for _, d := range p.Domain {
			ap.Domain = append(ap.Domain, athar.EntityType(d))
		}
		switch r := p.Range.(type) {
		case string:
			ap.Literal = r
		case []any:
			for _, x := range r {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("vocabulary: predicate %q: range must list type names", p.Name)
				}
				ap.Range = append(ap.Range, athar.EntityType(s))
			}
		default:
			return nil, fmt.Errorf("vocabulary: predicate %q: range must be a list of types or one of integer, string, year", p.Name)
		}
		preds = append(preds, ap)
	}
	return athar.NewVocabulary(types, preds)
}

var vocabOnce = sync.OnceValues(func() (*athar.Vocabulary, error) { return ParseVocabulary(VocabularyYAML) })

// Vocabulary returns the embedded vocabulary. It is checked by the tests, so an error here
// means a broken build.
func Vocabulary() *athar.Vocabulary {
	v, err := vocabOnce()
	if err != nil {
		panic(err)
	}
	return v
}
