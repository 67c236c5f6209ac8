package cayleystore

import (
	"errors"
	"io"

	"github.com/cayleygraph/quad"
	"github.com/cayleygraph/quad/nquads"

	"github.com/athar-hadith/athar/internal/athar"
)

// NQuadsWriter encodes quads as N-Quads (one statement per line, absolute IRIs) with
// Cayley's encoder. The first error is sticky: later writes do nothing and Close returns it.
type NQuadsWriter struct {
	w   *nquads.Writer
	err error
}

// NewNQuadsWriter returns a writer encoding to w.
func NewNQuadsWriter(w io.Writer) *NQuadsWriter { return &NQuadsWriter{w: nquads.NewWriter(w)} }

// Write encodes one quad.
func (e *NQuadsWriter) Write(q athar.Quad) error {
	if e.err != nil {
		return e.err
	}
	e.err = e.w.WriteQuad(toQuad(q))
	return e.err
}

// Close flushes the output.
func (e *NQuadsWriter) Close() error {
	if err := e.w.Close(); e.err == nil {
		e.err = err
	}
	return e.err
}

// ReadNQuads decodes every quad of an N-Quads stream. Errors name the statement's line.
func ReadNQuads(r io.Reader) ([]athar.Quad, error) {
	dec := nquads.NewReader(r, false)
	var out []athar.Quad
	for line := 1; ; line++ {
		q, err := dec.ReadQuad()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, athar.Errorf(athar.Invalid, "N-Quads statement %d: %v", line, err)
		}
		if _, ok := q.Subject.(quad.IRI); !ok {
			return nil, athar.Errorf(athar.Invalid, "N-Quads statement %d: the subject must be an IRI (Athar stores no blank nodes)", line)
		}
		if _, ok := q.Label.(quad.IRI); !ok {
			return nil, athar.Errorf(athar.Invalid, "N-Quads statement %d: every quad needs a graph label naming its narration", line)
		}
		out = append(out, fromQuad(q))
	}
}

// WriteNQuads writes qs to w as N-Quads, in the given order.
func WriteNQuads(w io.Writer, qs []athar.Quad) error {
	enc := NewNQuadsWriter(w)
	for _, q := range qs {
		if err := enc.Write(q); err != nil {
			break
		}
	}
	return enc.Close()
}
