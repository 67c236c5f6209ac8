//go:build bench

package main

import (
	"context"
	"errors"
	"os"

	"github.com/athar-hadith/athar/internal/bench"
)

// cmdBench is the benchmark harness (internal/bench), linked only into a build with the
// bench tag; nobench.go stands in for it otherwise.
func cmdBench(ctx context.Context, e env, args []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	err = bench.Command(ctx, args, e.getenv, self, e.stdout, e.stderr)
	var u bench.UsageError
	if errors.As(err, &u) {
		return exitError{code: 2, msg: u.Error()}
	}
	return err
}
