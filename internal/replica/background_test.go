package replica

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/schema"
)

// TestBackgroundConnects checks serve's replica while the database is unreachable (queries
// from the local store, writes refused as UNAVAILABLE, /readyz not ready), then once connect
// succeeds (it follows the log and takes writes), and that a final error is reported.
func TestBackgroundConnects(t *testing.T) {
	log := newMemLog()
	a, _ := newReplica(t, log, "memory:")
	seed(t, a)
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var attempts, closed atomic.Int32
	connect := func(ctx context.Context) (*Replica, func(), error) {
		if attempts.Add(1) <= 2 {
			return nil, nil, athar.E("", athar.Unavailable, "database down")
		}
		r, err := Open(ctx, Config{Log: log, Store: st, Vocab: schema.Vocabulary(), Name: "b",
			PollInterval: 5 * time.Millisecond})
		return r, func() { closed.Add(1) }, err
	}
	b, err := NewBackground(context.Background(), st, connect, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Ready(); err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Errorf("Ready before connecting: %v", err)
	}
	if err := b.Delete(context.Background(), "narration:ahmad-208"); athar.ErrorCode(err) != athar.Unavailable {
		t.Errorf("a write before connecting: %v, want UNAVAILABLE", err)
	}
	if got := b.ReadyStatus()["database"]; got != "unreachable" {
		t.Errorf("ReadyStatus before connecting: %v", b.ReadyStatus())
	}
	b.Start(context.Background())
	deadline := time.Now().Add(10 * time.Second)
	for b.Ready() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("not ready after connecting: %v", b.Ready())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if attempts.Load() != 3 {
		t.Errorf("%d attempts to connect, want 3", attempts.Load())
	}
	// ahmad-208 defines what others use: the verdict now comes from the replica.
	if err := b.Delete(context.Background(), "narration:ahmad-208"); err == nil || athar.ErrorCode(err) == athar.Unavailable {
		t.Errorf("a write once caught up: %v, want a verdict on it", err)
	}
	if export(t, b.Store()) == "" {
		t.Error("the local graph is empty")
	}
	b.Stop()
	if closed.Load() != 1 {
		t.Errorf("what connect opened was closed %d times, want once", closed.Load())
	}

	// A final error (another log's store) is reported on Failed, not retried.
	bad, err := NewBackground(context.Background(), st, func(context.Context) (*Replica, func(), error) {
		return nil, nil, athar.E("", athar.Conflict, "another log")
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad.Start(context.Background())
	defer bad.Stop()
	select {
	case err := <-bad.Failed():
		if athar.ErrorCode(err) != athar.Conflict {
			t.Errorf("Failed: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a final error was not reported")
	}
}
