// Package metrics holds Athar's Prometheus metrics: HTTP requests, store operations and the
// graph's size. Metrics live in a registry of their own (no package-level state); Handler
// serves it together with the process-wide collectors Cayley registers.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/athar-hadith/athar/internal/athar"
)

// Metrics is the set of Athar's metrics.
type Metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	storeOps *prometheus.CounterVec
	storeLat *prometheus.HistogramVec
	gauges   *prometheus.GaugeVec
}

// New returns the metrics, registered in a new registry.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "athar_http_requests_total", Help: "HTTP requests by route, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "athar_http_request_duration_seconds", Help: "HTTP request latency by route and method.",
			Buckets: []float64{.001, .0025, .005, .01, .02, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"route", "method"}),
		storeOps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "athar_store_operations_total", Help: "Store operations by operation and result (ok or error).",
		}, []string{"op", "result"}),
		storeLat: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "athar_store_operation_duration_seconds", Help: "Store operation latency by operation.",
			Buckets: []float64{.0001, .0005, .001, .0025, .005, .01, .025, .05, .1, .5, 1, 5},
		}, []string{"op"}),
		gauges: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "athar_state", Help: "Named state values (e.g. replica position and lag) set by the server.",
		}, []string{"name"}),
	}
	// The Go and process collectors come with the default registry, which Handler serves too.
	m.reg.MustRegister(m.requests, m.latency, m.storeOps, m.storeLat, m.gauges)
	return m
}

// Handler serves the metrics in the Prometheus text format: Athar's registry and the
// default one, where Cayley's storage layer registers its own counters.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(prometheus.Gatherers{m.reg, prometheus.DefaultGatherer}, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// ObserveRequest records one served request. route is the route pattern (e.g.
// /export/:format), never the raw path, so that the label set stays bounded.
func (m *Metrics) ObserveRequest(route, method string, code int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(route, method).Observe(d.Seconds())
}

// Set sets a named state gauge.
func (m *Metrics) Set(name string, v float64) { m.gauges.WithLabelValues(name).Set(v) }

// track starts timing op; the returned function, deferred with the operation's named error
// result, records it.
func (m *Metrics) track(op string) func(*error) {
	start := time.Now()
	return func(err *error) {
		result := "ok"
		if *err != nil {
			result = "error"
		}
		m.storeOps.WithLabelValues(op, result).Inc()
		m.storeLat.WithLabelValues(op).Observe(time.Since(start).Seconds())
	}
}

// Store wraps st so that every operation is counted and timed.
func (m *Metrics) Store(st athar.Store) athar.Store { return &store{st, m} }

type store struct {
	st athar.Store
	m  *Metrics
}

func (s *store) Apply(ctx context.Context, cs ...athar.Changeset) (err error) {
	defer s.m.track("apply")(&err)
	return s.st.Apply(ctx, cs...)
}

func (s *store) NarrationQuads(ctx context.Context, n athar.ID) (q []athar.Quad, err error) {
	defer s.m.track("narration_quads")(&err)
	return s.st.NarrationQuads(ctx, n)
}

func (s *store) NarrationDigests(ctx context.Context, labels []athar.ID) (d []string, err error) {
	defer s.m.track("narration_digests")(&err)
	return s.st.NarrationDigests(ctx, labels)
}

func (s *store) QuadsAbout(ctx context.Context, ids []athar.ID) (q []athar.Quad, err error) {
	defer s.m.track("quads_about")(&err)
	return s.st.QuadsAbout(ctx, ids)
}

func (s *store) Quads(ctx context.Context, fn func(athar.Quad) error) (err error) {
	defer s.m.track("quads")(&err)
	return s.st.Quads(ctx, fn)
}

func (s *store) Entities(ctx context.Context, ids []athar.ID) (e []*athar.Entity, err error) {
	defer s.m.track("entities")(&err)
	return s.st.Entities(ctx, ids)
}

func (s *store) EntityIDs(ctx context.Context, t athar.EntityType) (ids []athar.ID, err error) {
	defer s.m.track("entity_ids")(&err)
	return s.st.EntityIDs(ctx, t)
}

func (s *store) DefinedBy(ctx context.Context, ids []athar.ID) (m map[athar.ID][]athar.ID, err error) {
	defer s.m.track("defined_by")(&err)
	return s.st.DefinedBy(ctx, ids)
}

func (s *store) QuadsTo(ctx context.Context, predicate string, object athar.Term) (qs []athar.Quad, err error) {
	defer s.m.track("quads_to")(&err)
	return s.st.QuadsTo(ctx, predicate, object)
}

func (s *store) MergedInto(ctx context.Context, ids []athar.ID) (m map[athar.ID]athar.ID, err error) {
	defer s.m.track("merged_into")(&err)
	return s.st.MergedInto(ctx, ids)
}

func (s *store) Narrations(ctx context.Context, ids []athar.ID) (n []*athar.Narration, err error) {
	defer s.m.track("narrations")(&err)
	return s.st.Narrations(ctx, ids)
}

func (s *store) NarrationSummaries(ctx context.Context, ids []athar.ID) (n []*athar.Narration, err error) {
	defer s.m.track("narration_summaries")(&err)
	return s.st.NarrationSummaries(ctx, ids)
}

func (s *store) NarrationRoutes(ctx context.Context, ids []athar.ID) (n []*athar.Narration, err error) {
	defer s.m.track("narration_routes")(&err)
	return s.st.NarrationRoutes(ctx, ids)
}

func (s *store) FindClaims(ctx context.Context, f athar.ClaimFilter) (c []*athar.Claim, err error) {
	defer s.m.track("find_claims")(&err)
	return s.st.FindClaims(ctx, f)
}

func (s *store) Mentions(ctx context.Context, ids []athar.ID) (m map[athar.ID][]athar.ID, err error) {
	defer s.m.track("mentions")(&err)
	return s.st.Mentions(ctx, ids)
}

func (s *store) ClaimsAbout(ctx context.Context, ids []athar.ID) (c map[athar.ID][]athar.ClaimRef, err error) {
	defer s.m.track("claims_about")(&err)
	return s.st.ClaimsAbout(ctx, ids)
}

func (s *store) PageClaims(ctx context.Context, q athar.ClaimPageQuery) (p athar.ClaimPage, err error) {
	defer s.m.track("page_claims")(&err)
	return s.st.PageClaims(ctx, q)
}

func (s *store) PageEntities(ctx context.Context, q athar.EntityPageQuery) (p athar.EntityPage, err error) {
	defer s.m.track("page_entities")(&err)
	return s.st.PageEntities(ctx, q)
}

func (s *store) PageGradings(ctx context.Context, q athar.GradingPageQuery) (p athar.GradingPage, err error) {
	defer s.m.track("page_gradings")(&err)
	return s.st.PageGradings(ctx, q)
}

func (s *store) Claims(ctx context.Context, ids []athar.ID) (c []*athar.Claim, err error) {
	defer s.m.track("claims")(&err)
	return s.st.Claims(ctx, ids)
}

func (s *store) ClaimHeads(ctx context.Context, ids []athar.ID, first int) (c []*athar.Claim, err error) {
	defer s.m.track("claim_heads")(&err)
	return s.st.ClaimHeads(ctx, ids, first)
}

func (s *store) ClaimParts(ctx context.Context, ids []athar.ID) (c []*athar.Claim, err error) {
	defer s.m.track("claim_parts")(&err)
	return s.st.ClaimParts(ctx, ids)
}

func (s *store) Edges(ctx context.Context, ids []athar.ID) (e map[athar.ID][]athar.Edge, err error) {
	defer s.m.track("edges")(&err)
	return s.st.Edges(ctx, ids)
}

func (s *store) WeightedEdges(ctx context.Context, id athar.ID, after string, n int) (e []athar.Edge, next string, err error) {
	defer s.m.track("weighted_edges")(&err)
	return s.st.WeightedEdges(ctx, id, after, n)
}

func (s *store) EdgesBetween(ctx context.Context, ids, others []athar.ID) (e []athar.Edge, err error) {
	defer s.m.track("edges_between")(&err)
	return s.st.EdgesBetween(ctx, ids, others)
}

func (s *store) Close() error { return s.st.Close() }
