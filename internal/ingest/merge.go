package ingest

import (
	"context"
	"fmt"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/narration"
)

// Merge makes remove and keep one entity, keep: every claim, attestation, name, chain link
// and grading that mentions remove is moved to keep, and remove's id is recorded as a
// former id of keep, so that it still resolves (Store.MergedInto) and documents written
// with it import as if they named keep.
//
// It runs the one write path: for each narration whose quads mention remove, its stored
// quads are read back into its checked form (Decompile), the ids are rewritten as Validate
// rewrites a document naming a retired id (narration.Rename), and the result is compiled and
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
func (im *Local) Merge(ctx context.Context, keep, remove athar.ID) (MergeResult, error) {
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
			return res, athar.E(op, athar.Invalid, "%s: %v", arg, err)
		}
		if t == athar.TypeNarration || t == athar.TypeVerse {
			return res, athar.E(op, athar.Invalid, "%s: %s is a %s; only people, groups, events, places and concepts can be merged", arg, pid, t)
		}
		types[i] = t
	}
	switch {
	case keep == remove:
		return res, athar.E(op, athar.Invalid, "keep and remove are the same id")
	case types[0] != types[1]:
		return res, athar.E(op, athar.Invalid, "%s is a %s and %s a %s: only entities of one type can be merged", keep, types[0], remove, types[1])
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
			return res, athar.E(op, athar.Invalid, "%s was itself merged into %s: merge into %s", keep, merged[keep], merged[keep])
		case ents[0] == nil:
			return res, athar.E(op, athar.NotFound, "no entity %s in the graph", keep)
		case merged[remove] == keep:
			return res, nil // already merged
		case merged[remove] != "":
			return res, athar.E(op, athar.Conflict, "%s was already merged into %s", remove, merged[remove])
		default:
			return res, athar.E(op, athar.NotFound, "no entity %s in the graph", remove)
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
		if len(have) == 0 {
			continue // a corpus record's narration only: mergeCorpus rewrites records
		}
		c, err := narration.Decompile(n, have, im.vocab)
		if err != nil {
			return res, athar.E(op, athar.Conflict, err)
		}
		if msgs := narration.Rename(c, rename); len(msgs) > 0 {
			return res, athar.E(op, athar.Conflict, "in %s: %s", n, strings.Join(msgs, "; "))
		}
		cs := athar.Diff(n, have, narration.Compile(c))
		if cs.Empty() {
			continue
		}
		css = append(css, cs)
		res.Narrations = append(res.Narrations, n)
		res.QuadsAdded += len(cs.Add)
		res.QuadsRemoved += len(cs.Remove)
	}
	corpus, err := im.mergeCorpus(ctx, keep, remove)
	if err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	for _, cs := range corpus {
		css = append(css, cs)
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
	im.notify(ctx, css...)
	return res, nil
}
