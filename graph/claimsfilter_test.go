package graph_test

import (
	"context"
	"fmt"
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

// TestClaimsBySubjectOrObject: claims(subject, object, predicate) -- any of subject and
// object, with or without a predicate -- pages the sorted list of claims about the subject
// or object instead of reading every matching claim, and gives exactly what the filter
// gives: the same claims, order, cursors, totals and attestations, page by page. Checked
// for every predicate of the seeds' main people and events on either side, and every pair
// of a subject and its objects.
func TestClaimsBySubjectOrObject(t *testing.T) {
	var finds int
	e := newEnv(t, options{wrap: func(st athar.Store) athar.Store { return findCounter{st, &finds} }})
	type claim struct {
		ID           string
		Subject      struct{ ID string }
		Predicate    string
		Object       *struct{ ID string }
		Value        *string
		Attestations []struct {
			Narration struct{ ID string }
			Evidence  *string
		}
	}
	type page struct {
		Claims connectionJSON[claim]
	}
	// minAttestations: 1 keeps every claim (each has a narration) and takes the filter.
	const q = `query($s: ID, $o: ID, $p: String, $after: String, $min: Int) {
		claims(subject: $s, object: $o, predicate: $p, first: 2, after: $after, minAttestations: $min) {
			totalCount pageInfo { hasNextPage endCursor }
			edges { cursor node { id subject { id } predicate object { id } value attestations { narration { id } evidence } } } } }`
	walk := func(vars map[string]any) (pages []page) {
		t.Helper()
		for {
			var pg page
			e.query(t, q, vars, &pg)
			pages = append(pages, pg)
			if !pg.Claims.PageInfo.HasNextPage {
				return pages
			}
			if len(pages) > 100 {
				t.Fatalf("%v: no end after 100 pages", vars)
			}
			vars["after"] = *pg.Claims.PageInfo.EndCursor
		}
	}
	filters, longest := 0, 0
	compare := func(s, o, p string) {
		t.Helper()
		vars := map[string]any{}
		for k, v := range map[string]string{"s": s, "o": o, "p": p} {
			if v != "" {
				vars[k] = v
			}
		}
		name := fmt.Sprintf("subject %q object %q predicate %q", s, o, p)
		before := finds
		fast := walk(vars)
		if finds != before {
			t.Errorf("%s: FindClaims called %d times", name, finds-before)
		}
		delete(vars, "after")
		vars["min"] = 1
		slow := walk(vars)
		if finds == before {
			t.Fatalf("%s: minAttestations did not take the filter: the test compares nothing", name)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\nlist   %+v\nfilter %+v", name, fast, slow)
		}
		n := 0
		for _, pg := range slow {
			n += len(pg.Claims.Edges)
		}
		filters, longest = filters+1, max(longest, n)
	}
	for _, x := range []string{"person:muhammad", "person:umar-ibn-al-khattab", "person:abu-bakr", "event:badr", "group:companions-at-badr",
		// Both sides of precedes: the claims with them as object must stay out of their
		// claims as subject, and the other way round.
		"event:consultation-on-prisoners", "event:acceptance-of-ransom", "event:defeat-of-mushrikeen-at-badr", "concept:ransom"} {
		compare(x, "", "")
		compare("", x, "")
		for _, side := range []string{"subject", "object"} {
			var all struct {
				Claims struct {
					TotalCount int
					Nodes      []struct {
						Predicate string
						Object    *struct{ ID string }
					}
				}
			}
			e.query(t, fmt.Sprintf(`query($x: ID!) { claims(%s: $x, first: 100, minAttestations: 1) { totalCount nodes { predicate object { id } } } }`, side), map[string]any{"x": x}, &all)
			if all.Claims.TotalCount != len(all.Claims.Nodes) {
				t.Fatalf("%s %s: %d claims, more than a page", side, x, all.Claims.TotalCount)
			}
			preds, objects := map[string]bool{}, map[string]bool{}
			for _, n := range all.Claims.Nodes {
				preds[n.Predicate] = true
				if n.Object != nil && side == "subject" {
					objects[n.Object.ID] = true
				}
			}
			for p := range preds {
				if side == "subject" {
					compare(x, "", p)
				} else {
					compare("", x, p)
				}
			}
			for o := range objects {
				compare(x, o, "")
			}
		}
	}
	compare("person:no-such-person", "", "")
	compare("", "person:no-such-person", "advises")
	if filters < 50 || longest < 5 {
		t.Fatalf("%d filters, the longest %d claims: the seeds no longer exercise paging", filters, longest)
	}
	t.Logf("%d filters, the longest %d claims", filters, longest)
}
