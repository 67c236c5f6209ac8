package cayleystore_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

func TestZZNarrations(t *testing.T) {
	dir := os.Getenv("ZZ_STORE")
	if dir == "" {
		t.Skip()
	}
	st, err := cayleystore.Open("bbolt:"+dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	raw, _ := os.ReadFile("/tmp/chains-m/ids.txt")
	var ids []athar.ID
	for _, l := range strings.Split(string(raw), "\n") {
		ids = append(ids, athar.ID(l))
	}
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		if _, err := st.Narrations(ctx, ids); err != nil {
			t.Fatal(err)
		}
		t.Log(time.Since(t0))
	}
}
