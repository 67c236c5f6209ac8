package main

import (
	"bufio"
	"log/slog"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/testsupport"
)

// tuneGC sets what the environment leaves unset, keeps what it sets, logs the result and
// restores what it changed; a limit of 0 leaves the limit as it is.
func TestTuneGC(t *testing.T) {
	pct0, limit0 := gcSettings()
	for _, tc := range []struct {
		name                   string
		env                    map[string]string
		percent                int
		limit                  int64
		wantPercent, wantLimit uint64
	}{
		{"serve, neither set", map[string]string{}, serveGCPercent, serveMemoryLimit, serveGCPercent, serveMemoryLimit},
		{"serve, GOGC set", map[string]string{"GOGC": "150"}, serveGCPercent, serveMemoryLimit, pct0, serveMemoryLimit},
		{"serve, GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "2GiB"}, serveGCPercent, serveMemoryLimit, serveGCPercent, limit0},
		{"bulk, limit known", map[string]string{}, bulkGCPercent, 3 << 30, bulkGCPercent, 3 << 30},
		{"bulk, limit unknown", map[string]string{}, bulkGCPercent, 0, bulkGCPercent, limit0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs testsupport.Buffer
			restore := tuneGC(func(k string) string { return tc.env[k] }, slog.New(slog.NewTextHandler(&logs, nil)), tc.percent, tc.limit)
			pct, limit := gcSettings()
			restore()
			if pct != tc.wantPercent || limit != tc.wantLimit {
				t.Errorf("GOGC %d, GOMEMLIMIT %d; want %d, %d", pct, limit, tc.wantPercent, tc.wantLimit)
			}
			if !strings.Contains(logs.String(), "garbage collector") {
				t.Errorf("no log of the settings: %s", logs.String())
			}
			if p, l := gcSettings(); p != pct0 || l != limit0 {
				t.Errorf("after restore: %d, %d; want %d, %d", p, l, pct0, limit0)
			}
		})
	}
}

// A bulk load's soft limit is half of /proc/meminfo's MemTotal, and none without it.
func TestMemTotalHalf(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       24573012 kB\nMemFree:         1000 kB\n", 24573012 << 10 / 2},
		{"MemFree:         1000 kB\nMemTotal:  2048 kB\n", 1 << 20},
		{"MemFree:         1000 kB\n", 0},
		{"MemTotal: lots kB\n", 0},
		{"", 0},
	} {
		if got := memTotalHalf(bufio.NewScanner(strings.NewReader(tc.in))); got != tc.want {
			t.Errorf("memTotalHalf(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if bulkMemoryLimit() < 0 {
		t.Error("negative limit")
	}
}
