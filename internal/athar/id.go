package athar

import (
	"fmt"
	"regexp"
	"strings"
)

// Base is the namespace under which every Athar IRI lives. Documents and the API use
// CURIE-style ids (person:abu-bakr); the store and the N-Quads export use absolute IRIs
// (https://w3id.org/athar/person/abu-bakr). IRI and ParseIRI are the one mapping between them.
const Base = "https://w3id.org/athar/"

// VocabBase is the namespace of the vocabulary: types and predicates are VocabBase+name.
const VocabBase = Base + "vocab#"

// ID is a CURIE-style identifier: "person:abu-bakr", "verse:8:67", "narration:ahmad-208",
// "claim:3f9a...". Its prefix names the kind of node.
type ID string

// Prefix returns the part of the id before the first colon.
func (id ID) Prefix() string {
	p, _, _ := strings.Cut(string(id), ":")
	return p
}

// Local returns the part after the first colon.
func (id ID) Local() string {
	_, l, _ := strings.Cut(string(id), ":")
	return l
}

// IRI returns the absolute IRI for id.
func (id ID) IRI() string {
	return Base + id.Prefix() + "/" + id.Local()
}

// Prefixes of nodes that are not entities.
const (
	ClaimPrefix       = "claim"
	AttestationPrefix = "attestation"
)

var slugRE = regexp.MustCompile(`^[a-z0-9]+(?:[-.][a-z0-9]+)*$`)

// ParseIRI maps an absolute IRI under Base back to its ID. It reports false for IRIs
// outside Base (and for vocabulary IRIs).
func ParseIRI(iri string) (ID, bool) {
	rest, ok := strings.CutPrefix(iri, Base)
	if !ok || strings.HasPrefix(rest, "vocab#") {
		return "", false
	}
	prefix, local, ok := strings.Cut(rest, "/")
	if !ok || prefix == "" || local == "" {
		return "", false
	}
	return ID(prefix + ":" + local), true
}

// ParseEntityID checks that s is a well-formed entity id, "prefix:slug" with a known
// prefix, and returns it with its type. Verse ids must name a verse that exists (see
// ParseVerseRef); verse ranges are not entity ids (see ExpandVerseIDs).
func ParseEntityID(s string) (ID, EntityType, error) {
	prefix, local, ok := strings.Cut(s, ":")
	if !ok {
		return "", "", fmt.Errorf("%q is not an id: expected prefix:slug, e.g. person:abu-bakr", s)
	}
	t, ok := TypeOfPrefix(prefix)
	if !ok {
		return "", "", fmt.Errorf("%q has unknown prefix %q: expected one of %s", s, prefix, strings.Join(Prefixes(), ", "))
	}
	if t == TypeVerse {
		v, err := ParseVerseRef(local)
		if err != nil {
			return "", "", fmt.Errorf("%q: %w", s, err)
		}
		return v.ID(), t, nil
	}
	if !slugRE.MatchString(local) {
		return "", "", fmt.Errorf("%q: the part after %q must be lower-case letters and digits separated by single - or . (e.g. %s:abu-bakr)", s, prefix+":", prefix)
	}
	return ID(s), t, nil
}
