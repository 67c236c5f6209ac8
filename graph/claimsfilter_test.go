package graph_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/athar-hadith/athar/internal/athar"
)

// findCounter counts FindClaims, the filter that reads every matching claim whole.
type findCounter struct {
	athar.Store
	n *int
}

func (s findCounter) FindClaims(ctx context.Context, f athar.ClaimFilter) ([]*athar.Claim, error) {
	*s.n++
	return s.Store.FindClaims(ctx, f)
}

// TestClaimsBySubjectAndPredicate: claims(subject, predicate) pages the subject's sorted
// list instead of reading every matching claim, and gives exactly what the filter gives --
// the same claims, order, cursors, totals and attestations, page by page -- for every
// predicate of the seeds' main people and events.
func TestClaimsBySubjectAndPredicate(t *testing.T) {
	var finds int
	e := newEnv(t, options{wrap: func(st athar.Store) athar.Store { return findCounter{st, &finds} }})
	type page struct {
		Claims struct {
			TotalCount int
			PageInfo   struct {
				HasNextPage bool
				EndCursor   *string
			}
			Edges []struct {
				Cursor string
				Node   struct {
					ID           string
					Object       *struct{ ID string }
					Value        *string
					Attestations []struct {
						Narration struct{ ID string }
						Evidence  *string
					}
				}
			}
		}
	}
	// minAttestations: 1 keeps every claim (each has a narration) and takes the filter.
	const q = `query($s: ID!, $p: String!, $after: String, $min: Int) {
		claims(subject: $s, predicate: $p, first: 2, after: $after, minAttestations: $min) {
			totalCount pageInfo { hasNextPage endCursor }
			edges { cursor node { id object { id } value attestations { narration { id } evidence } } } } }`
	walk := func(s, p string, min any) (pages []page) {
		t.Helper()
		var after any
		for {
			var pg page
			e.query(t, q, map[string]any{"s": s, "p": p, "after": after, "min": min}, &pg)
			pages = append(pages, pg)
			if !pg.Claims.PageInfo.HasNextPage {
				return pages
			}
			if len(pages) > 100 {
				t.Fatalf("%s %s: no end after 100 pages", s, p)
			}
			after = *pg.Claims.PageInfo.EndCursor
		}
	}
	pairs, longest := 0, 0
	for _, s := range []string{"person:muhammad", "person:umar-ibn-al-khattab", "person:abu-bakr", "event:badr", "group:companions-at-badr",
		// Both sides of precedes: the claims with them as object must stay out.
		"event:consultation-on-prisoners", "event:acceptance-of-ransom", "event:defeat-of-mushrikeen-at-badr"} {
		var all struct {
			Claims struct {
				TotalCount int
				Nodes      []struct{ Predicate string }
			}
		}
		e.query(t, `query($s: ID!) { claims(subject: $s, first: 100) { totalCount nodes { predicate } } }`, map[string]any{"s": s}, &all)
		if all.Claims.TotalCount != len(all.Claims.Nodes) {
			t.Fatalf("%s: %d claims, more than a page", s, all.Claims.TotalCount)
		}
		seen := map[string]int{}
		for _, n := range all.Claims.Nodes {
			seen[n.Predicate]++
		}
		for p, n := range seen {
			before := finds
			fast := walk(s, p, nil)
			if finds != before {
				t.Errorf("%s %s: FindClaims called %d times", s, p, finds-before)
			}
			slow := walk(s, p, 1)
			if finds == before {
				t.Fatalf("%s %s: minAttestations did not take the filter: the test compares nothing", s, p)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Errorf("%s %s:\nlist   %+v\nfilter %+v", s, p, fast, slow)
			}
			got := 0
			for _, pg := range fast {
				got += len(pg.Claims.Edges)
				if pg.Claims.TotalCount != n {
					t.Errorf("%s %s: totalCount %d, want %d", s, p, pg.Claims.TotalCount, n)
				}
			}
			if got != n {
				t.Errorf("%s %s: %d claims over %d pages, want %d", s, p, got, len(fast), n)
			}
			pairs, longest = pairs+1, max(longest, n)
		}
	}
	if pairs < 10 || longest < 3 {
		t.Fatalf("%d pairs, the longest %d claims: the seeds no longer exercise paging", pairs, longest)
	}
	t.Logf("%d subject-predicate pairs, the longest %d claims", pairs, longest)
}
