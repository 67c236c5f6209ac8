package graph

import (
	"context"
	"fmt"
	"time"

	"github.com/vikstrous/dataloadgen"

	"github.com/athar-hadith/athar/internal/athar"
)

// loaders batch and cache the reads of one request, so that a list of fifty claims costs
// one Entities call for all their subjects and objects, not fifty. They live for one
// request only: a mutation's writes are never hidden behind another request's cache.
type loaders struct {
	entity    *dataloadgen.Loader[athar.ID, *athar.Entity]
	narration *dataloadgen.Loader[athar.ID, *athar.Narration]
	// narrationSummary loads what Store.NarrationSummaries gives: for a narration shown by
	// its id and title only (a claim's object, a list of narrations).
	narrationSummary *dataloadgen.Loader[athar.ID, *athar.Narration]
	claim            *dataloadgen.Loader[athar.ID, *athar.Claim]
	// claimHead gives a claim with its first headAttestations attestations only
	// (Store.ClaimHeads): what a page of claims shows. A hub's claims have thousands;
	// claim gives them all, for what counts or compares them.
	claimHead *dataloadgen.Loader[athar.ID, *athar.Claim]
	// claimParts gives a claim's parts only (Store.ClaimParts): for a page of claims that
	// shows no attestation and no count of them.
	claimParts *dataloadgen.Loader[athar.ID, *athar.Claim]
	// about gives the claims with the entity as subject or object, as references (no
	// attestations): a list of entities costs one store call, and a page of claims then
	// loads only its own claims through the claim loader.
	about *dataloadgen.Loader[athar.ID, []athar.ClaimRef]
	// mentions gives the narrations that touch an entity (Store.Mentions).
	mentions *dataloadgen.Loader[athar.ID, []athar.ID]
	// quads gives the quads with the id as subject (Store.QuadsAbout): verse texts and
	// their attribution, under the reserved graph athar.QuranGraph.
	quads *dataloadgen.Loader[athar.ID, []athar.Quad]
}

// newLoaders gives one request's loaders; each collects keys for wait before it calls st.
func newLoaders(st reader, wait time.Duration) *loaders {
	opt := dataloadgen.WithWait(wait)
	return &loaders{
		entity: dataloadgen.NewLoader(func(ctx context.Context, ids []athar.ID) ([]*athar.Entity, []error) {
			es, err := st.Entities(ctx, ids)
			return es, batchErr(err, "load entities")
		}, opt),
		narration: dataloadgen.NewLoader(func(ctx context.Context, ids []athar.ID) ([]*athar.Narration, []error) {
			ns, err := st.Narrations(ctx, ids)
			return ns, batchErr(err, "load narrations")
		}, opt),
		narrationSummary: dataloadgen.NewLoader(func(ctx context.Context, ids []athar.ID) ([]*athar.Narration, []error) {
			ns, err := st.NarrationSummaries(ctx, ids)
			return ns, batchErr(err, "load narration summaries")
		}, opt),
		claim: dataloadgen.NewLoader(func(ctx context.Context, ids []athar.ID) ([]*athar.Claim, []error) {
			cs, err := st.Claims(ctx, ids)
			return cs, batchErr(err, "load claims")
		}, opt),
		claimHead: dataloadgen.NewLoader(func(ctx context.Context, ids []athar.ID) ([]*athar.Claim, []error) {
			cs, err := st.ClaimHeads(ctx, ids, headAttestations)
			return cs, batchErr(err, "load claims")
		}, opt),
		claimParts: dataloadgen.NewLoader(func(ctx context.Context, ids []athar.ID) ([]*athar.Claim, []error) {
			cs, err := st.ClaimParts(ctx, ids)
			return cs, batchErr(err, "load claims")
		}, opt),
		about: dataloadgen.NewLoader(func(ctx context.Context, ids []athar.ID) ([][]athar.ClaimRef, []error) {
			by, err := st.ClaimsAbout(ctx, ids)
			if err != nil {
				return nil, batchErr(err, "load claims about entities")
			}
			out := make([][]athar.ClaimRef, len(ids))
			for i, id := range ids {
				out[i] = by[id]
			}
			return out, nil
		}, opt),
		mentions: dataloadgen.NewLoader(func(ctx context.Context, ids []athar.ID) ([][]athar.ID, []error) {
			by, err := st.Mentions(ctx, ids)
			if err != nil {
				return nil, batchErr(err, "load mentions")
			}
			out := make([][]athar.ID, len(ids))
			for i, id := range ids {
				out[i] = by[id]
			}
			return out, nil
		}, opt),
		quads: dataloadgen.NewLoader(func(ctx context.Context, ids []athar.ID) ([][]athar.Quad, []error) {
			qs, err := st.QuadsAbout(ctx, ids)
			if err != nil {
				return nil, batchErr(err, "load quads")
			}
			by := map[string][]athar.Quad{}
			for _, q := range qs {
				by[q.Subject] = append(by[q.Subject], q)
			}
			out := make([][]athar.Quad, len(ids))
			for i, id := range ids {
				out[i] = by[id.IRI()]
			}
			return out, nil
		}, opt),
	}
}

// batchErr turns one error for a whole batch into the form dataloadgen hands to every
// caller.
func batchErr(err error, op string) []error {
	if err == nil {
		return nil
	}
	return []error{fmt.Errorf("%s: %w", op, err)}
}

type loadersKey struct{}

func withLoaders(ctx context.Context, l *loaders) context.Context {
	return context.WithValue(ctx, loadersKey{}, l)
}

// loaders returns the request's loaders. Outside a request made through NewHandler (a
// resolver called directly) it returns fresh ones, which are correct but do not batch
// across calls.
func (r *Resolver) loaders(ctx context.Context) *loaders {
	if l, ok := ctx.Value(loadersKey{}).(*loaders); ok {
		return l
	}
	return newLoaders(r.store, DefaultLoaderWait)
}
