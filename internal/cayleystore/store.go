// Package cayleystore implements athar.Store on Cayley. It is the only package that imports
// Cayley.
//
// Two backends: Cayley's bbolt KV store in a directory (persistent; the default) and
// Cayley's memstore (for tests and "memory:"). Every read and write goes through one
// sync.RWMutex: memstore has no locks of its own, and the lock also makes every multi-step
// read (an entity with its names, a claim with its attestations) see one consistent graph.
package cayleystore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/cayleygraph/cayley/clog"
	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/kv"
	_ "github.com/cayleygraph/cayley/graph/kv/bbolt" // registers "bbolt"; not part of kv/all
	"github.com/cayleygraph/cayley/graph/memstore"
	"github.com/cayleygraph/quad"
	hkv "github.com/hidal-go/hidalgo/kv"
	hbolt "github.com/hidal-go/hidalgo/kv/bbolt"
	bolt "go.etcd.io/bbolt"

	"github.com/athar-hadith/athar/internal/athar"
)

// Store is a Cayley-backed athar.Store.
type Store struct {
	mu     sync.RWMutex
	qs     graph.QuadStore
	lock   *os.File // bbolt: an exclusive lock on the directory, so two processes fail fast
	closed bool
	pinned bool       // pins may be left in the store (see pinsFor)
	nodes  *nodeCache // KV node ids to values (see nodes.go)
	man    manifestKV // each label's quads (see manifest.go)
	join   *joinKV    // bbolt: what Cayley's store is opened on (see join.go)
	// rmStale is set when the read model may disagree with Cayley (an update after Cayley's
	// commit failed): reads then use Cayley's indexes until Open rebuilds it (readmodel.go).
	rmStale bool
	// mentions memoises Mentions per entity, kept in step by Apply (mentionCache.apply): a
	// hub's mentions are every quad touching it (the Prophet's, some 200 ms over the
	// corpus), and they change only when the store does.
	mentions mentionCache
	// hide, while Apply reads what a removal leaves (see applyRemoval), holds the quads it
	// removes -- their node ids: subject, predicate, object, label -- which quadsWith and
	// withPredicate then skip. Set and read under the write lock.
	hide   map[[4]uint64]bool
	logger *slog.Logger // bbolt: what Open was given (may be nil)
	// replayed counts the changes Open finished from their redo (see redo.go).
	replayed int
	// ids holds, after a commit of Cayley's on bbolt, the ids of the terms its transaction
	// read and wrote (see termIDs). Set and read under the write lock.
	ids termIDs
	// spareIDs is an emptied termIDs for commitCayley to fill (a bulk load's step 3 keeps
	// its change's ids while the next change commits; see finishing).
	spareIDs termIDs
	// finishing is the step 3 of a bulk-mode Apply still reading (see finishing). Set and
	// cleared under the write lock.
	finishing *finishing

	fullScans   atomic.Int64 // reads of every quad in the store (see FullScans)
	termLookups atomic.Int64 // terms whose ids the manifest's records looked up (recordsOf)
}

var _ athar.Store = (*Store)(nil)

// Open opens the store named by spec: "bbolt:DIR" (created if absent) or "memory:".
func Open(spec string, logger *slog.Logger) (*Store, error) {
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "memory":
		if arg != "" {
			return nil, athar.E(fmt.Sprintf("store %q", spec), athar.Invalid, "memory: takes no path")
		}
		return &Store{qs: memstore.New(), nodes: newNodeCache(), man: newMemManifest()}, nil
	case "bbolt":
		if arg == "" {
			return nil, athar.E(fmt.Sprintf("store %q", spec), athar.Invalid, "bbolt: needs a directory, e.g. bbolt:./data/athar")
		}
		st, err := openBolt(arg, logger)
		if err == nil {
			st.hintCompact(arg, logger)
		}
		return st, err
	default:
		return nil, athar.E(fmt.Sprintf("store %q", spec), athar.Invalid, "expected bbolt:DIR or memory:")
	}
}

var setLogger sync.Once

func openBolt(dir string, logger *slog.Logger) (*Store, error) {
	if logger != nil {
		// Cayley logs through a process-wide logger; route it to ours once.
		setLogger.Do(func() { clog.SetLogger(clogAdapter{logger}) })
	}
	if !graph.IsRegistered("bbolt") {
		return nil, fmt.Errorf("open store %s: Cayley's bbolt backend is not registered", dir)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "athar.lock"), os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lock.Close()
		return nil, athar.E("open store "+dir, athar.Conflict, "another athar process is using it (stop it first)")
	}
	// Cayley's bbolt backend, over a bbolt file opened here (the file and options
	// graph/kv/bbolt would use) so that the manifest can keep its buckets in it.
	db, err := bolt.Open(filepath.Join(dir, "indexes.bolt"), 0o644, nil)
	if err != nil {
		lock.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	hdb := &joinKV{KV: hbolt.New(db)}
	man := boltManifest{db}
	err = kv.Init(hdb, nil)
	if err == nil {
		// A new store: its manifest and read model are empty, not missing.
		err = man.update(func(tx manifestTx) error {
			if err := tx.reset(); err != nil {
				return err
			}
			return tx.resetBuckets(rmBuckets...)
		})
	}
	if err != nil && !errors.Is(err, graph.ErrDatabaseExists) {
		db.Close()
		lock.Close()
		return nil, fmt.Errorf("open store %s: init: %w", dir, err)
	}
	qs, err := openKV(hdb, false)
	if err != nil {
		db.Close()
		lock.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	st := &Store{qs: qs, join: hdb, lock: lock, nodes: newNodeCache(), man: man, logger: logger}
	st.unpin(nil) // pins a crash between Apply's two transactions may have left
	// The read model first: the manifest's rebuild clears the pending marks.
	if err := st.openReadModel(context.Background()); err != nil {
		st.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	if err := st.openManifest(context.Background()); err != nil {
		st.Close()
		return nil, fmt.Errorf("open store %s: %w", dir, err)
	}
	return st, nil
}

// hintCompact logs a hint to compact the store when its file holds many free pages.
func (s *Store) hintCompact(dir string, logger *slog.Logger) {
	m, ok := s.man.(boltManifest)
	if !ok || logger == nil {
		return
	}
	if free := m.db.Stats().FreePageN; free >= compactHintPages {
		logger.Warn("the store's file holds many free pages, whose list bbolt writes at every commit: 'athar compact' (with the server stopped) returns them",
			"dir", dir, "free_pages", free, "free_bytes", int64(free)*int64(m.db.Info().PageSize), "list_bytes", 8*free)
	}
}

// compactHintPages is how many free pages make Open suggest athar compact: 65,536 is 256 MB
// of free pages and a freelist of 512 KB written at every commit (a delete at 100,000
// narrations writes some 4 MB besides). A variable for the tests.
var compactHintPages = 65536

// Close closes the store and releases its directory.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	err := s.endBulk()
	if f := s.finishing; f != nil {
		<-f.done // not settled (endBulk settles it): a test's kill left it; let it stop reading
	}
	if cerr := s.qs.Close(); err == nil {
		err = cerr
	}
	if s.lock != nil {
		s.lock.Close()
	}
	return err
}

// errClosed is what every call on a closed store returns: Unavailable, because the store
// closes as the server shuts down, and the same request may succeed on another replica or
// once this one is back.
var errClosed = athar.E("store", athar.Unavailable, "the store is closed (the server is shutting down)")

func (s *Store) rlock() error {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return errClosed
	}
	return nil
}

// rlockFor takes the read lock for a read on behalf of ctx, failing (without the lock) when
// ctx is done by the time the lock is free: a read queued behind a long write must not go
// on to answer from scans that its expired context cuts short (see each).
func (s *Store) rlockFor(ctx context.Context) error {
	if err := s.rlock(); err != nil {
		return err
	}
	if err := athar.Stopped(ctx, "read"); err != nil {
		s.mu.RUnlock()
		return err
	}
	return nil
}

// Apply implements athar.Store.
func (s *Store) Apply(ctx context.Context, cs ...athar.Changeset) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n := 0
	for _, c := range cs {
		n += len(c.Remove) + len(c.Add)
	}
	tx := newTransaction(cs, n)
	if len(tx.Deltas) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errClosed
	}
	change := newManifestChange(tx.Deltas)
	if s.finishing != nil && !s.finishing.beside(change) {
		s.settleLocked()
	}
	if done, err := s.applyRemoval(ctx, tx.Deltas, change); done {
		return err
	}
	stale, joined, err := s.markOutside(change.labels)
	if err != nil {
		return fmt.Errorf("apply %d changes: %w", n, err)
	}
	// The records of the quads removed, while their terms still exist.
	if change.removeRecs, err = s.records(ctx, change, change.remove, nil); err != nil {
		if !joined {
			s.clearPending(without(change.labels, stale))
		}
		return fmt.Errorf("apply %d changes: manifest: %w", n, err)
	}
	var pins []quad.Quad
	if _, isKV := s.qs.(*kv.QuadStore); isKV {
		if s.pinned {
			s.unpin(nil) // an earlier clean-up failed: new pins must not meet old ones
		}
		pins = pinsFor(tx.Deltas)
		for _, p := range pins {
			// Distinct, and never in a change (their IRI is the store's own): appended as
			// they are, also to newTransaction's transaction without Cayley's map.
			tx.Deltas = append(tx.Deltas, graph.Delta{Quad: p, Action: graph.Add})
		}
	}
	beside := s.writeBeside(change)
	stale, err = s.commitCayley(tx.Deltas, change, joined, stale)
	rowsWritten := beside != nil && beside.wait(err == nil)
	// The step 3 of the change before, read while this one committed, goes first.
	s.settleLocked()
	if err != nil {
		return fmt.Errorf("apply %d changes: %w", n, err)
	}
	s.mentions.apply(change)
	if beside != nil && !rowsWritten {
		s.rmStale = true // the rows failed (and are undone): the read model is rebuilt at Open
	}
	if len(pins) > 0 {
		// The change is committed; a failure here only leaves pins, which reads skip and
		// the next Apply (or Open, after a crash) removes.
		s.unpin(pins)
	}
	if !rowsWritten || !s.finishBeside(change, stale) {
		s.finishApply(context.WithoutCancel(ctx), change, stale, rowsWritten)
	}
	s.bulkSpill()
	return nil
}

// finishApply is step 3 of an Apply whose change Cayley has committed: the manifest's
// entries of its labels and the read model's rows, in one transaction, which also clears
// their marks; then the entries of the labels that were pending already (stale), or that
// the change both added and removed quads of, rebuilt from the store. rowsWritten says the
// rows are written already (bulk mode's writeBeside). Open runs it too, for a change a
// crash cut short before it (see redo.go). Callers hold the write lock.
//
// The change is committed: a failure here is not the caller's. It leaves the labels
// pending, which NarrationQuads answers by scanning and the next Apply of them or Open
// rebuilds, and the read model stale (rmStale: reads from Cayley until Open rebuilds it).
func (s *Store) finishApply(wctx context.Context, change *manifestChange, stale []string, rowsWritten bool) {
	r := s.finishReads(wctx, change, s.ids, !s.rmStale)
	s.finishWrites(wctx, change, stale, rowsWritten, r)
}

// finishRead is what the reading half of step 3 found (finishReads).
type finishRead struct {
	routes             map[athar.ID][]byte
	recsErr, routesErr error
}

// finishReads is the reading half of step 3: the records of the change's added quads
// (change.addRecs), from the term ids Cayley's commit reported (ids) and lookups of the
// others, and with routes the rows of the narrations the change may have changed
// (routesChange). Both read only Cayley's committed store -- never the manifest, the read
// model or the bulk buffer -- which is what lets bulk mode run them beside the next
// change's commit (see finishing).
func (s *Store) finishReads(ctx context.Context, change *manifestChange, ids termIDs, routes bool) (r finishRead) {
	// The narrations' rows are read beside the records: together they were a twentieth of
	// a load.
	routesRead := make(chan struct{})
	if !routes {
		close(routesRead)
	} else {
		go func() {
			defer close(routesRead)
			r.routes, r.routesErr = s.routesChange(ctx, change)
		}()
	}
	change.addRecs, r.recsErr = s.records(ctx, change, change.add, ids)
	<-routesRead
	return r
}

// finishWrites is the writing half of step 3, given what finishReads found. Callers hold
// the write lock.
func (s *Store) finishWrites(wctx context.Context, change *manifestChange, stale []string, rowsWritten bool, r finishRead) {
	if r.recsErr != nil {
		s.rmStale = true
		return
	}
	var err error
	var rm func(manifestTx) error
	rebuild := append([]string(nil), stale...)
	for l := range change.both {
		rebuild = append(rebuild, l)
	}
	if !s.rmStale {
		var put, del []quad.Quad
		if !rowsWritten {
			put, del, err = s.rmChange(wctx, change)
		}
		if err == nil {
			err = r.routesErr
		}
		if err != nil {
			s.rmStale = true
		} else {
			routes := r.routes
			rm = func(tx manifestTx) error {
				if err := routesPut(tx, routes); err != nil {
					return err
				}
				if err := rmApplyAll(tx, del, false); err != nil {
					return err
				}
				if err := rmApplyAll(tx, put, true); err != nil {
					return err
				}
				if len(rebuild) > 0 {
					return nil // the mention counts of those labels are not in step yet
				}
				return tx.del(pendingBucket, rmPendingKey)
			}
		}
	}
	skip := map[string]bool{}
	for _, l := range rebuild {
		skip[l] = true
	}
	err = s.commitManifest(change, skip, rm)
	if err != nil && rm != nil {
		s.rmStale = true
	}
	if err == nil && len(rebuild) > 0 {
		// Those entries are rebuilt from a scan rather than moved by the change's records,
		// and the mention counts of what the change touched there are set from them, in
		// the same transaction, which clears the read model's mark (readmodel_mention.go).
		var recount map[string][]string
		if rm != nil {
			recount = mentionsTouched(change, rebuild)
		}
		if err := s.rebuildLabels(wctx, rebuild, recount); err != nil && recount != nil {
			s.rmStale = true // marked: Open rebuilds it
		}
	}
}

// newTransaction is Cayley's transaction of the changesets (n quads in all): their removals,
// then their additions, each quad once. Sized for the whole change: grown from Cayley's
// default of ten, its de-duplicating map rehashed the quads at every step (a load's 40,000
// quads: 85 ms instead of 47). A change that only adds -- every transaction of a load --
// is de-duplicated in one map operation a quad, where Transaction.AddQuad takes three (it
// also looks for the quad's removal): a fiftieth of a load's CPU.
func newTransaction(cs []athar.Changeset, n int) *graph.Transaction {
	removes := false
	for _, c := range cs {
		removes = removes || len(c.Remove) > 0
	}
	if removes {
		tx := graph.NewTransactionN(n)
		for _, c := range cs {
			for _, q := range c.Remove {
				tx.RemoveQuad(toQuad(q))
			}
			for _, q := range c.Add {
				tx.AddQuad(toQuad(q))
			}
		}
		return tx
	}
	tx := &graph.Transaction{Deltas: make([]graph.Delta, 0, n)}
	seen := make(map[quad.Quad]struct{}, n)
	for _, c := range cs {
		for _, q := range c.Add {
			qq := toQuad(q)
			k := len(seen)
			if seen[qq] = struct{}{}; len(seen) > k {
				tx.Deltas = append(tx.Deltas, graph.Delta{Quad: qq, Action: graph.Add})
			}
		}
	}
	return tx
}

// markOutside marks labels pending ahead of Cayley's transaction where they cannot go
// into it (memstore, and bulk mode's buffer), and returns the labels marked already; on
// bbolt it marks nothing and reports joined: commitCayley marks them in Cayley's
// transaction (see join.go).
func (s *Store) markOutside(labels []string) (stale []string, joined bool, err error) {
	if _, ok := s.man.(boltManifest); ok && s.join != nil {
		return nil, true, nil
	}
	stale, err = s.markPending(labels)
	return stale, false, err
}

// commitCayley applies deltas in Cayley's transaction, with labels marked pending in the
// same transaction when joined (see markOutside). It returns the labels that were marked
// already (stale, for those marked outside). When it fails, Cayley is unchanged and so
// are the marks.
func (s *Store) commitCayley(deltas []graph.Delta, change *manifestChange, joined bool, stale []string) ([]string, error) {
	labels := change.labels
	opts := graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}
	if s.join != nil {
		// The ids of the terms Cayley resolves and creates, for the manifest's records
		// (read right after a successful commit; emptied here before each one).
		if s.ids == nil {
			s.ids, s.spareIDs = s.spareIDs, nil
			if s.ids == nil {
				s.ids = termIDs{}
			}
		}
		clear(s.ids)
		s.join.ids = s.ids
		defer func() { s.join.ids = nil }()
	}
	if !joined {
		if err := s.qs.ApplyDeltas(deltas, opts); err != nil {
			// Nothing changed, so the entries are still right -- except those already stale.
			s.clearPending(without(labels, stale))
			return nil, err
		}
		return stale, nil
	}
	marked := len(labels) == 0
	if !marked {
		s.join.first = func(ctx context.Context, tx hkv.Tx) (err error) {
			stale, err = markPendingIn(ctx, tx, labels)
			if err == nil && !s.rmStale {
				// The redo of the change, for Open to finish it if step 3 never runs.
				var redo []byte
				if redo, err = encodeRedo(change, stale); err == nil {
					err = (&hkvTx{ctx: ctx, tx: tx}).put(pendingBucket, rmPendingKey, redo)
				}
			}
			marked = err == nil
			return err
		}
	}
	err := s.qs.ApplyDeltas(deltas, opts)
	s.join.first = nil
	if err != nil {
		return nil, err
	}
	if !marked {
		// Cayley committed without asking joinKV for a transaction (not what the pinned
		// version does): mark now, late but before the manifest is touched.
		return s.markPending(labels)
	}
	return stale, nil
}

// openKV opens Cayley's quad store on the bbolt file, with or without its filter of the
// quads it holds (a Bloom filter of 74 MB, built at open from a scan of every quad in the
// store's log). The filter spares each added quad a lookup for a duplicate, which counts in
// a bulk load of millions (BeginBulk opens the store with it) and not in a server's writes
// of a narration at a time: at 100,000 narrations, opening without it takes the server from
// 41 s to 11 s before it listens, and its own memory from 707 to 368 MB, for the same
// write times (docs/BENCHMARKS-100k.md).
func openKV(db hkv.KV, filter bool) (graph.QuadStore, error) {
	return kv.New(db, graph.Options{kv.OptNoBloom: !filter})
}

// without returns the labels not in drop.
func without(labels, drop []string) []string {
	if len(drop) == 0 {
		return labels
	}
	skip := map[string]bool{}
	for _, l := range drop {
		skip[l] = true
	}
	var out []string
	for _, l := range labels {
		if !skip[l] {
			out = append(out, l)
		}
	}
	return out
}

// pinIRI is the subject, predicate and label of the pins: quads that exist only inside one
// Apply, never seen by a reader (the write lock is held throughout) and never exported.
const pinIRI = athar.Base + "internal/pin"

// pinsFor works around a bug of Cayley's KV backends (bbolt): within one ApplyDeltas, an
// added quad silently loses every term whose reference count falls in that transaction
// (a term more removed quads use than added ones do: graph/kv resolves the terms of added
// quads only among those whose count does not fall), and is stored without them. A merge
// or a new version of a narration does exactly that: it removes two rdfs:label quads and
// adds one. The pins returned hold one extra reference to each such term, in the same
// transaction, so that no term an added quad uses falls; unpin removes them afterwards in a
// transaction of its own. The real change stays one atomic transaction.
func pinsFor(deltas []graph.Delta) []quad.Quad {
	removes := false
	for _, d := range deltas {
		if d.Action != graph.Add {
			removes = true
			break
		}
	}
	if !removes {
		return nil // no term's count can fall: the common case of a load
	}
	net := map[string]int{}
	used := map[string]quad.Value{}
	for _, d := range deltas {
		for _, dir := range quad.Directions {
			v := d.Quad.Get(dir)
			if v == nil {
				continue
			}
			k := v.String()
			if d.Action == graph.Add {
				net[k]++
				used[k] = v
			} else {
				net[k]--
			}
		}
	}
	keys := make([]string, 0, len(used))
	for k := range used {
		if net[k] < 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var pins []quad.Quad
	for _, k := range keys {
		for i := 0; i < -net[k]; i++ {
			pins = append(pins, quad.Quad{Subject: quad.IRI(fmt.Sprintf("%s/%d", pinIRI, len(pins))), Predicate: quad.IRI(pinIRI), Object: used[k], Label: quad.IRI(pinIRI)})
		}
	}
	return pins
}

// unpin removes pins left by Apply (pins given), or every pin in the store (pins nil, at
// Open). Callers hold the write lock.
func (s *Store) unpin(pins []quad.Quad) {
	if pins == nil {
		// No pin left means no pin node: the common case costs one lookup, no scan.
		if ref, err := s.qs.ValueOf(quad.IRI(pinIRI)); err != nil || ref == nil {
			return
		}
		qs, err := s.quadsWith(context.Background(), quad.Predicate, quad.IRI(pinIRI))
		if err != nil || len(qs) == 0 {
			return
		}
		pins = qs
	}
	tx := graph.NewTransaction()
	for _, p := range pins {
		tx.RemoveQuad(p)
	}
	s.pinned = s.qs.ApplyDeltas(tx.Deltas, graph.IgnoreOpts{IgnoreDup: true, IgnoreMissing: true}) != nil
}

func toValue(t athar.Term) quad.Value {
	switch {
	case t.IRI != "":
		return quad.IRI(t.IRI)
	case t.Lang != "":
		return quad.LangString{Value: quad.String(t.Literal), Lang: t.Lang}
	case t.Datatype != "" && t.Datatype != athar.XSDString:
		return quad.TypedString{Value: quad.String(t.Literal), Type: quad.IRI(t.Datatype)}
	default:
		return quad.String(t.Literal)
	}
}

func toQuad(q athar.Quad) quad.Quad {
	return quad.Quad{Subject: quad.IRI(q.Subject), Predicate: quad.IRI(q.Predicate), Object: toValue(q.Object), Label: quad.IRI(q.Label)}
}

func fromValue(v quad.Value) athar.Term {
	switch v := v.(type) {
	case quad.IRI:
		return athar.Term{IRI: string(v)}
	case quad.String:
		return athar.Term{Literal: string(v)}
	case quad.LangString:
		return athar.Term{Literal: string(v.Value), Lang: v.Lang}
	case quad.TypedString:
		return athar.Term{Literal: string(v.Value), Datatype: string(v.Type)}
	case quad.Int:
		return athar.Term{Literal: fmt.Sprint(int64(v)), Datatype: athar.XSDInteger}
	case nil:
		return athar.Term{}
	default:
		ts, ok := v.(quad.TypedStringer)
		if ok {
			t := ts.TypedString()
			return athar.Term{Literal: string(t.Value), Datatype: string(t.Type)}
		}
		return athar.Term{Literal: quad.StringOf(v)}
	}
}

func fromQuad(q quad.Quad) athar.Quad {
	return athar.Quad{
		Subject:   iriOf(q.Subject),
		Predicate: iriOf(q.Predicate),
		Object:    fromValue(q.Object),
		Label:     iriOf(q.Label),
	}
}

func iriOf(v quad.Value) string {
	if i, ok := v.(quad.IRI); ok {
		return string(i)
	}
	if v == nil {
		return ""
	}
	return quad.StringOf(v)
}

// quadsWith returns the quads having value v in direction d. Callers hold the read lock.
func (s *Store) quadsWith(ctx context.Context, d quad.Direction, v quad.Value) ([]quad.Quad, error) {
	ref, err := s.qs.ValueOf(v)
	if err != nil {
		return nil, err
	}
	if ref == nil {
		return nil, nil
	}
	if kqs, ok := s.qs.(*kv.QuadStore); ok {
		return s.kvQuads(ctx, kqs, kqs.QuadIterator(d, ref), s.unhidden())
	}
	var out []quad.Quad
	err = each(ctx, s.qs.QuadIterator(d, ref), func(r graph.Ref) error {
		q, err := s.qs.Quad(r)
		if err != nil {
			return err
		}
		out = append(out, q)
		return nil
	})
	return out, err
}

// withPredicate returns the quads with value v in direction d (Subject or Object) and the
// predicate p. On the KV backends it is one prefix scan of Cayley's subject-predicate or
// object-predicate-subject index, so its cost is the number of matching quads, not the
// node's degree; memstore filters its per-node index. Callers hold the read lock.
func (s *Store) withPredicate(ctx context.Context, d quad.Direction, v quad.Value, p string) ([]quad.Quad, error) {
	kqs, ok := s.qs.(*kv.QuadStore)
	if !ok {
		all, err := s.quadsWith(ctx, d, v)
		if err != nil {
			return nil, err
		}
		out := all[:0]
		for _, q := range all {
			if iriOf(q.Predicate) == p {
				out = append(out, q)
			}
		}
		return out, nil
	}
	vi, err := nodeID(kqs, v)
	if err != nil || vi == 0 {
		return nil, err
	}
	pi, err := nodeID(kqs, quad.IRI(p))
	if err != nil || pi == 0 {
		return nil, err
	}
	ind := kv.QuadIndex{Dirs: []quad.Direction{quad.Subject, quad.Predicate}}
	if d == quad.Object {
		ind = kv.QuadIndex{Dirs: []quad.Direction{quad.Object, quad.Predicate, quad.Subject}}
	}
	scan := kv.IndexScan{Index: ind, Values: []uint64{vi, pi}}
	return s.kvQuads(ctx, kqs, scan.BuildIterator(kqs), s.unhidden())
}

// out returns the quads whose subject is the IRI.
func (s *Store) out(ctx context.Context, iri string) ([]quad.Quad, error) {
	return s.quadsWith(ctx, quad.Subject, quad.IRI(iri))
}

// in returns the quads whose object is the IRI.
func (s *Store) in(ctx context.Context, iri string) ([]quad.Quad, error) {
	return s.quadsWith(ctx, quad.Object, quad.IRI(iri))
}

type clogAdapter struct{ l *slog.Logger }

func (a clogAdapter) Infof(format string, args ...any) {
	a.l.Debug("cayley: " + fmt.Sprintf(format, args...))
}
func (a clogAdapter) Warningf(format string, args ...any) {
	a.l.Warn("cayley: " + fmt.Sprintf(format, args...))
}
func (a clogAdapter) Errorf(format string, args ...any) {
	a.l.Error("cayley: " + fmt.Sprintf(format, args...))
}
func (a clogAdapter) Fatalf(format string, args ...any) {
	a.l.Error("cayley: fatal: " + fmt.Sprintf(format, args...))
	os.Exit(1)
}
func (a clogAdapter) V(level int) bool { return false }
func (a clogAdapter) SetV(int)         {}
