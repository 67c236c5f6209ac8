package export

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/traverse"
)

// Depth bounds of a neighbourhood selection.
const (
	DefaultDepth = 1
	MaxDepth     = 4
)

// Options choose what to export.
type Options struct {
	// Root is the entity whose neighbourhood is exported; empty exports the whole graph.
	Root athar.ID
	// Depth is how many steps from Root the neighbourhood reaches, walking relations in
	// either direction: 0 means DefaultDepth; below 0 or above MaxDepth is an error (even
	// when Root is empty, where Depth is otherwise unused).
	Depth int
	// Predicates, when not empty, keeps only these relations (vocabulary names such as
	// "participatedIn"): they are the only ones walked, exported as edges, and exported as
	// quads with their claims. Names the vocabulary does not have match nothing; callers
	// that take them from users check them against the vocabulary first.
	Predicates []string
	// Narration, when set, exports exactly what that narration asserts: its quads (as
	// Store.NarrationQuads gives them, and its corpus record's: a hadith of the corpus
	// asserts its texts, chapter, gradings and chains there), the narration itself and every entity its
	// relations name as nodes, and those relations as edges. It goes alone: with Root,
	// Depth or Predicates it is an Invalid error.
	Narration athar.ID
}

// Subgraph is a selection ready to encode: the entities, the relations between them, and
// the quads that describe both.
//
// Quads is the RDF view of the same selection, every quad with the label of the narration
// asserting it. For the whole graph (no root, no predicate filter) it is every quad in the
// store. Otherwise it is:
//
//  1. about every selected entity, each quad that describes it rather than relating it: its
//     type, names, description, and for a narration its text, language, translation and
//     the links to its references, chain and gradings;
//  2. every quad about those references, chain links and gradings (their position,
//     collection, number, narrator, grader, verdict, ...);
//  3. for every selected edge, the plain triple (source predicate target) under each
//     narration asserting it;
//  4. every literal-valued claim of a selected entity (e.g. a year), subject to the
//     predicate filter;
//  5. for every relation of 3 and claim of 4, every quad about its claim node and about each
//     of its attestation nodes (the evidence, its offsets and the narration);
//  6. for every narration naming a graph of 1 to 5, what 1 and 2 give for a selected
//     entity: its title, text, language, translation, references, chain and gradings --
//     so that each named graph says which narration it is, even when the narration itself
//     is beyond the neighbourhood.
//
// and in it the English labels are tagged @en (see tagEnglish), as the store's are not.
//
// Relations between a selected entity and an unselected one are not in Quads (just as they
// are not edges), so the RDF and the graph formats describe the same selection; a chain
// link may still name an unselected narrator, as IRIs do.
type Subgraph struct {
	Nodes []*athar.Entity // sorted by id
	Edges []athar.Edge    // sorted by source, predicate, target; both ends are in Nodes
	Quads []athar.Quad    // sorted by label, then by athar.Quad.Key, as Store.Quads gives them
	// Provenance of each edge, by EdgeID (see Provenance). Select always sets it; an edge
	// missing from it is written with empty provenance.
	Provenance map[athar.ID]Provenance
	// Truncated is set when the neighbourhood reached traverse.DefaultMaxVisited entities
	// before Depth: the selection is consistent, but some entities within Depth are missing.
	Truncated bool
}

// Select returns the subgraph opts describe. The neighbourhood of Root is every entity
// within Depth steps of it (walking relations in either direction, each edge keeping its
// true source and target) with every selected relation between two of them.
//
// Errors: an *athar.Error with code Invalid for a depth out of range or an empty predicate
// name, and with code NotFound when Root is not a defined entity.
func Select(ctx context.Context, st athar.Store, opts Options) (*Subgraph, error) {
	op := "export whole graph"
	switch {
	case opts.Narration != "":
		op = "export narration " + string(opts.Narration)
	case opts.Root != "":
		op = "export neighbourhood of " + string(opts.Root)
	}
	depth, filter, bad := opts.check()
	if bad != nil {
		bad.Op = op
		return nil, bad
	}
	var sg *Subgraph
	var err error
	if opts.Narration != "" {
		sg, err = selectNarration(ctx, st, opts.Narration)
		if err == nil && sg == nil {
			return nil, athar.E(op, athar.NotFound, "%s", "no narration "+string(opts.Narration)+" in the graph")
		}
	} else if opts.Root == "" {
		sg, err = selectAll(ctx, st, filter)
	} else {
		var es []*athar.Entity
		if es, err = st.Entities(ctx, []athar.ID{opts.Root}); err == nil && es[0] == nil {
			return nil, athar.E(op, athar.NotFound, "%s", "no entity "+string(opts.Root)+" in the graph")
		}
		if err == nil {
			sg, err = selectNeighbourhood(ctx, st, opts.Root, depth, filter)
		}
	}
	if err == nil {
		sg.Quads = athar.StateImplied(sg.Quads)
		sg.Provenance, err = provenance(ctx, st, sg.Edges)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return sg, nil
}

// check returns the depth to walk and the predicate filter, or an Invalid error.
func (o Options) check() (int, predicateFilter, *athar.Error) {
	if o.Narration != "" && (o.Root != "" || o.Depth != 0 || len(o.Predicates) > 0) {
		return 0, nil, athar.E("", athar.Invalid, "narration goes alone: it cannot be combined with root, depth or predicates")
	}
	if o.Depth < 0 || o.Depth > MaxDepth {
		return 0, nil, athar.E("", athar.Invalid, "depth %d is out of range: expected 1 to %d", o.Depth, MaxDepth)
	}
	depth := o.Depth
	if depth == 0 {
		depth = DefaultDepth
	}
	var f predicateFilter
	for _, p := range o.Predicates {
		if p == "" {
			return 0, nil, athar.E("", athar.Invalid, "empty predicate name in the filter")
		}
		if f == nil {
			f = predicateFilter{}
		}
		f[p] = true
	}
	return depth, f, nil
}

// predicateFilter keeps the named relations; nil keeps every relation.
type predicateFilter map[string]bool

func (f predicateFilter) keeps(name string) bool { return f == nil || f[name] }

func (f predicateFilter) follow() func(athar.Edge) bool {
	if f == nil {
		return nil
	}
	return func(e athar.Edge) bool { return f[e.Predicate] }
}

func selectAll(ctx context.Context, st athar.Store, filter predicateFilter) (*Subgraph, error) {
	ids, err := st.EntityIDs(ctx, "")
	if err != nil {
		return nil, err
	}
	nodes, err := entities(ctx, st, ids)
	if err != nil {
		return nil, err
	}
	byNode, err := st.Edges(ctx, ids)
	if err != nil {
		return nil, err
	}
	var all []athar.Edge
	for _, es := range byNode {
		all = append(all, es...)
	}
	sg := &Subgraph{Nodes: nodes, Edges: keepEdges(all, nodes, filter)}
	if filter != nil {
		sg.Quads, err = subgraphQuads(ctx, st, sg, filter)
		return sg, err
	}
	// The whole graph is the record: its quads as stored, so that loading the export
	// restores the graph exactly (no English tags; see tagEnglish).
	err = st.Quads(ctx, func(q athar.Quad) error {
		sg.Quads = append(sg.Quads, q)
		return nil
	})
	return sg, err
}

func selectNeighbourhood(ctx context.Context, st athar.Store, root athar.ID, depth int, filter predicateFilter) (*Subgraph, error) {
	nb, err := traverse.Neighbourhood(ctx, st, root, depth, traverse.Options{Follow: filter.follow()})
	if err != nil {
		return nil, err
	}
	nodes, err := entities(ctx, st, nb.Nodes)
	if err != nil {
		return nil, err
	}
	sg := &Subgraph{Nodes: nodes, Edges: keepEdges(nb.Edges, nodes, filter), Truncated: nb.Truncated}
	sg.Quads, err = subgraphQuads(ctx, st, sg, filter)
	return sg, err
}

// tagEnglish tags as English (@en) the labels the store holds untagged: every rdfs:label
// and skos:altLabel that is a plain string with no Arabic letter (Arabic names are stored
// tagged @ar already). It returns the quads sorted again, as Subgraph.Quads is.
//
// Only selections -- a neighbourhood, a predicate filter -- are tagged: they are for
// reading, in RDF tools that pick labels by language. The whole graph and a narration's
// own export are the record, which athar load and athar restore take back exactly as
// stored; tagging them would make the loaded graph differ from the exported one (the
// stored labels are untagged, and the compiled documents they are checked against too).
func tagEnglish(qs []athar.Quad) []athar.Quad {
	for i, q := range qs {
		if (q.Predicate == athar.RDFSLabel || q.Predicate == athar.SKOSAltLbl) && !q.Object.IsIRI() &&
			q.Object.Lang == "" && (q.Object.Datatype == "" || q.Object.Datatype == athar.XSDString) &&
			!strings.ContainsFunc(q.Object.Literal, func(r rune) bool { return unicode.Is(unicode.Arabic, r) }) {
			qs[i].Object = athar.Term{Literal: q.Object.Literal, Lang: "en"}
		}
	}
	return sortQuads(qs)
}

// selectNarration returns what narration id asserts (see Options.Narration), or nil when
// the store holds no such narration.
func selectNarration(ctx context.Context, st athar.Store, id athar.ID) (*Subgraph, error) {
	qs, err := narrationQuads(ctx, st, id)
	if err != nil || len(qs) == 0 {
		return nil, err
	}
	asserted := map[athar.Edge]bool{}
	ids := map[athar.ID]bool{id: true}
	for _, q := range qs {
		if !athar.IsRelation(q.Predicate) || !q.Object.IsIRI() {
			continue
		}
		s, ok1 := athar.ParseIRI(q.Subject)
		o, ok2 := athar.ParseIRI(q.Object.IRI)
		if !ok1 || !ok2 {
			continue
		}
		asserted[athar.Edge{Source: s, Target: o, Predicate: strings.TrimPrefix(q.Predicate, athar.VocabBase)}] = true
		ids[s], ids[o] = true, true
	}
	nodes, err := entities(ctx, st, sortedIDs(ids))
	if err != nil {
		return nil, err
	}
	in := make([]athar.ID, len(nodes))
	for i, n := range nodes {
		in[i] = n.ID
	}
	byNode, err := st.Edges(ctx, in)
	if err != nil {
		return nil, err
	}
	var edges []athar.Edge
	for _, es := range byNode {
		for _, e := range es {
			if asserted[athar.Edge{Source: e.Source, Target: e.Target, Predicate: e.Predicate}] {
				edges = append(edges, e)
			}
		}
	}
	return &Subgraph{Nodes: nodes, Edges: keepEdges(edges, nodes, nil), Quads: qs}, nil
}

// narrationQuads returns the quads of narration id's own label and of its corpus record's
// (docs/corpus.md), sorted by label and then by athar.Quad.Key. A hadith of the corpus
// is its record: its narration node, texts, chapter, gradings and chains are all under
// the record's label, and a narration document recording the same hadith keeps its
// claims under its own.
func narrationQuads(ctx context.Context, st athar.Store, id athar.ID) ([]athar.Quad, error) {
	n, corpus, err := athar.NarrationNamed(ctx, st, id)
	if err != nil || n == "" {
		// not a narration the store holds: what its label holds, if anything (a reserved
		// graph's quads)
		if err == nil {
			return st.NarrationQuads(ctx, id)
		}
		return nil, err
	}
	qs, err := st.NarrationQuads(ctx, n)
	if err != nil || corpus == "" {
		return qs, err
	}
	rec, err := st.NarrationQuads(ctx, athar.ID(athar.CorpusPrefix+":"+corpus))
	if err != nil {
		return nil, err
	}
	return sortQuads(append(qs, rec...)), nil
}

// entities returns the defined entities among ids, sorted by id. Ids the graph does not
// define are left out, and so are the edges that touch them (see keepEdges).
func entities(ctx context.Context, st athar.Store, ids []athar.ID) ([]*athar.Entity, error) {
	es, err := st.Entities(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]*athar.Entity, 0, len(es))
	for _, e := range es {
		if e != nil {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// keepEdges returns the edges the filter keeps whose two ends are among nodes, once each,
// sorted by source, predicate and target.
func keepEdges(edges []athar.Edge, nodes []*athar.Entity, filter predicateFilter) []athar.Edge {
	in := make(map[athar.ID]bool, len(nodes))
	for _, n := range nodes {
		in[n.ID] = true
	}
	type key struct {
		s, t athar.ID
		p    string
	}
	seen := map[key]bool{}
	out := make([]athar.Edge, 0, len(edges))
	for _, e := range edges {
		k := key{e.Source, e.Target, e.Predicate}
		if seen[k] || !in[e.Source] || !in[e.Target] || !filter.keeps(e.Predicate) {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return edgeLess(out[i], out[j]) })
	return out
}

func edgeLess(a, b athar.Edge) bool {
	if a.Source != b.Source {
		return a.Source < b.Source
	}
	if a.Predicate != b.Predicate {
		return a.Predicate < b.Predicate
	}
	return a.Target < b.Target
}

// EdgeID is the id an edge has in every export: the id of its claim (as Store.Claims takes
// it), the node every narration's attestation of the relation points at.
func EdgeID(e athar.Edge) athar.ID {
	return athar.ClaimID(e.Source, e.Predicate, athar.IRITerm(e.Target.IRI()))
}

// subgraphQuads collects the quads of sg as Subgraph documents them.
func subgraphQuads(ctx context.Context, st athar.Store, sg *Subgraph, filter predicateFilter) ([]athar.Quad, error) {
	about := st.QuadsAbout
	ids := make([]athar.ID, len(sg.Nodes))
	for i, n := range sg.Nodes {
		ids[i] = n.ID
	}
	own, err := about(ctx, ids)
	if err != nil {
		return nil, err
	}
	edges := make(map[athar.Edge]bool, len(sg.Edges))
	for _, e := range sg.Edges {
		edges[athar.Edge{Source: e.Source, Target: e.Target, Predicate: e.Predicate}] = true
	}
	var out []athar.Quad
	claims := map[athar.ID]bool{}
	records := map[athar.ID]bool{}
	for _, q := range own {
		if !athar.IsRelation(q.Predicate) {
			out = describe(out, records, q) // 1: type, names, description, narration record
			continue
		}
		subject, ok := athar.ParseIRI(q.Subject)
		if !ok {
			continue
		}
		name := strings.TrimPrefix(q.Predicate, athar.VocabBase)
		if q.Object.IsIRI() {
			target, ok := athar.ParseIRI(q.Object.IRI)
			if !ok || !edges[athar.Edge{Source: subject, Target: target, Predicate: name}] {
				continue // a relation to an entity outside the selection
			}
		} else if !filter.keeps(name) {
			continue
		}
		out = append(out, q) // 3 and 4
		claims[athar.ClaimID(subject, name, q.Object)] = true
	}
	cids := sortedIDs(claims)
	cs, err := st.Claims(ctx, cids)
	if err != nil {
		return nil, err
	}
	more := records // 2, and 5 below
	for _, c := range cs {
		if c == nil {
			continue // a plain triple without a claim node; nothing more to add
		}
		more[c.ID] = true
		for _, a := range c.Attestations {
			more[a.ID] = true
		}
	}
	rest, err := about(ctx, sortedIDs(more))
	if err != nil {
		return nil, err
	}
	out = append(out, rest...)
	// 6: the narrations naming the graphs, described as selected entities are.
	selected := make(map[athar.ID]bool, len(ids))
	for _, id := range ids {
		selected[id] = true
	}
	graphs := map[athar.ID]bool{}
	for _, q := range out {
		if id, ok := athar.ParseIRI(q.Label); ok && id.Prefix() == athar.TypeNarration.Prefix() && !selected[id] {
			graphs[id] = true
		}
	}
	if len(graphs) > 0 {
		narrations, err := about(ctx, sortedIDs(graphs))
		if err != nil {
			return nil, err
		}
		records = map[athar.ID]bool{}
		for _, q := range narrations {
			if !athar.IsRelation(q.Predicate) {
				out = describe(out, records, q)
			}
		}
		more, err := about(ctx, sortedIDs(records))
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	return tagEnglish(out), nil
}

// describe appends q, a quad describing an entity rather than relating it, to out, and
// notes in records the reference, chain link or grading it points at.
func describe(out []athar.Quad, records map[athar.ID]bool, q athar.Quad) []athar.Quad {
	if q.Predicate == athar.PredReference || q.Predicate == athar.PredChainLink || q.Predicate == athar.PredGrading {
		if id, ok := athar.ParseIRI(q.Object.IRI); ok {
			records[id] = true
		}
	}
	return append(out, q)
}

func sortedIDs(set map[athar.ID]bool) []athar.ID {
	out := make([]athar.ID, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// sortQuads sorts quads by label, then by key (the order of Store.Quads), and drops
// duplicates.
func sortQuads(qs []athar.Quad) []athar.Quad {
	keys := make(map[athar.Quad]string, len(qs))
	for _, q := range qs {
		keys[q] = q.Key()
	}
	sort.Slice(qs, func(i, j int) bool {
		if qs[i].Label != qs[j].Label {
			return qs[i].Label < qs[j].Label
		}
		return keys[qs[i]] < keys[qs[j]]
	})
	out := qs[:0]
	for i, q := range qs {
		if i == 0 || q != qs[i-1] {
			out = append(out, q)
		}
	}
	return out
}
