package graph

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/search"
)

// Codes the API adds to athar's.
const (
	// CodeTooComplex refuses a query nested too deeply, estimated too costly, or too slow.
	CodeTooComplex = "QUERY_TOO_COMPLEX"
)

func codedError(code, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	err.Extensions = map[string]any{"code": code}
	return err
}

// mutationAuth refuses every mutation that does not carry "Authorization: Bearer <token>"
// with the configured token, before anything executes. With no token configured it refuses
// them all.
type mutationAuth struct {
	token string
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = mutationAuth{}

func (mutationAuth) ExtensionName() string                   { return "MutationAuth" }
func (mutationAuth) Validate(graphql.ExecutableSchema) error { return nil }

func (a mutationAuth) MutateOperationContext(ctx context.Context, op *graphql.OperationContext) *gqlerror.Error {
	if op.Operation == nil || op.Operation.Operation != ast.Mutation {
		return nil
	}
	if a.token == "" {
		return codedError(string(athar.Unauthenticated), "mutations are disabled: the server has no token configured (ATHAR_TOKEN)")
	}
	scheme, token, _ := strings.Cut(op.Headers.Get("Authorization"), " ")
	// Compare digests, so that the comparison takes the same time whatever the lengths.
	got, want := sha256.Sum256([]byte(strings.TrimSpace(token))), sha256.Sum256([]byte(a.token))
	if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return codedError(string(athar.Unauthenticated), "mutations need the header Authorization: Bearer <token>, with the server's token")
	}
	return nil
}

// depthLimit refuses operations whose fields nest deeper than max. Introspection fields
// (__schema, __type) are not counted, so that tools can always read the schema.
type depthLimit struct {
	max int
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(ctx context.Context, op *graphql.OperationContext) *gqlerror.Error {
	if op.Operation == nil {
		return nil
	}
	if depth := selectionDepth(op.Operation.SelectionSet, map[string]bool{}); depth > d.max {
		return codedError(CodeTooComplex, "the query nests %d fields deep; the limit is %d", depth, d.max)
	}
	return nil
}

// selectionDepth is the deepest chain of fields in set, following fragments (each at most
// once on a path, so that a cycle cannot loop).
func selectionDepth(set ast.SelectionSet, onPath map[string]bool) int {
	deepest := 0
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(s.Name, "__") && s.Name != "__typename" {
				continue
			}
			d = 1 + selectionDepth(s.SelectionSet, onPath)
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, onPath)
		case *ast.FragmentSpread:
			if s.Definition == nil || onPath[s.Name] {
				continue
			}
			onPath[s.Name] = true
			d = selectionDepth(s.Definition.SelectionSet, onPath)
			delete(onPath, s.Name)
		}
		deepest = max(deepest, d)
	}
	return deepest
}

// costed gives the complexity limit an estimate of each field's cost: a field with `first`
// (every list that grows with the data has one, with a maximum its resolver enforces)
// costs `first` times its items; a list without `first` -- bounded by one narration
// document or by the vocabulary -- five times its items, except the edges and nodes of a
// connection, already counted by the connection; anything else one plus its fields. A
// field that scans the whole store (claims with no subject, object or narration; timeline;
// entities) costs in proportion to the store, whatever it returns: see scanCost.
type costed struct {
	graphql.ExecutableSchema
	index *search.Index
	store athar.Store // for the counts the read model keeps (claims per predicate)
	// timeline, when it keeps the orders between writes, makes a timeline or chronology
	// request cost its page: the order is computed once per write, not per request.
	timeline *TimelineCache
}

const listCost = 5

// scanFields are the fields whose resolvers may read every claim of some predicate, or
// every entity of some type, whatever page they return: readCost says how much.
var scanFields = map[string]bool{"Query.claims": true, "Query.timeline": true, "Query.entities": true, "Query.gradings": true, "Query.gradingConnection": true, "Query.chronology": true}

// scanCost is the estimated cost of a field that scans the store: one per claim read, and
// a store of n entities holds some 10n claims. An unfiltered claims over 5,000 entities
// costs as much as the whole limit.
func (c costed) scanCost() int { return 1 + 10*c.index.Len() }

// readCost is what a scanField reads before it returns its page: one per claim or entity,
// counted where the read model keeps the count. claims of one entity, of one narration or
// of one predicate is a page of a sorted list (no more than the page); of one predicate
// with minAttestations or minRoutes, every claim of the predicate; with no filter at all,
// the whole store. The timeline and chronology read the claims of their five predicates
// and every event -- once per write when a TimelineCache keeps their orders, and a request
// then reads only its page.
func (c costed) readCost(ctx context.Context, field string, args map[string]any) int {
	switch field {
	case "Query.claims":
		if args["subject"] != nil || args["object"] != nil || args["narration"] != nil {
			return 0
		}
		p, _ := args["predicate"].(string)
		if p == "" {
			return c.scanCost()
		}
		if args["minAttestations"] == nil && args["minRoutes"] == nil {
			return 0
		}
		return 1 + c.claimCount(ctx, p)
	case "Query.timeline", "Query.chronology":
		if c.timeline.cached() {
			return 0
		}
		n := 1 + c.index.LenOf(string(athar.TypeEvent))
		for _, p := range timelinePredicates {
			n += c.claimCount(ctx, p)
		}
		return n
	case "Query.entities":
		// A page of the store's list of the type's ids, and its count.
		return 0
	case "Query.gradings", "Query.gradingConnection":
		// A page of the store's list of the grader's gradings of the grade; graderName,
		// verdict and scope filter the whole list.
		if args["graderName"] == nil && args["verdict"] == nil && args["scope"] == nil {
			return 0
		}
		return 1 + c.gradingCount(ctx, args)
	}
	return c.scanCost()
}

// gradingCount is how many gradings the list of the grader and grade of args holds, by the
// store's count (one lookup); the whole store's estimate when the store cannot say. A
// merged grader's retired id has an empty list: its count is then that of the grade's.
func (c costed) gradingCount(ctx context.Context, args map[string]any) int {
	if c.store == nil {
		return c.scanCost()
	}
	var q athar.GradingPageQuery
	if g, ok := args["grade"].(string); ok {
		q.Grade = athar.Grade(strings.ReplaceAll(strings.ToLower(g), "_", "-"))
	} else if g, ok := args["grade"].(fmt.Stringer); ok {
		q.Grade = athar.Grade(strings.ReplaceAll(strings.ToLower(g.String()), "_", "-"))
	}
	if g, ok := args["grader"].(string); ok {
		q.Grader = athar.ID(g)
	}
	for {
		page, err := c.store.PageGradings(ctx, q)
		if err != nil {
			return c.scanCost()
		}
		if page.Total > 0 || q.Grader == "" {
			return page.Total
		}
		q.Grader = ""
	}
}

// claimCount is how many claims of predicate p the store holds, by the read model's count
// (one lookup); the whole store's estimate when the store cannot say.
func (c costed) claimCount(ctx context.Context, p string) int {
	if c.store == nil {
		return c.scanCost()
	}
	page, err := c.store.PageClaims(ctx, athar.ClaimPageQuery{Predicate: p, First: 0})
	if err != nil {
		return c.scanCost()
	}
	return page.Total
}

// walkFields traverse the graph, visiting up to maxVisited entities (a neighbourhood costs
// by its first instead: see Complexity).
var walkFields = map[string]bool{"Query.neighbourhood": true, "Query.shortestPath": true}

// walkCost is the estimated cost of a traversal: one per entity it may visit.
func (c costed) walkCost() int { return 1 + min(maxVisited, c.index.Len()) }

func (c costed) Complexity(ctx context.Context, typeName, field string, child int, args map[string]any) (int, bool) {
	scan := 0
	if scanFields[typeName+"."+field] {
		scan = c.readCost(ctx, typeName+"."+field, args)
	}
	if typeName+"."+field == "Query.neighbourhood" {
		// A ranked slice reads the edges of about first+1 entities and returns first of
		// them: child already counts each list of the Subgraph listCost times.
		n := DefaultNeighbourhoodFirst
		if f, ok := intArg(args["first"]); ok {
			n = f
		}
		n = min(max(n, 1), maxVisited)
		return 1 + min(n+1, c.index.Len()+1) + mulCapped(max(n/listCost, 1), child), true
	}
	if walkFields[typeName+"."+field] {
		scan = c.walkCost()
	}
	if n, ok := intArg(args["first"]); ok {
		return 1 + scan + mulCapped(max(n, 1), child), true
	}
	if def := c.Schema().Types[typeName]; def != nil && !strings.HasSuffix(typeName, "Connection") {
		if f := def.Fields.ForName(field); f != nil && f.Type.Elem != nil {
			return 1 + scan + mulCapped(listCost, child), true
		}
	}
	return 1 + scan + child, true
}

func intArg(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

// mulCapped multiplies without overflowing: nested lists multiply their costs.
func mulCapped(a, b int) int {
	const limit = 1 << 40
	if a <= 0 || b <= 0 {
		return max(a*b, 0)
	}
	if a > limit/b {
		return limit
	}
	return a * b
}
