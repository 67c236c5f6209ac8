package narration

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
)

// MergeResult says what a merge changed.
type MergeResult struct {
	Keep, Remove athar.ID
	Narrations   []athar.ID // the narrations rewritten, sorted
	Changed      bool       // false when remove had already been merged into keep
	QuadsAdded   int
	QuadsRemoved int
}

// Merge makes remove and keep one entity, keep: every claim, attestation, name, chain link
// and grading that mentions remove is moved to keep, and remove's id is recorded as a
// former id of keep, so that it still resolves (Store.MergedInto) and documents written
// with it import as if they named keep.
//
// It runs the one write path: for each narration whose quads mention remove, its stored
// quads are read back into its checked form (Decompile), the ids are rewritten as Validate
// rewrites a document naming a retired id (renameIDs), and the result is compiled and
// diffed against what is stored; the changesets of all those narrations are applied in one
// transaction. Claim and attestation ids, being hashes of what they say, are recomputed by
// Compile, so a claim remove shared with keep becomes one claim with both attestations.
//
// What each narration said about remove stays labelled by that narration: the names it gave
// remove become aliases of keep (keep's name is not outvoted by a duplicate), its Arabic
// names and description stay as given, and the narrations that defined remove record
// remove's id as a former id of keep. Deleting all of them later removes that record too.
//
// Both must be defined entities of the same type, neither a narration nor a verse. Merging
// an id already merged into keep changes nothing; a claim that would relate keep to itself
// (remove consults keep) refuses the merge with CONFLICT, naming it.
func (im *Importer) Merge(ctx context.Context, keep, remove athar.ID) (MergeResult, error) {
	op := fmt.Sprintf("merge %s into %s", remove, keep)
	if err := im.lock(ctx, op); err != nil {
		return MergeResult{}, err
	}
	defer im.unlock()
	res := MergeResult{Keep: keep, Remove: remove}
	var types [2]athar.EntityType
	for i, id := range []athar.ID{keep, remove} {
		arg := [2]string{"keep", "remove"}[i]
		pid, t, err := athar.ParseEntityID(string(id))
		if err != nil {
			return res, &athar.Error{Code: athar.Invalid, Op: op, Msg: arg + ": " + err.Error()}
		}
		if t == athar.TypeNarration || t == athar.TypeVerse {
			return res, &athar.Error{Code: athar.Invalid, Op: op, Msg: fmt.Sprintf("%s: %s is a %s; only people, groups, events, places and concepts can be merged", arg, pid, t)}
		}
		types[i] = t
	}
	switch {
	case keep == remove:
		return res, &athar.Error{Code: athar.Invalid, Op: op, Msg: "keep and remove are the same id"}
	case types[0] != types[1]:
		return res, &athar.Error{Code: athar.Invalid, Op: op, Msg: fmt.Sprintf("%s is a %s and %s a %s: only entities of one type can be merged", keep, types[0], remove, types[1])}
	}
	ents, err := im.store.Entities(ctx, []athar.ID{keep, remove})
	if err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	if ents[0] == nil || ents[1] == nil {
		merged, err := im.store.MergedInto(ctx, []athar.ID{keep, remove})
		if err != nil {
			return res, fmt.Errorf("%s: %w", op, err)
		}
		switch {
		case ents[0] == nil && merged[keep] != "":
			return res, &athar.Error{Code: athar.Invalid, Op: op, Msg: fmt.Sprintf("%s was itself merged into %s: merge into %s", keep, merged[keep], merged[keep])}
		case ents[0] == nil:
			return res, &athar.Error{Code: athar.NotFound, Op: op, Msg: fmt.Sprintf("no entity %s in the graph", keep)}
		case merged[remove] == keep:
			return res, nil // already merged
		case merged[remove] != "":
			return res, &athar.Error{Code: athar.Conflict, Op: op, Msg: fmt.Sprintf("%s was already merged into %s", remove, merged[remove])}
		default:
			return res, &athar.Error{Code: athar.NotFound, Op: op, Msg: fmt.Sprintf("no entity %s in the graph", remove)}
		}
	}
	rename := map[athar.ID]athar.ID{remove: keep}
	var css []athar.Changeset
	mentions, err := im.store.Mentions(ctx, []athar.ID{remove})
	if err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	for _, n := range mentions[remove] {
		have, err := im.store.NarrationQuads(ctx, n)
		if err != nil {
			return res, fmt.Errorf("%s: %w", op, err)
		}
		c, err := Decompile(n, have, im.vocab)
		if err != nil {
			return res, &athar.Error{Code: athar.Conflict, Op: op, Err: err}
		}
		if probs := renameIDs(c, rename); len(probs) > 0 {
			msgs := make([]string, len(probs))
			for i, p := range probs {
				msgs[i] = p.msg
			}
			return res, &athar.Error{Code: athar.Conflict, Op: op, Msg: fmt.Sprintf("in %s: %s", n, strings.Join(msgs, "; "))}
		}
		cs := athar.Diff(n, have, Compile(c))
		if cs.Empty() {
			continue
		}
		css = append(css, cs)
		res.Narrations = append(res.Narrations, n)
		res.QuadsAdded += len(cs.Add)
		res.QuadsRemoved += len(cs.Remove)
	}
	if len(css) == 0 {
		return res, nil
	}
	if err := im.store.Apply(ctx, css...); err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	res.Changed = true
	if im.OnChange != nil {
		for _, cs := range css {
			im.OnChange(cs)
		}
	}
	return res, nil
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
// Importer.Merge (on stored narrations) and Validate (on documents naming retired ids) use,
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
