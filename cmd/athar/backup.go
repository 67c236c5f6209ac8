package main

import (
	"context"
	"fmt"

	"github.com/athar-hadith/athar/internal/backup"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

func cmdBackup(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "backup", "[flags] -o FILE", `Write every quad of the store as gzip-compressed, sorted N-Quads: a lossless backup that
'athar restore' (or 'athar load' after gunzip) turns back into the identical graph. The
N-Quads end with the export trailer ("# athar-export end quads=N sha256=HEX", inside the
gzip), which restore checks. The store is read in one consistent pass; run it while serve
is stopped (bbolt allows one process), or export over HTTP (/export/nquads) from a running
server.`)
	store := storeFlag(fs, e)
	out := fs.String("o", "", "output file (\"-\" for standard output)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return usageError("backup: -o FILE is required")
	}
	st, err := cayleystore.Open(*store, cliLogger(e))
	if err != nil {
		return err
	}
	defer st.Close()
	if *out == "-" {
		if _, err := backup.Write(ctx, st, e.stdout); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		return nil
	}
	n, err := backup.WriteFile(ctx, st, *out)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(e.stderr, "backed up %d quads to %s\n", n, *out)
	return nil
}

func cmdRestore(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "restore", "[flags] FILE", `Restore a backup written by 'athar backup' (gzip-compressed or plain N-Quads; "-" reads
standard input), or a whole-graph N-Quads export. The store must be empty unless --replace
is given, in which case the store becomes exactly the backup: everything else is removed,
in the same single transaction.

The file must prove itself whole: its last line is the export trailer
("# athar-export end quads=N sha256=HEX"), and the statements before it must be exactly
N quads with that SHA-256 (gzip's own checksum is checked too). A file without the trailer
(cut short, or written before trailers existed) is refused unless --unverified is given;
an unverified file is never allowed to remove a quad, so with --replace it is refused
unless it holds every quad of the store. A trailer that does not match is always refused.`)
	wf := addWriteFlags(fs, e)
	replace := fs.Bool("replace", false, "replace a non-empty store's whole content with the backup")
	unverified := fs.Bool("unverified", false, "accept a file without the trailer (it may be cut short); it can only add quads")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("restore: give exactly one FILE")
	}
	quads, verified, name, err := backup.ReadPath(fs.Arg(0), e.stdin)
	if err != nil {
		return exitError{code: 1, msg: fmt.Sprintf("restore %v", err)}
	}
	if !verified {
		if !*unverified {
			return exitError{code: 1, msg: fmt.Sprintf("restore %s: no trailer (%q...): the file may be cut short, so it is not restored; if you know it is whole (e.g. a backup from before trailers existed), pass --unverified", name, cayleystore.TrailerPrefix)}
		}
		fmt.Fprintf(e.stderr, "restore %s: no trailer: %d quads not verified, restored as they are (--unverified)\n", name, len(quads))
	}
	w, err := openWriter(ctx, wf, cliLogger(e))
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.CatchUp(ctx); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	cs, err := backup.Restore(ctx, w, w.Read, quads, verified, *replace)
	if err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	how := "verified by its trailer"
	if !verified {
		how = "not verified"
	}
	fmt.Fprintf(e.stdout, "restored %d quads, %s (%d added, %d removed)%s\n", len(quads), how, len(cs.Add), len(cs.Remove), w.Where())
	return nil
}
