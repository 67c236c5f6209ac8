// Package backup writes and reads Athar's backups: every quad of a store as gzip-compressed,
// sorted N-Quads ending with the export trailer ("# athar-export end quads=N sha256=HEX",
// inside the gzip), and decides what restoring one may change.
package backup

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

// Quads is what a backup reads: every quad of a store, in one consistent pass.
type Quads interface {
	Quads(ctx context.Context, fn func(athar.Quad) error) error
}

// Write writes every quad of st to w as a backup, as the whole graph's N-Quads export
// writes them (the types the store leaves implied stated), and returns how many it wrote.
func Write(ctx context.Context, st Quads, w io.Writer) (int, error) {
	bw := bufio.NewWriter(w)
	zw := gzip.NewWriter(bw)
	enc := cayleystore.NewNQuadsWriter(zw)
	n := 0
	// As the whole graph's export: the types of claims, attestations and chain links, which
	// the store leaves implied, stated (restore leaves them out again).
	s := athar.ImpliedStater{Write: func(q athar.Quad) error { n++; return enc.Write(q) }}
	if err := st.Quads(ctx, s.Add); err != nil {
		return n, err
	}
	for _, err := range []error{s.Flush(), enc.Seal(), zw.Close(), bw.Flush()} {
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// WriteFile writes the backup of st to a temporary file beside path and renames it to
// path once it is whole and synced, so a failed backup never leaves a truncated file under
// the final name.
func WriteFile(ctx context.Context, st Quads, path string) (int, error) {
	f, err := os.CreateTemp(filepath.Dir(path), ".athar-backup-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	n, err := Write(ctx, st, f)
	if err != nil {
		return n, err
	}
	if err := f.Sync(); err != nil {
		return n, err
	}
	if err := f.Close(); err != nil {
		return n, err
	}
	return n, os.Rename(f.Name(), path)
}

// ReadPath reads the backup at path ("-" reads stdin) with Read. It returns the name to
// report it by ("standard input" for "-"), and errors that name it.
func ReadPath(path string, stdin io.Reader) (quads []athar.Quad, verified bool, name string, err error) {
	name, r := path, stdin
	if path == "-" {
		name = "standard input"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, false, name, err
		}
		defer f.Close()
		r = f
	}
	quads, verified, err = Read(r)
	if err != nil {
		return nil, false, name, fmt.Errorf("%s: %w", name, err)
	}
	return quads, verified, name, nil
}

// Read reads every quad of a backup, gzip-compressed or plain N-Quads, and checks its
// trailer: verified reports a matching trailer. An error says what is wrong with the file:
// a damaged gzip stream is reported as such, not as the garbage it decompresses to.
func Read(r io.Reader) (quads []athar.Quad, verified bool, err error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	if !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		quads, verified, err = cayleystore.ReadNQuadsVerified(br)
		if err != nil {
			return nil, false, failure(err)
		}
		return quads, verified, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, false, fmt.Errorf("not a readable gzip file: %w", failure(err))
	}
	defer zr.Close()
	quads, verified, err = cayleystore.ReadNQuadsVerified(zr)
	if err != nil && athar.ErrorCode(err) == athar.Invalid {
		// Damaged compressed data may decompress to garbage that fails to parse before
		// gzip's checksum is reached: read on, and report the damage if that is what it is.
		if _, zerr := io.Copy(io.Discard, zr); zerr != nil {
			err = zerr
		}
	}
	if err != nil {
		return nil, false, failure(err)
	}
	return quads, verified, nil
}

// failure says what a read error means for a backup, keeping err to be matched.
func failure(err error) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return readError{"the gzip stream ends too early (cut short, or damaged)", err}
	case errors.Is(err, gzip.ErrChecksum):
		return readError{"the gzip data is damaged (its checksum does not match)", err}
	case errors.Is(err, gzip.ErrHeader):
		return readError{"the gzip data is damaged or followed by something that is not gzip (invalid header)", err}
	}
	var corrupt flate.CorruptInputError
	if errors.As(err, &corrupt) {
		return fmt.Errorf("the gzip data is damaged (%w)", err)
	}
	return err
}

// readError says what err means for a backup, in place of err's own text.
type readError struct {
	msg string
	err error
}

func (e readError) Error() string { return e.msg }
func (e readError) Unwrap() error { return e.err }

// Restorer makes the write of a restore (ingest.Writer's Restore).
type Restorer interface {
	Restore(ctx context.Context, quads []athar.Quad, replace bool) ([]athar.ID, error)
}

// Restore makes the graph, as st shows it, hold exactly the backup's quads, through w in
// one write (one transaction, one log entry): into an empty graph, or with replace in place
// of everything. A backup not verified by its trailer never removes a quad. It returns the
// changes made. It overwrites quads' elements: it drops the implied quads in place.
func Restore(ctx context.Context, w Restorer, st Quads, quads []athar.Quad, verified, replace bool) (athar.Changeset, error) {
	var old []athar.Quad
	if err := st.Quads(ctx, func(q athar.Quad) error { old = append(old, q); return nil }); err != nil {
		return athar.Changeset{}, err
	}
	if len(old) > 0 && !replace {
		return athar.Changeset{}, fmt.Errorf("the store holds %d quads; restore into an empty store, or pass --replace", len(old))
	}
	// What every export and backup states and the store leaves implied (the types of
	// claims, attestations and chain links; evidence that is the passage at its offsets)
	// is left out, as ingest's Restore leaves it, and the changes returned say so. In
	// place: a large backup's quads are not held twice.
	quads = athar.DropImplied(quads)
	cs := athar.Diff("", old, quads)
	if !verified && len(cs.Remove) > 0 {
		return athar.Changeset{}, fmt.Errorf("the file is not verified (--unverified) and lacks %d of the store's %d quads: an unverified file never removes quads; restore it into an empty store", len(cs.Remove), len(old))
	}
	if _, err := w.Restore(ctx, quads, replace); err != nil {
		return athar.Changeset{}, err
	}
	return cs, nil
}
