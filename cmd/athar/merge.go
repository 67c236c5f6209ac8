package main

import (
	"context"
	"fmt"

	"github.com/athar-hadith/athar/internal/athar"
)

func cmdMerge(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "merge", "[flags] KEEP REMOVE", `Make two ids one entity: every claim, attestation, name, chain link and grading naming
REMOVE is rewritten to name KEEP, in the narrations that made them, in one transaction.
REMOVE's names become aliases of KEEP, and REMOVE is recorded as a former id of KEEP: it
still resolves (the API's entity(id:) returns KEEP), and documents naming it import as if
they named KEEP. Both must be defined and of one type, neither a narration nor a verse.
Merging again changes nothing. See docs/linking.md.`)
	wf := addWriteFlags(fs, e)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return usageError("merge: give KEEP and REMOVE, e.g. athar merge person:abu-bakr person:al-siddiq")
	}
	w, err := openWriter(ctx, wf, cliLogger(e))
	if err != nil {
		return err
	}
	defer w.Close()
	keep, remove := athar.ID(fs.Arg(0)), athar.ID(fs.Arg(1))
	res, err := w.Merge(ctx, keep, remove)
	if err != nil {
		return err
	}
	if !res.Changed {
		fmt.Fprintf(e.stdout, "%s is already merged into %s: nothing changed\n", remove, keep)
		return nil
	}
	fmt.Fprintf(e.stdout, "merged %s into %s: %d narration(s) rewritten (%s); %d quad(s) added, %d removed%s\n",
		remove, keep, len(res.Narrations), joinIDs(res.Narrations), res.QuadsAdded, res.QuadsRemoved, w.Where())
	return nil
}

func joinIDs(ids []athar.ID) string {
	s := ""
	for i, id := range ids {
		if i > 0 {
			s += ", "
		}
		s += string(id)
	}
	return s
}
