package athar

import "sort"

// EntityType is one of the vocabulary's entity types.
type EntityType string

// The entity types. Their prefixes are the lower-case type names.
const (
	TypePerson    EntityType = "Person"
	TypeGroup     EntityType = "Group"
	TypeEvent     EntityType = "Event"
	TypePlace     EntityType = "Place"
	TypeConcept   EntityType = "Concept"
	TypeVerse     EntityType = "Verse"
	TypeNarration EntityType = "Narration"
)

var typesByPrefix = map[string]EntityType{
	"person":    TypePerson,
	"group":     TypeGroup,
	"event":     TypeEvent,
	"place":     TypePlace,
	"concept":   TypeConcept,
	"verse":     TypeVerse,
	"narration": TypeNarration,
}

// EntityTypes lists every entity type in a fixed order.
func EntityTypes() []EntityType {
	return []EntityType{TypePerson, TypeGroup, TypeEvent, TypePlace, TypeConcept, TypeVerse, TypeNarration}
}

// TypeOfPrefix returns the entity type an id prefix denotes.
func TypeOfPrefix(prefix string) (EntityType, bool) {
	t, ok := typesByPrefix[prefix]
	return t, ok
}

// Prefix returns the id prefix of entities of type t.
func (t EntityType) Prefix() string {
	for p, tt := range typesByPrefix {
		if tt == t {
			return p
		}
	}
	return ""
}

// Valid reports whether t is a known entity type.
func (t EntityType) Valid() bool { return t.Prefix() != "" }

// IRI is the vocabulary IRI of the type.
func (t EntityType) IRI() string { return VocabBase + string(t) }

// Prefixes returns the known entity id prefixes, sorted.
func Prefixes() []string {
	out := make([]string, 0, len(typesByPrefix))
	for p := range typesByPrefix {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
