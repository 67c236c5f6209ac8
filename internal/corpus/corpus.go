// Package corpus generates deterministic synthetic narration documents in the real format,
// for load tests, crash tests and benchmarks. The same options always give the same bytes.
//
// The corpus is skewed as real collections are: entities are drawn with a Zipf
// distribution, so a few people and events are mentioned by very many narrations, and the
// same claims recur across narrations (corroboration). Each entity is defined by the first
// narration that uses it; every claim's evidence is a sentence of the generated text.
package corpus

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
)

// Options control the corpus. Zero values take the defaults in brackets.
type Options struct {
	Narrations int    // number of documents
	Seed       uint64 // [1]
	MinClaims  int    // [8]
	MaxClaims  int    // [20]
	// Pool sizes per entity type; [scaled with Narrations: people n/4+50, events n/20+20,
	// groups n/40+10, places n/100+10, concepts n/100+20]
	People, Events, Groups, Places, Concepts int
}

func (o *Options) defaults() {
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.MinClaims == 0 {
		o.MinClaims = 8
	}
	if o.MaxClaims < o.MinClaims {
		o.MaxClaims = max(20, o.MinClaims)
	}
	n := o.Narrations
	def := func(v *int, x int) {
		if *v == 0 {
			*v = x
		}
	}
	def(&o.People, n/4+50)
	def(&o.Events, n/20+20)
	def(&o.Groups, n/40+10)
	def(&o.Places, n/100+10)
	def(&o.Concepts, n/100+20)
}

// Document is the JSON shape of a narration document (see docs/narration-format.md).
type Document struct {
	Narration Narration `json:"narration"`
	Entities  []Entity  `json:"entities,omitempty"`
	Claims    []Claim   `json:"claims"`
}

// Narration is a document's narration block.
type Narration struct {
	ID         string      `json:"id"`
	Title      string      `json:"title"`
	References []Reference `json:"references"`
	Narrator   string      `json:"narrator,omitempty"`
	Chain      []string    `json:"chain,omitempty"`
	Language   string      `json:"language"`
	Text       string      `json:"text"`
}

// Reference cites the (synthetic) source.
type Reference struct {
	Collection string `json:"collection"`
	Number     string `json:"number"`
}

// Entity defines an entity.
type Entity struct {
	ID      string   `json:"id"`
	Type    string   `json:"type"`
	Name    string   `json:"name"`
	Aliases []string `json:"aliases,omitempty"`
}

// Claim is one claim with its evidence.
type Claim struct {
	Subject   string `json:"subject"`
	Predicate string `json:"predicate"`
	Object    string `json:"object,omitempty"`
	Value     any    `json:"value,omitempty"`
	Evidence  string `json:"evidence"`
}

// Generator produces the documents one by one.
type Generator struct {
	opts    Options
	rng     *rand.Rand
	preds   []*athar.Predicate
	zipf    map[athar.EntityType]*rand.Zipf
	size    map[athar.EntityType]int
	defined map[string]bool
	next    int
}

// New returns a generator for the vocabulary's predicates.
func New(opts Options, vocab *athar.Vocabulary) *Generator {
	opts.defaults()
	g := &Generator{
		opts:    opts,
		rng:     rand.New(rand.NewPCG(opts.Seed, 0x61746861)),
		zipf:    map[athar.EntityType]*rand.Zipf{},
		size:    map[athar.EntityType]int{},
		defined: map[string]bool{},
	}
	g.size[athar.TypePerson] = opts.People
	g.size[athar.TypeEvent] = opts.Events
	g.size[athar.TypeGroup] = opts.Groups
	g.size[athar.TypePlace] = opts.Places
	g.size[athar.TypeConcept] = opts.Concepts
	for t, n := range g.size {
		g.zipf[t] = rand.NewZipf(g.rng, 1.2, 2, uint64(n-1))
	}
	for _, p := range vocab.Predicates {
		if p.Name == "narrates" || p.Name == "transmits" || p.Name == "mentions" {
			continue // compiled from narrator and chain, or about narrations
		}
		if !g.usable(p.Domain) || p.Literal == "" && !g.usable(p.Range) {
			continue
		}
		g.preds = append(g.preds, p)
	}
	sort.Slice(g.preds, func(i, j int) bool { return g.preds[i].Name < g.preds[j].Name })
	return g
}

// usable reports whether some type in ts can be generated.
func (g *Generator) usable(ts []athar.EntityType) bool {
	for _, t := range ts {
		if g.size[t] > 0 || t == athar.TypeVerse {
			return true
		}
	}
	return false
}

// Next returns the next document's file name and JSON bytes; ok is false when done.
func (g *Generator) Next() (name string, data []byte, ok bool) {
	if g.next >= g.opts.Narrations {
		return "", nil, false
	}
	i := g.next
	g.next++
	d := g.document(i)
	data, err := json.MarshalIndent(d, "", " ")
	if err != nil {
		panic(err) // plain structs: cannot fail
	}
	return fmt.Sprintf("gen-%06d.json", i), data, true
}

func (g *Generator) pick(t athar.EntityType) string {
	if t == athar.TypeVerse {
		// A verse from the first surahs, skewed like everything else.
		s := int(g.rng.IntN(9)) + 1
		sur, _ := athar.TheQuran().Surah(s)
		return fmt.Sprintf("verse:%d:%d", s, g.rng.IntN(sur.Verses)+1)
	}
	n := g.zipf[t].Uint64()
	return fmt.Sprintf("%s:g%d", t.Prefix(), n)
}

func (g *Generator) pickType(ts []athar.EntityType) athar.EntityType {
	var ok []athar.EntityType
	for _, t := range ts {
		if g.size[t] > 0 || t == athar.TypeVerse {
			ok = append(ok, t)
		}
	}
	return ok[g.rng.IntN(len(ok))]
}

func name(id string) string {
	p, l, _ := strings.Cut(id, ":")
	return strings.ToUpper(p[:1]) + p[1:] + " " + strings.TrimPrefix(l, "g")
}

func (g *Generator) document(i int) Document {
	id := fmt.Sprintf("narration:gen-%06d", i)
	d := Document{Narration: Narration{
		ID:         id,
		Title:      fmt.Sprintf("Generated report %d", i),
		References: []Reference{{Collection: "Synthetic Collection", Number: fmt.Sprint(i + 1)}},
		Language:   "en",
	}}
	var sentences []string
	uses := map[string]bool{}
	use := func(e string) {
		if !strings.HasPrefix(e, "verse:") {
			uses[e] = true
		}
	}
	narrator := g.pick(athar.TypePerson)
	d.Narration.Narrator = narrator
	use(narrator)
	chainLen := 2 + g.rng.IntN(4)
	seenChain := map[string]bool{narrator: true}
	for k := 0; k < chainLen; k++ {
		p := g.pick(athar.TypePerson)
		if seenChain[p] {
			continue
		}
		seenChain[p] = true
		d.Narration.Chain = append(d.Narration.Chain, p)
		use(p)
	}
	d.Narration.Chain = append(d.Narration.Chain, narrator)
	n := g.opts.MinClaims + g.rng.IntN(g.opts.MaxClaims-g.opts.MinClaims+1)
	seen := map[string]bool{}
	for len(d.Claims) < n {
		p := g.preds[g.rng.IntN(len(g.preds))]
		s := g.pick(g.pickType(p.Domain))
		c := Claim{Subject: s, Predicate: p.Name}
		if p.Literal != "" {
			v := 1 + g.rng.IntN(100)
			if p.Literal == athar.RangeString {
				c.Value = fmt.Sprintf("%d and some", v*10)
			} else {
				c.Value = v
			}
		} else {
			c.Object = g.pick(g.pickType(p.Range))
			if c.Object == c.Subject {
				continue
			}
		}
		key := fmt.Sprint(c.Subject, c.Predicate, c.Object, c.Value)
		if seen[key] {
			continue
		}
		seen[key] = true
		obj := c.Object
		if obj == "" {
			obj = fmt.Sprint(c.Value)
		}
		// Each sentence names its claim, so it is unique in the text.
		c.Evidence = fmt.Sprintf("%s %s %s (%d).", name(c.Subject), p.Name, nameOrValue(obj), len(d.Claims)+1)
		sentences = append(sentences, "It is reported that "+c.Evidence)
		use(c.Subject)
		if c.Object != "" {
			use(c.Object)
		}
		d.Claims = append(d.Claims, c)
	}
	d.Narration.Text = strings.Join(sentences, " ")
	ids := make([]string, 0, len(uses))
	for e := range uses {
		ids = append(ids, e)
	}
	sort.Strings(ids)
	for _, e := range ids {
		if g.defined[e] {
			continue
		}
		g.defined[e] = true
		t, _ := athar.TypeOfPrefix(athar.ID(e).Prefix())
		d.Entities = append(d.Entities, Entity{ID: e, Type: string(t), Name: name(e), Aliases: []string{strings.ToLower(name(e))}})
	}
	return d
}

func nameOrValue(s string) string {
	if strings.Contains(s, ":") {
		return name(s)
	}
	return s
}
