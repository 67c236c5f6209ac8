//go:build bench

package bench

import (
	"strings"
	"testing"
	"time"
)

// The pairs of loads are listed with their ratios and the median of them; a size timed in
// one pair has no such table.
func TestWriteRounds(t *testing.T) {
	s := time.Second
	results := []Result{
		{Narrations: 10, AtharLoad: 12 * s, RawLoad: 10 * s, Rounds: []ImportRound{{Athar: 14 * s, Raw: 10 * s}, {Athar: 13 * s, Raw: 10 * s}}},
		{Narrations: 20, AtharLoad: 11 * s, RawLoad: 10 * s, Rounds: []ImportRound{{Athar: 15 * s, Raw: 10 * s}}},
		{Narrations: 30},
	}
	var b strings.Builder
	writeRounds(&b, results)
	got := b.String()
	for _, want := range []string{"| 10 | 1 | 12s | 10s | 1.20 |", "| 10 | 2 | 14s | 10s | 1.40 |", "| 10 | median | | | **1.30** |", "| 20 | median | | | **1.30** |"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "| 30 |") {
		t.Errorf("a size with one pair is listed:\n%s", got)
	}
	b.Reset()
	writeRounds(&b, results[2:])
	if b.Len() != 0 {
		t.Errorf("a table without pairs: %q", b.String())
	}
}
