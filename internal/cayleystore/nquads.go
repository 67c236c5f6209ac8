package cayleystore

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/nquads"

	"github.com/athar-hadith/athar/internal/athar"
)

// TrailerPrefix begins the last line of every N-Quads export and backup:
//
//	# athar-export end quads=N sha256=HEX
//
// N is the number of statements before it and HEX the SHA-256 of every byte before the
// line. It is an N-Quads comment, so RDF tools and 'athar load' skip it; ReadNQuadsVerified
// checks it, so that a cut or altered file is told apart from a whole one.
const TrailerPrefix = "# athar-export end "

// NQuadsWriter encodes quads as N-Quads (one statement per line, absolute IRIs) with
// Cayley's encoder. The first error is sticky: later writes do nothing and Close returns it.
// It counts and hashes what it writes, so that Seal can end an export with its trailer.
type NQuadsWriter struct {
	out io.Writer
	w   *nquads.Writer
	h   hash.Hash
	n   int
	err error
}

// NewNQuadsWriter returns a writer encoding to w.
func NewNQuadsWriter(w io.Writer) *NQuadsWriter {
	h := sha256.New()
	return &NQuadsWriter{out: w, w: nquads.NewWriter(io.MultiWriter(w, h)), h: h}
}

// Write encodes one quad.
func (e *NQuadsWriter) Write(q athar.Quad) error {
	if e.err != nil {
		return e.err
	}
	e.err = e.w.WriteQuad(toQuad(q))
	if e.err == nil {
		e.n++
	}
	return e.err
}

// Close flushes the output.
func (e *NQuadsWriter) Close() error {
	if err := e.w.Close(); e.err == nil {
		e.err = err
	}
	return e.err
}

// Seal flushes the output and ends it with the trailer (see TrailerPrefix). Exports and
// backups are sealed; Close leaves the statements alone, for N-Quads that are not a file of
// their own (the replication log's).
func (e *NQuadsWriter) Seal() error {
	if err := e.Close(); err != nil {
		return err
	}
	_, e.err = fmt.Fprintf(e.out, "%squads=%d sha256=%s\n", TrailerPrefix, e.n, hex.EncodeToString(e.h.Sum(nil)))
	return e.err
}

// Quads returns how many quads were written.
func (e *NQuadsWriter) Quads() int { return e.n }

// ReadNQuads decodes every quad of an N-Quads stream. Errors name the statement's line.
// Comments, the trailer among them, are skipped and not checked (see ReadNQuadsVerified).
func ReadNQuads(r io.Reader) ([]athar.Quad, error) {
	return readNQuads(r)
}

// ReadNQuadsVerified decodes every quad of an N-Quads export or backup and checks its
// trailer (see TrailerPrefix). verified reports that a trailer was found and matches: the
// stream holds exactly the statements it was written with. Without a trailer the quads are
// returned with verified false, for the caller to refuse or accept. A trailer that does not
// match (the file was cut or altered), a malformed one, or statements after it are Invalid
// errors.
func ReadNQuadsVerified(r io.Reader) (quads []athar.Quad, verified bool, err error) {
	sr := &sealReader{r: bufio.NewReaderSize(r, 64<<10), h: sha256.New(), lineStart: true}
	quads, err = readNQuads(sr)
	if err != nil {
		return nil, false, err
	}
	switch {
	case sr.after:
		return nil, false, athar.E("N-Quads", athar.Invalid, "statements follow the trailer (%s): two exports joined, or a damaged file", excerpt(sr.trailer))
	case sr.trailer == nil:
		return quads, false, nil
	}
	fields := strings.Fields(strings.TrimPrefix(string(sr.trailer), TrailerPrefix))
	var n int = -1
	var sum string
	for _, f := range fields {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "quads":
			if c, err := strconv.Atoi(v); err == nil && c >= 0 {
				n = c
			}
		case "sha256":
			sum = v
		}
	}
	if n < 0 || len(sum) != sha256.Size*2 {
		return nil, false, athar.E("N-Quads", athar.Invalid, "malformed trailer %s: want %squads=N sha256=HEX", excerpt(sr.trailer), TrailerPrefix)
	}
	got := hex.EncodeToString(sr.h.Sum(nil))
	if n != len(quads) || !strings.EqualFold(sum, got) {
		return nil, false, athar.E("N-Quads", athar.Invalid, "the trailer promises %d quads with sha256 %s, but the statements before it are %d quads with sha256 %s: the file was cut or altered", n, sum, len(quads), got)
	}
	return quads, true, nil
}

func readNQuads(r io.Reader) ([]athar.Quad, error) {
	dec := nquads.NewReader(r, false)
	var out []athar.Quad
	for line := 1; ; line++ {
		q, err := dec.ReadQuad()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		var cut *readError
		if errors.As(err, &cut) {
			return nil, cut.err
		}
		if err != nil {
			return nil, athar.E(fmt.Sprintf("N-Quads statement %d", line), athar.Invalid, "%s", parseError(err))
		}
		if _, ok := q.Subject.(quad.IRI); !ok {
			return nil, athar.E(fmt.Sprintf("N-Quads statement %d", line), athar.Invalid, "the subject must be an IRI (Athar stores no blank nodes)")
		}
		if _, ok := q.Label.(quad.IRI); !ok {
			return nil, athar.E(fmt.Sprintf("N-Quads statement %d", line), athar.Invalid, "every quad needs a graph label naming its narration")
		}
		out = append(out, fromQuad(q))
	}
}

// parseError describes a statement Cayley could not parse: its reason, then the statement,
// shortened (it may be a whole line of binary garbage, e.g. from a damaged gzip file).
func parseError(err error) string {
	msg := err.Error()
	const prefix = "failed to parse "
	if q, perr := strconv.QuotedPrefix(strings.TrimPrefix(msg, prefix)); perr == nil && strings.HasPrefix(msg, prefix) {
		if line, uerr := strconv.Unquote(q); uerr == nil {
			reason := strings.TrimPrefix(msg[len(prefix)+len(q):], ": ")
			if len(reason) > 200 {
				reason = reason[:200] + "..."
			}
			if strings.IndexFunc(reason, func(r rune) bool { return r < 0x20 || r > 0x7e }) >= 0 {
				reason = strconv.QuoteToASCII(reason)
			}
			return fmt.Sprintf("%s in %s", reason, excerpt([]byte(line)))
		}
	}
	return excerpt([]byte(msg))
}

// readError is a failure to read the stream (not to parse it), passed through the decoder.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }

// excerpt quotes b for an error message, short and printable: at most 80 bytes, in Go
// syntax with anything but printable ASCII escaped, and how long it was if it was cut.
func excerpt(b []byte) string {
	const max = 80
	if len(b) <= max {
		return strconv.QuoteToASCII(string(b))
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.QuoteToASCII(string(b[:max])), len(b))
}

// sealReader passes an N-Quads stream through, hashing every byte before the trailer line
// and holding that line back.
type sealReader struct {
	r         *bufio.Reader
	h         hash.Hash
	pending   []byte
	lineStart bool
	trailer   []byte // the trailer line, once read
	after     bool   // a non-blank line followed the trailer
	err       error
}

func (s *sealReader) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		chunk, err := s.r.ReadSlice('\n')
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			s.err = io.EOF
		default:
			s.err = &readError{err}
		}
		if len(chunk) == 0 {
			continue
		}
		start := s.lineStart
		s.lineStart = chunk[len(chunk)-1] == '\n'
		if s.trailer != nil {
			if len(bytes.TrimSpace(chunk)) > 0 {
				s.after = true
			}
			continue
		}
		if start && bytes.HasPrefix(chunk, []byte(TrailerPrefix)) {
			s.trailer = append([]byte(nil), bytes.TrimRight(chunk, "\r\n")...)
			continue
		}
		s.h.Write(chunk)
		s.pending = chunk
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// WriteNQuads writes qs to w as N-Quads, in the given order, without a trailer.
func WriteNQuads(w io.Writer, qs []athar.Quad) error {
	enc := NewNQuadsWriter(w)
	for _, q := range qs {
		if err := enc.Write(q); err != nil {
			break
		}
	}
	return enc.Close()
}

// WriteNQuadsSealed writes qs to w as N-Quads, in the given order, ended by the trailer:
// the form of every export and backup.
func WriteNQuadsSealed(w io.Writer, qs []athar.Quad) error {
	enc := NewNQuadsWriter(w)
	for _, q := range qs {
		if err := enc.Write(q); err != nil {
			break
		}
	}
	if enc.err != nil {
		return enc.Close()
	}
	return enc.Seal()
}
