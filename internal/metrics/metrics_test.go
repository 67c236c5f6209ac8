package metrics_test

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/metrics"
	"github.com/athar-hadith/athar/internal/storetest"
)

// The instrumented store must still be a conforming store.
func TestInstrumentedStoreConforms(t *testing.T) {
	m := metrics.New()
	storetest.Run(t, func(t *testing.T) athar.Store {
		st, err := cayleystore.Open("memory:", nil)
		if err != nil {
			t.Fatal(err)
		}
		return m.Store(st)
	})
}

func TestExposition(t *testing.T) {
	m := metrics.New()
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	ist := m.Store(st)
	defer ist.Close()
	ctx := context.Background()
	if _, err := ist.Entities(ctx, []athar.ID{"person:x"}); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_ = ist.Apply(cancelled, athar.Changeset{Add: []athar.Quad{{Subject: "a", Predicate: "b", Object: athar.StringTerm("c"), Label: "d"}}})
	m.ObserveRequest("/graphql", "POST", 200, 3*time.Millisecond)
	m.Set("replica_lag", 2)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, want := range []string{
		`athar_store_operations_total{op="entities",result="ok"} 1`,
		`athar_store_operations_total{op="apply",result="error"} 1`,
		`athar_http_requests_total{code="200",method="POST",route="/graphql"} 1`,
		`athar_state{name="replica_lag"} 2`,
		`go_goroutines`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
