package main

import (
	"log/slog"
	"runtime/metrics"
)

// Goroutine stacks for `athar serve`.
//
// Go starts a new goroutine with a stack the size of the average stack in use that the
// collector found at its last cycle (the runtime's adaptive starting size, since Go 1.19;
// the metric /gc/stack/starting-size:bytes). gqlgen resolves each element of a list of
// objects, and each resolver field, in a goroutine of its own -- hundreds for a page of
// claims with their attestations -- and those goroutines reach 8-16 KiB, while a server's
// parked goroutines (its listeners, a connection waiting for its next request) use 1-2
// KiB: each request's goroutines started at 2 KiB and grew, copying their stacks two or
// three times, which was 17-19% of the server's CPU on the entity page at 100,000
// narrations. A few goroutines parked with 14 KiB of stack in use for as long as the
// server runs lift the average, and so every new goroutine starts at 16 KiB and never
// copies: those 17-19% gone for 200 x 16 KiB = 3.2 MiB (docs/BENCHMARKS.md, "Goroutine
// stacks"). Where the runtime does not size stacks this way (GODEBUG=adaptivestackstart=0)
// they are 3.2 MiB spent for nothing, and nothing else changes.
const (
	serveStackGoroutines = 200
	serveStackKiB        = 14
)

// startingStackMetric is the runtime's starting size of a goroutine's stack.
const startingStackMetric = "/gc/stack/starting-size:bytes"

// holdStacks parks n goroutines each holding about kib KiB of stack in use, until the
// returned function is called.
func holdStacks(n, kib int) (release func()) {
	done := make(chan struct{})
	for range n {
		go holdStack(kib, done)
	}
	return func() { close(done) }
}

// holdStack recurses kib times through a frame of about 1 KiB, then waits for done.
//
//go:noinline
func holdStack(kib int, done <-chan struct{}) byte {
	var frame [1000]byte
	frame[kib%len(frame)] = byte(kib)
	if kib <= 1 {
		<-done
		return frame[0]
	}
	return holdStack(kib-1, done) + frame[kib%len(frame)]
}

// startingStackSize returns the size the runtime gives a new goroutine's stack now, 0 when
// it does not say.
func startingStackSize() uint64 {
	s := []metrics.Sample{{Name: startingStackMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// serveStacks holds the server's stacks (holdStacks) and logs what it holds.
func serveStacks(logger *slog.Logger) (release func()) {
	release = holdStacks(serveStackGoroutines, serveStackKiB)
	logger.Info("goroutine stacks held", "goroutines", serveStackGoroutines, "kib_each", serveStackKiB)
	return release
}
