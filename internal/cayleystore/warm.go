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

// warmChunk is how many keys Warm reads in one read transaction. A variable for the tests.
var warmChunk = 20000

// Warm reads the pages of the read model's and the manifest's buckets into the page cache
// (see above). It does nothing on a store kept in memory. ctx stops it early, with ctx's
// error; so does the store closing (Unavailable).
func (s *Store) Warm(ctx context.Context) (WarmStats, error) {
	start := time.Now()
	var st WarmStats
	m, ok := s.man.(boltManifest)
	if !ok {
		return st, nil
	}
	var sum byte // what the reads saw, kept alive so that they are made
	defer func() { runtime.KeepAlive(sum) }()
	buckets := append([]string{manifestBucket}, rmBuckets...)
	for _, b := range buckets {
		var from []byte
		for {
			if err := s.rlockFor(ctx); err != nil {
				st.Took = time.Since(start)
				return st, err
			}
			var n int
			var next []byte
			err := m.db.View(func(tx *bolt.Tx) error {
				bk := tx.Bucket([]byte(b))
				if bk == nil {
					return nil
				}
				if from == nil {
					st.Buckets++
				}
				c := bk.Cursor()
				k, v := c.First()
				if from != nil {
					k, v = c.Seek(from)
				}
				for ; k != nil; k, v = c.Next() {
					if n == warmChunk {
						next = append([]byte(nil), k...)
						return nil
					}
					n++
					st.Keys++
					st.Bytes += int64(len(k) + len(v))
					sum ^= touch(v)
				}
				return nil
			})
			s.mu.RUnlock()
			if err != nil {
				st.Took = time.Since(start)
				return st, fmt.Errorf("warm: read %s: %w", b, err)
			}
			if next == nil {
				break
			}
			from = next
		}
	}
	st.Took = time.Since(start)
	return st, nil
}

// touch reads a byte of every page of v (a value larger than a page lives on overflow
// pages of its own; the cursor has read the leaf page that points at it).
func touch(v []byte) (x byte) {
	for i := 0; i < len(v); i += 4096 {
		x ^= v[i]
	}
	return x
}
