package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
