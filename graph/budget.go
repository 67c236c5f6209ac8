package graph

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/athar-hadith/athar/internal/athar"
)

// CodeUnavailable refuses a request the server cannot take now (too many running); retry.
const CodeUnavailable = string(athar.Unavailable)

// documentLimit refuses, before gqlgen validates or executes anything, a document whose
// fields, once every fragment spread is expanded, number more than maxFields, or that asks
// for the whole schema (__schema) more than maxSchema times. Validation and the depth and
// complexity walks all expand fragments, so a document of fragments that each spread the
// previous one twice costs them 2^n; the size here is computed once per fragment, in time
// linear in the document.
type documentLimit struct {
	maxFields, maxSchema, maxTokens int
	// sizes remembers the sizes of recent documents by digest.
	sizes *lru.LRU[docSize]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentLimit{}

func (documentLimit) ExtensionName() string                   { return "DocumentLimit" }
func (documentLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d documentLimit) MutateOperationParameters(ctx context.Context, params *graphql.RawParams) *gqlerror.Error {
	if params.Query == "" {
		return nil
	}
	sum := sha256.Sum256([]byte(params.Query))
	key := string(sum[:])
	size, ok := d.sizes.Get(ctx, key)
	if !ok {
		doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: params.Query}, d.maxTokens)
		if err != nil {
			return nil // gqlgen parses again and reports it
		}
		size = expandedSize(doc)
		d.sizes.Add(ctx, key, size)
	}
	switch {
	case size.fields > d.maxFields:
		return codedError(CodeTooComplex, "the query has %s fields once its fragments are expanded; the limit is %d", size.fieldsText(), d.maxFields)
	case size.schema > d.maxSchema:
		return codedError(CodeTooComplex, "the query asks for __schema %d times; the limit is %d", size.schema, d.maxSchema)
	}
	return nil
}

// docSize is a document's size with every fragment spread expanded, saturated at
// sizeCap.
type docSize struct {
	fields int // fields, introspection and __typename included
	schema int // __schema fields
}

// sizeCap saturates sizes, which grow as 2^n for n nested fragments.
const sizeCap = 1 << 40

func (s docSize) add(o docSize) docSize {
	return docSize{fields: min(s.fields+o.fields, sizeCap), schema: min(s.schema+o.schema, sizeCap)}
}

func (s docSize) fieldsText() string {
	if s.fields >= sizeCap {
		return fmt.Sprintf("over %d", sizeCap)
	}
	return fmt.Sprint(s.fields)
}

// expandedSize is the size of every operation and fragment definition of doc with their
// spreads expanded: what validation and execution may walk. Each fragment's size is
// computed once; a spread of an undefined fragment, or one in a cycle, counts nothing
// (validation refuses both).
func expandedSize(doc *ast.QueryDocument) docSize {
	frags := map[string]*ast.FragmentDefinition{}
	for _, f := range doc.Fragments {
		frags[f.Name] = f
	}
	memo := map[string]docSize{}
	visiting := map[string]bool{}
	var setSize func(ast.SelectionSet) docSize
	fragSize := func(name string) docSize {
		if s, ok := memo[name]; ok {
			return s
		}
		f := frags[name]
		if f == nil || visiting[name] {
			return docSize{}
		}
		visiting[name] = true
		s := setSize(f.SelectionSet)
		delete(visiting, name)
		memo[name] = s
		return s
	}
	setSize = func(set ast.SelectionSet) docSize {
		var total docSize
		for _, sel := range set {
			switch s := sel.(type) {
			case *ast.Field:
				total = total.add(docSize{fields: 1})
				if s.Name == "__schema" {
					total = total.add(docSize{schema: 1})
				}
				total = total.add(setSize(s.SelectionSet))
			case *ast.InlineFragment:
				total = total.add(setSize(s.SelectionSet))
			case *ast.FragmentSpread:
				total = total.add(fragSize(s.Name))
			}
		}
		return total
	}
	var total docSize
	for _, op := range doc.Operations {
		total = total.add(setSize(op.SelectionSet))
	}
	for _, f := range doc.Fragments {
		total = total.add(fragSize(f.Name))
	}
	return total
}

// budget is what one request may still spend while it executes: fields resolved and bytes
// of response. Once either runs out, or the request's deadline passes, the request is
// stopped: every field left returns the one stop error at once, without calling its
// resolver (so no store read, no list and no goroutine for its children), the errors it
// reports are counted and dropped, and the response carries no data and that one error.
type budget struct {
	fields, bytes atomic.Int64 // what is left
	errors        atomic.Int64 // errors reported so far
	maxErrors     int64
	stop          atomic.Pointer[limitError]
	// done is the request's Done channel (nil: never closed).
	done <-chan struct{}
	// room is the request's share of the costGate, when it was admitted through one.
	room *room
}

// room is what a running request holds of the costGate: its estimated cost, then more
// in chunks as it resolves more fields than estimated (the estimate cannot know how
// long a chain or a neighbourhood is), taken without waiting. So the fields resolving
// at once, over all requests, stay within the gate's capacity: a request that finds no
// room left is stopped (UNAVAILABLE, retryable) instead of pushing the others out.
type room struct {
	gate *costGate
	mu   sync.Mutex   // serialises taking more
	held atomic.Int64 // what this request holds of the gate
}

// roomChunk is how much more room a request takes at a time.
const roomChunk = 1000

// grow makes sure the request holds room for resolved fields.
func (r *room) grow(resolved int) bool {
	if int64(resolved) <= r.held.Load() {
		return true // the common case, once per field: no lock
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for int64(resolved) > r.held.Load() {
		if !r.gate.tryAcquire(roomChunk) {
			return false
		}
		r.held.Add(roomChunk)
	}
	return true
}

type roomKey struct{}

type budgetKey struct{}

func budgetFrom(ctx context.Context) *budget {
	b, _ := ctx.Value(budgetKey{}).(*budget)
	return b
}

// limitError stops a request that ran out of its budget or its time.
type limitError struct {
	msg      string
	deadline bool // the request's deadline passed (or its client went away)
	busy     bool // no room was left in the costGate
}

func (e *limitError) Error() string { return e.msg }

// check returns the error that stops the request, if it is stopped or must be now.
// It runs before every field, in gqlgen's goroutine for it: it reads the request's done
// channel, taken once, rather than asking the field's context (ctx.Err() on a context
// nested a few dozen values deep recurses through every one of them, and grew those
// goroutines' stacks), and builds its errors out of line.
func (b *budget) check(maxFields int) error {
	if e := b.stop.Load(); e != nil {
		return e
	}
	select {
	case <-b.done:
		return b.stopWith(&limitError{msg: "the request ran out of time", deadline: true})
	default:
	}
	left := b.fields.Add(-1)
	if left < 0 {
		return b.stopWith(tooManyFields(maxFields))
	}
	if b.room != nil && !b.room.grow(maxFields-int(left)) {
		return b.stopWith(noRoom(maxFields - int(left)))
	}
	return nil
}

// stopWith stops the request with e, unless it was stopped already, and returns what
// stopped it.
func (b *budget) stopWith(e *limitError) error {
	b.stop.CompareAndSwap(nil, e)
	return b.stop.Load()
}

//go:noinline
func tooManyFields(maxFields int) *limitError {
	return &limitError{msg: fmt.Sprintf("the response would have more than %d fields; the limit is %d: ask for fewer (smaller first, fewer nested lists)", maxFields, maxFields)}
}

//go:noinline
func noRoom(resolved int) *limitError {
	return &limitError{busy: true, msg: fmt.Sprintf(
		"the server is busy: this query resolved %d fields, more than its estimate, and the queries running now leave no room for more; retry shortly, or ask for less", resolved)}
}

// spend takes what res adds to the response from the byte budget.
func (b *budget) spend(alias string, res any, maxBytes int64) {
	n := int64(len(alias) + 8)
	switch v := res.(type) {
	case string:
		n += int64(len(v))
	case *string:
		if v != nil {
			n += int64(len(*v))
		}
	case []string:
		for _, x := range v {
			n += int64(len(x) + 3)
		}
	}
	if b.bytes.Add(-n) < 0 {
		b.stop.CompareAndSwap(nil, &limitError{msg: fmt.Sprintf("the response would be larger than %d bytes; the limit is %d: ask for fewer fields or smaller pages", maxBytes, maxBytes)})
	}
}

// requestBudget gives each request its budget and keeps it: around each field (stopping
// the request when it runs out) and around the response (which then carries no data and
// one error, and at most maxErrors errors in any case).
type requestBudget struct {
	maxFields, maxBytes int64
	maxErrors           int64
	present             graphql.ErrorPresenterFunc
	gate                *costGate
	wait                time.Duration
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
	graphql.ResponseInterceptor
	graphql.FieldInterceptor
} = requestBudget{}

func (requestBudget) ExtensionName() string                   { return "RequestBudget" }
func (requestBudget) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptOperation waits for room in the costGate when the operation is executed
// (queries execute when their response is asked for), and refuses it if none comes in
// time. Refusals of the document itself never get here.
func (l requestBudget) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	respond := next(ctx)
	cost := 1
	if st := extension.GetComplexityStats(ctx); st != nil {
		cost = max(st.Complexity, 1)
	}
	return func(ctx context.Context) *graphql.Response {
		if !l.gate.acquire(ctx, cost, l.wait) {
			if t, ok := ctx.Value(turnKey{}).(*turn); ok {
				t.busy.Store(true)
			}
			return &graphql.Response{Errors: gqlerror.List{codedError(CodeUnavailable,
				"the server is busy: the queries running now already cost up to %d, the most it runs at once, and this one %d; retry shortly", l.gate.capacity, cost)}}
		}
		r := &room{gate: l.gate}
		r.held.Store(int64(cost))
		defer func() { l.gate.release(int(r.held.Load())) }()
		return respond(context.WithValue(ctx, roomKey{}, r))
	}
}

func (l requestBudget) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	b := &budget{maxErrors: l.maxErrors, done: ctx.Done()}
	b.room, _ = ctx.Value(roomKey{}).(*room)
	b.fields.Store(l.maxFields)
	b.bytes.Store(l.maxBytes)
	resp := next(context.WithValue(ctx, budgetKey{}, b))
	if resp == nil {
		return nil
	}
	if ctx.Err() != nil {
		// Fields that were running when the deadline passed failed each on its own.
		b.stop.CompareAndSwap(nil, &limitError{msg: "the request ran out of time", deadline: true})
	}
	if e := b.stop.Load(); e != nil {
		if t, ok := ctx.Value(turnKey{}).(*turn); ok && e.busy {
			t.busy.Store(true)
		}
		resp.Data = nil
		resp.Errors = gqlerror.List{l.present(ctx, e)}
		return resp
	}
	if omitted := b.errors.Load() - l.maxErrors; omitted > 0 {
		more := codedError(CodeTooComplex, "%d more errors left out: at most %d are reported per request", omitted, l.maxErrors)
		more.Extensions["omitted"] = omitted
		resp.Errors = append(resp.Errors, more)
	}
	return resp
}

func (l requestBudget) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	b := budgetFrom(ctx)
	if b == nil {
		return next(ctx)
	}
	if err := b.check(int(l.maxFields)); err != nil {
		return nil, err
	}
	res, err := next(ctx)
	alias := ""
	if fc := graphql.GetFieldContext(ctx); fc != nil {
		alias = fc.Field.Alias
	}
	b.spend(alias, res, l.maxBytes)
	return res, err
}

// presentCounted is present for a request with a budget: past its maxErrors errors, an
// error is counted and dropped (requestBudget reports how many).
func presentCounted(present graphql.ErrorPresenterFunc) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		if b := budgetFrom(ctx); b != nil && b.errors.Add(1) > b.maxErrors {
			return nil
		}
		return present(ctx, err)
	}
}

// admission takes at most cap(slots) GraphQL requests at once; the others wait up to wait
// for a slot, then are refused with 503 and UNAVAILABLE (retryable), so that the bodies
// and documents being read and parsed stay bounded (the costGate bounds what running ones
// hold), and the rest of the server (/healthz, the explorer, exports) keeps answering.
type admission struct {
	next  http.Handler
	slots chan struct{}
	wait  time.Duration
}

func (a *admission) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	timer := time.NewTimer(a.wait)
	defer timer.Stop()
	select {
	case a.slots <- struct{}{}:
	case <-timer.C:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		msg := fmt.Sprintf("the server is busy: %d GraphQL requests are running, the most it runs at once; retry shortly", cap(a.slots))
		json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{
			"message": msg, "extensions": map[string]any{"code": CodeUnavailable},
		}}})
		return
	case <-r.Context().Done():
		return
	}
	defer func() { <-a.slots }()
	t := &turn{}
	sw := &busyWriter{ResponseWriter: w, turn: t}
	a.next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), turnKey{}, t)))
}

// turn records that a request was refused for want of room in the costGate, so that its
// answer, written by gqlgen, goes out as 503.
type turn struct{ busy atomic.Bool }

type turnKey struct{}

// busyWriter sends 503 with Retry-After in place of the status gqlgen writes for a
// request its turn says was refused.
type busyWriter struct {
	http.ResponseWriter
	turn    *turn
	written bool
}

func (w *busyWriter) WriteHeader(code int) {
	if w.written {
		return
	}
	w.written = true
	if w.turn.busy.Load() {
		w.Header().Set("Retry-After", "1")
		code = http.StatusServiceUnavailable
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *busyWriter) Write(b []byte) (int, error) {
	if !w.written {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// costGate runs requests while the sum of their estimated costs stays within capacity; one
// costing more runs when nothing else does. Cheap requests are never queued behind an
// expensive one that waits, so ordinary queries keep being answered while expensive
// ones queue; a request that cannot get in within wait is refused (UNAVAILABLE, 503).
type costGate struct {
	mu       sync.Mutex
	used     int
	capacity int
	wake     chan struct{}
}

func newCostGate(capacity int) *costGate {
	return &costGate{capacity: capacity, wake: make(chan struct{})}
}

func (g *costGate) acquire(ctx context.Context, cost int, wait time.Duration) bool {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		g.mu.Lock()
		if g.used == 0 || g.used+cost <= g.capacity {
			g.used += cost
			g.mu.Unlock()
			return true
		}
		wake := g.wake
		g.mu.Unlock()
		select {
		case <-wake:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// tryAcquire takes cost if there is room for it now.
func (g *costGate) tryAcquire(cost int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.used+cost > g.capacity {
		return false
	}
	g.used += cost
	return true
}

func (g *costGate) release(cost int) {
	g.mu.Lock()
	g.used -= cost
	close(g.wake)
	g.wake = make(chan struct{})
	g.mu.Unlock()
}

// boundedCache keeps parsed documents of at most maxKey bytes of query text, so that the
// cache of parsed queries cannot hold gigabytes of long ones.
type boundedCache struct {
	*lru.LRU[*ast.QueryDocument]
	maxKey int
}

func (c boundedCache) Add(ctx context.Context, key string, doc *ast.QueryDocument) {
	if len(key) <= c.maxKey {
		c.LRU.Add(ctx, key, doc)
	}
}

// boundedAPQ remembers automatic persisted queries of at most maxQuery bytes.
type boundedAPQ struct {
	*lru.LRU[string]
	maxQuery int
}

func (c boundedAPQ) Add(ctx context.Context, key, query string) {
	if len(query) <= c.maxQuery {
		c.LRU.Add(ctx, key, query)
	}
}

// DefaultMaxConcurrent is eight times the cores Go may use, and at least 16: the
// costGate, not this, bounds what running requests hold, so this only needs to bound
// the requests being read and parsed.
func DefaultMaxConcurrent() int { return max(16, 8*runtime.GOMAXPROCS(0)) }
