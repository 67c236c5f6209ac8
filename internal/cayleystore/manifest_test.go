package cayleystore

import (
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/cayley/graph/refs"
	hkv "github.com/hidal-go/hidalgo/kv"
	hbolt "github.com/hidal-go/hidalgo/kv/bbolt"
	bolt "go.etcd.io/bbolt"

	"github.com/athar-hadith/athar/internal/athar"
)

func mquad(n, s, p string, o athar.Term) athar.Quad {
	return athar.Quad{Subject: athar.ID(s).IRI(), Predicate: athar.VocabBase + p, Object: o, Label: athar.ID(n).IRI()}
}

// manifestFixture is three narrations sharing terms, and a change to them: a new version of
// n1, the deletion of n2 and a first import of n4.
var (
	fixtureBase = []athar.Changeset{
		{Narration: "narration:n1", Add: []athar.Quad{
			mquad("narration:n1", "person:a", "advises", athar.IRITerm(athar.ID("concept:c").IRI())),
			mquad("narration:n1", "person:a", "name", athar.Term{Literal: "عمر", Lang: "ar"}),
			mquad("narration:n1", "event:e", "killedCount", athar.Term{Literal: "70", Datatype: athar.XSDInteger}),
		}},
		{Narration: "narration:n2", Add: []athar.Quad{
			mquad("narration:n2", "person:a", "advises", athar.IRITerm(athar.ID("concept:c").IRI())),
			mquad("narration:n2", "person:b", "name", athar.StringTerm("b")),
		}},
		{Narration: "narration:n3", Add: []athar.Quad{
			mquad("narration:n3", "person:b", "name", athar.StringTerm("b")),
		}},
	}
	fixtureChange = []athar.Changeset{
		{Narration: "narration:n1",
			Remove: fixtureBase[0].Add[2:],
			Add:    []athar.Quad{mquad("narration:n1", "event:e", "killedCount", athar.Term{Literal: "71", Datatype: athar.XSDInteger})}},
		{Narration: "narration:n2", Remove: fixtureBase[1].Add},
		{Narration: "narration:n4", Add: []athar.Quad{mquad("narration:n4", "person:d", "name", athar.StringTerm("d"))}},
	}
	fixtureLabels = []athar.ID{"narration:n1", "narration:n2", "narration:n3", "narration:n4", "narration:none"}
)

func openBbolt(t *testing.T, dir string) *Store {
	t.Helper()
	st, err := Open("bbolt:"+dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// editBolt runs fn on the closed store's bbolt file, as a crash or an older version would
// have left it.
func editBolt(t *testing.T, dir string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dir, "indexes.bolt"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// dumpManifest returns the manifest's buckets of a closed store.
func dumpManifest(t *testing.T, dir string) (entries map[string]string, pending []string) {
	t.Helper()
	entries = map[string]string{}
	editBolt(t, dir, func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte(manifestBucket)); b != nil {
			b.ForEach(func(k, v []byte) error { entries[string(k)] = string(v); return nil })
		} else {
			entries = nil
		}
		if b := tx.Bucket([]byte(pendingBucket)); b != nil {
			b.ForEach(func(k, _ []byte) error {
				if string(k) != rmPendingKey { // the read model's mark (readmodel.go)
					pending = append(pending, string(k))
				}
				return nil
			})
		}
		return nil
	})
	return entries, pending
}

// checkAgainstScan compares NarrationQuads of each fixture label with a scan of the store.
func checkAgainstScan(t *testing.T, st *Store) {
	t.Helper()
	checkLabelsAgainstScan(t, st, fixtureLabels)
}

// checkManifestAgainstScan compares NarrationQuads of every label a scan of the store finds
// (and of narration:none) with the scan.
func checkManifestAgainstScan(t *testing.T, st *Store) {
	t.Helper()
	checkLabelsAgainstScan(t, st, nil)
}

// checkLabelsAgainstScan compares NarrationQuads of ids -- nil: of narration:none and every
// narration a scan of the store finds -- with the scan.
func checkLabelsAgainstScan(t *testing.T, st *Store, ids []athar.ID) {
	t.Helper()
	ctx := context.Background()
	byLabel := map[string][]string{}
	if err := st.Quads(ctx, func(q athar.Quad) error {
		byLabel[q.Label] = append(byLabel[q.Label], q.Key())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if ids == nil {
		ids = []athar.ID{"narration:none"}
		for label := range byLabel {
			if id, ok := athar.ParseIRI(label); ok {
				ids = append(ids, id)
			}
		}
	}
	for _, id := range ids {
		got, err := st.NarrationQuads(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var g []string
		for _, q := range got {
			g = append(g, q.Key())
		}
		want := byLabel[id.IRI()]
		sort.Strings(g)
		sort.Strings(want)
		if !reflect.DeepEqual(g, want) {
			t.Errorf("NarrationQuads(%s) = %v, a scan finds %v", id, g, want)
		}
	}
}

// crashAfterCayleyCommit does what Apply does up to Cayley's commit, and stops: what a
// crash right after it leaves.
func crashAfterCayleyCommit(t *testing.T, st *Store, cs []athar.Changeset) {
	t.Helper()
	tx := graph.NewTransaction()
	for _, c := range cs {
		for _, q := range c.Remove {
			tx.RemoveQuad(toQuad(q))
		}
		for _, q := range c.Add {
			tx.AddQuad(toQuad(q))
		}
	}
	change := newManifestChange(tx.Deltas)
	for _, p := range pinsFor(tx.Deltas) {
		tx.AddQuad(p)
	}
	stale, joined, err := st.markOutside(change.labels)
	if err != nil {
		t.Fatal(err)
	}
	// As Apply does: the records of the quads removed, while their terms exist.
	if change.removeRecs, err = st.records(context.Background(), change, change.remove, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.commitCayley(tx.Deltas, change, joined, stale); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestManifestIsRebuiltAtOpen: whatever state a crash or an older version left the manifest
// in, Open rebuilds it from the store -- in one scan, and to exactly what Apply would have
// written -- and a manifest in step costs no scan at all.
func TestManifestIsRebuiltAtOpen(t *testing.T) {
	cases := []struct {
		name   string
		break_ func(t *testing.T, st *Store, dir string)
		scans  int64 // full scans Open makes
	}{
		{"in step", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(context.Background(), fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
		}, 0},
		{"crash between Cayley's commit and the manifest's", func(t *testing.T, st *Store, dir string) {
			crashAfterCayleyCommit(t, st, fixtureChange)
			if _, pending := dumpManifest(t, dir); len(pending) != 3 {
				t.Fatalf("the crash left %d pending narrations, want 3", len(pending))
			}
		}, 0}, // finished from the change's redo (redo.go): its own quads, no scan
		{"crash after a write whose read model failed", func(t *testing.T, st *Store, dir string) {
			st.rmStale = true // an earlier step 3 failed in this process: no redo from now on
			crashAfterCayleyCommit(t, st, fixtureChange)
			if _, pending := dumpManifest(t, dir); len(pending) != 3 {
				t.Fatalf("the crash left %d pending narrations, want 3", len(pending))
			}
		}, 2}, // the read model's rebuild, then the manifest's
		{"store made before the manifest", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(context.Background(), fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error {
				if err := tx.DeleteBucket([]byte(manifestBucket)); err != nil {
					return err
				}
				return tx.DeleteBucket([]byte(pendingBucket))
			})
		}, 1},
		{"whole rebuild cut short", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(context.Background(), fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error {
				m := tx.Bucket([]byte(manifestBucket))
				if err := m.Delete([]byte(athar.ID("narration:n1").IRI())); err != nil {
					return err
				}
				if err := m.Put([]byte(athar.ID("narration:n9").IRI()), []byte("partial")); err != nil {
					return err
				}
				return tx.Bucket([]byte(pendingBucket)).Put([]byte(rebuildAllKey), []byte{})
			})
		}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The reference: the same writes through Apply, never interrupted.
			ref := t.TempDir()
			st := openBbolt(t, ref)
			if err := st.Apply(context.Background(), fixtureBase...); err != nil {
				t.Fatal(err)
			}
			if err := st.Apply(context.Background(), fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			want, _ := dumpManifest(t, ref)

			dir := t.TempDir()
			st = openBbolt(t, dir)
			if err := st.Apply(context.Background(), fixtureBase...); err != nil {
				t.Fatal(err)
			}
			tc.break_(t, st, dir)

			st = openBbolt(t, dir)
			if n := st.FullScans(); n != tc.scans {
				t.Errorf("Open made %d full scans, want %d", n, tc.scans)
			}
			checkAgainstScan(t, st)
			st.Close()
			got, pending := dumpManifest(t, dir)
			if len(pending) != 0 {
				t.Errorf("still pending after Open: %q", pending)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("manifest after Open differs from the one Apply keeps:\ngot  %q\nwant %q", got, want)
			}
		})
	}
}

// TestNarrationQuadsReadsNoScan: reading, re-importing and deleting a narration reads its
// manifest entry, never the whole store.
func TestNarrationQuadsReadsNoScan(t *testing.T) {
	for _, spec := range []string{"memory:", "bbolt:" + t.TempDir()} {
		st, err := Open(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := st.Apply(ctx, fixtureBase...); err != nil {
			t.Fatal(err)
		}
		for _, id := range fixtureLabels {
			if _, err := st.NarrationQuads(ctx, id); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Apply(ctx, fixtureChange...); err != nil {
			t.Fatal(err)
		}
		if n := st.FullScans(); n != 0 {
			t.Errorf("%s: %d full scans, want none", spec, n)
		}
		checkAgainstScan(t, st)
		if n := st.FullScans(); n != 1 {
			t.Errorf("%s: Quads counted %d full scans, want 1", spec, n)
		}
		st.Close()
	}
}

// leaveStale empties the manifest entry of n and marks it pending, as an update that failed
// after Cayley's commit leaves it.
func leaveStale(t *testing.T, st *Store, n athar.ID) {
	t.Helper()
	if err := st.man.update(func(tx manifestTx) error {
		if err := tx.put(pendingBucket, n.IRI(), []byte{}); err != nil {
			return err
		}
		return tx.put(manifestBucket, n.IRI(), []byte{})
	}); err != nil {
		t.Fatal(err)
	}
}

// TestPendingNarrationIsReadByScan: while an entry is pending (its update failed after
// Cayley's commit), NarrationQuads does not trust it; the next Apply of the narration
// rebuilds it.
func TestPendingNarrationIsReadByScan(t *testing.T) {
	st := openBbolt(t, t.TempDir())
	defer st.Close()
	ctx := context.Background()
	if err := st.Apply(ctx, fixtureBase...); err != nil {
		t.Fatal(err)
	}
	// A stale entry, marked pending, as a failed manifest update leaves it.
	leaveStale(t, st, "narration:n1")
	checkAgainstScan(t, st)
	if err := st.Apply(ctx, fixtureChange[0]); err != nil {
		t.Fatal(err)
	}
	checkAgainstScan(t, st)
	if pending := pendingKeys(st); len(pending) != 0 {
		t.Errorf("still pending after an Apply of it: %q", pending)
	}
}

// pendingKeys returns the keys of the store's pending marks: labels, and the read model's.
func pendingKeys(st *Store) []string {
	var pending []string
	st.man.view(func(tx manifestTx) error { pending = tx.keys(pendingBucket); return nil })
	return pending
}

// TestNarrationDigests: a label's digest changes with its quads and with nothing else --
// not another narration's write, a reopen, a rebuilt manifest, or an entry left pending --
// on both backends.
func TestNarrationDigests(t *testing.T) {
	ctx := context.Background()
	digests := func(t *testing.T, st *Store) []string {
		t.Helper()
		ds, err := st.NarrationDigests(ctx, fixtureLabels)
		if err != nil {
			t.Fatal(err)
		}
		return ds
	}
	for _, backend := range []string{"memory", "bbolt"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			open := func() *Store {
				if backend == "memory" {
					st, err := Open("memory:", nil)
					if err != nil {
						t.Fatal(err)
					}
					return st
				}
				return openBbolt(t, dir)
			}
			st := open()
			defer func() { st.Close() }()
			if err := st.Apply(ctx, fixtureBase...); err != nil {
				t.Fatal(err)
			}
			base := digests(t, st)
			if base[0] == "" || base[1] == "" || base[2] == "" || base[0] == base[1] || base[1] == base[2] {
				t.Fatalf("digests of three different narrations: %q", base[:3])
			}
			if base[3] != "" || base[4] != "" {
				t.Errorf("digests of labels without quads: %q, want empty", base[3:])
			}
			if err := st.Apply(ctx, fixtureChange...); err != nil {
				t.Fatal(err)
			}
			after := digests(t, st)
			switch {
			case after[0] == base[0] || after[0] == "":
				t.Errorf("n1 changed, its digest %q did not (was %q)", after[0], base[0])
			case after[1] != "":
				t.Errorf("n2 deleted, its digest is %q", after[1])
			case after[2] != base[2]:
				t.Errorf("n3 left alone, its digest changed from %q to %q", base[2], after[2])
			case after[3] == "":
				t.Errorf("n4 imported, no digest")
			}
			if backend == "memory" {
				return
			}
			// An entry left pending is read by scan, to the same digest.
			leaveStale(t, st, "narration:n3")
			if got := digests(t, st); !reflect.DeepEqual(got, after) {
				t.Errorf("with n3 pending: %q, want %q", got, after)
			}
			// Reopened, and with the manifest rebuilt whole.
			st.Close()
			st = open()
			if got := digests(t, st); !reflect.DeepEqual(got, after) {
				t.Errorf("reopened: %q, want %q", got, after)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte(manifestBucket)) })
			st = open()
			if got := digests(t, st); !reflect.DeepEqual(got, after) {
				t.Errorf("manifest rebuilt: %q, want %q", got, after)
			}
		})
	}
}

// TestRecordsTakeIDsFromCommit: the records of the quads an Apply adds use the ids Cayley's
// own transaction gave their terms, rather than looking them up after the commit, and those
// are the ids the store holds: read by a store opened afresh (no ids cached), every entry
// decodes to the quads a scan finds.
func TestRecordsTakeIDsFromCommit(t *testing.T) {
	dir := t.TempDir()
	st := openBbolt(t, dir)
	ctx := context.Background()
	if err := st.Apply(ctx, fixtureBase...); err != nil {
		t.Fatal(err)
	}
	if n := st.termLookups.Load(); n != 0 {
		t.Errorf("the first Apply looked up %d terms after its commit, want none (the commit made them)", n)
	}
	if err := st.Apply(ctx, fixtureChange...); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = openBbolt(t, dir)
	defer st.Close()
	checkAgainstScan(t, st)
}

// TestIDTxRecordsLastWrite: what idTx notes of a value key is the transaction's last word
// on it -- read, written, or deleted -- and keys of other buckets are not noted.
func TestIDTxRecordsLastWrite(t *testing.T) {
	bdb, err := bolt.Open(filepath.Join(t.TempDir(), "x.bolt"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	db := hbolt.New(bdb)
	defer db.Close()
	ctx := context.Background()
	var h1, h2 refs.ValueHash
	h1[0], h1[1], h1[19] = 1, 2, 3
	h2[0], h2[1], h2[19] = 1, 2, 4
	key := func(b byte, h refs.ValueHash) hkv.Key { return hkv.Key{{b, h[0], h[1]}, h[:]} }
	ids := termIDs{}
	tx, err := db.Tx(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	it := &idTx{Tx: tx, ids: ids}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(it.Put(ctx, key('v', h1), binary.AppendUvarint(nil, 7)))
	must(it.Put(ctx, key('n', h2), binary.AppendUvarint(nil, 9))) // a count, not an id
	if _, err := it.GetBatch(ctx, []hkv.Key{key('v', h1), key('v', h2)}); err != nil {
		t.Fatal(err)
	}
	if want := (termIDs{h1: 7, h2: 0}); !reflect.DeepEqual(ids, want) {
		t.Fatalf("after put and batch read: %v, want %v", ids, want)
	}
	must(it.Put(ctx, key('v', h2), binary.AppendUvarint(nil, 8)))
	must(it.Del(ctx, key('v', h1)))
	if want := (termIDs{h1: 0, h2: 8}); !reflect.DeepEqual(ids, want) {
		t.Fatalf("after put and delete: %v, want %v", ids, want)
	}
	if _, err := it.Get(ctx, key('v', h2)); err != nil {
		t.Fatal(err)
	}
	if ids[h2] != 8 {
		t.Fatalf("after a read: %v", ids)
	}
}

// TestBoltTxGetKeepsItsCursorTrue: get reuses one cursor per bucket within a transaction,
// and still answers as Bucket.Get would after puts, deletes and a bucket's reset in the
// same transaction: a key only when it is there exactly (not the next one a seek lands
// on), never a nested bucket, nothing from a bucket that does not exist.
func TestBoltTxGetKeepsItsCursorTrue(t *testing.T) {
	bdb, err := bolt.Open(filepath.Join(t.TempDir(), "x.bolt"), 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(btx *bolt.Tx) error {
		tx := newBoltTx(btx)
		want := func(bucket, key, v string) {
			t.Helper()
			got := tx.get(bucket, key)
			if (got == nil) != (v == "") || string(got) != v {
				t.Fatalf("get(%q, %q) = %q, want %q", bucket, key, got, v)
			}
			if b := btx.Bucket([]byte(bucket)); b != nil && string(b.Get([]byte(key))) != string(got) {
				t.Fatalf("get(%q, %q) = %q, Bucket.Get %q", bucket, key, got, b.Get([]byte(key)))
			}
		}
		want("b", "k", "") // no bucket yet
		for _, k := range []string{"a", "k1", "k3", "z"} {
			if err := tx.put("b", k, []byte("v"+k)); err != nil {
				return err
			}
		}
		want("b", "k1", "vk1")
		want("b", "k", "")  // a seek lands on k1
		want("b", "k2", "") // and on k3
		want("b", "zz", "") // past the last key
		if err := tx.put("b", "k2", []byte("vk2")); err != nil {
			return err
		}
		want("b", "k2", "vk2")
		if err := tx.del("b", "k1"); err != nil {
			return err
		}
		want("b", "k1", "")
		want("b", "k3", "vk3")
		b, _ := tx.bucket("b", false)
		if _, err := b.CreateBucket([]byte("nested")); err != nil {
			return err
		}
		want("b", "nested", "")
		for i := range 2000 { // enough to split pages under the cursor
			if err := tx.put("b", fmt.Sprintf("m%05d", i), []byte(fmt.Sprint(i))); err != nil {
				return err
			}
		}
		want("b", "m01234", "1234")
		want("b", "z", "vz")
		if err := tx.resetBuckets("b"); err != nil {
			return err
		}
		want("b", "z", "")
		if err := tx.put("b", "z", []byte("again")); err != nil {
			return err
		}
		want("b", "z", "again")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
