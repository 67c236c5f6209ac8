package main

import (
	"context"
	"fmt"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

func cmdExport(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "export", "[flags]", `Write the graph to standard output. N-Quads use absolute IRIs under `+athar.Base+`;
each quad's graph label is the narration that asserts it. The output is sorted, so the same
graph always exports to the same bytes, and 'athar load' of it restores the graph exactly.`)
	store := storeFlag(fs, e)
	format := fs.String("format", "nquads", "output format: nquads")
	only := fs.String("narration", "", "export only what this narration asserts (e.g. narration:ahmad-208)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *format != "nquads" {
		return usageError("export: unknown format %q (supported: nquads)", *format)
	}
	st, err := cayleystore.Open(*store, cliLogger(e))
	if err != nil {
		return err
	}
	defer st.Close()
	w := cayleystore.NewNQuadsWriter(e.stdout)
	if *only != "" {
		id := athar.ID(*only)
		if id.Prefix() != athar.TypeNarration.Prefix() {
			return usageError("export: --narration needs a narration id, e.g. narration:ahmad-208")
		}
		qs, err := st.NarrationQuads(ctx, id)
		if err != nil {
			return err
		}
		if len(qs) == 0 {
			return athar.Errorf(athar.NotFound, "export: no narration %s in the store", id)
		}
		for _, q := range qs {
			if err := w.Write(q); err != nil {
				break
			}
		}
	} else if err := st.Quads(ctx, w.Write); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return w.Close()
}
