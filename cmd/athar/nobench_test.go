//go:build !bench

package main

import (
	"strings"
	"testing"
)

// TestBenchNotBuilt checks that a product build, which leaves the harness out, says how to
// get it rather than pretending the command does not exist.
func TestBenchNotBuilt(t *testing.T) {
	r := cli(t, nil, "", "bench", "--sizes", "1")
	if r.err == nil || exitCode(r.err) != 2 || !strings.Contains(r.err.Error(), "-tags bench") {
		t.Fatalf("athar bench without the bench tag: %v", r.err)
	}
}
