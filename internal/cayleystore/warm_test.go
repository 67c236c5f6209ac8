package cayleystore

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	bolt "go.etcd.io/bbolt"
)

// Warm reads every key of the read model's and the manifest's buckets, whether in one
// chunk or many, while writes go on beside it; on memstore it reads nothing; it stops when
// its context is done or the store closes.
func TestWarm(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openBbolt(t, dir)
	base := append(append([]athar.Changeset{}, fixtureBase...), routesBase...)
	if err := st.Apply(ctx, base...); err != nil {
		t.Fatal(err)
	}
	// What the buckets hold, read from bbolt itself.
	var wantKeys, wantBytes int64
	wantBuckets := 0
	db := st.man.(boltManifest).db
	err := db.View(func(tx *bolt.Tx) error {
		for _, name := range append([]string{manifestBucket}, rmBuckets...) {
			b := tx.Bucket([]byte(name))
			if b == nil {
				continue
			}
			wantBuckets++
			_ = b.ForEach(func(k, v []byte) error {
				wantKeys++
				wantBytes += int64(len(k) + len(v))
				return nil
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if wantKeys < 20 {
		t.Fatalf("the fixture left %d keys in the read model and the manifest", wantKeys)
	}
	old := warmChunkKeys
	t.Cleanup(func() { warmChunkKeys = old })
	for _, chunk := range []int{old, 3, 1} {
		warmChunkKeys = chunk
		got, err := st.Warm(ctx)
		if err != nil {
			t.Fatalf("chunks of %d: %v", chunk, err)
		}
		if got.Buckets != wantBuckets || got.Keys != wantKeys || got.Bytes != wantBytes {
			t.Errorf("chunks of %d: read %d buckets, %d keys, %d bytes; want %d, %d, %d",
				chunk, got.Buckets, got.Keys, got.Bytes, wantBuckets, wantKeys, wantBytes)
		}
	}

	// Writes beside it: neither waits for the other to finish (run under -race).
	warmChunkKeys = 2
	done := make(chan error)
	go func() {
		var err error
		for i := 0; i < 20 && err == nil; i++ {
			id := athar.ID(fmt.Sprintf("narration:w%d", i))
			err = st.Apply(ctx, athar.Changeset{Narration: id, Add: []athar.Quad{mquad(string(id), "person:w", "name", athar.StringTerm(string(id)))}})
		}
		done <- err
	}()
	for i := 0; i < 5; i++ {
		if _, err := st.Warm(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.Warm(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	st.Close()
	if _, err := st.Warm(ctx); athar.ErrorCode(err) != athar.Unavailable {
		t.Errorf("closed store: %v, want Unavailable", err)
	}

	mem, err := Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if err := mem.Apply(ctx, base...); err != nil {
		t.Fatal(err)
	}
	if got, err := mem.Warm(ctx); err != nil || got.Keys != 0 {
		t.Errorf("memstore: %+v, %v", got, err)
	}
}
