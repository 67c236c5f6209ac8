package cayleystore

import (
	"context"
	"errors"
	"fmt"

	hkv "github.com/hidal-go/hidalgo/kv"
)

// joinKV is the key-value store Cayley's bbolt backend is opened on: hidalgo's bbolt, except
// that the write transaction an Apply gives Cayley first runs what the store has queued for
// it (first), so that those writes commit with Cayley's change or not at all.
//
// Apply queues the pending marks of the labels it changes (see manifest.go): before, they
// took a bbolt transaction of their own ahead of Cayley's, with its page writes and its two
// fsyncs -- a delete at 100,000 narrations wrote three transactions, now two.
type joinKV struct {
	hkv.KV
	// first, when set, runs at the start of the next write transaction and is cleared.
	// Only Apply sets it, holding the store's write lock, around one ApplyDeltas; readers
	// ask for read transactions and never look at it.
	first func(context.Context, hkv.Tx) error
}

// Tx implements hkv.KV.
func (k *joinKV) Tx(ctx context.Context, rw bool) (hkv.Tx, error) {
	tx, err := k.KV.Tx(ctx, rw)
	if err != nil || !rw || k.first == nil {
		return tx, err
	}
	first := k.first
	k.first = nil
	if err := first(ctx, tx); err != nil {
		tx.Close()
		return nil, err
	}
	return tx, nil
}

// markPendingIn marks labels pending in tx, Cayley's transaction, and returns those already
// marked (as markPending does).
func markPendingIn(ctx context.Context, tx hkv.Tx, labels []string) ([]string, error) {
	mt := &hkvMarkTx{ctx: ctx, tx: tx}
	stale, err := markLabels(mt, labels)
	if err == nil {
		err = mt.err
	}
	if err != nil {
		return nil, fmt.Errorf("manifest: mark %d narration(s) pending: %w", len(labels), err)
	}
	return stale, nil
}

// hkvMarkTx is a markTx over a hidalgo transaction. A failed read is kept in err (a
// manifestTx's get cannot fail) and reads as a missing key.
type hkvMarkTx struct {
	ctx context.Context
	tx  hkv.Tx
	err error
}

func (t *hkvMarkTx) get(bucket, key string) []byte {
	v, err := t.tx.Get(t.ctx, hkv.Key{[]byte(bucket), []byte(key)})
	if err != nil && !errors.Is(err, hkv.ErrNotFound) && t.err == nil {
		t.err = err
	}
	return v
}

func (t *hkvMarkTx) put(bucket, key string, v []byte) error {
	return t.tx.Put(t.ctx, hkv.Key{[]byte(bucket), []byte(key)}, v)
}
