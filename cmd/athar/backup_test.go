package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

func TestBackupRestore(t *testing.T) {
	a, b := storeEnv(t), storeEnv(t)
	mustCLI(t, a, "seed")
	want := mustCLI(t, a, "export").stdout
	file := filepath.Join(t.TempDir(), "athar.nq.gz")
	mustCLI(t, a, "backup", "-o", file)
	raw, err := os.ReadFile(file)
	if err != nil || len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Fatalf("the backup is not gzip: %v", err)
	}
	if len(raw) >= len(want)/3 {
		t.Errorf("the backup (%d bytes) is barely compressed (%d bytes of N-Quads)", len(raw), len(want))
	}
	mustCLI(t, b, "restore", file)
	if got := mustCLI(t, b, "export").stdout; got != want {
		t.Fatal("restore did not give back the identical graph")
	}
	// A non-empty store is refused unless --replace.
	if r := cli(t, b, "", "restore", file); exitCode(r.err) != 1 || !strings.Contains(r.err.Error(), "--replace") {
		t.Fatalf("restore into a non-empty store: %v", r.err)
	}
	r := cli(t, b, smallDoc, "load", "-")
	if r.err != nil {
		t.Fatal(r.err)
	}
	mustCLI(t, b, "restore", "--replace", file)
	if got := mustCLI(t, b, "export").stdout; got != want {
		t.Fatal("restore --replace did not make the store exactly the backup")
	}
	// Plain N-Quads on stdin work too; garbage is refused with the statement named.
	c := storeEnv(t)
	if r := cli(t, c, want, "restore", "-"); r.err != nil {
		t.Fatal(r.err)
	}
	if r := cli(t, storeEnv(t), "not n-quads\n", "restore", "-"); r.err == nil || !strings.Contains(r.err.Error(), "statement 1") {
		t.Fatalf("garbage: %v", r.err)
	}
}

// gz compresses b as one gzip member.
func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func writeFile(t *testing.T, name string, b []byte) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestRestoreRefusesACutPlainBackup: a plain N-Quads backup cut at a line end parses, so only
// the trailer tells it from a whole one. Restore refuses it, and never shrinks a store with it.
func TestRestoreRefusesACutPlainBackup(t *testing.T) {
	a := storeEnv(t)
	mustCLI(t, a, "seed")
	whole := mustCLI(t, a, "export").stdout
	emptyExport := mustCLI(t, storeEnv(t), "export").stdout
	lines := strings.SplitAfter(whole, "\n")
	cut := writeFile(t, "cut.nq", []byte(strings.Join(lines[:1000], "")))
	t.Logf("the export is %d lines; the cut file keeps the first 1000", len(lines)-1)

	c := storeEnv(t)
	r := cli(t, c, "", "restore", cut)
	if exitCode(r.err) != 1 || !strings.Contains(r.err.Error(), cut) || !strings.Contains(r.err.Error(), "trailer") {
		t.Fatalf("restore of a cut file: exit %d, %v; want exit 1 naming the file and the missing trailer", exitCode(r.err), r.err)
	}
	if got := mustCLI(t, c, "export").stdout; got != emptyExport {
		t.Fatal("a refused restore wrote to the store")
	}
	b := storeEnv(t)
	mustCLI(t, b, "seed")
	if r := cli(t, b, "", "restore", "--replace", cut); exitCode(r.err) != 1 {
		t.Fatalf("restore --replace of a cut file: %v", r.err)
	}
	if got := mustCLI(t, b, "export").stdout; got != whole {
		t.Fatal("restore --replace of a cut file changed the store")
	}
	// --unverified takes it knowingly, into an empty store, but never removes quads with it.
	if r := cli(t, b, "", "restore", "--replace", "--unverified", cut); exitCode(r.err) != 1 || !strings.Contains(r.err.Error(), "--unverified") {
		t.Fatalf("restore --replace --unverified of a cut file over a fuller store: %v", r.err)
	}
	if got := mustCLI(t, b, "export").stdout; got != whole {
		t.Fatal("restore --replace --unverified of a cut file changed the store")
	}
	// A restore goes through the one write path, so a narration cut in the middle (its
	// graph no longer declares it) is refused, naming it, and nothing is written.
	if r := cli(t, c, "", "restore", "--unverified", cut); exitCode(r.err) != 1 || !strings.Contains(r.err.Error(), "does not declare its narration") {
		t.Fatalf("restore --unverified of a file cut inside a narration: %v", r.err)
	}
	if got := mustCLI(t, c, "export").stdout; got != emptyExport {
		t.Fatal("a refused restore --unverified wrote to the store")
	}
	// Without the trailer but whole, --unverified restores it.
	untrailed := writeFile(t, "untrailed.nq", []byte(strings.Join(lines[:len(lines)-2], "")))
	r = mustCLI(t, c, "restore", "--unverified", untrailed)
	if !strings.Contains(r.stdout, fmt.Sprintf("restored %d quads", len(lines)-2)) || !strings.Contains(r.stderr, "not verified") {
		t.Fatalf("restore --unverified: %q %q", r.stdout, r.stderr)
	}
	// The whole file is verified and restored.
	d := storeEnv(t)
	r = mustCLI(t, d, "restore", writeFile(t, "whole.nq", []byte(whole)))
	if got := mustCLI(t, d, "export").stdout; got != whole || !strings.Contains(r.stdout, "verified") {
		t.Fatalf("restore of the whole export: %q; identical: %v", r.stdout, got == whole)
	}
	// An altered file is refused even with --unverified: its trailer does not match.
	altered := writeFile(t, "altered.nq", []byte(strings.Replace(whole, "abu-bakr", "abu-bakx", 1)))
	if r := cli(t, storeEnv(t), "", "restore", "--unverified", altered); exitCode(r.err) != 1 || !strings.Contains(r.err.Error(), "cut or altered") {
		t.Fatalf("restore of an altered file: %v", r.err)
	}
}

// TestRestoreRefusesACutGzipBackup: gzip's checksum catches a stream cut inside a member, but
// not one cut exactly between members; the trailer inside the gzip catches both.
func TestRestoreRefusesACutGzipBackup(t *testing.T) {
	a := storeEnv(t)
	mustCLI(t, a, "seed")
	whole := mustCLI(t, a, "export").stdout
	file := filepath.Join(t.TempDir(), "athar.nq.gz")
	mustCLI(t, a, "backup", "-o", file)
	raw, plain := gunzipFile(t, file)
	if plain != whole || !strings.Contains(whole, "\n# athar-export end quads=") {
		t.Fatalf("the backup inside the gzip is not the export with its trailer (%d vs %d bytes)", len(plain), len(whole))
	}
	lines := strings.SplitAfter(whole, "\n")
	first, second := strings.Join(lines[:len(lines)/2], ""), strings.Join(lines[len(lines)/2:], "")
	twoMembers := append(gz(t, []byte(first)), gz(t, []byte(second))...)
	mustCLI(t, storeEnv(t), "restore", writeFile(t, "two.nq.gz", twoMembers))

	for name, b := range map[string][]byte{
		"cut inside the stream":    raw[:len(raw)/2],
		"cut between members":      gz(t, []byte(first)),
		"cut before the last byte": raw[:len(raw)-1],
	} {
		t.Run(name, func(t *testing.T) {
			f := writeFile(t, "cut.nq.gz", b)
			st := storeEnv(t)
			r := cli(t, st, "", "restore", f)
			if exitCode(r.err) != 1 || !strings.Contains(r.err.Error(), f) {
				t.Fatalf("exit %d, %v; want exit 1 naming the file", exitCode(r.err), r.err)
			}
			t.Logf("%d of %d bytes: %v", len(b), len(raw), r.err)
		})
	}
}

// TestRestoreOfACorruptGzipSaysWhatIsWrong: a damaged gzip backup is named, with what is
// wrong, in a short printable message -- never the binary it decompresses to.
func TestRestoreOfACorruptGzipSaysWhatIsWrong(t *testing.T) {
	a := storeEnv(t)
	mustCLI(t, a, "seed")
	file := filepath.Join(t.TempDir(), "athar.nq.gz")
	mustCLI(t, a, "backup", "-o", file)
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{20, len(raw) / 3, len(raw) / 2, len(raw) - 12} {
		damaged := append([]byte(nil), raw...)
		for i := at; i < at+200 && i < len(damaged)-8; i++ {
			damaged[i] ^= 0x5a
		}
		f := writeFile(t, "damaged.nq.gz", damaged)
		r := cli(t, storeEnv(t), "", "restore", f)
		if r.err == nil {
			t.Fatalf("damaged at %d: restored", at)
		}
		msg := r.err.Error()
		if len(msg) > 400 || !strings.Contains(msg, f) || strings.IndexFunc(msg, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsPrint(r) }) >= 0 {
			t.Errorf("damaged at %d: a %d-byte message, not naming the file or not printable ASCII: %q", at, len(msg), msg)
		}
		t.Logf("damaged at %d: %d bytes: %s", at, len(msg), msg)
	}
}

// gunzipFile returns the bytes of the gzip file at path and what they hold.
func gunzipFile(t *testing.T, path string) (raw []byte, plain string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return raw, string(out)
}
