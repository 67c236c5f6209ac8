package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

// memLog is an in-memory Log (a real implementation, not a mock): what pglog does, minus
// the database. It cannot notify, so replicas poll it.
type memLog struct {
	mu       sync.Mutex
	id       string
	entries  []Entry
	outcomes map[int64]Outcome
	docs     map[athar.ID]Document
	// beforeAppend, when set, runs inside Append before the entry takes its position (to
	// let another change in first).
	beforeAppend func()
}

func newMemLog() *memLog {
	return &memLog{id: "memlog", outcomes: map[int64]Outcome{}, docs: map[athar.ID]Document{}}
}

func (l *memLog) ID() string { return l.id }

func (l *memLog) Head(context.Context) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(len(l.entries)), nil
}

func (l *memLog) Append(_ context.Context, e Entry, reserve func(int64)) (int64, error) {
	if f := l.beforeAppend; f != nil {
		l.beforeAppend = nil
		f()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	e.Position = int64(len(l.entries) + 1)
	e.Outcome = nil
	if reserve != nil {
		reserve(e.Position)
	}
	l.entries = append(l.entries, e)
	return e.Position, nil
}

func (l *memLog) AppendIfEmpty(ctx context.Context, es []Entry) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.entries) > 0 {
		return false, nil
	}
	for i, e := range es {
		e.Position = int64(i + 1)
		l.entries = append(l.entries, e)
	}
	return true, nil
}

func (l *memLog) Entries(_ context.Context, after int64, limit int) ([]Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Entry
	for _, e := range l.entries[min(int(after), len(l.entries)):] {
		if len(out) == limit {
			break
		}
		if o, ok := l.outcomes[e.Position]; ok {
			e.Outcome = &o
		}
		out = append(out, e)
	}
	return out, nil
}

func (l *memLog) Record(_ context.Context, e Entry, o Outcome, docs []Document) (Outcome, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if got, ok := l.outcomes[e.Position]; ok {
		return got, nil
	}
	l.outcomes[e.Position] = o
	for _, d := range docs {
		l.docs[d.Narration] = d
	}
	return o, nil
}

func (l *memLog) Notifies() bool                     { return false }
func (l *memLog) Watch(context.Context, func(int64)) {}

// newReplica opens a replica of log in the store spec, following it until the test ends.
func newReplica(t *testing.T, log Log, spec string) (*Replica, athar.Store) {
	t.Helper()
	st, err := cayleystore.Open(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(context.Background(), Config{
		Log: log, Store: st, Vocab: schema.Vocabulary(), Name: spec,
		PollInterval: 5 * time.Millisecond,
	})
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; st.Close() })
	return r, st
}

func seedTexts(t *testing.T) []ingest.Doc {
	t.Helper()
	var docs []*narration.Document
	text := map[*narration.Document][]byte{}
	for _, f := range seeds.Files() {
		d, err := narration.Parse(f.Name, f.Data)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
		text[d] = f.Data
	}
	var out []ingest.Doc
	for _, d := range narration.Order(docs) {
		out = append(out, ingest.Doc{Document: d, Text: text[d]})
	}
	return out
}

func seed(t *testing.T, r *Replica) {
	t.Helper()
	for _, res := range r.ImportMany(context.Background(), seedTexts(t)) {
		if res.Err != nil {
			t.Fatal(res.Err)
		}
	}
}

// export is the graph as sorted N-Quads.
func export(t *testing.T, st athar.Store) string {
	t.Helper()
	var b bytes.Buffer
	w := cayleystore.NewNQuadsWriter(&b)
	if err := st.Quads(context.Background(), w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func sync2(t *testing.T, rs ...*Replica) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, r := range rs {
		if err := r.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func doc(id, extra string) string {
	return fmt.Sprintf(`
narration:
  id: narration:%s
  title: A test
  references: [{collection: Test, number: "1"}]
  text: "Abu Bakr advised ransom on the day of Badr. Zayd the tester was there."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: Abu Bakr advised ransom}
%s`, id, extra)
}

const definesZayd = `entities:
  - {id: person:zayd-the-tester, type: Person, name: Zayd the tester}
`

const usesZayd = `  - {subject: person:zayd-the-tester, predicate: participatedIn, object: event:badr, evidence: Zayd the tester was there}
`

// TestReplicasConverge: changes made on either replica reach both, a change the log's order
// makes fail fails on both and is recorded once, and the graphs are identical.
func TestReplicasConverge(t *testing.T) {
	log := newMemLog()
	a, sa := newReplica(t, log, "memory:")
	b, sb := newReplica(t, log, "memory:")
	seed(t, a)
	ctx := context.Background()
	if _, err := a.ImportText(ctx, "defines.yaml", []byte(doc("defines", definesZayd))); err != nil {
		t.Fatal(err)
	}
	sync2(t, a, b)
	// The log decides: a deletion of the defining narration logged before a document
	// using its entity makes that document fail, on every replica, with the same code.
	usesDoc := doc("uses", usesZayd)
	log.beforeAppend = func() {
		_, _ = log.Append(ctx, Entry{Kind: KindDelete, Narration: "narration:defines", Origin: "elsewhere"}, nil)
	}
	_, err := b.ImportText(ctx, "uses.yaml", []byte(usesDoc))
	if athar.ErrorCode(err) != athar.Invalid || !strings.Contains(err.Error(), "person:zayd-the-tester") {
		t.Fatalf("import after a concurrent deletion: %v, want the entity reported undefined", err)
	}
	sync2(t, a, b)
	head, _ := log.Head(ctx)
	if o := log.outcomes[head]; o.OK || o.Code != athar.Invalid {
		t.Errorf("recorded outcome of the refused import: %+v", o)
	}
	if o := log.outcomes[head-1]; !o.OK {
		t.Errorf("recorded outcome of the deletion: %+v", o)
	}
	if d := log.docs["narration:defines"]; d.Body != nil {
		t.Error("the deleted narration's document is still current")
	}
	if ea, eb := export(t, a.Store()), export(t, b.Store()); ea != eb || strings.Contains(ea, "zayd") {
		t.Fatalf("the replicas differ (%d and %d bytes) or kept the deleted entity", len(ea), len(eb))
	}
	if strings.Contains(export(t, sa), "person/zayd-the-tester>") || strings.Contains(export(t, sb), "narration/uses>") {
		t.Fatal("the stores hold what the log refused")
	}
}

// TestMutationGetsItsOwnOutcome: a deletion that another replica's deletion beats in the log
// returns NotFound, and the first one's caller gets success.
func TestMutationGetsItsOwnOutcome(t *testing.T) {
	log := newMemLog()
	a, _ := newReplica(t, log, "memory:")
	seed(t, a)
	ctx := context.Background()
	if _, err := a.ImportText(ctx, "x.yaml", []byte(doc("x", ""))); err != nil {
		t.Fatal(err)
	}
	log.beforeAppend = func() {
		_, _ = log.Append(ctx, Entry{Kind: KindDelete, Narration: "narration:x", Origin: "elsewhere"}, nil)
	}
	if err := a.Delete(ctx, "narration:x"); athar.ErrorCode(err) != athar.NotFound {
		t.Fatalf("the second deletion: %v, want NOT_FOUND", err)
	}
	if err := a.Delete(ctx, "narration:x"); athar.ErrorCode(err) != athar.NotFound {
		t.Fatalf("deleting an absent narration: %v", err)
	}
	if head, _ := log.Head(ctx); head != 10 {
		t.Errorf("head %d: a deletion refused before logging must not be logged", head)
	}
}

// TestStateSurvivesRestart: the position is kept in the store, moves with each change
// (refused ones too), is hidden from readers, and a reopened replica resumes from it.
func TestStateSurvivesRestart(t *testing.T) {
	log := newMemLog()
	spec := "bbolt:" + filepath.Join(t.TempDir(), "store")
	ctx := context.Background()
	func() {
		st, err := cayleystore.Open(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		r, err := Open(ctx, Config{Log: log, Store: st, Vocab: schema.Vocabulary()})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range seedTexts(t) {
			_, _ = log.Append(ctx, Entry{Kind: KindImport, Narration: athar.ID(d.Narration.ID), Source: d.Source, Format: FormatText, Body: d.Text}, nil)
		}
		// A refused entry followed by a successful one: the state's outcome and message
		// quads are replaced in one transaction.
		_, _ = log.Append(ctx, Entry{Kind: KindDelete, Narration: "narration:absent"}, nil)
		_, _ = log.Append(ctx, Entry{Kind: KindImport, Narration: "narration:x", Source: "x.yaml", Format: FormatText, Body: []byte(doc("x", ""))}, nil)
		if err := r.CatchUp(ctx); err != nil {
			t.Fatal(err)
		}
		if s := r.Status(); s.Position != 9 || s.Lag != 0 || !s.CaughtUp || r.Ready() != nil {
			t.Fatalf("status %+v, ready %v", s, r.Ready())
		}
		if strings.Contains(export(t, r.Store()), StateGraph.IRI()) {
			t.Error("readers see the replica's state")
		}
		if !strings.Contains(export(t, st), StateGraph.IRI()) {
			t.Error("the state is not in the store")
		}
	}()
	st, err := cayleystore.Open(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := Open(ctx, Config{Log: log, Store: st, Vocab: schema.Vocabulary()})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Status(); s.Position != 9 {
		t.Fatalf("reopened at %d, want 9", s.Position)
	}
	if err := r.CatchUp(ctx); err != nil {
		t.Fatal(err)
	}
	export(t, st) // every stored quad is still valid N-Quads
	other := newMemLog()
	other.id = "another"
	if _, err := Open(ctx, Config{Log: other, Store: st, Vocab: schema.Vocabulary()}); athar.ErrorCode(err) != athar.Conflict {
		t.Fatalf("a store that followed another log: %v", err)
	}
}

// TestHalts: an entry of an unknown kind, or an outcome that disagrees with the recorded
// one, stops the replica at that entry, unready, and fails whoever waits.
func TestHalts(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		entry      Entry
		recorded   *Outcome
	}{
		{"unknown kind", "cannot apply", Entry{Kind: "frobnicate"}, nil},
		{"divergence", "diverged at log entry 8", Entry{Kind: KindImport, Narration: "narration:x", Source: "x.yaml", Format: FormatText, Body: []byte(doc("x", ""))}, &Outcome{OK: false, Code: athar.Conflict, Replica: "other"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := newMemLog()
			a, _ := newReplica(t, log, "memory:")
			seed(t, a)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			pos, _ := log.Append(ctx, tc.entry, func(p int64) {
				if tc.recorded != nil {
					log.outcomes[p] = *tc.recorded // under the log's lock, before anyone reads it
				}
			})
			for a.Ready() == nil && ctx.Err() == nil {
				time.Sleep(5 * time.Millisecond)
			}
			if err := a.Ready(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ready: %v, want %q", err, tc.want)
			}
			if err := a.Delete(ctx, "narration:ahmad-208"); err == nil || !strings.Contains(err.Error(), "stopped following") || athar.ErrorCode(err) != athar.Unavailable {
				t.Fatalf("a mutation on a stopped replica: %v", err)
			}
			if want := pos - 1; tc.recorded == nil && a.Status().Position != want {
				t.Errorf("position %d, want %d: an entry it cannot apply must not be skipped", a.Status().Position, want)
			}
		})
	}
}

// TestParsedDocumentsReplayExactly: a document logged parsed (as JSON, from the GraphQL
// mutation) applies exactly as its text does.
func TestParsedDocumentsReplayExactly(t *testing.T) {
	text, parsed := newMemLog(), newMemLog()
	rt, _ := newReplica(t, text, "memory:")
	rp, _ := newReplica(t, parsed, "memory:")
	docs := seedTexts(t)
	ctx := context.Background()
	for _, doc := range docs {
		d := doc.Document
		if _, err := rt.ImportText(ctx, d.Source, doc.Text); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(d)
		var back narration.Document
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if _, err := rp.Import(ctx, &back); err != nil {
			t.Fatal(err)
		}
	}
	if a, b := export(t, rt.Store()), export(t, rp.Store()); a != b {
		t.Fatalf("parsed documents replay differently (%d and %d bytes)", len(a), len(b))
	}
	if parsed.entries[0].Format != FormatDocument || text.entries[0].Format != FormatText {
		t.Error("formats")
	}
}

// TestWriteToACatchingUpReplica: a write to a replica that has not caught up in time is
// refused as retryable (UNAVAILABLE), saying so, and nothing is logged.
func TestWriteToACatchingUpReplica(t *testing.T) {
	log := newMemLog()
	a, _ := newReplica(t, log, "memory:")
	seed(t, a)
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Opened but not following: it stays at entry 0.
	b, err := Open(context.Background(), Config{
		Log: log, Store: st, Vocab: schema.Vocabulary(), Name: "b",
	})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := log.Head(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = b.Delete(ctx, "narration:ahmad-208")
	if athar.ErrorCode(err) != athar.Unavailable || !strings.Contains(athar.ErrorMessage(err), "catching up") {
		t.Fatalf("a write to a replica catching up: %v (%s), want UNAVAILABLE saying it is catching up", err, athar.ErrorCode(err))
	}
	if got, _ := log.Head(context.Background()); got != head {
		t.Errorf("the refused write was logged: head %d, was %d", got, head)
	}
}
