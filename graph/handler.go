package graph

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/athar-hadith/athar/graph/generated"
	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/search"
)

// Config is what the GraphQL handler needs.
type Config struct {
	Store    athar.Store
	Importer writer // the mutations' write path: an ingest.Writer (docs/architecture.md)
	Vocab    *athar.Vocabulary
	Index    *search.Index
	// Texts is the full-text index of narration texts (searchTexts), kept in step by the
	// caller: a *textindex.Index (OpenTextIndex, TextIndexSubscriber) or a
	// *BackgroundTextIndex; nil answers searchTexts with UNAVAILABLE.
	Texts TextSearcher
	// Timeline keeps the timeline's order between writes, when the caller subscribes its
	// Invalidate to the writer; nil orders the events on every request.
	Timeline *TimelineCache
	// Token is the bearer token mutations must carry; "" refuses every mutation.
	Token  string
	Logger *slog.Logger
	// Timeout bounds each request, from the moment the endpoint gets it to its answer; 0
	// means DefaultTimeout. It is the only time limit of a GraphQL request short of the
	// HTTP server's own (internal/httpserver), which are longer.
	Timeout time.Duration
	// MaxDepth bounds how deeply a query may nest fields; 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxComplexity bounds a query's estimated cost; 0 means DefaultMaxComplexity.
	MaxComplexity int
	// MaxFields bounds a document's fields with its fragments expanded, checked before it
	// is validated; 0 means DefaultMaxFields.
	MaxFields int
	// MaxResolved bounds the fields one request may resolve; 0 means DefaultMaxResolved.
	MaxResolved int
	// MaxResponseBytes bounds a response's size, roughly; 0 means DefaultMaxResponseBytes.
	MaxResponseBytes int
	// MaxErrors bounds the errors one response reports; 0 means DefaultMaxErrors.
	MaxErrors int
	// MaxConcurrent bounds the GraphQL requests read, parsed or running at once; 0 means
	// DefaultMaxConcurrent(). What running queries hold is bounded too, by a room of twice
	// MaxComplexity: each takes its estimated cost, and more as it resolves more fields
	// than estimated. A request that cannot start within QueueWait (0: DefaultQueueWait),
	// or finds no room left for its overrun, is refused with 503 and UNAVAILABLE.
	MaxConcurrent int
	QueueWait     time.Duration
	// LoaderWait is how long a request's loaders collect keys before they call the store
	// (the fields of a list resolve in goroutines of their own and join one batch within
	// it); 0 means DefaultLoaderWait. Longer waits batch more surely and answer later.
	LoaderWait time.Duration
}

// Defaults of Config.
const (
	DefaultTimeout       = 10 * time.Second
	DefaultMaxDepth      = 12
	DefaultMaxComplexity = 50_000
	// DefaultMaxFields is over five times the fields of GraphiQL's introspection query (372).
	DefaultMaxFields        = 2000
	DefaultMaxResolved      = 100_000
	DefaultMaxResponseBytes = 16 << 20
	DefaultMaxErrors        = 100
	DefaultQueueWait        = time.Second
	// DefaultLoaderWait is a request's latency floor for each level of fields it loads
	// (a claim, then its subject, then the subject's narrations): 2 ms made the Prophet's
	// page on the full corpus 14.8 ms at p50 for 7.4 ms of CPU; 500 µs, 8.1 ms. The
	// goroutines of a list's fields start within microseconds, so batches stay whole.
	DefaultLoaderWait = 500 * time.Microsecond
	// costCapacity is how many queries of the greatest cost run at once; cheaper ones
	// share that room, and it bounds the fields resolving at once over all requests.
	costCapacity = 2
	// maxSchemaFields is how many times a document may ask for __schema.
	maxSchemaFields = 2
	// maxTokens bounds the tokens of a query document; a narration document goes in a
	// variable, as one token.
	maxTokens = 20_000
	// maxCachedQuery is the longest query text kept parsed in the query cache.
	maxCachedQuery = 64 << 10
	// persistedQueries is how many automatic persisted queries are remembered.
	persistedQueries = 1000
)

// NewHandler returns the GraphQL endpoint: POST for queries and mutations, GET for queries
// only, at whatever path it is mounted. Introspection is on; automatic persisted queries are
// kept in an LRU cache. Each request gets its own dataloaders and its own deadline; queries
// nested deeper than MaxDepth or costing more than MaxComplexity are refused with
// QUERY_TOO_COMPLEX; mutations without the right bearer token with UNAUTHENTICATED. Every
// other limit (document size, fields, bytes and errors per request, requests and cost at
// once) is described in docs/limits.md. A POST's body is read whole: the HTTP server in front
// bounds it (internal/httpserver, Config.MaxBodyBytes), and the endpoint answers 413 in the
// shape of a GraphQL response when that limit cuts a chunked body.
//
// The caller builds cfg.Index once with BuildIndex and keeps it current by subscribing
// IndexSubscriber to the writer when it builds it.
func NewHandler(cfg Config) (http.Handler, error) {
	switch {
	case cfg.Store == nil:
		return nil, errors.New("graph: Config.Store is nil")
	case cfg.Importer == nil:
		return nil, errors.New("graph: Config.Importer is nil")
	case cfg.Vocab == nil:
		return nil, errors.New("graph: Config.Vocab is nil")
	case cfg.Index == nil:
		return nil, errors.New("graph: Config.Index is nil")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxDepth <= 0 {
		cfg.MaxDepth = DefaultMaxDepth
	}
	if cfg.MaxComplexity <= 0 {
		cfg.MaxComplexity = DefaultMaxComplexity
	}
	if cfg.MaxFields <= 0 {
		cfg.MaxFields = DefaultMaxFields
	}
	if cfg.MaxResolved <= 0 {
		cfg.MaxResolved = DefaultMaxResolved
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.MaxErrors <= 0 {
		cfg.MaxErrors = DefaultMaxErrors
	}
	if cfg.MaxConcurrent <= 0 {
		cfg.MaxConcurrent = DefaultMaxConcurrent()
	}
	if cfg.QueueWait <= 0 {
		cfg.QueueWait = DefaultQueueWait
	}
	if cfg.LoaderWait <= 0 {
		cfg.LoaderWait = DefaultLoaderWait
	}

	r := &Resolver{store: cfg.Store, write: cfg.Importer, vocab: cfg.Vocab, index: cfg.Index, timeline: cfg.Timeline}
	if cfg.Texts != nil {
		r.texts = cfg.Texts
	}
	es := costed{ExecutableSchema: generated.NewExecutableSchema(generated.Config{Resolvers: r}), index: cfg.Index, store: cfg.Store, timeline: cfg.Timeline}

	srv := handler.New(es)
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(boundedCache{LRU: lru.New[*ast.QueryDocument](1000), maxKey: maxCachedQuery})
	srv.SetParserTokenLimit(maxTokens)
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: boundedAPQ{LRU: lru.New[string](persistedQueries), maxQuery: maxCachedQuery}})
	srv.Use(documentLimit{maxFields: cfg.MaxFields, maxSchema: maxSchemaFields, maxTokens: maxTokens, sizes: lru.New[docSize](1000)})
	srv.Use(mutationAuth{token: cfg.Token})
	srv.Use(depthLimit{max: cfg.MaxDepth})
	srv.Use(extension.FixedComplexityLimit(cfg.MaxComplexity))
	p := presenter{logger: cfg.Logger, timeout: cfg.Timeout}
	srv.Use(requestBudget{
		maxFields: int64(cfg.MaxResolved), maxBytes: int64(cfg.MaxResponseBytes), maxErrors: int64(cfg.MaxErrors),
		present: p.present, gate: newCostGate(costCapacity * cfg.MaxComplexity), wait: cfg.QueueWait,
	})
	srv.SetErrorPresenter(presentCounted(p.present))
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		return fmt.Errorf("panic in resolver: %v", v)
	})
	e := &endpoint{gql: srv, store: cfg.Store, timeout: cfg.Timeout, loaderWait: cfg.LoaderWait}
	return &admission{next: e, slots: make(chan struct{}, cfg.MaxConcurrent), wait: cfg.QueueWait}, nil
}

// endpoint wraps the gqlgen server with what each request needs around it.
type endpoint struct {
	gql        http.Handler
	store      reader
	timeout    time.Duration
	loaderWait time.Duration
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), e.timeout)
	defer cancel()
	ctx = withLoaders(ctx, newLoaders(e.store, e.loaderWait))
	if !readBody(w, r) {
		return
	}
	ctx, unavailable := withUnavailableFlag(ctx)
	cw := &codeWriter{ResponseWriter: &retryWriter{ResponseWriter: w, unavailable: unavailable}}
	e.gql.ServeHTTP(cw, r.WithContext(ctx))
	cw.finish()
}
