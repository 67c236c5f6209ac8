//go:build !bench

package main

import (
	"context"
	"flag"
)

const benchNotBuilt = `This binary was built without the benchmark harness, which only a build with the bench tag
links (it brings raw Cayley and two more key-value engines, some 15 MB the product does not
use). Build it with 'go build -tags bench ./cmd/athar', or run 'make bench' (see
docs/BENCHMARKS.md).`

// cmdBench stands in for the benchmark harness (bench.go) in a product build.
func cmdBench(_ context.Context, e env, args []string) error {
	fs := newFlags(e, "bench", "[flags]", benchNotBuilt)
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			fs.Usage()
			return flag.ErrHelp
		}
	}
	return usageError("bench: this binary was built without the benchmark harness: build it with 'go build -tags bench ./cmd/athar', or run 'make bench'")
}

// startProfiler is a no-op in a product build: only a build with the bench tag serves
// pprof (pprof_bench.go).
func startProfiler([]string, func(string) string) {}
