package cayleystore

import (
	"context"
	"reflect"
	"testing"

	bolt "go.etcd.io/bbolt"
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

// TestReadModelIsRebuiltAtOpen breaks the read model as a crash, an older store or a cut
// rebuild would, and checks that Open restores the very rows and counts Apply keeps.
func TestReadModelIsRebuiltAtOpen(t *testing.T) {
	ctx := context.Background()
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
	cases := []struct {
		name   string
		break_ func(t *testing.T, st *Store, dir string)
	}{
		{"crash between Cayley's commit and the read model's", func(t *testing.T, st *Store, dir string) {
			crashAfterCayleyCommit(t, st, fixtureChange)
		}},
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
		}},
		{"rebuild cut short", func(t *testing.T, st *Store, dir string) {
			if err := st.Apply(ctx, fixtureChange...); err != nil {
				t.Fatal(err)
			}
			st.Close()
			editBolt(t, dir, func(tx *bolt.Tx) error {
				if err := (boltTx{tx}).resetBuckets(rmBuckets...); err != nil {
					return err
				}
				return tx.Bucket([]byte(pendingBucket)).Put([]byte(rmPendingKey), []byte{})
			})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			st := openBbolt(t, dir)
			if err := st.Apply(ctx, fixtureBase...); err != nil {
				t.Fatal(err)
			}
			c.break_(t, st, dir)
			st = openBbolt(t, dir)
			if st.rmStale {
				t.Error("the read model is still stale after Open")
			}
			st.Close()
			if got := dumpReadModel(t, dir); !reflect.DeepEqual(got, want) {
				t.Errorf("rebuilt read model =\n%q\nApply keeps\n%q", got, want)
			}
		})
	}
}
