package export

import (
	"context"
	"sort"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
)

// Provenance is where an edge comes from: the narrations attesting its relation, and how
// many independent routes of transmission they stand for.
type Provenance struct {
	Narrations []NarrationRef // sorted by id
	// Routes is the number of independent routes among Narrations (athar.RouteCount):
	// what GraphQL's Claim.routeCount answers.
	Routes int
}

// NarrationRef is a narration as an edge attribute names it.
type NarrationRef struct {
	ID    athar.ID
	Title string
	// Gradings are the narration's gradings, each "grade (grader)" -- the normalised grade,
	// or the verdict as stated when there is none; the grader's name, or id.
	Gradings []string
}

// listSep joins the items of a list-valued attribute in GraphML and GEXF, whose string
// attributes hold one value: "narration:a | narration:b".
const listSep = " | "

// provenance returns the Provenance of each edge, by EdgeID.
func provenance(ctx context.Context, st athar.Store, edges []athar.Edge) (map[athar.ID]Provenance, error) {
	if len(edges) == 0 {
		return nil, nil
	}
	ids := make([]athar.ID, len(edges))
	for i, e := range edges {
		ids[i] = EdgeID(e)
	}
	claims, err := st.Claims(ctx, ids)
	if err != nil {
		return nil, err
	}
	byClaim := map[athar.ID][]athar.ID{}
	all := map[athar.ID]bool{}
	for _, c := range claims {
		if c == nil {
			continue
		}
		seen := map[athar.ID]bool{}
		for _, a := range c.Attestations {
			if !seen[a.Narration] {
				seen[a.Narration] = true
				byClaim[c.ID] = append(byClaim[c.ID], a.Narration)
				all[a.Narration] = true
			}
		}
		sort.Slice(byClaim[c.ID], func(i, j int) bool { return byClaim[c.ID][i] < byClaim[c.ID][j] })
	}
	nids := sortedIDs(all)
	ns, err := st.Narrations(ctx, nids)
	if err != nil {
		return nil, err
	}
	narrations := make(map[athar.ID]*athar.Narration, len(nids))
	for i, n := range ns {
		if n == nil {
			n = &athar.Narration{ID: nids[i]} // deleted meanwhile: a route of its own
		}
		narrations[nids[i]] = n
	}
	out := make(map[athar.ID]Provenance, len(byClaim))
	for cid, nids := range byClaim {
		p := Provenance{Narrations: make([]NarrationRef, len(nids))}
		cn := make([]*athar.Narration, len(nids))
		for i, id := range nids {
			n := narrations[id]
			cn[i] = n
			p.Narrations[i] = NarrationRef{ID: id, Title: n.Title, Gradings: gradings(n.Gradings)}
		}
		p.Routes = athar.RouteCount(cn)
		out[cid] = p
	}
	return out, nil
}

func gradings(gs []athar.Grading) []string {
	var out []string
	for _, g := range gs {
		v := string(g.Grade)
		if v == "" {
			v = g.Verdict
		}
		by := g.GraderName
		if by == "" {
			by = string(g.Grader)
		}
		if by != "" {
			v += " (" + by + ")"
		}
		out = append(out, v)
	}
	return out
}

// edgeAttrs are an edge's provenance as the graph formats write it: lists, and the lists
// joined by listSep for GraphML and GEXF.
type edgeAttrs struct {
	narrations, titles, gradings []string
	routes                       int
}

// attrs returns e's provenance in sg; an edge without one (a subgraph built by hand) has
// empty lists and no routes.
func (sg *Subgraph) attrs(e athar.Edge) edgeAttrs {
	p := sg.Provenance[EdgeID(e)]
	a := edgeAttrs{narrations: []string{}, titles: []string{}, gradings: []string{}, routes: p.Routes}
	for _, n := range p.Narrations {
		a.narrations = append(a.narrations, string(n.ID))
		a.titles = append(a.titles, n.Title)
		for _, g := range n.Gradings {
			a.gradings = append(a.gradings, string(n.ID)+": "+g)
		}
	}
	return a
}

func joinList(vs []string) string { return strings.Join(vs, listSep) }

func arabic(n *athar.Entity) []string {
	if n.Arabic == nil {
		return []string{}
	}
	return n.Arabic
}
