package cayleystore

// Each narration's summary and routes in the read model: what NarrationSummaries and
// NarrationRoutes return, in one Get.
//
// Read from Cayley, a narration's routes are its own quads, then the quads of every chain
// link it points to, then the narrates quads pointing at it: an index scan and a lookup
// per quad, some thirty per narration, and most of commonLink over a hundred narrations.
// Its summary (title, chapter, corpus record) is its own quads, some twenty-five for a
// corpus hadith: most of a depth-2 neighbourhood or a page of search hits over the
// corpus, which show a hundred narrations by id. rmNarrationBucket keeps both per
// narration:
//
//	rmNarrationBucket  narration id -> title, chapter, corpus, narrator, the record's
//	                   routes, chain, further routes (encodeRoutes)
//
// A narration the graph defines has a row even when it gives no route and no narrator, so
// that a missing row is an absent narration. Unlike the rows of the other buckets, a row
// is not derived quad by quad: it is the narration read from Cayley after the commit
// (narrationWith), for each narration a write may have changed (routesAffected): Apply
// rewrites those rows in step 3, and a rebuild or a check reads every narration.

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/cayleygraph/quad"

	"github.com/athar-hadith/athar/internal/athar"
)

const rmNarrationBucket = "athar.rm.narration"

// predNarrates is the predicate of the quad naming a narration's narrator.
const predNarrates = athar.VocabBase + "narrates"

// routesOnly returns what NarrationRoutes gives of n: its id, corpus record, chain,
// further routes (nil when none), the record's routes and its narrator.
func routesOnly(n *athar.Narration) *athar.Narration {
	if n == nil {
		return nil
	}
	r := &athar.Narration{ID: n.ID, Corpus: n.Corpus, Narrator: n.Narrator, Chain: n.Chain, MoreRoutes: n.MoreRoutes, RecordRoutes: n.RecordRoutes}
	if len(r.MoreRoutes) == 0 {
		r.MoreRoutes = nil
	}
	return r
}

func appendIDs(b []byte, ids []athar.ID) []byte {
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		b = appendStr(b, string(id))
	}
	return b
}

func appendRoutes(b []byte, rs [][]athar.ID) []byte {
	b = binary.AppendUvarint(b, uint64(len(rs)))
	for _, r := range rs {
		b = appendIDs(b, r)
	}
	return b
}

func sameIDs(a, b []athar.ID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// encodeRoutes is a narration's row. A narration no document gives a chain takes its
// chain and further routes from its corpus record (narrationWith): the row says so in one
// byte rather than holding those routes twice.
func encodeRoutes(n *athar.Narration) []byte {
	b := appendStr(nil, n.Title)
	b = appendStr(b, string(n.Chapter))
	b = appendStr(b, n.Corpus)
	b = appendStr(b, string(n.Narrator))
	b = appendRoutes(b, n.RecordRoutes)
	fromRecord := len(n.RecordRoutes) > 0 && sameIDs(n.Chain, n.RecordRoutes[0]) && len(n.MoreRoutes) == len(n.RecordRoutes)-1
	for i := 0; fromRecord && i < len(n.MoreRoutes); i++ {
		fromRecord = sameIDs(n.MoreRoutes[i], n.RecordRoutes[i+1])
	}
	if fromRecord {
		return append(b, 1)
	}
	b = append(b, 0)
	b = appendIDs(b, n.Chain)
	return appendRoutes(b, n.MoreRoutes)
}

// rowCorpus returns the corpus field of a row (encodeRoutes), without decoding the rest.
func rowCorpus(b []byte) ([]byte, bool) {
	for range 2 { // the title, the chapter
		var ok bool
		if _, b, ok = cutBytes(b); !ok {
			return nil, false
		}
	}
	corpus, _, ok := cutBytes(b)
	return corpus, ok
}

// decodeRoutes reads a row: the narration's routes (routesOnly), or with summary its
// summary (id, title, chapter, corpus record).
func decodeRoutes(id athar.ID, b []byte, summary bool) (*athar.Narration, error) {
	ok := true
	str := func() string {
		s, rest, good := cutStr(b)
		if !good {
			ok = false
			return ""
		}
		b = rest
		return s
	}
	count := func() int {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)) {
			ok = false
			return 0
		}
		b = b[k:]
		return int(n)
	}
	ids := func() []athar.ID {
		var out []athar.ID
		for range count() {
			out = append(out, athar.ID(str()))
		}
		return out
	}
	routes := func() [][]athar.ID {
		var out [][]athar.ID
		for range count() {
			out = append(out, ids())
		}
		return out
	}
	title, chapter := str(), athar.ID(str())
	n := &athar.Narration{ID: id, Corpus: str(), Narrator: athar.ID(str())}
	if summary {
		if !ok {
			return nil, errCorruptRow
		}
		return &athar.Narration{ID: id, Title: title, Chapter: chapter, Corpus: n.Corpus}, nil
	}
	n.RecordRoutes = routes()
	if !ok || len(b) == 0 {
		return nil, errCorruptRow
	}
	fromRecord := b[0] == 1
	b = b[1:]
	if fromRecord {
		if len(n.RecordRoutes) == 0 || len(b) != 0 {
			return nil, errCorruptRow
		}
		// As narrationWith sets them.
		n.Chain, n.MoreRoutes = n.RecordRoutes[0], n.RecordRoutes[1:]
		return routesOnly(n), nil
	}
	n.Chain = ids()
	n.MoreRoutes = routes()
	if !ok || len(b) != 0 {
		return nil, errCorruptRow
	}
	return n, nil
}

// routesRow reads a narration's routes from Cayley: its row, nil when the graph does not
// define the narration. Callers hold a lock (or own the store).
func (s *Store) routesRow(ctx context.Context, id athar.ID) ([]byte, error) {
	n, err := s.narrationWith(ctx, id, false)
	if n == nil || err != nil {
		return nil, err
	}
	return encodeRoutes(n), nil
}

// routesAffected returns the narrations whose routes the change may have changed: the
// subjects of narration quads a routes read uses (rdf:type, chainLink, corpusRecord), the
// objects of narrates quads, and the narrations pointing (chainLink, in Cayley or in the
// change) at a node whose position, route or narrator changed -- a merge rewrites a link's
// narrator. Callers hold the write lock, after Cayley's commit.
func (s *Store) routesAffected(ctx context.Context, c *manifestChange) ([]athar.ID, error) {
	affected := map[athar.ID]bool{}
	nodes, linked := map[string]bool{}, map[string]bool{}
	visit := func(q quad.Quad) {
		switch p := iriOf(q.Predicate); p {
		case athar.RDFType, athar.PredChainLink, athar.PredCorpusRecord, athar.RDFSLabel, athar.PredChapter:
			if id, ok := narrationLabel(iriOf(q.Subject)); ok {
				affected[id] = true
				if p == athar.PredChainLink {
					linked[iriOf(q.Object)] = true
				}
			}
		case predNarrates:
			if id, ok := narrationLabel(iriOf(q.Object)); ok {
				affected[id] = true
			}
		case athar.PredPosition, athar.PredRoute, athar.PredNarrator:
			nodes[iriOf(q.Subject)] = true
		}
	}
	for _, l := range c.labels {
		for _, q := range c.add[l] {
			visit(q)
		}
		for _, q := range c.remove[l] {
			visit(q)
		}
	}
	for node := range nodes {
		if linked[node] {
			// A link node is named after the one narration or record whose chain it is
			// (chain/<narration>/..., route/<narration>/..., <record>/route/...), so the
			// chainLink quad in the change is the only one pointing at it, and its narration
			// is already affected. Looking it up in Cayley (tens of microseconds a node,
			// five nodes a narration) was a twentieth of a 10,000-narration load.
			continue
		}
		qs, err := s.withPredicate(ctx, quad.Object, quad.IRI(node), athar.PredChainLink)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			if id, ok := narrationLabel(iriOf(q.Subject)); ok {
				affected[id] = true
			}
		}
	}
	ids := make([]athar.ID, 0, len(affected))
	for id := range affected {
		ids = append(ids, id)
	}
	sortIDs(ids)
	return ids, nil
}

// routesChange reads, after Cayley's commit, the rows of the narrations the change may
// have changed: nil for a narration no longer defined. Callers hold the write lock.
func (s *Store) routesChange(ctx context.Context, c *manifestChange) (map[athar.ID][]byte, error) {
	ids, err := s.routesAffected(ctx, c)
	if err != nil {
		return nil, err
	}
	rows := make(map[athar.ID][]byte, len(ids))
	for _, id := range ids {
		if rows[id], err = s.routesRow(ctx, id); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// routesPut writes the rows routesChange read.
func routesPut(tx manifestTx, rows map[athar.ID][]byte) error {
	for id, v := range rows {
		var err error
		if v == nil {
			err = tx.del(rmNarrationBucket, string(id))
		} else {
			err = tx.put(rmNarrationBucket, string(id), v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// narrationTyped returns the narration q types as one, if it does (rdf:type
// vocab:Narration): the narrations whose rows routesRebuild writes.
func narrationTyped(q quad.Quad) (athar.ID, bool) {
	if iriOf(q.Predicate) != athar.RDFType || iriOf(q.Object) != athar.TypeNarration.IRI() {
		return "", false
	}
	return narrationLabel(iriOf(q.Subject))
}

// routesRebuild puts the row of every narration in ids (those the scan's quads type as
// one, narrationTyped) into tx (a rebuild's, or a check's, in memory).
func (s *Store) routesRebuild(ctx context.Context, ids []athar.ID, tx manifestTx) error {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	for _, id := range ids {
		v, err := s.routesRow(ctx, id)
		if err != nil {
			return fmt.Errorf("routes of %s: %w", id, err)
		}
		if v != nil {
			if err := tx.put(rmNarrationBucket, string(id), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// NarrationRoutes implements athar.Store: one Get per narration in the read model; while
// the read model is stale, the narrations read from Cayley.
func (s *Store) NarrationRoutes(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error) {
	return s.narrationRows(ctx, ids, false)
}

// NarrationSummaries implements athar.Store: one Get per narration in the read model;
// while the read model is stale, each narration's own quads from Cayley.
func (s *Store) NarrationSummaries(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error) {
	return s.narrationRows(ctx, ids, true)
}

// NarrationRoutesFromCayley reads routes as NarrationRoutes does, from Cayley's quads
// only: what the read model's rows are checked against.
func (s *Store) NarrationRoutesFromCayley(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error) {
	return s.narrationRowsFromCayley(ctx, ids, false)
}

// NarrationSummariesFromCayley reads summaries as NarrationSummaries does, from Cayley's
// quads only: what the read model's rows are checked against.
func (s *Store) NarrationSummariesFromCayley(ctx context.Context, ids []athar.ID) ([]*athar.Narration, error) {
	return s.narrationRowsFromCayley(ctx, ids, true)
}

// narrationRows reads the rows of rmNarrationBucket: each narration's summary, or its
// summary and routes when summary is false. A narration not in the store is nil.
func (s *Store) narrationRows(ctx context.Context, ids []athar.ID, summary bool) ([]*athar.Narration, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	if err := s.settle(ctx); err != nil { // a bulk load's rows still being read
		return nil, err
	}
	defer s.mu.RUnlock()
	if s.rmStale {
		return s.narrationRowsFromCayleyLocked(ctx, ids, summary)
	}
	out := make([]*athar.Narration, len(ids))
	err := s.man.view(func(tx manifestTx) error {
		for i, id := range ids {
			v := tx.get(rmNarrationBucket, string(id))
			if v == nil {
				continue
			}
			n, err := decodeRoutes(id, v, summary)
			if err != nil {
				return fmt.Errorf("%s %q: %w", rmNarrationBucket, id, err)
			}
			out[i] = n
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("narration rows: %w", err)
	}
	return out, nil
}

func (s *Store) narrationRowsFromCayley(ctx context.Context, ids []athar.ID, summary bool) ([]*athar.Narration, error) {
	if err := s.rlockFor(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	return s.narrationRowsFromCayleyLocked(ctx, ids, summary)
}

// narrationRowsFromCayleyLocked gives what narrationRows gives, from Cayley: a summary
// from the narration's own quads, routes from the whole narration. Callers hold the read
// lock.
func (s *Store) narrationRowsFromCayleyLocked(ctx context.Context, ids []athar.ID, summary bool) ([]*athar.Narration, error) {
	out := make([]*athar.Narration, len(ids))
	for i, id := range ids {
		if summary {
			n, _, err := s.narrationHead(ctx, id)
			if err != nil {
				return nil, err
			}
			if n != nil {
				out[i] = &athar.Narration{ID: n.ID, Title: n.Title, Chapter: n.Chapter, Corpus: n.Corpus}
			}
			continue
		}
		n, err := s.narrationWith(ctx, id, false)
		if err != nil {
			return nil, err
		}
		out[i] = routesOnly(n)
	}
	return out, nil
}
