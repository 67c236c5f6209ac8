package cayleystore

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cayleygraph/quad"
	bolt "go.etcd.io/bbolt"

	"github.com/athar-hadith/athar/internal/storetest"
)

// dumpBuckets returns the rows of the named buckets of a closed store.
func dumpBuckets(t *testing.T, dir string, names ...string) map[string]string {
	t.Helper()
	rows := map[string]string{}
	editBolt(t, dir, func(tx *bolt.Tx) error {
		for _, n := range names {
			if b := tx.Bucket([]byte(n)); b != nil {
				b.ForEach(func(k, v []byte) error { rows[n+" "+string(k)] = string(v); return nil })
			}
		}
		return nil
	})
	return rows
}

// TestGradingAndTypeListsRebuilt: a store made before the grading and type lists (their
// buckets missing) rebuilds them at Open to the very bytes Apply keeps, and the read
// model's check names a list row altered behind the store's back.
func TestGradingAndTypeListsRebuilt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := openBbolt(t, dir)
	storetest.RandomWrites(t, st, 40, func(int) {})
	if err := st.CheckReadModel(ctx); err != nil {
		t.Fatalf("kept by Apply: %v", err)
	}
	st.Close()
	kept := dumpBuckets(t, dir, rmGradingBucket, rmTypesBucket)
	var gradingRow string
	for k := range kept {
		if strings.HasPrefix(k, rmGradingBucket+" i\x00") {
			gradingRow = k
		}
	}
	if gradingRow == "" || len(kept) < 20 {
		t.Fatalf("the random writes left %d rows and no graded narration", len(kept))
	}
	editBolt(t, dir, func(tx *bolt.Tx) error {
		for _, b := range []string{rmGradingBucket, rmTypesBucket} {
			if err := tx.DeleteBucket([]byte(b)); err != nil {
				return err
			}
		}
		return nil
	})
	st = openBbolt(t, dir)
	st.Close()
	if rebuilt := dumpBuckets(t, dir, rmGradingBucket, rmTypesBucket); !reflect.DeepEqual(rebuilt, kept) {
		t.Fatalf("rebuilt %d rows, Apply kept %d", len(rebuilt), len(kept))
	}
	key := strings.TrimPrefix(gradingRow, rmGradingBucket+" ")
	editBolt(t, dir, func(tx *bolt.Tx) error { return tx.Bucket([]byte(rmGradingBucket)).Put([]byte(key), []byte("altered")) })
	st = openBbolt(t, dir)
	defer st.Close()
	if err := st.CheckReadModel(ctx); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", key)) {
		t.Errorf("row %q altered: check says %v", key, err)
	}
}

// TestGradingRowsDoNotDependOnOrder: a grading's quads applied in any order, or removed in
// any order, give the same rows.
func TestGradingRowsDoNotDependOnOrder(t *testing.T) {
	const base = "https://w3id.org/athar/"
	node, n, label := quad.IRI(base+"grading/x/1"), quad.IRI(base+"narration/x"), quad.IRI(base+"narration/x")
	qs := []quad.Quad{
		{Subject: n, Predicate: quad.IRI(base + "vocab#grading"), Object: node, Label: label},
		{Subject: node, Predicate: quad.IRI(base + "vocab#position"), Object: quad.Int(1), Label: label},
		{Subject: node, Predicate: quad.IRI(base + "vocab#grader"), Object: quad.IRI(base + "person/g"), Label: label},
		{Subject: node, Predicate: quad.IRI(base + "vocab#verdict"), Object: quad.String("Sahih"), Label: label},
		{Subject: node, Predicate: quad.IRI(base + "vocab#grade"), Object: quad.String("sahih"), Label: label},
		{Subject: node, Predicate: quad.IRI(base + "vocab#scope"), Object: quad.String("text"), Label: label},
	}
	apply := func(order []int, add bool, m *memManifest) {
		for _, i := range order {
			if err := rmApply(m, qs[i], add); err != nil {
				t.Fatal(err)
			}
		}
	}
	rows := func(m *memManifest) map[string]string {
		out := map[string]string{}
		for _, k := range m.keys(rmGradingBucket) {
			out[k] = string(m.get(rmGradingBucket, k))
		}
		return out
	}
	forward, backward := newMemManifest(), newMemManifest()
	apply([]int{0, 1, 2, 3, 4, 5}, true, forward)
	apply([]int{5, 4, 3, 2, 1, 0}, true, backward)
	want := rows(forward)
	if !reflect.DeepEqual(rows(backward), want) {
		t.Errorf("reversed: %q\nin order: %q", rows(backward), want)
	}
	if got := len(m2keys(want, "i\x00")); got != 4 {
		t.Errorf("%d list rows, want 4 (grader and grade, grader, grade, all): %q", got, want)
	}
	apply([]int{2, 0, 4, 1, 3, 5}, false, forward)
	if got := rows(forward); len(got) != 0 {
		t.Errorf("all removed, %q left", got)
	}
}

func m2keys(m map[string]string, prefix string) []string {
	var out []string
	for k := range m {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out
}
