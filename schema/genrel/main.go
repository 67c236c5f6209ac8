// Command genrel generates the per-type relation fields of the GraphQL API from the
// vocabulary (schema/vocabulary.yaml), so that they are never maintained by hand:
//
//   - an SDL file extending each entity type with one field per predicate whose domain
//     includes the type (named by the predicate: Event.precedes) and one per predicate whose
//     range includes it (named by the predicate's inverse: Event.participants);
//   - the Go resolvers of those fields, and the entity types' common resolver methods,
//     for package graph.
//
// A symmetric predicate holds both ways, so its fields read claims in either direction.
// It runs from graph/generate.go before gqlgen:
//
//	go run ../schema/genrel -sdl ../schema/relations.graphqls -go relations_gen.go
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"strings"
	"text/template"

	"github.com/99designs/gqlgen/codegen/templates"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/schema"
)

func main() {
	sdlOut := flag.String("sdl", "", "write the SDL here")
	goOut := flag.String("go", "", "write the Go resolvers here")
	flag.Parse()
	if err := run(*sdlOut, *goOut); err != nil {
		fmt.Fprintln(os.Stderr, "genrel:", err)
		os.Exit(1)
	}
}

func run(sdlOut, goOut string) error {
	if sdlOut == "" || goOut == "" {
		return fmt.Errorf("usage: genrel -sdl FILE -go FILE")
	}
	types, err := Fields(schema.Vocabulary())
	if err != nil {
		return err
	}
	sdl, err := render(sdlTemplate, types)
	if err != nil {
		return err
	}
	src, err := render(goTemplate, types)
	if err != nil {
		return err
	}
	if src, err = format.Source(src); err != nil {
		return fmt.Errorf("format Go: %w", err)
	}
	if err := os.WriteFile(sdlOut, sdl, 0o644); err != nil {
		return err
	}
	return os.WriteFile(goOut, src, 0o644)
}

// Type is one entity type and its relation fields.
type Type struct {
	Name   string // GraphQL and Go type name, e.g. Event
	Fields []Field
}

// Resolver is the name of the type's resolver struct in package graph.
func (t Type) Resolver() string { return strings.ToLower(t.Name[:1]) + t.Name[1:] + "Resolver" }

// Field is one named relation field.
type Field struct {
	Name        string // GraphQL field name: the predicate or its inverse
	Predicate   string
	Direction   string // OUTGOING, INCOMING or BOTH
	Description string
}

// GoName is gqlgen's Go name for the field's resolver method.
func (f Field) GoName() string { return templates.ToGo(f.Name) }

// GoDirection is the model.Direction constant for the field's direction.
func (f Field) GoDirection() string {
	return "model.Direction" + templates.ToGo(strings.ToLower(f.Direction))
}

// reserved are the fields the hand-written SDL gives each type; a relation field may not
// take their names.
var reserved = map[string][]string{
	"":          {"id", "type", "name", "aliases", "arabic", "description", "formerIds", "narrations", "narrationCount", "claims", "relations"},
	"Person":    {"transmitted", "narrated"},
	"Verse":     {"ref", "surah", "ayah", "surahName", "surahNameArabic", "surahMeaning", "surahVerses", "text", "translation", "textAttribution"},
	"Narration": {"title", "text", "language", "translation", "references", "narrator", "chain", "attestedClaims", "gradings", "parallels"},
}

// Fields returns every entity type with its relation fields, in the vocabulary's order.
func Fields(v *athar.Vocabulary) ([]Type, error) {
	var out []Type
	for _, et := range athar.EntityTypes() {
		t := Type{Name: string(et)}
		taken := map[string]string{}
		for _, n := range append(append([]string{}, reserved[""]...), reserved[t.Name]...) {
			taken[n] = "a field of every " + t.Name
		}
		add := func(f Field) error {
			if by, dup := taken[f.Name]; dup {
				return fmt.Errorf("%s.%s (from predicate %s) clashes with %s: rename the predicate or its inverse in vocabulary.yaml", t.Name, f.Name, f.Predicate, by)
			}
			taken[f.Name] = "predicate " + f.Predicate
			t.Fields = append(t.Fields, f)
			return nil
		}
		for _, p := range v.Predicates {
			if p.AllowsSubject(et) {
				dir := "OUTGOING"
				if p.Symmetric {
					dir = "BOTH"
				}
				desc := p.Name + ": " + p.Description
				if p.Literal != "" {
					desc += " (values; variants from different narrations are all given)"
				}
				if err := add(Field{Name: p.Name, Predicate: p.Name, Direction: dir, Description: desc}); err != nil {
					return nil, err
				}
			}
			if p.Literal == "" && p.AllowsObject(et) {
				if p.Inverse == "" {
					return nil, fmt.Errorf("predicate %s has no inverse: %s needs one to name its field", p.Name, t.Name)
				}
				dir := "INCOMING"
				if p.Symmetric {
					dir = "BOTH"
				}
				desc := fmt.Sprintf("%s (inverse of %s, this %s as the object): %s", p.Inverse, p.Name, strings.ToLower(t.Name), p.Description)
				if err := add(Field{Name: p.Inverse, Predicate: p.Name, Direction: dir, Description: desc}); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, t)
	}
	return out, nil
}

func render(tmpl *template.Template, types []Type) ([]byte, error) {
	var b bytes.Buffer
	if err := tmpl.Execute(&b, types); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

var funcs = template.FuncMap{
	"quote": func(s string) string { return fmt.Sprintf("%q", s) },
	// sdlString escapes a description for a GraphQL block string.
	"sdlString": func(s string) string { return strings.ReplaceAll(s, `"""`, `\"""`) },
}

var sdlTemplate = template.Must(template.New("sdl").Funcs(funcs).Parse(`# Code generated by schema/genrel from schema/vocabulary.yaml. DO NOT EDIT.
#
# The relation fields of each entity type, in the vocabulary's words: a field per predicate
# whose domain includes the type (the entity is the subject) and one per predicate whose
# range includes it, named by the predicate's inverse (the entity is the object). Fields of
# symmetric predicates read claims in either direction.
{{range .}}
extend type {{.Name}} {
{{- range .Fields}}
  """{{sdlString .Description}}"""
  {{.Name}}(first: Int = 50, after: String): RelationConnection!
{{- end}}
}
{{end -}}
`))

var goTemplate = template.Must(template.New("go").Funcs(funcs).Parse(`// Code generated by schema/genrel from schema/vocabulary.yaml. DO NOT EDIT.

package graph

import (
	"context"

	"github.com/athar-hadith/athar/graph/generated"
	"github.com/athar-hadith/athar/graph/model"
)

// relationFields lists every generated relation field: which predicate it reads, and from
// which side.
var relationFields = []relationField{
{{- range $t := .}}
{{- range .Fields}}
	{Type: {{quote $t.Name}}, Field: {{quote .Name}}, Predicate: {{quote .Predicate}}, Direction: {{.GoDirection}}},
{{- end}}
{{- end}}
}
{{range $t := .}}
// {{$t.Name}} returns the {{$t.Name}} resolver.
func (r *Resolver) {{$t.Name}}() generated.{{$t.Name}}Resolver { return &{{$t.Resolver}}{r} }

type {{$t.Resolver}} struct{ *Resolver }

func (r *{{$t.Resolver}}) Narrations(ctx context.Context, obj *model.{{$t.Name}}, first *int) ([]*model.Narration, error) {
	return r.entityNarrations(ctx, obj, first)
}

func (r *{{$t.Resolver}}) NarrationCount(ctx context.Context, obj *model.{{$t.Name}}) (int, error) {
	return r.entityNarrationCount(ctx, obj)
}

func (r *{{$t.Resolver}}) Claims(ctx context.Context, obj *model.{{$t.Name}}, predicate *string, first *int, after *string) (*model.ClaimConnection, error) {
	return r.entityClaims(ctx, obj, predicate, first, after)
}

func (r *{{$t.Resolver}}) Relations(ctx context.Context, obj *model.{{$t.Name}}, predicate *string, direction *model.Direction, first *int, after *string) (*model.RelationConnection, error) {
	return r.entityRelations(ctx, obj, predicate, direction, first, after)
}
{{range .Fields}}
func (r *{{$t.Resolver}}) {{.GoName}}(ctx context.Context, obj *model.{{$t.Name}}, first *int, after *string) (*model.RelationConnection, error) {
	return r.namedRelations(ctx, obj, {{quote .Predicate}}, {{.GoDirection}}, first, after)
}
{{end}}
{{- end}}
`))
