package cayleystore

import (
	"context"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/athar-hadith/athar/internal/athar"
)

// commits returns the id of bbolt's last committed write transaction: one more per commit.
func commits(t *testing.T, st *Store) int {
	t.Helper()
	var id int
	if err := st.man.(boltManifest).db.View(func(tx *bolt.Tx) error {
		id = tx.ID()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestRemovalCommitsOnce: a change that only removes quads -- a narration deleted, or one
// re-imported with less -- commits in one bbolt transaction, the manifest's entries and
// the read model's rows in Cayley's, and leaves them exactly as the two-transaction path
// does; a change that adds takes two. A label an earlier failure left pending takes the
// two-transaction path, and a third rebuilds its entry.
func TestRemovalCommitsOnce(t *testing.T) {
	ctx := context.Background()
	st := openBbolt(t, t.TempDir())
	defer st.Close()
	if err := st.Apply(ctx, fixtureBase...); err != nil {
		t.Fatal(err)
	}
	apply := func(what string, want int, cs ...athar.Changeset) {
		t.Helper()
		before := commits(t, st)
		if err := st.Apply(ctx, cs...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := commits(t, st) - before; got != want {
			t.Errorf("%s: %d commits, want %d", what, got, want)
		}
		checkAgainstScan(t, st)
		if err := st.CheckReadModel(ctx); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var pending []string
		if err := st.man.view(func(tx manifestTx) error {
			pending = tx.keys(pendingBucket)
			return nil
		}); err != nil || len(pending) > 0 {
			t.Fatalf("%s: left pending %q (%v)", what, pending, err)
		}
	}
	// n1 loses one claim of three: its entry keeps the other two.
	apply("a re-import with less", 1, athar.Changeset{Narration: "narration:n1", Remove: fixtureBase[0].Add[2:]})
	// n2 shares person:a's advice with n1 and person:b's name with n3: their rows stay.
	apply("a delete", 1, athar.Changeset{Narration: "narration:n2", Remove: fixtureBase[1].Add})
	apply("an import", 2, fixtureChange[2])
	leaveStale(t, st, "narration:n3")
	apply("a delete of a pending narration", 3, athar.Changeset{Narration: "narration:n3", Remove: fixtureBase[2].Add})
	got, err := st.NarrationQuads(ctx, "narration:n2")
	if err != nil || len(got) != 0 {
		t.Fatalf("a deleted narration's quads: %v, %v", got, err)
	}
}
