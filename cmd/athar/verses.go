package main

import (
	"context"
	"fmt"
	"os"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/narration"
)

func cmdVerses(ctx context.Context, e env, args []string) error {
	const help = `Subcommands:
  import FILE   attach each verse's Arabic text and English translation (Saheeh
                International) from quran_en.json of the npm package quran-json 3.1.2
                (CC BY-SA 4.0) to the verses, with its attribution.

The texts live under a reserved graph label of their own, ` + "<https://w3id.org/athar/graph/quran>" + `,
not under any narration: importing again changes nothing, a file with fewer verses removes
the others' texts, and no narration's quads are touched. Get the file with
  npm pack quran-json@3.1.2 && tar xzf quran-json-3.1.2.tgz package/dist/quran_en.json`
	fs := newFlags(e, "verses", "import [flags] FILE", help)
	wf := addWriteFlags(fs, e)
	if len(args) == 0 || args[0] != "import" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fs.Usage()
			return nil
		}
		fs.Usage()
		return usageError("verses: expected the subcommand import")
	}
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("verses import: give exactly one FILE (quran_en.json)")
	}
	f, err := os.Open(fs.Arg(0))
	if err != nil {
		return fmt.Errorf("verses import: %w", err)
	}
	defer f.Close()
	texts, err := narration.ReadQuranJSON(f)
	if err != nil {
		return fmt.Errorf("verses import %s: %w", fs.Arg(0), err)
	}
	w, err := openWriter(ctx, wf, cliLogger(e))
	if err != nil {
		return err
	}
	defer w.Close()
	res, err := w.ImportVerseTexts(ctx, texts, narration.QuranJSONSource)
	if err != nil {
		return err
	}
	if !res.Changed {
		fmt.Fprintf(e.stdout, "%d verse text(s) already imported under <%s>: nothing changed%s\n", res.Verses, athar.QuranGraph.IRI(), w.Where())
		return nil
	}
	fmt.Fprintf(e.stdout, "%d verse text(s) imported under <%s>: %d quad(s) added, %d removed%s\n",
		res.Verses, athar.QuranGraph.IRI(), res.QuadsAdded, res.QuadsRemoved, w.Where())
	return nil
}
