package main

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/testsupport"
)

// tuneGC sets what the environment leaves unset, keeps what it sets, logs the result and
// restores what it changed.
func TestTuneGC(t *testing.T) {
	pct0, limit0 := gcSettings()
	for _, tc := range []struct {
		name                   string
		env                    map[string]string
		wantPercent, wantLimit uint64
	}{
		{"neither set", map[string]string{}, serveGCPercent, serveMemoryLimit},
		{"GOGC set", map[string]string{"GOGC": "150"}, pct0, serveMemoryLimit},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "2GiB"}, serveGCPercent, limit0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs testsupport.Buffer
			restore := tuneGC(func(k string) string { return tc.env[k] }, slog.New(slog.NewTextHandler(&logs, nil)))
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
