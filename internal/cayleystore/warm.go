package cayleystore

import (
	"context"
	"fmt"
	"runtime"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Warming the read model.
//
// A store's file is mapped, not read: the first request after a server starts that needs a
// page of the read model waits for the disk. At 100,000 narrations (a 14 GB file, of which
// the read model and the manifest are about a third), the entity pages of 300 people
// nobody had asked for since the start took 25-29 ms at p99, and 13-15 ms once the read
// model was warm (docs/BENCHMARKS.md). Warm reads the read model's and the manifest's
// pages in key order -- a bulk load and a rebuild write them in that order, so the
// kernel's read-ahead brings in runs of them -- as `pg_prewarm` does for PostgreSQL. It
// reads through the map (nothing is copied: the pages are the kernel's, not the process's
// own memory) in short read transactions, each under the store's read lock, so a write
// waits for one chunk at most and a file that grows is never held mapped.

// WarmStats is what Warm read.
type WarmStats struct {
	Buckets int           // buckets read
	Keys    int64         // keys read
	Bytes   int64         // bytes of keys and values read
	Took    time.Duration // the whole of it
}

// warmChunkKeys is how many keys Warm reads in one read transaction. A variable for the
// tests.
var warmChunkKeys = 20000

// Warm reads the pages of the read model's and the manifest's buckets into the page cache
// (see above). It does nothing on a store kept in memory (or in bulk mode, whose buffer is
// in memory already). ctx stops it early, with ctx's error; so does the store closing
// (Unavailable).
func (s *Store) Warm(ctx context.Context) (WarmStats, error) {
	start := time.Now()
	var st WarmStats
	var sum byte // what the reads saw, kept alive so that they are made
	defer func() { runtime.KeepAlive(sum) }()
	for _, b := range append([]string{manifestBucket}, rmBuckets...) {
		for from, first := []byte(nil), true; first || from != nil; first = false {
			var err error
			if from, err = s.warmChunk(ctx, b, from, &st, &sum); err != nil {
				st.Took = time.Since(start)
				return st, err
			}
		}
	}
	st.Took = time.Since(start)
	return st, nil
}

// warmChunk reads up to warmChunkKeys keys of bucket from the key from (nil: its first),
// under the read lock, adding what it read to st and sum, and returns the key to go on
// from (nil: the bucket is done, or the store is not a bbolt file).
func (s *Store) warmChunk(ctx context.Context, bucket string, from []byte, st *WarmStats, sum *byte) (next []byte, err error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	m, ok := s.man.(boltManifest)
	if !ok {
		return nil, nil
	}
	err = m.db.View(func(tx *bolt.Tx) error {
		bk := tx.Bucket([]byte(bucket))
		if bk == nil {
			return nil
		}
		c := bk.Cursor()
		k, v := c.First()
		if from == nil {
			st.Buckets++
		} else {
			k, v = c.Seek(from)
		}
		for n := 0; k != nil; k, v = c.Next() {
			if n == warmChunkKeys {
				next = append([]byte(nil), k...)
				return nil
			}
			n++
			st.Keys++
			st.Bytes += int64(len(k) + len(v))
			*sum ^= touch(v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("warm: read %s: %w", bucket, err)
	}
	return next, nil
}

// touch reads a byte of every page of v (a value larger than a page lives on overflow
// pages of its own; the cursor has read the leaf page that points at it).
func touch(v []byte) (x byte) {
	for i := 0; i < len(v); i += 4096 {
		x ^= v[i]
	}
	return x
}
