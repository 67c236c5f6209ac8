package main

import (
	"context"
	"fmt"

	"github.com/athar-hadith/athar/internal/corpus"
	"github.com/athar-hadith/athar/schema"
)

func cmdGen(ctx context.Context, e env, args []string) error {
	fs := newFlags(e, "gen", "[flags] --out DIR", `Write a deterministic synthetic corpus of narration documents (JSON, the real format) for
load tests and benchmarks: skewed like real collections, 8-20 claims each, every claim with
its evidence taken from the generated text. The same flags always give the same files.`)
	n := fs.Int("n", 1000, "number of narrations")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("out", "", "directory to write into (created)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" || *n < 1 {
		fs.Usage()
		return usageError("gen: --out DIR and --n >= 1 are required")
	}
	count, err := corpus.New(corpus.Options{Narrations: *n, Seed: *seed}, schema.Vocabulary()).WriteDir(ctx, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %d narration documents to %s\n", count, *out)
	return nil
}
