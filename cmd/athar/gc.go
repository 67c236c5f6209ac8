package main

import (
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
)

// The collector's settings for `athar serve`, unless GOGC or GOMEMLIMIT say otherwise.
//
// A request's tail latency is mostly the collector's: a request that allocates while a
// cycle marks the heap pays part of the marking (an assist), and with Go's default
// (GOGC=100: a cycle each time the heap grows by its live size) a busy server on the full
// corpus ran a cycle every second or so. GOGC=300 runs one a quarter as often, for a heap
// up to four times the live one (the live heap is ~130 MB on the full corpus, 374 MiB of
// resident memory at 100k generated narrations); the soft limit keeps the server's own
// memory under 1 GiB whatever the data: near it, the collector runs as often as it must.
// Measured in docs/BENCHMARKS.md ("The full corpus").
const (
	serveGCPercent   = 300
	serveMemoryLimit = 768 << 20
)

// tuneGC applies serveGCPercent and serveMemoryLimit where the environment sets neither
// GOGC nor GOMEMLIMIT (the runtime has read those already), logs what the collector runs
// with, and returns a function restoring what it changed.
func tuneGC(getenv func(string) string, logger *slog.Logger) (restore func()) {
	var undo []func()
	if getenv("GOGC") == "" {
		old := debug.SetGCPercent(serveGCPercent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if getenv("GOMEMLIMIT") == "" {
		old := debug.SetMemoryLimit(serveMemoryLimit)
		undo = append(undo, func() { debug.SetMemoryLimit(old) })
	}
	pct, limit := gcSettings()
	logger.Info("garbage collector", "gogc", pct, "gomemlimit", limit)
	return func() {
		for _, f := range undo {
			f()
		}
	}
}

// gcSettings reads the collector's GOGC percent and memory limit, as the runtime has them.
func gcSettings() (percent, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}
