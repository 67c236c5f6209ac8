package narration

import (
	"fmt"
	"slices"
	"sort"

	"github.com/athar-hadith/athar/internal/athar"
)

// Rename rewrites c as renameIDs does and returns, for each claim the rename makes
// impossible (one that would relate an entity to itself), why. It is the one rewrite a
// merge (on stored narrations, decompiled) and Validate (on documents naming retired ids)
// share, so that both give the same quads.
func Rename(c *Checked, to map[athar.ID]athar.ID) []string {
	probs := renameIDs(c, to)
	msgs := make([]string, len(probs))
	for i, p := range probs {
		msgs[i] = p.msg
	}
	return msgs
}

// DefinedEntities returns the entity ids (not narrations) given a type in qs, sorted.
func DefinedEntities(qs []athar.Quad) []athar.ID {
	var out []athar.ID
	for _, q := range qs {
		if q.Predicate != athar.RDFType {
			continue
		}
		id, ok := athar.ParseIRI(q.Subject)
		if !ok {
			continue
		}
		if definable(id) {
			out = append(out, id)
		}
	}
	return uniq(out)
}

// definable reports whether a narration can define id: an entity's id, not a narration's.
func definable(id athar.ID) bool {
	_, isEntity := athar.TypeOfPrefix(id.Prefix())
	return isEntity && id.Prefix() != athar.TypeNarration.Prefix()
}

func uniq(ids []athar.ID) []athar.ID {
	slices.Sort(ids)
	return slices.Compact(ids)
}

// renameProblem is a claim that a rename makes impossible: claim is its index in the
// document's claims (-1 when it has none), msg what went wrong.
type renameProblem struct {
	claim int
	msg   string
}

// renameIDs rewrites c so that every id in to (a retired id -> the entity it was merged
// into) is written as its target: the narrator, the chain, graders, claims (symmetric ones
// put back in order) and entity definitions. A definition of a retired id becomes part of
// the target's: the names it gave become aliases, its Arabic names, aliases and
// description are kept, and the retired id is recorded as a former id. Claims that become
// the same claim with the same evidence are kept once. It is the one rewrite both
// a merge (ingest, on stored narrations) and Validate (on documents naming retired ids) use,
// so that both give the same quads.
func renameIDs(c *Checked, to map[athar.ID]athar.ID) []renameProblem {
	mapID := func(id athar.ID) athar.ID {
		if t, ok := to[id]; ok {
			return t
		}
		return id
	}
	if c.Narrator != "" {
		c.Narrator = mapID(c.Narrator)
	}
	for i := range c.Chain {
		c.Chain[i] = mapID(c.Chain[i])
	}
	for _, r := range c.MoreRoutes {
		for i := range r {
			r[i] = mapID(r[i])
		}
	}
	for i := range c.Gradings {
		if c.Gradings[i].Grader != "" {
			c.Gradings[i].Grader = mapID(c.Gradings[i].Grader)
		}
	}
	for i := range c.Uses {
		c.Uses[i] = mapID(c.Uses[i])
	}
	c.Uses = uniq(c.Uses)

	byID := map[athar.ID]int{}
	var ents []CheckedEntity
	for _, e := range c.Entities {
		if _, retired := to[e.ID]; !retired {
			byID[e.ID] = len(ents)
			ents = append(ents, e)
		}
	}
	for _, e := range c.Entities {
		target, retired := to[e.ID]
		if !retired {
			continue
		}
		moved := CheckedEntity{ID: target, Type: e.Type, Arabic: e.Arabic, Aliases: e.Aliases, Description: e.Description,
			FormerIDs: append(append([]athar.ID{}, e.FormerIDs...), e.ID)}
		if e.Name != "" {
			moved.Aliases = append(append([]string{}, moved.Aliases...), e.Name)
		}
		j, ok := byID[target]
		if !ok {
			j = len(ents)
			byID[target] = j
			ents = append(ents, moved)
		} else {
			k := &ents[j]
			k.Arabic = append(k.Arabic, moved.Arabic...)
			k.Aliases = append(k.Aliases, moved.Aliases...)
			k.FormerIDs = append(k.FormerIDs, moved.FormerIDs...)
			if k.Description == "" {
				k.Description = moved.Description
			}
		}
		k := &ents[j]
		k.Arabic = uniqueStrings(k.Arabic, "")
		k.Aliases = uniqueStrings(k.Aliases, k.Name)
		k.FormerIDs = uniq(k.FormerIDs)
	}
	c.Entities = ents

	var probs []renameProblem
	seen := map[string]bool{}
	claims := c.Claims[:0]
	for _, cl := range c.Claims {
		s, o := mapID(cl.Subject), cl.Object
		if o != "" {
			o = mapID(o)
		}
		if o != "" && s == o {
			probs = append(probs, renameProblem{cl.Index, fmt.Sprintf("%s %s %s would become %s %s itself (%q)", cl.Subject, cl.Predicate.Name, cl.Object, s, cl.Predicate.Name, shorten(cl.Evidence))})
			continue
		}
		if cl.Predicate.Symmetric && o != "" && o < s {
			s, o = o, s
		}
		cl.Subject, cl.Object = s, o
		if k := claimKey(cl); !seen[k] {
			seen[k] = true
			claims = append(claims, cl)
		}
	}
	c.Claims = claims
	return probs
}

// claimKey identifies a claim with its evidence: what one attestation node is made of.
func claimKey(cl CheckedClaim) string {
	v := ""
	if cl.Value != nil {
		v = cl.Value.Key()
	}
	return fmt.Sprintf("%s|%s|%s|%s|%v|%d|%d", cl.Subject, cl.Predicate.Name, cl.Object, v, cl.HasSpan, cl.Start, cl.End)
}

// uniqueStrings sorts ss and drops duplicates and the string except.
func uniqueStrings(ss []string, except string) []string {
	sort.Strings(ss)
	var out []string
	for i, s := range ss {
		if s == except || i > 0 && s == ss[i-1] {
			continue
		}
		out = append(out, s)
	}
	return out
}
