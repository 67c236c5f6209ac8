package pglog

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/replica"
	"github.com/athar-hadith/athar/internal/testsupport"
)

func open(t testing.TB, u string) *DB {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := Open(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// TestConcurrentStartsMigrateOnce: replicas starting together apply each migration once
// and agree on the log's id.
func TestConcurrentStartsMigrateOnce(t *testing.T) {
	u := testsupport.Database(t)
	dbs := make([]*DB, 6)
	var wg sync.WaitGroup
	errs := make([]error, len(dbs))
	for i := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dbs[i], errs[i] = Open(context.Background(), u, nil)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		defer dbs[i].Close()
		if dbs[i].ID() != dbs[0].ID() || dbs[i].ID() == "" {
			t.Fatalf("log ids differ: %q and %q", dbs[i].ID(), dbs[0].ID())
		}
	}
	ms, _ := readMigrations()
	var n int
	if err := dbs[0].pool.QueryRow(context.Background(), "SELECT count(*) FROM schema_migrations").Scan(&n); err != nil || n != len(ms) {
		t.Fatalf("schema_migrations has %d rows (%v), want %d", n, err, len(ms))
	}
	if dbs[0].Flavour() != PostgreSQL || !dbs[0].Notifies() {
		t.Errorf("flavour %s", dbs[0].Flavour())
	}
}

// TestAppendsAreDenseAndOrdered: concurrent appends from several connections take
// positions 1..N with no gap, each position reserved before its commit, and a listener is
// told of them.
func TestAppendsAreDenseAndOrdered(t *testing.T) {
	u := testsupport.Database(t)
	a, b := open(t, u), open(t, u)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	heard := int64(0)
	// Watch calls with 0 once it listens ("read the log again"): appends before that are
	// not notified to it, so the appends start after it. (On a busy machine the LISTEN
	// came after the last append, and the listener heard of none.)
	listening := make(chan struct{})
	var once sync.Once
	go b.Watch(ctx, func(head int64) {
		once.Do(func() { close(listening) })
		mu.Lock()
		heard = max(heard, head)
		mu.Unlock()
	})
	select {
	case <-listening:
	case <-time.After(30 * time.Second):
		t.Fatal("the listener never listened")
	}
	if ok, err := a.AppendIfEmpty(ctx, []replica.Entry{{Kind: replica.KindImport, Narration: "narration:s", Source: "s.yaml", Format: replica.FormatText, Body: []byte("seed")}}); err != nil || !ok {
		t.Fatalf("seed an empty log: %v %v", ok, err)
	}
	if ok, err := b.AppendIfEmpty(ctx, []replica.Entry{{Kind: replica.KindImport}}); err != nil || ok {
		t.Fatalf("seed a log that is not empty: %v %v", ok, err)
	}
	const writers, each = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := []*DB{a, b}[w%2]
			for i := range each {
				reserved := int64(0)
				pos, err := db.Append(ctx, replica.Entry{Kind: replica.KindDelete, Narration: athar.ID(fmt.Sprintf("narration:w%d-%d", w, i))}, func(p int64) { reserved = p })
				if err != nil || pos != reserved {
					t.Errorf("append: %d %v (reserved %d)", pos, err, reserved)
					return
				}
			}
		}()
	}
	wg.Wait()
	head, err := a.Head(ctx)
	if err != nil || head != writers*each+1 {
		t.Fatalf("head %d %v", head, err)
	}
	es, err := b.Entries(ctx, 0, 1000)
	if err != nil || len(es) != int(head) {
		t.Fatalf("%d entries, %v", len(es), err)
	}
	for i, e := range es {
		if e.Position != int64(i+1) {
			t.Fatalf("entry %d has position %d", i, e.Position)
		}
	}
	if string(es[0].Body) != "seed" || es[0].Format != replica.FormatText || es[1].Kind != replica.KindDelete {
		t.Errorf("entries read back: %+v %+v", es[0], es[1])
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		h := heard
		mu.Unlock()
		if h == head {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the listener heard of %d, not %d", h, head)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRecordOnce: the first outcome recorded stands; documents follow it and never go back
// to an older position; merge arguments round-trip.
func TestRecordOnce(t *testing.T) {
	u := testsupport.Database(t)
	db := open(t, u)
	ctx := context.Background()
	imp := replica.Entry{Kind: replica.KindImport, Narration: "narration:n", Source: "n.yaml", Format: replica.FormatText, Body: []byte("v1")}
	del := replica.Entry{Kind: replica.KindDelete, Narration: "narration:n"}
	merge := replica.Entry{Kind: replica.KindMerge, Args: []byte(`{"keep": "person:a", "remove": "person:b"}`)}
	for _, e := range []*replica.Entry{&imp, &del, &merge} {
		p, err := db.Append(ctx, *e, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Position = p
	}
	// The deletion's outcome reaches the log before the import's.
	if _, err := db.Record(ctx, del, replica.Outcome{OK: true, Replica: "r2"}, []replica.Document{{Narration: "narration:n"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Record(ctx, imp, replica.Outcome{OK: true, Replica: "r1"}, []replica.Document{{Narration: "narration:n", Format: replica.FormatText, Body: []byte("v1")}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Record(ctx, imp, replica.Outcome{OK: false, Code: athar.Conflict, Replica: "r3"}, nil)
	if err != nil || !got.OK || got.Replica != "r1" {
		t.Fatalf("recording twice: %+v %v, want the first outcome", got, err)
	}
	var body []byte
	var pos int64
	if err := db.pool.QueryRow(ctx, "SELECT position, body FROM athar_documents WHERE narration = 'narration:n'").Scan(&pos, &body); err != nil {
		t.Fatal(err)
	}
	if pos != del.Position || body != nil {
		t.Errorf("the document is at %d with %q: the older import overwrote the deletion", pos, body)
	}
	es, err := db.Entries(ctx, 0, 10)
	if err != nil || len(es) != 3 {
		t.Fatal(err)
	}
	if es[0].Outcome == nil || !es[0].Outcome.OK || es[2].Outcome != nil {
		t.Errorf("outcomes read back: %+v %+v", es[0].Outcome, es[2].Outcome)
	}
	if string(es[2].Args) == "" || es[2].Kind != replica.KindMerge {
		t.Errorf("merge entry: %+v", es[2])
	}
}

// TestReplaceRestoreLeavesTombstones: a restore --replace removes every narration it does
// not hold, so the record keeps a tombstone for each, as a deletion does; what it holds is
// recorded, and what came after it is left alone.
func TestReplaceRestoreLeavesTombstones(t *testing.T) {
	db := open(t, testsupport.Database(t))
	ctx := context.Background()
	imp := func(n string) replica.Entry {
		return replica.Entry{Kind: replica.KindImport, Narration: athar.ID(n), Source: n + ".yaml", Format: replica.FormatText, Body: []byte(n)}
	}
	a, b := imp("narration:a"), imp("narration:b")
	restore := replica.Entry{Kind: replica.KindRestore, Source: "backup.nq.gz", Format: replica.FormatNQuads, Body: []byte("..."), Args: []byte(`{"replace": true}`)}
	c := imp("narration:c")
	for _, e := range []*replica.Entry{&a, &b, &restore, &c} {
		p, err := db.Append(ctx, *e, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Position = p
	}
	// c's outcome is recorded before the restore's: the restore must not bury it.
	for _, e := range []replica.Entry{a, b, c} {
		if _, err := db.Record(ctx, e, replica.Outcome{OK: true}, []replica.Document{{Narration: e.Narration, Format: e.Format, Body: e.Body}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Record(ctx, restore, replica.Outcome{OK: true}, []replica.Document{{Narration: "narration:a", Format: replica.FormatNQuads, Body: []byte("a's quads")}}); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		pos  int64
		body string
	}{
		"narration:a": {restore.Position, "a's quads"},
		"narration:b": {restore.Position, ""}, // tombstone
		"narration:c": {c.Position, "narration:c"},
	}
	for n, w := range want {
		var pos int64
		var body []byte
		if err := db.pool.QueryRow(ctx, "SELECT position, body FROM athar_documents WHERE narration = $1", n).Scan(&pos, &body); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if pos != w.pos || string(body) != w.body || (w.body == "" && body != nil) {
			t.Errorf("%s: at %d with %q, want at %d with %q", n, pos, body, w.pos, w.body)
		}
	}
}

// BenchmarkAppend measures appends to the log, one transaction each, from one connection
// and from several at once: the ceiling of the scale-out mode's write throughput, since
// every append updates the one counter row.
func BenchmarkAppend(b *testing.B) {
	for _, clients := range []int{1, 8} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			db := open(b, testsupport.Database(b))
			body := make([]byte, 4096) // about a document
			b.SetBytes(int64(len(body)))
			b.SetParallelism(clients)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := db.Append(context.Background(), replica.Entry{Kind: replica.KindImport, Narration: "narration:bench", Format: replica.FormatText, Body: body}, nil); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
		})
	}
}

// TestUnreachableIsUnavailable: a database nobody answers for is athar.Unavailable (a
// client may retry), named without its password.
func TestUnreachableIsUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = Ping(ctx, "postgres://athar:secret@"+addr+"/athar?sslmode=disable")
	if athar.ErrorCode(err) != athar.Unavailable || strings.Contains(err.Error(), "secret") {
		t.Fatalf("ping a port where nothing listens: %v (%s), want UNAVAILABLE without the password", err, athar.ErrorCode(err))
	}
}
