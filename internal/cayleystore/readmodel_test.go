package cayleystore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cayleygraph/cayley/graph"

	bolt "go.etcd.io/bbolt"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/storetest"
)

// dumpReadModel returns the read model's buckets as the closed store at dir holds them.
func dumpReadModel(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	editBolt(t, dir, func(tx *bolt.Tx) error {
		for _, name := range rmBuckets {
			if b := tx.Bucket([]byte(name)); b != nil {
				b.ForEach(func(k, v []byte) error { out[name+"|"+string(k)] = string(v); return nil })
			}
		}
		return nil
	})
	return out
}

// claimsBase is a narration's claim with its attestation; claimsChange gives the
// attestation another passage and a second attestation, in a second narration.
var claimsBase, claimsChange = func() ([]athar.Changeset, []athar.Changeset) {
	n9, n10 := athar.ID("narration:n9").IRI(), athar.ID("narration:n10").IRI()
	c := athar.ID(athar.ClaimPrefix + ":c1").IRI()
	a1, a2 := athar.ID(athar.AttestationPrefix+":a1").IRI(), athar.ID(athar.AttestationPrefix+":a2").IRI()
	q := func(label, s, p string, o athar.Term) athar.Quad {
		return athar.Quad{Subject: s, Predicate: p, Object: o, Label: label}
	}
	claim := func(l string) []athar.Quad {
		return []athar.Quad{
			q(l, c, athar.PredSubject, athar.IRITerm(athar.ID("person:a").IRI())),
			q(l, c, athar.PredPredicate, athar.IRITerm(athar.VocabBase+"advises")),
			q(l, c, athar.PredObject, athar.IRITerm(athar.ID("person:b").IRI())),
		}
	}
	att := func(l, a, n, words string) []athar.Quad {
		return []athar.Quad{
			q(l, a, athar.PredClaim, athar.IRITerm(c)),
			q(l, a, athar.PredNarration, athar.IRITerm(n)),
			q(l, a, athar.PredEvidence, athar.Term{Literal: words}),
			q(l, a, athar.PredStart, athar.IntTerm(0)),
			q(l, a, athar.PredEnd, athar.IntTerm(len(words))),
		}
	}
	base := []athar.Changeset{{Narration: "narration:n9", Add: append(claim(n9), att(n9, a1, n9, "he advised")...)}}
	change := []athar.Changeset{
		{Narration: "narration:n9",
			Remove: []athar.Quad{q(n9, a1, athar.PredEvidence, athar.Term{Literal: "he advised"})},
			Add:    []athar.Quad{q(n9, a1, athar.PredEvidence, athar.Term{Literal: "he advised them"})}},
		{Narration: "narration:n10", Add: append(claim(n10), att(n10, a2, n10, "advised")...)},
	}
	return base, change
}()

// routesBase is two narrations with routes, one a document's (a chain, a further route, a
// narrator) and one a corpus record's; routesChange rewrites a link's narrator (as a merge
// does) and adds a link to the record's route.
var routesBase, routesChange = func() ([]athar.Changeset, []athar.Changeset) {
	q := func(label, s, p string, o athar.Term) athar.Quad {
		return athar.Quad{Subject: s, Predicate: p, Object: o, Label: label}
	}
	n7, n8 := athar.ID("narration:n7").IRI(), athar.ID("narration:n8").IRI()
	rec := athar.Base + athar.CorpusPrefix + "/k8"
	c1, r2 := athar.Base+"chain/n7/1", athar.Base+"route/n7/2/1"
	l1, l2 := rec+"/route/1/1", rec+"/route/1/2"
	person := func(p string) athar.Term { return athar.IRITerm(athar.ID(p).IRI()) }
	base := []athar.Changeset{
		{Narration: "narration:n7", Add: []athar.Quad{
			q(n7, n7, athar.RDFType, athar.IRITerm(athar.TypeNarration.IRI())),
			q(n7, n7, athar.PredChainLink, athar.IRITerm(c1)),
			q(n7, c1, athar.PredPosition, athar.IntTerm(1)),
			q(n7, c1, athar.PredNarrator, person("person:a")),
			q(n7, n7, athar.PredChainLink, athar.IRITerm(r2)),
			q(n7, r2, athar.PredRoute, athar.IntTerm(2)),
			q(n7, r2, athar.PredPosition, athar.IntTerm(1)),
			q(n7, r2, athar.PredNarrator, person("person:b")),
			q(n7, athar.ID("person:b").IRI(), predNarrates, athar.IRITerm(n7)),
		}},
		{Add: []athar.Quad{
			q(rec, n8, athar.RDFType, athar.IRITerm(athar.TypeNarration.IRI())),
			q(rec, n8, athar.PredCorpusRecord, athar.IRITerm(rec)),
			q(rec, n8, athar.PredChainLink, athar.IRITerm(l1)),
			q(rec, l1, athar.PredPosition, athar.IntTerm(1)),
			q(rec, l1, athar.PredNarrator, person("person:a")),
		}},
	}
	change := []athar.Changeset{
		{Narration: "narration:n7",
			Remove: []athar.Quad{q(n7, c1, athar.PredNarrator, person("person:a"))},
			Add:    []athar.Quad{q(n7, c1, athar.PredNarrator, person("person:d"))}},
		{Add: []athar.Quad{
			q(rec, n8, athar.PredChainLink, athar.IRITerm(l2)),
			q(rec, l2, athar.PredPosition, athar.IntTerm(2)),
			q(rec, l2, athar.PredNarrator, person("person:b")),
		}},
	}
	return base, change
}()

// TestReadModelRoutes: the routes the read model keeps for the fixture are Cayley's, and
// change with it.
func TestReadModelRoutes(t *testing.T) {
	ctx := context.Background()
	onEachBackend(t, func(t *testing.T, st *Store) {
		ids := []athar.ID{"narration:n7", "narration:n8", "narration:absent", "person:a"}
		check := func(want [][]string) {
			t.Helper()
			got, err := st.NarrationRoutes(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			fromCayley, err := st.NarrationRoutesFromCayley(ctx, ids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, fromCayley) {
				t.Fatalf("read model %+v, Cayley %+v", got, fromCayley)
			}
			if got[2] != nil || got[3] != nil {
				t.Fatalf("routes of an absent narration and of a person: %+v", got[2:])
			}
			var routes [][]string
			for _, n := range got[:2] {
				if n == nil {
					t.Fatalf("no routes: %+v", got)
				}
				routes = append(routes, []string{fmt.Sprint(n.Routes()), fmt.Sprint(n.RecordRoutes), string(n.Corpus)})
			}
			if !reflect.DeepEqual(routes, want) {
				t.Fatalf("routes %q, want %q", routes, want)
			}
			st.mu.Lock()
			st.rmStale = true // reads go to Cayley's indexes
			st.mu.Unlock()
			stale, err := st.NarrationRoutes(ctx, ids)
			st.mu.Lock()
			st.rmStale = false
			st.mu.Unlock()
			if err != nil || !reflect.DeepEqual(stale, got) {
				t.Fatalf("stale read model: %+v, %v; in step %+v", stale, err, got)
			}
		}
		if err := st.Apply(ctx, routesBase...); err != nil {
			t.Fatal(err)
		}
		check([][]string{{"[[person:a person:b] [person:b]]", "[]", ""}, {"[[person:a]]", "[[person:a]]", "k8"}})
		if err := st.Apply(ctx, routesChange...); err != nil {
			t.Fatal(err)
		}
		check([][]string{{"[[person:d person:b] [person:b]]", "[]", ""}, {"[[person:a person:b]]", "[[person:a person:b]]", "k8"}})
		if err := st.CheckReadModel(ctx); err != nil {
			t.Fatal(err)
		}
		// Deleting a narration deletes its row.
		if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n7", Remove: append(append([]athar.Quad{}, routesBase[0].Add...), routesChange[0].Add...)}); err != nil {
			t.Fatal(err)
		}
		got, err := st.NarrationRoutes(ctx, ids[:1])
		if err != nil || got[0] != nil {
			t.Fatalf("routes of a deleted narration: %+v, %v", got, err)
		}
		if err := st.CheckReadModel(ctx); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReadModelIsRebuiltAtOpen breaks the read model as a crash, an older store or a cut
// rebuild would, and checks that Open restores the very rows and counts Apply keeps.
func TestReadModelIsRebuiltAtOpen(t *testing.T) {
	ctx := context.Background()
	fixtureBase := append(append(append([]athar.Changeset{}, fixtureBase...), routesBase...), claimsBase...)
	fixtureChange := append(append(append([]athar.Changeset{}, fixtureChange...), routesChange...), claimsChange...)
	inStep := t.TempDir()
	st := openBbolt(t, inStep)
	if err := st.Apply(ctx, fixtureBase...); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, fixtureChange...); err != nil {
		t.Fatal(err)
	}
	st.Close()
	want := dumpReadModel(t, inStep)
	if len(want) == 0 {
		t.Fatal("Apply kept no read model")
	}
	if want[rmNarrationBucket+"|narration:n8"] == "" {
		t.Fatal("Apply kept no routes")
	}
	cases := []struct {
		name   string
		break_ func(t *testing.T, st *Store, dir string)
		redo   bool // Open finishes the change from its redo
	}{
		{"crash between Cayley's commit and the read model's", func(t *testing.T, st *Store, dir string) {
			crashAfterCayleyCommit(t, st, fixtureChange)
		}, true},
		{"crash after a write whose read model failed", func(t *testing.T, st *Store, dir string) {
			st.rmStale = true
			crashAfterCayleyCommit(t, st, fixtureChange)
		}, false},
		{"redo that cannot be read", func(t *testing.T, st *Store, dir string) {
			crashAfterCayleyCommit(t, st, fixtureChange)
			editBolt(t, dir, func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte(pendingBucket))
				redo := b.Get([]byte(rmPendingKey))
				if len(redo) < 100 {
					t.Fatalf("the crash left a redo of %d bytes", len(redo))
				}
				return b.Put([]byte(rmPendingKey), redo[:len(redo)/2])
			})
		}, false},
		{"store made before the read model", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(ctx, fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error {
				for _, name := range rmBuckets {
					if err := tx.DeleteBucket([]byte(name)); err != nil {
						return err
					}
				}
				return nil
			})
		}, false},
		{"store made before a bucket of the read model", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(ctx, fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte(rmClaimBucket)) })
		}, false},
		{"store made before the adjacency", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(ctx, fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte(rmAdjBucket)) })
		}, false},
		{"store made before the routes", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(ctx, fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte(rmNarrationBucket)) })
		}, false},
		{"store of the layout with a bucket of counts", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(ctx, fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error {
				if err := tx.DeleteBucket([]byte(rmLayoutBucket)); err != nil {
					return err
				}
				// The first layout: a label's row held the reference, its counts were
				// elsewhere.
				about := tx.Bucket([]byte(rmAboutBucket))
				var labelRows [][]byte // collected first: bbolt's cursor must not see writes
				about.ForEach(func(k, v []byte) error {
					if k[len(k)-1] != 0 && v[0] == 1 {
						labelRows = append(labelRows, append([]byte(nil), k...))
					}
					return nil
				})
				if len(labelRows) == 0 {
					t.Fatal("the fixture's lists have no label rows")
				}
				for _, k := range labelRows {
					if err := about.Put(k, []byte("\x01the reference")); err != nil {
						return err
					}
				}
				b, err := tx.CreateBucket([]byte("athar.rm.count"))
				if err != nil {
					return err
				}
				return b.Put([]byte("e\x00"+athar.ID("person:a").IRI()), []byte{1})
			})
		}, false},
		{"store of the layout with a row per claim quad", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(ctx, fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error {
				// Layout claim2's bucket gone, the earlier one's (a row per field, keyed by
				// predicate and hash) in its place.
				rows := map[string][]byte{}
				tx.Bucket([]byte(rmClaimBucket)).ForEach(func(k, v []byte) error {
					if !bytes.HasPrefix(k, []byte("f\x00")) {
						rows[string(k)] = bytes.Clone(v)
						return nil
					}
					fs, err := decodeFields(v)
					if err != nil {
						return err
					}
					for _, f := range fs {
						rows[string(k)+"\x00"+f.pred+"\x00"+string(f.hash[:])] = bytes.Clone(f.obj)
					}
					return nil
				})
				if len(rows) == 0 {
					t.Fatal("the fixture has no claim records")
				}
				if err := tx.DeleteBucket([]byte(rmClaimBucket)); err != nil {
					return err
				}
				b, err := tx.CreateBucket([]byte("athar.rm.claim"))
				if err != nil {
					return err
				}
				for k, v := range rows {
					if err := b.Put([]byte(k), v); err != nil {
						return err
					}
				}
				return nil
			})
		}, false},
		{"rebuild cut short", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(ctx, fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error {
				if err := newBoltTx(tx).resetBuckets(rmBuckets...); err != nil {
					return err
				}
				return tx.Bucket([]byte(pendingBucket)).Put([]byte(rmPendingKey), []byte{})
			})
		}, false},
	}
	for _, c := range cases {
		// The rebuild writes through bulk mode's buffer: once at its end, or, with a
		// budget of a few rows and three quads a batch, after nearly every batch, each
		// write among the rows and counts the earlier ones left on disk.
		for _, budget := range []int{bulkBudget, 64} {
			t.Run(fmt.Sprintf("%s, budget %d", c.name, budget), func(t *testing.T) {
				defer func(b, n int) { bulkBudget, scanBatch = b, n }(bulkBudget, scanBatch)
				if budget != bulkBudget {
					bulkBudget, scanBatch = budget, 3
				}
				dir := t.TempDir()
				st := openBbolt(t, dir)
				if err := st.Apply(ctx, fixtureBase...); err != nil {
					t.Fatal(err)
				}
				c.break_(t, st, dir)
				flushes := bulkFlushes.Load()
				st = openBbolt(t, dir)
				if c.redo {
					// Finished from the change's redo, not rebuilt.
					if st.replayed != 1 || st.FullScans() != 0 {
						t.Errorf("Open finished %d changes from their redo and made %d full scans, want 1 and 0", st.replayed, st.FullScans())
					}
				} else if n := bulkFlushes.Load() - flushes; budget == 64 && n < 3 {
					t.Errorf("the rebuild wrote the buffer %d times, want many", n)
				}
				if st.rmStale {
					t.Error("the read model is still stale after Open")
				}
				st.Close()
				editBolt(t, dir, func(tx *bolt.Tx) error {
					for _, b := range rmRetiredBuckets {
						if tx.Bucket([]byte(b)) != nil {
							t.Errorf("the bucket %s of an earlier layout is still there", b)
						}
					}
					return nil
				})
				if got := dumpReadModel(t, dir); !reflect.DeepEqual(got, want) {
					t.Errorf("rebuilt read model =\n%q\nApply keeps\n%q", got, want)
				}
			})
		}
	}
}

// TestCheckReadModel: the check passes on a read model kept by Apply and names the row
// when one is lost or altered behind the store's back.
func TestCheckReadModel(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openBbolt(t, dir)
	if err := st.Apply(ctx, fixtureBase...); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, fixtureChange...); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, routesBase...); err != nil {
		t.Fatal(err)
	}
	// A claim node and its attestation, for the claim records, and a name for the entity
	// records.
	claim := "claim:0123456789abcdef0123"
	if err := st.Apply(ctx, athar.Changeset{Narration: "narration:n5", Add: []athar.Quad{
		mquad("narration:n5", claim, "subject", athar.IRITerm(athar.ID("person:a").IRI())),
		mquad("narration:n5", claim, "predicate", athar.IRITerm(athar.VocabBase+"advises")),
		mquad("narration:n5", claim, "object", athar.IRITerm(athar.ID("concept:c").IRI())),
		mquad("narration:n5", "attestation:00", "claim", athar.IRITerm(athar.ID(claim).IRI())),
		mquad("narration:n5", "attestation:00", "narration", athar.IRITerm(athar.ID("narration:n5").IRI())),
		mquad("narration:n5", "attestation:00", "start", athar.Term{Literal: "3", Datatype: athar.XSDInteger}),
		{Subject: athar.ID("person:a").IRI(), Predicate: athar.RDFSLabel, Object: athar.StringTerm("A"), Label: athar.ID("narration:n5").IRI()},
	}}); err != nil {
		t.Fatal(err)
	}
	if err := st.CheckReadModel(ctx); err != nil {
		t.Fatalf("a read model kept by Apply: %v", err)
	}
	cs, err := st.Claims(ctx, []athar.ID{athar.ID(claim)})
	if err != nil || cs[0] == nil || cs[0].Subject != "person:a" || len(cs[0].Attestations) != 1 || cs[0].Attestations[0].Start != 3 {
		t.Fatalf("the claim from its records: %+v, %v", cs, err)
	}
	st.Close()
	for _, b := range rmBuckets {
		t.Run(b, func(t *testing.T) {
			var key string
			editBolt(t, dir, func(tx *bolt.Tx) error {
				k, _ := tx.Bucket([]byte(b)).Cursor().First()
				if k == nil {
					return nil
				}
				key = string(k)
				return tx.Bucket([]byte(b)).Put(k, []byte("altered"))
			})
			if key == "" {
				t.Skip("the fixture keeps no row here")
			}
			st := openBbolt(t, dir)
			err := st.CheckReadModel(ctx)
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", key)) {
				t.Errorf("row %s %q altered: check says %v", b, key, err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error { return tx.Bucket([]byte(b)).Delete([]byte(key)) })
			st = openBbolt(t, dir)
			if err := st.CheckReadModel(ctx); err == nil || !strings.Contains(err.Error(), "missing") {
				t.Errorf("row %s %q lost: check says %v", b, key, err)
			}
			// A rebuild cut short makes Open rebuild it as Apply keeps it, for the next bucket.
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error {
				if err := newBoltTx(tx).resetBuckets(rmBuckets...); err != nil {
					return err
				}
				return tx.Bucket([]byte(pendingBucket)).Put([]byte(rmPendingKey), []byte{})
			})
			st = openBbolt(t, dir)
			err = st.CheckReadModel(ctx)
			st.Close()
			if err != nil {
				t.Fatalf("after a rebuild: %v", err)
			}
		})
	}
}

// TestReadModelAgreesWithCayley compares every read the read model answers with the same
// read from Cayley's indexes, after each of a random sequence of writes.
func TestReadModelAgreesWithCayley(t *testing.T) {
	// bulk is a bbolt store in bulk mode, every read going through the buffer, written out
	// only at the end; spill the same with the buffer written out after almost every step,
	// so that reads see it over what the flushes left on disk, without the filter of keys
	// on disk; grow the same with a filter sized for a few keys, regrown as they pass
	// that. At the end their disks hold what the same writes leave without bulk mode, byte
	// for byte.
	boltDir, bulkDir, spillDir, growDir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	defer func() {
		if t.Failed() {
			return
		}
		names := append([]string{manifestBucket, pendingBucket}, rmBuckets...)
		want := dumpBuckets(t, boltDir, names...)
		if len(want) < 100 {
			t.Fatalf("the writes left %d rows: too few to compare", len(want))
		}
		for _, dir := range []string{bulkDir, spillDir, growDir} {
			got := dumpBuckets(t, dir, names...)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("after bulk mode, %q = %q, without it %q", k, got[k], v)
				}
			}
			for k, v := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("after bulk mode, %q = %q, absent without it", k, v)
				}
			}
		}
	}()
	for _, spec := range []string{"memory:", "bbolt:" + boltDir, "bulk:" + bulkDir, "spill:" + spillDir, "grow:" + growDir} {
		kind, dir, _ := strings.Cut(spec, ":")
		t.Run(kind, func(t *testing.T) {
			bulk := kind == "bulk" || kind == "spill" || kind == "grow"
			if bulk {
				spec = "bbolt:" + dir
				defer func(b, n int, f uint) { bulkBudget, bulkListMax, bulkFilterMin = b, n, f }(bulkBudget, bulkListMax, bulkFilterMin)
				bulkBudget = 1 << 30
				switch kind {
				case "spill":
					// Written out often, and every read of a key not in the buffer a seek:
					// too many keys on disk at the start to list them.
					bulkBudget, bulkListMax = 4<<10, 0
				case "grow":
					bulkBudget, bulkFilterMin = 4<<10, 16
				}
			}
			st, err := Open(spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if bulk {
				if err := st.BeginBulk(); err != nil {
					t.Fatal(err)
				}
				defer func() {
					m := st.man.(*bulkManifest)
					if (m.onDisk == nil) != (kind == "spill") {
						t.Errorf("%s: the keys on disk listed: %v", kind, m.onDisk != nil)
					}
					if kind == "grow" && m.onDiskCap < 200 {
						t.Errorf("grow: the filter of keys on disk is sized for %d keys: never regrown", m.onDiskCap)
					}
					flushes := m.flushes
					if err := st.EndBulk(); err != nil {
						t.Fatal(err)
					}
					if kind != "bulk" && flushes < 3 {
						t.Errorf("bulk mode wrote its buffer out %d time(s) before the end; the test wants it several times", flushes)
					}
					if err := st.CheckReadModel(context.Background()); err != nil {
						t.Errorf("after EndBulk: %v", err)
					}
					checkManifestAgainstScan(t, st)
				}()
			}
			ctx := context.Background()
			ids := storetest.RandomIDs
			withRoutes, definedSeen := 0, 0
			defer func() {
				if withRoutes == 0 {
					t.Error("no narration of the random writes had routes")
				}
				if definedSeen == 0 {
					t.Error("no entity of the random writes was defined")
				}
			}()
			storetest.RandomWrites(t, st, 60, func(step int) {
				fromModel, err := st.Entities(ctx, ids)
				if err != nil {
					t.Fatal(err)
				}
				about, err := st.ClaimsAbout(ctx, ids)
				if err != nil {
					t.Fatal(err)
				}
				edges, err := st.Edges(ctx, ids)
				if err != nil {
					t.Fatal(err)
				}
				// Every claim about the entities, with its attestations, from the read
				// model's claim records and from Cayley's quads.
				var cids []athar.ID
				for _, refs := range about {
					for _, r := range refs {
						cids = append(cids, r.ID)
					}
				}
				claims, err := st.Claims(ctx, cids)
				if err != nil {
					t.Fatal(err)
				}
				fromCayley, err := st.ClaimsFromCayley(ctx, cids)
				if err != nil {
					t.Fatal(err)
				}
				for i, id := range cids {
					if claims[i] == nil || !reflect.DeepEqual(claims[i], fromCayley[i]) {
						t.Fatalf("step %d: claim %s: read model %+v, Cayley %+v", step, id, claims[i], fromCayley[i])
					}
				}
				adjacency := func() map[string][]athar.Edge {
					out := map[string][]athar.Edge{}
					for _, id := range ids {
						after := ""
						for {
							es, next, err := st.WeightedEdges(ctx, id, after, 3)
							if err != nil {
								t.Fatal(err)
							}
							out["w "+string(id)] = append(out["w "+string(id)], es...)
							if next == "" {
								break
							}
							after = next
						}
					}
					between, err := st.EdgesBetween(ctx, ids[:7], ids[3:])
					if err != nil {
						t.Fatal(err)
					}
					sortEdges(between)
					out["between"] = between
					return out
				}
				// Every narration's routes, from its row and from Cayley's quads.
				nids := []athar.ID{"narration:absent"}
				for i := range 6 {
					nids = append(nids, athar.ID(fmt.Sprintf("narration:r%d", i)))
				}
				routes, err := st.NarrationRoutes(ctx, nids)
				if err != nil {
					t.Fatal(err)
				}
				routesFromCayley, err := st.NarrationRoutesFromCayley(ctx, nids)
				if err != nil {
					t.Fatal(err)
				}
				sums, err := st.NarrationSummaries(ctx, nids)
				if err != nil {
					t.Fatal(err)
				}
				sumsFromCayley, err := st.NarrationSummariesFromCayley(ctx, nids)
				if err != nil {
					t.Fatal(err)
				}
				for i, id := range nids {
					if !reflect.DeepEqual(sums[i], sumsFromCayley[i]) {
						t.Fatalf("step %d: summary of %s: read model %+v, Cayley %+v", step, id, sums[i], sumsFromCayley[i])
					}
				}
				for i, id := range nids {
					if !reflect.DeepEqual(routes[i], routesFromCayley[i]) {
						t.Fatalf("step %d: routes of %s: read model %+v, Cayley %+v", step, id, routes[i], routesFromCayley[i])
					}
					if routes[i] != nil && len(routes[i].Routes()) > 0 {
						withRoutes++
					}
				}
				if step%10 == 9 {
					if err := st.CheckReadModel(ctx); err != nil {
						t.Fatalf("step %d: %v", step, err)
					}
				}
				fromAdj := adjacency()
				defIDs := append(append([]athar.ID{}, ids...), nids...)
				defined, err := st.DefinedBy(ctx, defIDs)
				if err != nil {
					t.Fatal(err)
				}
				st.mu.Lock()
				st.rmStale = true // reads go to Cayley's indexes
				st.mu.Unlock()
				fromScan := adjacency()
				definedFromCayley, err := st.DefinedBy(ctx, defIDs)
				if err != nil {
					t.Fatal(err)
				}
				st.mu.Lock()
				st.rmStale = false
				st.mu.Unlock()
				if !reflect.DeepEqual(fromAdj, fromScan) {
					t.Fatalf("step %d: adjacency: read model %+v, Cayley %+v", step, fromAdj, fromScan)
				}
				if !reflect.DeepEqual(defined, definedFromCayley) {
					t.Fatalf("step %d: defined by: read model %v, Cayley %v", step, defined, definedFromCayley)
				}
				if len(defined) > 0 {
					definedSeen++
				}
				st.mu.RLock()
				defer st.mu.RUnlock()
				for i, id := range ids {
					e, err := st.entity(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(fromModel[i], e) {
						t.Fatalf("step %d: entity %s: read model %+v, Cayley %+v", step, id, fromModel[i], e)
					}
					refs, err := st.claimsAbout(ctx, id)
					if err != nil {
						t.Fatal(err)
					}
					if len(refs) == 0 && len(about[id]) == 0 {
						continue
					}
					if !reflect.DeepEqual(about[id], refs) {
						t.Fatalf("step %d: claims about %s: read model %+v, Cayley %+v", step, id, about[id], refs)
					}
				}
				scanned, err := st.edgesByScan(ctx, ids)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(edges, scanned) {
					t.Fatalf("step %d: edges: read model %+v, Cayley %+v", step, edges, scanned)
				}
			})
		})
	}
}

// TestBulkModeCrash: a process killed in bulk mode -- its buffer lost, part of it written
// out by earlier flushes -- leaves the markers set, and the next Open rebuilds the manifest
// and the read model to the very rows the same writes leave without bulk mode.
func TestBulkModeCrash(t *testing.T) {
	ctx := context.Background()
	plainDir, crashDir := t.TempDir(), t.TempDir()
	defer func(b int) { bulkBudget = b }(bulkBudget)
	bulkBudget = 16 << 10
	for _, dir := range []string{plainDir, crashDir} {
		st, err := Open("bbolt:"+dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if dir == crashDir {
			if err := st.BeginBulk(); err != nil {
				t.Fatal(err)
			}
		}
		storetest.RandomWrites(t, st, 40, func(int) {})
		if dir == crashDir {
			m := st.man.(*bulkManifest)
			if m.flushes == 0 || m.bytes == 0 {
				t.Fatalf("%d flush(es), %d bytes buffered: the crash should find both", m.flushes, m.bytes)
			}
			st.man = m.base // the kill: the buffer is gone, nothing more is written
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
	pending := dumpBuckets(t, crashDir, pendingBucket)
	for _, k := range bulkMarkers {
		if _, ok := pending[pendingBucket+" "+k]; !ok {
			t.Fatalf("marker %q not set on disk after the crash: %v", k, pending)
		}
	}
	st, err := Open("bbolt:"+crashDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.CheckReadModel(ctx); err != nil {
		t.Error(err)
	}
	checkManifestAgainstScan(t, st)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	names := append([]string{manifestBucket, pendingBucket}, rmBuckets...)
	want, got := dumpBuckets(t, plainDir, names...), dumpBuckets(t, crashDir, names...)
	if !reflect.DeepEqual(want, got) {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("rebuilt after the crash, %q = %q; without bulk mode %q", k, got[k], v)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("rebuilt after the crash, %q is there; not without bulk mode", k)
			}
		}
	}
}

// TestBulkUpdateFailureUndone: an update that fails in bulk mode leaves the buffer as it
// found it -- what it put, deleted or reset undone -- as a failed bbolt transaction would.
func TestBulkUpdateFailureUndone(t *testing.T) {
	st, err := Open("bbolt:"+t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.man.update(func(tx manifestTx) error { return tx.put(rmPredBucket, "on disk", []byte("d")) }); err != nil {
		t.Fatal(err)
	}
	if err := st.BeginBulk(); err != nil {
		t.Fatal(err)
	}
	if err := st.man.update(func(tx manifestTx) error {
		if err := tx.put(rmPredBucket, "buffered", []byte("b")); err != nil {
			return err
		}
		return tx.del(rmPredBucket, "gone")
	}); err != nil {
		t.Fatal(err)
	}
	dump := func() map[string]string { return readManifest(st) }
	before, bytesBefore := dump(), st.man.(*bulkManifest).bytes
	boom := fmt.Errorf("boom")
	err = st.man.update(func(tx manifestTx) error {
		for _, w := range []func() error{
			func() error { return tx.put(rmPredBucket, "buffered", []byte("changed")) },
			func() error { return tx.put(rmPredBucket, "new", []byte("n")) },
			func() error { return tx.del(rmPredBucket, "on disk") },
			func() error { return tx.resetBuckets(rmEntityBucket, pendingBucket) },
			func() error { return tx.put(rmEntityBucket, "after the reset", []byte("r")) },
			func() error { return tx.put("athar.new-bucket", "k", []byte("v")) },
		} {
			if err := w(); err != nil {
				return err
			}
		}
		if tx.get(rmPredBucket, "on disk") != nil || string(tx.get(rmPredBucket, "buffered")) != "changed" {
			t.Error("the update does not read its own writes")
		}
		return boom
	})
	if err != boom {
		t.Fatalf("update returned %v, want its function's error", err)
	}
	after := dump()
	if !reflect.DeepEqual(before, after) {
		t.Errorf("after a failed update the buffer reads\n%v\nbefore it\n%v", after, before)
	}
	if before[rmPredBucket+" on disk"] != "d" || before[rmPredBucket+" buffered"] != "b" {
		t.Fatalf("the fixture is not what the test expects: %v", before)
	}
	if got := st.man.(*bulkManifest).bytes; got != bytesBefore {
		t.Errorf("the buffer counts %d bytes after the failed update, %d before", got, bytesBefore)
	}
	var exists bool
	_ = st.man.view(func(tx manifestTx) error { exists = tx.exists("athar.new-bucket"); return nil })
	if exists {
		t.Error("a bucket the failed update created is still there")
	}
}

// readManifest reads every key of the manifest's and read model's buckets as st's readers
// see them (through the buffer, in bulk mode), and whether each bucket exists.
func readManifest(st *Store) map[string]string {
	st.mu.Lock()
	st.settleLocked() // as readers see it: with a bulk load's last step 3 written
	st.mu.Unlock()
	out := map[string]string{}
	_ = st.man.view(func(tx manifestTx) error {
		for _, b := range append([]string{manifestBucket, pendingBucket}, rmBuckets...) {
			tx.scan(b, "", func(k string, v []byte) bool { out[b+" "+k] = string(v); return true })
			out[b+" exists"] = fmt.Sprint(tx.exists(b))
		}
		return nil
	})
	return out
}

// refusingStore is Cayley refusing every change, after the time a commit takes.
type refusingStore struct{ graph.QuadStore }

var errRefused = errors.New("refused by the test")

func (refusingStore) ApplyDeltas([]graph.Delta, graph.IgnoreOpts) error {
	time.Sleep(20 * time.Millisecond)
	return errRefused
}

// TestBulkRowsBesideRefusedCommit: in bulk mode an addition's read-model rows are written
// while Cayley commits it (writeBeside); if Cayley refuses the change, they are undone, and
// the store reads as before.
func TestBulkRowsBesideRefusedCommit(t *testing.T) {
	ctx := context.Background()
	st := openBbolt(t, t.TempDir())
	defer st.Close()
	if err := st.BeginBulk(); err != nil {
		t.Fatal(err)
	}
	if err := st.Apply(ctx, fixtureBase...); err != nil {
		t.Fatal(err)
	}
	before := readManifest(st)
	add := fixtureChange[2] // n4: an addition only, so its rows are written beside
	if len(add.Remove) != 0 || len(add.Add) == 0 {
		t.Fatalf("the fixture's change is not an addition: %+v", add)
	}
	var written bool
	qs := st.qs
	st.qs = refusingStore{qs}
	testBeside = func(b *besideRows) {
		<-b.done
		written = b.err == nil && len(b.undo) > 0
	}
	err := st.Apply(ctx, add)
	st.qs, testBeside = qs, nil
	if !errors.Is(err, errRefused) {
		t.Fatalf("Apply = %v, want Cayley's refusal", err)
	}
	if !written {
		t.Fatal("no rows were written beside the refused commit: the test tests nothing")
	}
	if after := readManifest(st); !reflect.DeepEqual(before, after) {
		t.Errorf("after the refused commit the buffer reads\n%v\nbefore it\n%v", after, before)
	}
	if st.rmStale {
		t.Error("the read model is marked stale after a refused commit that changed nothing")
	}
	if err := st.CheckReadModel(ctx); err != nil {
		t.Error(err)
	}
	// The same change, accepted, writes its rows beside and agrees with Cayley.
	if err := st.Apply(ctx, add); err != nil {
		t.Fatal(err)
	}
	if err := st.CheckReadModel(ctx); err != nil {
		t.Error(err)
	}
	if err := st.EndBulk(); err != nil {
		t.Fatal(err)
	}
	if err := st.CheckReadModel(ctx); err != nil {
		t.Error(err)
	}
}

// onEachBackend runs fn as a subtest on a new store of each backend, memory and bbolt.
func onEachBackend(t *testing.T, fn func(t *testing.T, st *Store)) {
	for _, spec := range []string{"memory:", "bbolt:" + t.TempDir()} {
		t.Run(spec[:strings.IndexByte(spec, ':')], func(t *testing.T) {
			st, err := Open(spec, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			fn(t, st)
		})
	}
}

// TestDefinersFromCayley: DefinedBy and Mentions read from Cayley's quads, as while the
// read model is stale, give what they give from the read model when corpus records and a
// reserved graph define and mention entities (storetest's MentionsOfCorpusRecords checks
// the read model's answers).
func TestDefinersFromCayley(t *testing.T) {
	ctx := context.Background()
	st := openBbolt(t, t.TempDir())
	defer st.Close()
	typed := func(label athar.ID, subjects ...string) athar.Changeset {
		cs := athar.Changeset{Narration: label}
		for _, s := range subjects {
			cs.Add = append(cs.Add, athar.Quad{Subject: athar.ID(s).IRI(), Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypePerson.IRI()), Label: label.IRI()})
		}
		return cs
	}
	rec := func(key string, narration athar.ID, people ...string) athar.Changeset {
		cs := typed(athar.ID("corpus:"+key), people...)
		cs.Add = append(cs.Add,
			athar.Quad{Subject: narration.IRI(), Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypeNarration.IRI()), Label: cs.Narration.IRI()},
			athar.Quad{Subject: narration.IRI(), Predicate: athar.PredCorpusRecord, Object: athar.IRITerm(cs.Narration.IRI()), Label: cs.Narration.IRI()})
		return cs
	}
	doc := typed("narration:d", "person:p")
	doc.Add = append(doc.Add, athar.Quad{Subject: athar.ID("narration:d").IRI(), Predicate: athar.RDFType, Object: athar.IRITerm(athar.TypeNarration.IRI()), Label: athar.ID("narration:d").IRI()})
	if err := st.Apply(ctx, typed(athar.PeopleGraph, "person:p", "person:t"), doc, rec("x-1", "narration:x-1", "person:p", "person:c"), rec("x-2", "narration:d", "person:e")); err != nil {
		t.Fatal(err)
	}
	ids := []athar.ID{"person:p", "person:t", "person:c", "person:e", "person:none"}
	read := func() (map[athar.ID][]athar.ID, map[athar.ID][]athar.ID) {
		defs, err := st.DefinedBy(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		st.mentions.m = nil
		ms, err := st.Mentions(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		return defs, ms
	}
	defs, ms := read()
	want := map[athar.ID][]athar.ID{"person:p": {athar.PeopleGraph, "narration:d", "narration:x-1"}, "person:t": {athar.PeopleGraph}, "person:c": {"narration:x-1"}, "person:e": {"narration:d"}}
	if !reflect.DeepEqual(defs, want) {
		t.Fatalf("DefinedBy = %v, want %v", defs, want)
	}
	st.mu.Lock()
	st.rmStale = true // reads go to Cayley's indexes
	st.mu.Unlock()
	staleDefs, staleMs := read()
	st.mu.Lock()
	st.rmStale = false
	st.mu.Unlock()
	if !reflect.DeepEqual(staleDefs, defs) || !reflect.DeepEqual(staleMs, ms) {
		t.Fatalf("from Cayley: DefinedBy %v, Mentions %v; from the read model: %v, %v", staleDefs, staleMs, defs, ms)
	}
}
