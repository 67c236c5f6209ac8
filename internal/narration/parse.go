package narration

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/athar-hadith/athar/internal/athar"
	"go.yaml.in/yaml/v3"
)

// The limits of one document, which bound the work and the memory one import takes (and,
// for what needs the graph, how long it holds the writer's lock (internal/ingest)). Parse refuses a
// document over any of them, naming the limit. docs/narration-format.md lists them.
const (
	// MaxDocumentSize is the largest document Parse accepts, in bytes.
	MaxDocumentSize = 4 << 20
	// MaxClaims is the most claims one document may make. The longest seed makes 92; each
	// claim is about ten quads in the document's one transaction.
	MaxClaims = 2000
	// MaxEntities is the most entities one document may define.
	MaxEntities = 2000
)

// Parse reads a narration document in YAML or JSON (JSON is read as the YAML subset it is,
// so both give the same structure and line numbers). It checks the document's shape --
// known fields, field kinds, required fields -- and returns every problem at once as a
// *athar.ValidationError naming source, field path and line. Rules that need the
// vocabulary or the graph are checked by Validate.
func Parse(source string, data []byte) (*Document, error) {
	p := &parser{doc: &Document{Source: source, lines: map[string]int{}}}
	switch {
	case len(data) > MaxDocumentSize:
		p.fail("", 0, "the document is %d bytes; the limit is %d (MaxDocumentSize)", len(data), MaxDocumentSize)
	case !utf8.Valid(data):
		p.fail("", 0, "the document is not valid UTF-8")
	case len(bytes.TrimSpace(data)) == 0:
		p.fail("", 0, "the document is empty: expected a mapping with narration, entities and claims")
	}
	if len(p.problems) > 0 {
		return nil, p.err()
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		p.fail("", yamlErrLine(err), "not valid YAML or JSON: %s", yamlErrText(err))
		return nil, p.err()
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.fail("", extra.Line, "the file holds more than one document (a second --- section); put one narration per file")
	}
	body := &root
	if body.Kind == yaml.DocumentNode && len(body.Content) == 1 {
		body = body.Content[0]
	}
	p.document(body)
	if len(p.problems) > 0 {
		return nil, p.err()
	}
	return p.doc, nil
}

type parser struct {
	doc      *Document
	problems []athar.Problem
}

func (p *parser) fail(path string, line int, format string, args ...any) {
	p.problems = append(p.problems, athar.Problem{Path: path, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (p *parser) err() error {
	return &athar.ValidationError{Document: p.doc.Source, Problems: p.problems}
}

func (p *parser) see(path string, n *yaml.Node) { p.doc.lines[path] = n.Line }

func join(path, field string) string {
	if path == "" {
		return field
	}
	return path + "." + field
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "nothing (null)"
	}
	return fmt.Sprintf("the value %q", n.Value)
}

// fields walks a mapping, calling the handler of each known key; unknown and duplicate keys
// are problems.
func (p *parser) fields(n *yaml.Node, path string, handlers map[string]func(*yaml.Node, string)) bool {
	if n.Kind != yaml.MappingNode {
		what := path
		if what == "" {
			what = "the document"
		}
		p.fail(path, n.Line, "%s must be a mapping of fields, not %s", what, kindName(n))
		return false
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		fp := join(path, k.Value)
		if seen[k.Value] {
			p.fail(fp, k.Line, "field %q is given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		h, ok := handlers[k.Value]
		if !ok {
			p.fail(fp, k.Line, "unknown field %q: expected one of %s", k.Value, knownKeys(handlers))
			continue
		}
		p.see(fp, k)
		h(v, fp)
	}
	return true
}

func knownKeys(h map[string]func(*yaml.Node, string)) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

func (p *parser) str(n *yaml.Node, path string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.fail(path, n.Line, "expected text, got %s", kindName(n))
		return ""
	}
	return n.Value
}

func (p *parser) strList(n *yaml.Node, path string) []string {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return []string{n.Value} // a single name is accepted for a list of one
	}
	if n.Kind != yaml.SequenceNode {
		p.fail(path, n.Line, "expected a list of text, got %s", kindName(n))
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, c := range n.Content {
		ip := fmt.Sprintf("%s[%d]", path, i)
		p.see(ip, c)
		out = append(out, p.str(c, ip))
	}
	return out
}

// tooMany refuses a list longer than max, before any of its items is read.
func (p *parser) tooMany(n *yaml.Node, path, what string, max int, name string) bool {
	if n.Kind != yaml.SequenceNode || len(n.Content) <= max {
		return false
	}
	p.fail(path, n.Line, "the document has %d %s; the limit is %d (%s): split it into several documents", len(n.Content), what, max, name)
	return true
}

func (p *parser) list(n *yaml.Node, path string, each func(*yaml.Node, string)) {
	if n.Kind != yaml.SequenceNode {
		p.fail(path, n.Line, "expected a list, got %s", kindName(n))
		return
	}
	for i, c := range n.Content {
		ip := fmt.Sprintf("%s[%d]", path, i)
		p.see(ip, c)
		each(c, ip)
	}
}

func (p *parser) document(n *yaml.Node) {
	d := p.doc
	var sawNarration bool
	p.fields(n, "", map[string]func(*yaml.Node, string){
		"narration": func(n *yaml.Node, path string) { sawNarration = true; p.header(n, path) },
		"entities": func(n *yaml.Node, path string) {
			if p.tooMany(n, path, "entities", MaxEntities, "MaxEntities") {
				return
			}
			p.list(n, path, func(n *yaml.Node, path string) { d.Entities = append(d.Entities, p.entity(n, path)) })
		},
		"claims": func(n *yaml.Node, path string) {
			if p.tooMany(n, path, "claims", MaxClaims, "MaxClaims") {
				return
			}
			p.list(n, path, func(n *yaml.Node, path string) { d.Claims = append(d.Claims, p.claim(n, path)) })
		},
		"gradings": func(n *yaml.Node, path string) {
			p.list(n, path, func(n *yaml.Node, path string) { d.Gradings = append(d.Gradings, p.grading(n, path)) })
		},
	})
	if n.Kind == yaml.MappingNode && !sawNarration {
		p.fail("narration", n.Line, "missing: every document needs a narration block with id, title, references and text")
	}
}

func (p *parser) header(n *yaml.Node, path string) {
	h := &p.doc.Narration
	required := map[string]bool{"id": false, "title": false, "text": false, "references": false}
	mark := func(k string) { required[k] = true }
	if !p.fields(n, path, map[string]func(*yaml.Node, string){
		"id":    func(n *yaml.Node, fp string) { mark("id"); h.ID = p.str(n, fp) },
		"title": func(n *yaml.Node, fp string) { mark("title"); h.Title = p.str(n, fp) },
		"text":  func(n *yaml.Node, fp string) { mark("text"); h.Text = p.str(n, fp) },
		"references": func(n *yaml.Node, fp string) {
			mark("references")
			p.list(n, fp, func(n *yaml.Node, rp string) { h.References = append(h.References, p.reference(n, rp)) })
		},
		"narrator": func(n *yaml.Node, fp string) { h.Narrator = p.str(n, fp) },
		"chain":    func(n *yaml.Node, fp string) { h.Chain = p.strList(n, fp) },
		"routes": func(n *yaml.Node, fp string) {
			p.list(n, fp, func(n *yaml.Node, rp string) { h.Routes = append(h.Routes, p.strList(n, rp)) })
		},
		"language":    func(n *yaml.Node, fp string) { h.Language = p.str(n, fp) },
		"translation": func(n *yaml.Node, fp string) { h.Translation = p.str(n, fp) },
	}) {
		return
	}
	for _, k := range []string{"id", "title", "references", "text"} {
		if !required[k] {
			p.fail(join(path, k), n.Line, "missing: the narration needs a %s", k)
		}
	}
}

func (p *parser) reference(n *yaml.Node, path string) ReferenceDef {
	var r ReferenceDef
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"collection": func(n *yaml.Node, fp string) { r.Collection = p.str(n, fp) },
		"edition":    func(n *yaml.Node, fp string) { r.Edition = p.str(n, fp) },
		"number":     func(n *yaml.Node, fp string) { r.Number = p.str(n, fp) },
		"url":        func(n *yaml.Node, fp string) { r.URL = p.str(n, fp) },
	})
	if n.Kind == yaml.MappingNode {
		if strings.TrimSpace(r.Collection) == "" {
			p.fail(join(path, "collection"), n.Line, "missing: a reference needs the collection, e.g. Musnad Ahmad")
		}
		if strings.TrimSpace(r.Number) == "" {
			p.fail(join(path, "number"), n.Line, "missing: a reference needs the number, as text (e.g. \"208\" or \"235a\")")
		}
	}
	return r
}

func (p *parser) entity(n *yaml.Node, path string) EntityDef {
	var e EntityDef
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"id":          func(n *yaml.Node, fp string) { e.ID = p.str(n, fp) },
		"type":        func(n *yaml.Node, fp string) { e.Type = p.str(n, fp) },
		"name":        func(n *yaml.Node, fp string) { e.Name = p.str(n, fp) },
		"arabic":      func(n *yaml.Node, fp string) { e.Arabic = p.strList(n, fp) },
		"aliases":     func(n *yaml.Node, fp string) { e.Aliases = p.strList(n, fp) },
		"description": func(n *yaml.Node, fp string) { e.Description = p.str(n, fp) },
	})
	if n.Kind == yaml.MappingNode && e.ID == "" {
		p.fail(join(path, "id"), n.Line, "missing: every entity needs an id, e.g. person:abu-bakr")
	}
	return e
}

func (p *parser) claim(n *yaml.Node, path string) ClaimDef {
	var c ClaimDef
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"subject":   func(n *yaml.Node, fp string) { c.Subject = p.str(n, fp) },
		"predicate": func(n *yaml.Node, fp string) { c.Predicate = p.str(n, fp) },
		"object":    func(n *yaml.Node, fp string) { c.Object = p.str(n, fp) },
		"value": func(n *yaml.Node, fp string) {
			if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
				p.fail(fp, n.Line, "expected a number or text, got %s", kindName(n))
				return
			}
			switch n.Tag {
			case "!!int":
				i, err := strconv.ParseInt(n.Value, 0, 64)
				if err != nil {
					p.fail(fp, n.Line, "%q is not a whole number Athar can store", n.Value)
					return
				}
				c.Value = &Literal{Text: strconv.FormatInt(i, 10), IsInteger: true}
			case "!!float", "!!bool":
				p.fail(fp, n.Line, "expected a whole number or text, got %s (quote it to store it as text)", n.Value)
			default:
				c.Value = &Literal{Text: n.Value}
			}
		},
		"evidence": func(n *yaml.Node, fp string) { c.Evidence = p.str(n, fp) },
		"occurrence": func(n *yaml.Node, fp string) {
			i, err := strconv.Atoi(n.Value)
			if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil || i < 1 {
				p.fail(fp, n.Line, "expected a whole number from 1 (which occurrence of the evidence in the text), got %s", kindName(n))
				return
			}
			c.Occurrence = i
		},
		"note": func(n *yaml.Node, fp string) { c.Note = p.str(n, fp) },
	})
	return c
}

func (p *parser) grading(n *yaml.Node, path string) GradingDef {
	var g GradingDef
	p.fields(n, path, map[string]func(*yaml.Node, string){
		"grader":  func(n *yaml.Node, fp string) { g.Grader = p.str(n, fp) },
		"verdict": func(n *yaml.Node, fp string) { g.Verdict = p.str(n, fp) },
		"grade":   func(n *yaml.Node, fp string) { g.Grade = p.str(n, fp) },
		"scope":   func(n *yaml.Node, fp string) { g.Scope = p.str(n, fp) },
		"part":    func(n *yaml.Node, fp string) { g.Part = p.str(n, fp) },
		"statedIn": func(n *yaml.Node, fp string) {
			if n.Kind == yaml.MappingNode {
				var r ReferenceDef
				p.fields(n, fp, map[string]func(*yaml.Node, string){
					"collection": func(n *yaml.Node, rp string) { r.Collection = p.str(n, rp) },
					"edition":    func(n *yaml.Node, rp string) { r.Edition = p.str(n, rp) },
					"number":     func(n *yaml.Node, rp string) { r.Number = p.str(n, rp) },
					"url":        func(n *yaml.Node, rp string) { r.URL = p.str(n, rp) },
				})
				if strings.TrimSpace(r.Collection) == "" {
					p.fail(join(fp, "collection"), n.Line, "missing: a reference needs the collection (or give statedIn as text)")
				}
				g.StatedIn = &StatedInDef{Reference: &r}
				return
			}
			if t := p.str(n, fp); t != "" {
				g.StatedIn = &StatedInDef{Text: t}
			}
		},
		"note": func(n *yaml.Node, fp string) { g.Note = p.str(n, fp) },
	})
	if n.Kind == yaml.MappingNode {
		if strings.TrimSpace(g.Grader) == "" {
			p.fail(join(path, "grader"), n.Line, "missing: a grading needs its grader, a person: id or a name (e.g. al-Albani)")
		}
		if strings.TrimSpace(g.Verdict) == "" {
			p.fail(join(path, "verdict"), n.Line, "missing: a grading needs the verdict as the grader states it (e.g. hasan gharib)")
		}
		if strings.TrimSpace(g.Scope) == "" {
			p.fail(join(path, "scope"), n.Line, "missing: a grading needs its scope: chain (the isnad only), text (the report as a whole) or part (one part of the text, described in part)")
		}
	}
	return g
}

func yamlErrLine(err error) int {
	var line int
	s := err.Error()
	if i := strings.Index(s, "line "); i >= 0 {
		fmt.Sscanf(s[i+5:], "%d", &line)
	}
	return line
}

func yamlErrText(err error) string {
	s := strings.TrimPrefix(err.Error(), "yaml: ")
	if i := strings.Index(s, "line "); i == 0 {
		if j := strings.Index(s, ": "); j > 0 {
			s = s[j+2:]
		}
	}
	return s
}
