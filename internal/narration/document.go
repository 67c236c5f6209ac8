// Package narration reads narration documents (YAML or JSON), validates them against the
// vocabulary, the Qur'an's structure and the current graph, and compiles them into the
// changeset that is the one way anything enters the graph.
//
// The write path is parse -> validate -> compile -> apply. Parse, Validate and Compile are
// pure; Importer runs the whole path against a Store, one document per transaction.
package narration

import (
	"sort"
	"strings"
)

// Document is one narration document as written.
type Document struct {
	Source    string // where it came from, for messages: a file name or "document"
	Narration Header
	Entities  []EntityDef
	Claims    []ClaimDef
	Gradings  []GradingDef

	lines map[string]int // field path -> 1-based source line
}

// Header is the document's narration block.
type Header struct {
	ID          string
	Title       string
	References  []ReferenceDef
	Narrator    string
	Chain       []string
	Routes      [][]string // further chains, after Chain (the first route)
	Language    string
	Translation string
	Text        string
}

// ReferenceDef locates the narration in a source.
type ReferenceDef struct {
	Collection, Edition, Number, URL string
}

// EntityDef introduces an entity, or gives extra names for an existing one.
type EntityDef struct {
	ID          string
	Type        string
	Name        string
	Arabic      []string
	Aliases     []string
	Description string
}

// ClaimDef is one claim with its evidence.
type ClaimDef struct {
	Subject    string
	Predicate  string
	Object     string
	Value      *Literal
	Evidence   string
	Occurrence int // which occurrence of Evidence in the text, 1-based; 0 means it must be unique
	Note       string
}

// GradingDef is one grader's verdict on the narration, as written.
type GradingDef struct {
	Grader   string // a person: id, or the grader's name as text
	Verdict  string // as stated, e.g. "hasan gharib"
	Grade    string // optional: the verdict normalised (athar.Grade)
	Scope    string // chain, text or part (athar.GradingScope)
	Part     string // which part of the text, for scope part
	StatedIn *StatedInDef
	Note     string
}

// StatedInDef is where a verdict is stated: a reference, or free text.
type StatedInDef struct {
	Reference *ReferenceDef
	Text      string
}

// Literal is a claim's value as written: an integer or a string.
type Literal struct {
	Text      string
	IsInteger bool
}

// Line returns the source line of the field at path, or of its nearest enclosing field, or 0.
func (d *Document) Line(path string) int {
	for path != "" {
		if l, ok := d.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

// Paths returns every field path the parser saw, sorted (for tests).
func (d *Document) Paths() []string {
	out := make([]string, 0, len(d.lines))
	for p := range d.lines {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
