package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

func cmdBackup(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "backup", "[flags] -o FILE", `Write every quad of the store as gzip-compressed, sorted N-Quads: a lossless backup that
'athar restore' (or 'athar load' after gunzip) turns back into the identical graph. The
store is read in one consistent pass; run it while serve is stopped (bbolt allows one
process), or export over HTTP (/export/nquads) from a running server.`)
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
	w := e.stdout
	var f *os.File
	if *out != "-" {
		// Write to a temporary file and rename it, so a failed backup never leaves a
		// truncated file under the final name.
		f, err = os.CreateTemp(filepath.Dir(*out), ".athar-backup-*")
		if err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		defer os.Remove(f.Name())
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	zw := gzip.NewWriter(bw)
	enc := cayleystore.NewNQuadsWriter(zw)
	n := 0
	if err := st.Quads(ctx, func(q athar.Quad) error { n++; return enc.Write(q) }); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	for _, err := range []error{enc.Close(), zw.Close(), bw.Flush()} {
		if err != nil {
			return fmt.Errorf("backup: %w", err)
		}
	}
	if f != nil {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		if err := os.Rename(f.Name(), *out); err != nil {
			return fmt.Errorf("backup: %w", err)
		}
		fmt.Fprintf(e.stderr, "backed up %d quads to %s\n", n, *out)
	}
	return nil
}

func cmdRestore(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "restore", "[flags] FILE", `Restore a backup written by 'athar backup' (gzip-compressed or plain N-Quads; "-" reads
standard input). The store must be empty unless --replace is given, in which case the store
becomes exactly the backup: everything else is removed, in the same single transaction.`)
	store := storeFlag(fs, e)
	replace := fs.Bool("replace", false, "replace a non-empty store's whole content with the backup")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("restore: give exactly one FILE")
	}
	var r io.Reader = e.stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("restore: %w", err)
		}
		defer zr.Close()
		r = zr
	} else {
		r = br
	}
	quads, err := cayleystore.ReadNQuads(r)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	st, err := cayleystore.Open(*store, cliLogger(e))
	if err != nil {
		return err
	}
	defer st.Close()
	var old []athar.Quad
	if err := st.Quads(ctx, func(q athar.Quad) error { old = append(old, q); return nil }); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	if len(old) > 0 && !*replace {
		return exitError{code: 1, msg: fmt.Sprintf("restore: the store holds %d quads; restore into an empty store, or pass --replace", len(old))}
	}
	// A backup is the record itself, so it is applied as it is, in one transaction.
	cs := athar.Diff("", old, quads)
	if err := st.Apply(ctx, cs); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	fmt.Fprintf(e.stdout, "restored %d quads (%d added, %d removed)\n", len(quads), len(cs.Add), len(cs.Remove))
	return nil
}
