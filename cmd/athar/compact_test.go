package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestCompactCommand: athar compact after a delete keeps the graph as it was, says what it
// did, and refuses arguments it does not take.
func TestCompactCommand(t *testing.T) {
	e := storeEnv(t)
	mustCLI(t, e, "seed")
	mustCLI(t, e, "delete", "narration:bukhari-3953")
	want := mustCLI(t, e, "export").stdout
	r := mustCLI(t, e, "compact")
	if !regexp.MustCompile(`^compacted bbolt:\S+ in \S+: [0-9.]+ MiB -> [0-9.]+ MiB; [0-9]+ free pages -> [0-9]+ `).MatchString(r.stderr) {
		t.Errorf("compact says %q", r.stderr)
	}
	if got := mustCLI(t, e, "export").stdout; got != want {
		t.Fatal("the graph differs after compaction")
	}
	if r := cli(t, e, "", "compact", "extra"); exitCode(r.err) != 2 || !strings.Contains(r.err.Error(), `"extra"`) {
		t.Errorf("compact extra: %v", r.err)
	}
	if r := cli(t, map[string]string{"ATHAR_STORE": "memory:"}, "", "compact"); exitCode(r.err) != 1 || !strings.Contains(r.err.Error(), "bbolt") {
		t.Errorf("compact of memory: %v", r.err)
	}
}
