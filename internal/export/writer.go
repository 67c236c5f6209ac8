package export

import (
	"bufio"
	"encoding/xml"
	"io"
	"strings"
)

// stickyWriter buffers writes to w and keeps the first error: every later write does
// nothing, and flush returns that error. Encoders write through it and check once, at the
// end.
type stickyWriter struct {
	w   *bufio.Writer
	err error
}

func newStickyWriter(w io.Writer) *stickyWriter { return &stickyWriter{w: bufio.NewWriter(w)} }

// str writes the strings in order.
func (s *stickyWriter) str(vs ...string) {
	for _, v := range vs {
		if s.err != nil {
			return
		}
		_, s.err = s.w.WriteString(v)
	}
}

// bytes writes b.
func (s *stickyWriter) bytes(b []byte) {
	if s.err == nil {
		_, s.err = s.w.Write(b)
	}
}

// fail records err unless an error is already kept.
func (s *stickyWriter) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// flush writes out the buffer and returns the first error.
func (s *stickyWriter) flush() error {
	if s.err == nil {
		s.err = s.w.Flush()
	}
	return s.err
}

// xmlEscape escapes s for XML text and attribute values (quotes, <, >, &, tabs and line
// breaks as character references). Characters XML cannot carry become U+FFFD.
func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder does not fail
	return b.String()
}
