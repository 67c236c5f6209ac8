package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/export"
	"github.com/athar-hadith/athar/schema"
)

func cmdExport(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "export", "[flags]", `Write the graph, or the neighbourhood of one entity, to standard output.

Formats: `+strings.Join(export.Formats(), ", ")+`.
N-Quads use absolute IRIs under `+athar.Base+`; each quad's graph label is the narration
that asserts it. The last line is the trailer "# athar-export end quads=N sha256=HEX" (an
N-Quads comment: the count and SHA-256 of the statements before it), which 'athar restore'
checks, so a cut export is refused. The output is sorted, so the same graph always exports
to the same bytes, and 'athar load' of a whole-graph N-Quads export restores the graph
exactly. JSON-LD has one
named graph per narration and expands to exactly the N-Quads of the same selection.
docs/exports.md says how to open each format in Gephi, Cytoscape and sigma.js.`)
	wf := addWriteFlags(fs, e)
	format := fs.String("format", "nquads", "output format: "+strings.Join(export.Formats(), ", "))
	only := fs.String("narration", "", "export exactly what this narration asserts (e.g. narration:ahmad-208; a hadith of the corpus, narration:muslim-4589: its record, with its chains), in any format; goes without --root, --depth and --predicates")
	root := fs.String("root", "", "export the neighbourhood of this entity (e.g. event:badr) instead of the whole graph")
	depth := fs.Int("depth", export.DefaultDepth, fmt.Sprintf("with --root: how many steps out to go (1 to %d)", export.MaxDepth))
	preds := fs.String("predicates", "", "comma-separated predicates to keep (default: all)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if export.ContentType(*format) == "" {
		return usageError("export: unknown format %q (supported: %s)", *format, strings.Join(export.Formats(), ", "))
	}
	predicates, err := export.ParsePredicates(schema.Vocabulary(), *preds)
	if err != nil {
		return usageError("export: %v", err)
	}
	depthSet := false
	fs.Visit(func(f *flag.Flag) { depthSet = depthSet || f.Name == "depth" })
	opts := export.Options{Root: athar.ID(*root), Depth: *depth, Predicates: predicates}
	if *only != "" {
		if *root != "" || depthSet || len(predicates) > 0 {
			return usageError("export: --narration goes without --root, --depth and --predicates")
		}
		if athar.ID(*only).Prefix() != athar.TypeNarration.Prefix() {
			return usageError("export: --narration needs a narration id, e.g. narration:ahmad-208")
		}
		opts = export.Options{Narration: athar.ID(*only)}
	}
	// The graph as of now: the store, or in the scale-out mode a replica (in a throwaway
	// store unless --store is given) caught up with the head of the log. Nothing is written.
	w, err := openWriter(ctx, wf, cliLogger(e))
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.CatchUp(ctx); err != nil {
		return fmt.Errorf("export: catch up with the log: %w", err)
	}
	if err := export.Graph(ctx, e.stdout, w.Read, *format, opts); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
