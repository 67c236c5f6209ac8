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
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/internal/search"
)

// Config is what the GraphQL handler needs.
type Config struct {
	Store    athar.Store
	Importer writer // the mutations' write path: an ingest.Writer (docs/architecture.md)
	Vocab    *athar.Vocabulary
	Index    *search.Index
	// Token is the bearer token mutations must carry; "" refuses every mutation.
	Token  string
	Logger *slog.Logger
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxDepth bounds how deeply a query may nest fields; 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxComplexity bounds a query's estimated cost; 0 means DefaultMaxComplexity.
	MaxComplexity int
}

// Defaults of Config.
const (
	DefaultTimeout       = 10 * time.Second
	DefaultMaxDepth      = 12
	DefaultMaxComplexity = 5000
	// maxBody bounds a request body: a narration document (narration.MaxDocumentSize) sent
	// as a JSON string, with room for its escaping.
	maxBody = 3 * narration.MaxDocumentSize
	// persistedQueries is how many automatic persisted queries are remembered.
	persistedQueries = 1000
)

// NewHandler returns the GraphQL endpoint: POST for queries and mutations, GET for queries
// only, at whatever path it is mounted. Introspection is on; automatic persisted queries are
// kept in an LRU cache. Each request gets its own dataloaders and its own deadline; queries
// nested deeper than MaxDepth or costing more than MaxComplexity are refused with
// QUERY_TOO_COMPLEX; mutations without the right bearer token with UNAUTHENTICATED.
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

	r := &Resolver{store: cfg.Store, write: cfg.Importer, vocab: cfg.Vocab, index: cfg.Index}
	es := costed{generated.NewExecutableSchema(generated.Config{Resolvers: r})}

	srv := handler.New(es)
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](persistedQueries)})
	srv.Use(mutationAuth{token: cfg.Token})
	srv.Use(depthLimit{max: cfg.MaxDepth})
	srv.Use(extension.FixedComplexityLimit(cfg.MaxComplexity))
	p := presenter{logger: cfg.Logger, timeout: cfg.Timeout}
	srv.SetErrorPresenter(p.present)
	srv.SetRecoverFunc(func(ctx context.Context, v any) error {
		return fmt.Errorf("panic in resolver: %v", v)
	})
	return &endpoint{gql: srv, store: cfg.Store, timeout: cfg.Timeout}, nil
}

// endpoint wraps the gqlgen server with what each request needs around it.
type endpoint struct {
	gql     http.Handler
	store   reader
	timeout time.Duration
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), e.timeout)
	defer cancel()
	ctx = withLoaders(ctx, newLoaders(e.store))
	if !readBody(w, r) {
		return
	}
	ctx, unavailable := withUnavailableFlag(ctx)
	e.gql.ServeHTTP(&retryWriter{ResponseWriter: w, unavailable: unavailable}, r.WithContext(ctx))
}
