package load

import (
	"context"
	"strings"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/ingest"
	"github.com/athar-hadith/athar/schema"
	"github.com/athar-hadith/athar/seeds"
)

func seedSourcesForTest() []Source {
	var out []Source
	for _, f := range seeds.Files() {
		out = append(out, Source{Name: f.Name, Data: f.Data})
	}
	return out
}

// TestLoadCounts checks the one load loop's totals: documents imported, unchanged on a
// rerun, refused without stopping the others, N-Quads restored, and what a done context
// leaves not loaded.
func TestLoadCounts(t *testing.T) {
	seedsN := len(seeds.Files())
	bad := Source{Name: "bad.yaml", Data: []byte("narration: [not a document\n")}
	nq := Source{Name: "extra.nq", Data: []byte("<https://w3id.org/athar/person/x> <http://www.w3.org/2000/01/rdf-schema#label> \"X\" <https://w3id.org/athar/narration/x> .\n")}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name  string
		ctx   context.Context
		runs  int // the last run's stats are checked
		srcs  []Source
		opts  Options
		want  Stats
		check func(t *testing.T, st Stats, report string)
	}{
		{name: "seeds", runs: 1, srcs: seedSourcesForTest(),
			want: Stats{Documents: seedsN, Changed: seedsN}},
		{name: "seeds again, in batches of 2", runs: 2, srcs: seedSourcesForTest(), opts: Options{Batch: 2},
			want: Stats{Documents: seedsN, Unchanged: seedsN}},
		{name: "a refusal stops nothing", runs: 1, srcs: append(seedSourcesForTest(), bad),
			want: Stats{Documents: seedsN + 1, Changed: seedsN, Refused: 1},
			check: func(t *testing.T, _ Stats, report string) {
				if !strings.Contains(report, "bad.yaml") {
					t.Errorf("the refusal is not reported: %q", report)
				}
			}},
		{name: "N-Quads that restore no narration are refused", runs: 1, srcs: []Source{nq},
			want: Stats{Refused: 1}},
		{name: "cancelled", ctx: cancelled, runs: 1, srcs: append(seedSourcesForTest(), nq),
			want: Stats{Documents: seedsN, NotLoaded: seedsN + 1},
			check: func(t *testing.T, st Stats, _ string) {
				if err := st.Interrupted("load"); err == nil || !strings.Contains(err.Error(), "not loaded") {
					t.Errorf("Interrupted: %v", err)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			w := newTestImporter(t)
			var report strings.Builder
			var st Stats
			for range tc.runs {
				report.Reset()
				opts := tc.opts
				opts.Report = &report
				st = Run(ctx, w, tc.srcs, opts)
			}
			got := st
			got.Claims, got.Entities, got.Stop = 0, 0, nil
			if got != tc.want {
				t.Errorf("stats %+v, want %+v\nreport:\n%s", got, tc.want, report.String())
			}
			if tc.want.Changed > 0 && (st.Claims == 0 || st.Entities == 0) {
				t.Errorf("nothing added: %v", st)
			}
			if tc.check != nil {
				tc.check(t, st, report.String())
			}
		})
	}
}

// TestLoadRestoresNQuads loads an export of a graph into an empty one.
func TestLoadRestoresNQuads(t *testing.T) {
	ctx := context.Background()
	src := newTestImporter(t)
	if st := Run(ctx, src, seedSourcesForTest(), Options{}); st.Changed == 0 {
		t.Fatalf("seeds: %v", st)
	}
	var b strings.Builder
	if err := cayleystore.WriteNQuads(&b, quadsOf(t, src)); err != nil {
		t.Fatal(err)
	}
	st := Run(ctx, newTestImporter(t), []Source{{Name: "all.nq", Data: []byte(b.String())}}, Options{})
	if st.Refused != 0 || st.Restored != len(seeds.Files()) {
		t.Fatalf("restore: %v", st)
	}
}

// newTestImporter returns a local writer over a store of its own.
func newTestImporter(t *testing.T) *testWriter {
	t.Helper()
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &testWriter{ingest.NewLocal(st, schema.Vocabulary()), st}
}

type testWriter struct {
	*ingest.Local
	store athar.Store
}

func quadsOf(t *testing.T, l *testWriter) []athar.Quad {
	t.Helper()
	var qs []athar.Quad
	if err := l.store.Quads(context.Background(), func(q athar.Quad) error { qs = append(qs, q); return nil }); err != nil {
		t.Fatal(err)
	}
	return qs
}

// TestCheckAll checks the seeds in a scratch store and stops at a refusal.
func TestCheckAll(t *testing.T) {
	ctx := context.Background()
	docs, ids, err := CheckAll(ctx, newTestImporter(t), seedSourcesForTest())
	if err != nil || len(docs) != len(seeds.Files()) || len(ids) != len(docs) {
		t.Fatalf("the seeds: %d docs, %d ids, %v", len(docs), len(ids), err)
	}
	for i, d := range docs {
		if athar.ID(d.Document.Narration.ID) != ids[i] || len(d.Text) == 0 {
			t.Errorf("doc %d is %s with %d bytes, id %s", i, d.Document.Narration.ID, len(d.Text), ids[i])
		}
	}
	bad := Source{Name: "bad.yaml", Data: []byte("narration: [not a document\n")}
	if _, _, err := CheckAll(ctx, newTestImporter(t), append(seedSourcesForTest(), bad)); err == nil {
		t.Error("a refused document was not reported")
	}
}
