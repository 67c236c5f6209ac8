package athar

import (
	"fmt"
	"sort"
)

// Literal ranges a predicate may have instead of entity types.
const (
	RangeInteger = "integer"
	RangeString  = "string"
	RangeYear    = "year" // a hijri year, stored as an integer
)

// Predicate is one relation of the vocabulary.
type Predicate struct {
	Name        string
	Domain      []EntityType
	Range       []EntityType // entity types of the object; empty when Literal is set
	Literal     string       // RangeInteger, RangeString or RangeYear for literal-valued predicates
	Inverse     string       // the relation's name read from the object's side
	Single      bool         // one true value per subject: differing values are variants
	Symmetric   bool
	Description string
	Align       []string
}

// IRI returns the predicate's IRI.
func (p *Predicate) IRI() string { return VocabBase + p.Name }

// AllowsSubject reports whether an entity of type t may be the subject.
func (p *Predicate) AllowsSubject(t EntityType) bool { return hasType(p.Domain, t) }

// AllowsObject reports whether an entity of type t may be the object.
func (p *Predicate) AllowsObject(t EntityType) bool { return hasType(p.Range, t) }

func hasType(ts []EntityType, t EntityType) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

// TypeDef describes an entity type.
type TypeDef struct {
	Name        EntityType
	Prefix      string
	Description string
	Align       []string
}

// Vocabulary is the set of entity types and predicates narrations may use. It is built once
// (from schema/vocabulary.yaml) and read-only afterwards.
type Vocabulary struct {
	Types      []TypeDef
	Predicates []*Predicate // in the order of the source file
	byName     map[string]*Predicate
	byIRI      map[string]*Predicate
}

// NewVocabulary checks the definitions for consistency and indexes them.
func NewVocabulary(types []TypeDef, preds []*Predicate) (*Vocabulary, error) {
	v := &Vocabulary{Types: types, Predicates: preds, byName: map[string]*Predicate{}, byIRI: map[string]*Predicate{}}
	seenT := map[EntityType]bool{}
	for _, t := range types {
		if !t.Name.Valid() || t.Name.Prefix() != t.Prefix {
			return nil, fmt.Errorf("vocabulary: type %q with prefix %q is not one of the entity types", t.Name, t.Prefix)
		}
		seenT[t.Name] = true
	}
	for _, t := range EntityTypes() {
		if !seenT[t] {
			return nil, fmt.Errorf("vocabulary: type %s is not described", t)
		}
	}
	for _, p := range preds {
		if p.Name == "" {
			return nil, fmt.Errorf("vocabulary: a predicate has no name")
		}
		if _, dup := v.byName[p.Name]; dup {
			return nil, fmt.Errorf("vocabulary: predicate %q is defined twice", p.Name)
		}
		if len(p.Domain) == 0 {
			return nil, fmt.Errorf("vocabulary: predicate %q has no domain", p.Name)
		}
		for _, t := range append(append([]EntityType{}, p.Domain...), p.Range...) {
			if !t.Valid() {
				return nil, fmt.Errorf("vocabulary: predicate %q names unknown type %q", p.Name, t)
			}
		}
		switch p.Literal {
		case "":
			if len(p.Range) == 0 {
				return nil, fmt.Errorf("vocabulary: predicate %q has no range", p.Name)
			}
		case RangeInteger, RangeString, RangeYear:
			if len(p.Range) != 0 {
				return nil, fmt.Errorf("vocabulary: predicate %q has both a literal and an entity range", p.Name)
			}
		default:
			return nil, fmt.Errorf("vocabulary: predicate %q has unknown literal range %q", p.Name, p.Literal)
		}
		if p.Description == "" {
			return nil, fmt.Errorf("vocabulary: predicate %q has no description", p.Name)
		}
		v.byName[p.Name] = p
		v.byIRI[p.IRI()] = p
	}
	return v, nil
}

// Predicate returns the predicate with the given name.
func (v *Vocabulary) Predicate(name string) (*Predicate, bool) {
	p, ok := v.byName[name]
	return p, ok
}

// PredicateByIRI returns the predicate with the given IRI.
func (v *Vocabulary) PredicateByIRI(iri string) (*Predicate, bool) {
	p, ok := v.byIRI[iri]
	return p, ok
}

// Names returns the predicate names, sorted.
func (v *Vocabulary) Names() []string {
	out := make([]string, 0, len(v.byName))
	for n := range v.byName {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
