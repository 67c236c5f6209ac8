package cayleystore

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cayleygraph/cayley/graph/refs"
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
	// ids, when set, receives the node ids of the terms the write transactions read and
	// write (see termIDs). Only Apply sets it, as it sets first.
	ids termIDs
}

// Tx implements hkv.KV.
func (k *joinKV) Tx(ctx context.Context, rw bool) (hkv.Tx, error) {
	tx, err := k.KV.Tx(ctx, rw)
	if err != nil || !rw {
		return tx, err
	}
	if k.ids != nil {
		tx = &idTx{Tx: tx, ids: k.ids}
	}
	if k.first == nil {
		return tx, nil
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
	mt := &hkvTx{ctx: ctx, tx: tx}
	stale, err := markLabels(mt, labels)
	if err == nil {
		err = mt.err
	}
	if err != nil {
		return nil, fmt.Errorf("manifest: mark %d narration(s) pending: %w", len(labels), err)
	}
	return stale, nil
}

// hkvTx is a manifestTx over a hidalgo transaction -- Cayley's, joined -- for the writes
// Apply puts in it: gets, puts and deletes of single keys. A failed read is kept in err (a
// manifestTx's get cannot fail) and reads as a missing key; so is a call of what it does
// not offer (the listings and resets of whole buckets, which only rebuilds use, in
// transactions of their own), so that the transaction fails rather than go on from a
// wrong answer.
type hkvTx struct {
	ctx context.Context
	tx  hkv.Tx
	err error
}

var _ manifestTx = (*hkvTx)(nil)

// errJoinedTx is the error of a call hkvTx does not offer.
var errJoinedTx = errors.New("not offered in Cayley's transaction")

func (t *hkvTx) fail(err error) {
	if t.err == nil {
		t.err = err
	}
}

func (t *hkvTx) get(bucket, key string) []byte {
	v, err := t.tx.Get(t.ctx, hkv.Key{[]byte(bucket), []byte(key)})
	if err != nil && !errors.Is(err, hkv.ErrNotFound) {
		t.fail(err)
	}
	return v
}

func (t *hkvTx) put(bucket, key string, v []byte) error {
	return t.tx.Put(t.ctx, hkv.Key{[]byte(bucket), []byte(key)}, v)
}

func (t *hkvTx) del(bucket, key string) error {
	return t.tx.Del(t.ctx, hkv.Key{[]byte(bucket), []byte(key)})
}

func (t *hkvTx) keys(bucket string) []string {
	t.fail(fmt.Errorf("keys of %s: %w", bucket, errJoinedTx))
	return nil
}

func (t *hkvTx) exists(bucket string) bool {
	t.fail(fmt.Errorf("exists %s: %w", bucket, errJoinedTx))
	return false
}

func (t *hkvTx) scan(bucket, from string, fn func(k string, v []byte) bool) {
	t.fail(fmt.Errorf("scan of %s: %w", bucket, errJoinedTx))
}

func (t *hkvTx) reset() error {
	t.fail(fmt.Errorf("reset: %w", errJoinedTx))
	return t.err
}

func (t *hkvTx) resetBuckets(names ...string) error {
	t.fail(fmt.Errorf("reset of %v: %w", names, errJoinedTx))
	return t.err
}

// termIDs is what Cayley's write transaction told joinKV of its terms' node ids, by the
// hash Cayley keys them by: every read and write of a key of its value buckets ("v" and
// the hash's first two bytes, then the hash; the value is the id as a uvarint), the last
// one winning, as in the transaction itself. Zero is a term the transaction found absent
// or deleted.
//
// Apply reads the ids of the terms it added from here once Cayley has committed, for the
// manifest's records: reading them back from the store (RefsOf, a B-tree lookup per term)
// took 4.4 s of a 10,000-narration load, 17 s at 30,000. What Cayley resolved without its
// transaction (the IRIs in its own cache of 2,000) is not here and is still looked up.
type termIDs map[refs.ValueHash]uint64

// idTx is Cayley's write transaction, recording into ids what it reads and writes of the
// value buckets.
type idTx struct {
	hkv.Tx
	ids termIDs
}

// valueHash returns the hash of a key of Cayley's value buckets.
func valueHash(k hkv.Key) (h refs.ValueHash, ok bool) {
	if len(k) != 2 || len(k[0]) != 3 || k[0][0] != 'v' || len(k[1]) != len(h) {
		return h, false
	}
	copy(h[:], k[1])
	return h, true
}

func (t *idTx) note(k hkv.Key, v hkv.Value) {
	if h, ok := valueHash(k); ok {
		id, n := binary.Uvarint(v)
		if n <= 0 {
			id = 0
		}
		t.ids[h] = id
	}
}

func (t *idTx) Get(ctx context.Context, k hkv.Key) (hkv.Value, error) {
	v, err := t.Tx.Get(ctx, k)
	if err == nil || errors.Is(err, hkv.ErrNotFound) {
		t.note(k, v)
	}
	return v, err
}

func (t *idTx) GetBatch(ctx context.Context, keys []hkv.Key) ([]hkv.Value, error) {
	vals, err := t.Tx.GetBatch(ctx, keys)
	if err == nil {
		for i, k := range keys {
			t.note(k, vals[i])
		}
	}
	return vals, err
}

func (t *idTx) Put(ctx context.Context, k hkv.Key, v hkv.Value) error {
	err := t.Tx.Put(ctx, k, v)
	if err == nil {
		t.note(k, v)
	}
	return err
}

func (t *idTx) Del(ctx context.Context, k hkv.Key) error {
	err := t.Tx.Del(ctx, k)
	if err == nil {
		t.note(k, nil)
	}
	return err
}
