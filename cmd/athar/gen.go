package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

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
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	g := corpus.New(corpus.Options{Narrations: *n, Seed: *seed}, schema.Vocabulary())
	count := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		name, data, ok := g.Next()
		if !ok {
			break
		}
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			return err
		}
		count++
	}
	fmt.Fprintf(e.stdout, "wrote %d narration documents to %s\n", count, *out)
	return nil
}
