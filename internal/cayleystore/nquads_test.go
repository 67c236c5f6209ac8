package cayleystore

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/athar-hadith/athar/internal/athar"
)

func sealedExport(t *testing.T, n int) []byte {
	t.Helper()
	var qs []athar.Quad
	for i := 0; i < n; i++ {
		qs = append(qs, athar.Quad{Subject: "https://w3id.org/athar/person/p", Predicate: "https://w3id.org/athar/vocab#name",
			Object: athar.StringTerm(strings.Repeat("x", i)), Label: "https://w3id.org/athar/narration/n"})
	}
	var buf bytes.Buffer
	if err := WriteNQuadsSealed(&buf, qs); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSealedNQuadsVerify(t *testing.T) {
	whole := sealedExport(t, 5)
	lines := bytes.SplitAfter(whole, []byte("\n"))
	if last := string(lines[len(lines)-2]); !strings.HasPrefix(last, "# athar-export end quads=5 sha256=") {
		t.Fatalf("the last line is %q, want the trailer", last)
	}
	qs, ok, err := ReadNQuadsVerified(bytes.NewReader(whole))
	if err != nil || !ok || len(qs) != 5 {
		t.Fatalf("the whole export: %d quads, verified %v, error %v", len(qs), ok, err)
	}
	// ReadNQuads (athar load) skips the trailer, a comment.
	if qs, err := ReadNQuads(bytes.NewReader(whole)); err != nil || len(qs) != 5 {
		t.Fatalf("ReadNQuads: %d quads, %v", len(qs), err)
	}
	// Cut at every line end: never verified.
	for i := 0; i < len(lines)-2; i++ {
		cut := bytes.Join(lines[:i], nil)
		if _, ok, err := ReadNQuadsVerified(bytes.NewReader(cut)); ok || err != nil {
			t.Errorf("cut after %d lines: verified %v, error %v; want unverified", i, ok, err)
		}
	}
	cases := map[string][]byte{
		"a byte changed":      bytes.Replace(whole, []byte("xxx"), []byte("xyx"), 1),
		"a statement removed": append(bytes.Join(lines[:2], nil), bytes.Join(lines[3:], nil)...),
		"two exports joined":  append(append([]byte(nil), whole...), whole...),
		"a malformed trailer": append(bytes.Join(lines[:5], nil), "# athar-export end quads=five\n"...),
	}
	for name, src := range cases {
		if _, ok, err := ReadNQuadsVerified(bytes.NewReader(src)); ok || athar.ErrorCode(err) != athar.Invalid {
			t.Errorf("%s: verified %v, error %v; want an Invalid error", name, ok, err)
		}
	}
}

// TestNQuadsErrorIsShortAndPrintable: a line of binary garbage (a damaged gzip file's
// output) is named by a short, printable excerpt.
func TestNQuadsErrorIsShortAndPrintable(t *testing.T) {
	garbage := make([]byte, 10000)
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
		if garbage[i] == '\n' || garbage[i] == '#' {
			garbage[i] = 0
		}
	}
	_, err := ReadNQuads(bytes.NewReader(garbage))
	if err == nil {
		t.Fatal("garbage was read")
	}
	msg := err.Error()
	if len(msg) > 400 || strings.IndexFunc(msg, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 || !strings.Contains(msg, "statement 1") {
		t.Fatalf("a %d-byte error with non-printable characters, or not naming the statement: %q", len(msg), msg)
	}
	t.Log(msg)
}
