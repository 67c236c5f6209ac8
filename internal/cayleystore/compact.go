package cayleystore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/athar-hadith/athar/internal/athar"
)

// CompactStats is what a compaction did to a store's file.
type CompactStats struct {
	Before, After int64 // the file's size in bytes
	FreeBefore    int   // pages the file held free before: bbolt writes their list, 8 bytes a page, at every commit
	FreeAfter     int   // and after
	Buckets       int   // top-level buckets copied (Cayley's and Athar's)
	Keys          int   // keys copied, in every bucket
	Took          time.Duration
}

// compactTxBytes bounds each of the compaction's write transactions (keys and values), so
// that its memory does not grow with the store.
const compactTxBytes = 64 << 20

// Compact rewrites the bbolt file of the store in spec ("bbolt:DIR") without its free pages:
// every bucket copied in key order onto full pages into a new file beside it, which then
// replaces the old one. The store must not be in use (the directory's lock is held
// throughout, so a running server makes it fail at once). It is opened as Open opens it
// first, so a rebuild a crash left pending happens before the copy.
//
// A bbolt file never shrinks, and keeps a list of its free pages that it writes at every
// commit: after many deletes, or a read model rebuilt at Open (which leaves the old rows'
// pages free -- 1.9 GB at 100,000 narrations), every write pays for that list
// (docs/BENCHMARKS-100k.md). Compacting returns the file to the size of what it holds.
//
// Nothing is lost if it stops part-way: the old file is left as it was until the new one
// is complete, checked (the same number of keys in every bucket) and synced; the new file
// is then renamed over it, which is atomic, and the directory synced. A file left by a
// compaction cut short is removed by the next one.
func Compact(ctx context.Context, spec string, logger *slog.Logger) (CompactStats, error) {
	kind, dir, _ := strings.Cut(spec, ":")
	if kind != "bbolt" || dir == "" {
		return CompactStats{}, athar.E(fmt.Sprintf("store %q", spec), athar.Invalid, "only a bbolt:DIR store has a file to compact")
	}
	path := filepath.Join(dir, "indexes.bolt")
	if _, err := os.Stat(path); err != nil {
		return CompactStats{}, fmt.Errorf("compact %s: %w", dir, err)
	}
	start := time.Now()
	st, err := openBolt(dir, logger)
	if err != nil {
		return CompactStats{}, err
	}
	// The lock stays held until the new file is in place: Close below closes Cayley and the
	// bbolt file but not the lock's file, which is closed last.
	lock := st.lock
	st.lock = nil
	defer lock.Close()
	closed := false
	defer func() {
		if !closed {
			st.Close()
		}
	}()
	src := st.man.(boltManifest).db

	var stats CompactStats
	if fi, err := os.Stat(path); err == nil {
		stats.Before = fi.Size()
	}
	stats.FreeBefore = src.Stats().FreePageN

	tmp := path + ".compact"
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return stats, fmt.Errorf("compact %s: %w", dir, err)
	}
	// The new file is not the store until it is renamed over it, so it need not be synced
	// at every commit: it is synced once, whole, before the rename. (Its freelist is
	// written as usual: without it, opening the store would walk every page to find the
	// free ones.)
	dst, err := bolt.Open(tmp, 0o644, &bolt.Options{NoSync: true})
	if err != nil {
		return stats, fmt.Errorf("compact %s: %w", dir, err)
	}
	fail := func(err error) (CompactStats, error) {
		dst.Close()
		os.Remove(tmp)
		return stats, fmt.Errorf("compact %s: %w", dir, err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	if err := bolt.Compact(dst, src, compactTxBytes); err != nil {
		return fail(err)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	// The copy must hold every key of every bucket, nested ones included.
	want, err := countKeys(src)
	if err != nil {
		return fail(err)
	}
	got, err := countKeys(dst)
	if err != nil {
		return fail(err)
	}
	for b, n := range want {
		if got[b] != n {
			return fail(fmt.Errorf("the copy of bucket %q holds %d keys, the store %d: the store is left as it was", b, got[b], n))
		}
		stats.Buckets++
		stats.Keys += n
	}
	if len(got) != len(want) {
		return fail(fmt.Errorf("the copy holds %d buckets, the store %d: the store is left as it was", len(got), len(want)))
	}
	if err := dst.Sync(); err != nil {
		return fail(err)
	}
	if err := dst.Close(); err != nil {
		os.Remove(tmp)
		return stats, fmt.Errorf("compact %s: %w", dir, err)
	}
	closed = true
	if err := st.Close(); err != nil {
		os.Remove(tmp)
		return stats, fmt.Errorf("compact %s: %w", dir, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return stats, fmt.Errorf("compact %s: %w", dir, err)
	}
	if err := syncDir(dir); err != nil {
		return stats, fmt.Errorf("compact %s: the new file is in place, but syncing its directory failed: %w", dir, err)
	}
	if fi, err := os.Stat(path); err == nil {
		stats.After = fi.Size()
	}
	db, err := bolt.Open(path, 0o644, nil) // read-write: a read-only bbolt has no freelist loaded
	if err == nil {
		stats.FreeAfter = db.Stats().FreePageN
		db.Close()
	}
	stats.Took = time.Since(start)
	return stats, nil
}

// countKeys counts the keys of every top-level bucket of db, those of nested buckets (and
// the nested buckets themselves) included.
func countKeys(db *bolt.DB) (map[string]int, error) {
	out := map[string]int{}
	err := db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			out[string(name)] = bucketKeys(b)
			return nil
		})
	})
	return out, err
}

func bucketKeys(b *bolt.Bucket) int {
	n := 0
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		n++
		if v == nil {
			if nb := b.Bucket(k); nb != nil {
				n += bucketKeys(nb)
			}
		}
	}
	return n
}

// syncDir syncs a directory, so that a rename in it survives a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
