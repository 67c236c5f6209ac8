package corpus

import (
	"context"
	"os"
	"path/filepath"
)

// WriteDir writes the generator's remaining documents into dir (created if missing), one
// file each, and returns how many it wrote. It stops with ctx's error when ctx is done.
func (g *Generator) WriteDir(ctx context.Context, dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		name, data, ok := g.Next()
		if !ok {
			return n, nil
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return n, err
		}
		n++
	}
}
