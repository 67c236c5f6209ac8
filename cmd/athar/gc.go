package main

import (
	"bufio"
	"bytes"
	"log/slog"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
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

// bulkGCPercent is the collector's setting for a load in bulk mode (`athar load`, `athar
// corpus import`), unless GOGC says otherwise. A load allocates for every quad it writes
// -- Cayley's transaction, the read model's rows -- beside a live heap of gigabytes (the
// bulk buffer, Cayley's filter of the quads it holds), and with GOGC=100 the collector's
// marking took a tenth of a 10,000-narration load's CPU, on the core the read model's rows
// are written on beside Cayley's commit. GOGC=200 runs it half as often for a third more
// memory (docs/BENCHMARKS.md, "The collector during a load"); its soft limit, unless
// GOMEMLIMIT says otherwise, is half the machine's memory, near which the collector runs as
// often as it must.
const bulkGCPercent = 200

// tuneGC sets the collector's percent and soft memory limit (limit 0: left as it is) where
// the environment sets neither GOGC nor GOMEMLIMIT (the runtime has read those already),
// logs what the collector runs with, and returns a function restoring what it changed.
func tuneGC(getenv func(string) string, logger *slog.Logger, percent int, limit int64) (restore func()) {
	var undo []func()
	if getenv("GOGC") == "" {
		old := debug.SetGCPercent(percent)
		undo = append(undo, func() { debug.SetGCPercent(old) })
	}
	if getenv("GOMEMLIMIT") == "" && limit > 0 {
		old := debug.SetMemoryLimit(limit)
		undo = append(undo, func() { debug.SetMemoryLimit(old) })
	}
	pct, lim := gcSettings()
	logger.Info("garbage collector", "gogc", pct, "gomemlimit", lim)
	return func() {
		for _, f := range undo {
			f()
		}
	}
}

// bulkMemoryLimit is the soft memory limit of a bulk load: half of the machine's memory,
// from /proc/meminfo; 0 (none set) where that cannot be read.
func bulkMemoryLimit() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	return memTotalHalf(bufio.NewScanner(f))
}

// memTotalHalf returns half the MemTotal line of a /proc/meminfo listing, in bytes (0 when
// absent).
func memTotalHalf(sc *bufio.Scanner) int64 {
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == "MemTotal:" && string(f[2]) == "kB" {
			if kb, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil && kb > 0 {
				return kb << 10 / 2
			}
		}
	}
	return 0
}

// gcSettings reads the collector's GOGC percent and memory limit, as the runtime has them.
func gcSettings() (percent, limit uint64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}
