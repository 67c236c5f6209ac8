package athar

import "context"

// Store is the graph as the rest of Athar sees it: domain values in, domain values out.
// Implementations (internal/cayleystore) must pass the conformance suite in
// internal/storetest. Every method is safe for concurrent use; a read never sees half
// of an Apply.
//
// Entity names: several narrations may name the same entity. Name is the name given by the
// most narrations, ties broken by the lexicographically smallest, so that it does not depend
// on the order narrations were imported in; every other name is an alias.
type Store interface {
	// Apply applies the changesets in order as one atomic transaction: after an error, the
	// graph is exactly as it was. Removing an absent quad or adding a present one is not an
	// error.
	Apply(ctx context.Context, cs ...Changeset) error

	// NarrationQuads returns every quad labelled with the narration, sorted by Quad.Key. It
	// also takes a reserved graph (QuranGraph) for its quads.
	NarrationQuads(ctx context.Context, narration ID) ([]Quad, error)

	// NarrationDigests returns, for each label (a narration's id or a reserved graph), a
	// digest of the quads it labels as the store holds them, "" for a label with none. It
	// reads no quad: what is derived from a narration's quads keeps the digest it was made
	// from and, compared later, knows whether it still is without reading them again. On one
	// store a label's digest changes whenever its quads do and not while they are left
	// alone; it is of the store's own encoding, not comparable between stores.
	NarrationDigests(ctx context.Context, labels []ID) ([]string, error)

	// QuadsAbout returns every quad whose subject is one of the ids, sorted by Quad.Key.
	QuadsAbout(ctx context.Context, subjects []ID) ([]Quad, error)

	// QuadsTo returns every quad, under any label, with the predicate (an IRI) and the
	// object, sorted by Quad.Key: the narrations in a chapter, the documents recording a
	// reference number. It reads those quads only (the store's object index).
	QuadsTo(ctx context.Context, predicate string, object Term) ([]Quad, error)

	// Quads calls fn for every quad in the graph, sorted by label and then by Quad.Key.
	// Iteration stops at the first error fn returns, which Quads returns.
	Quads(ctx context.Context, fn func(Quad) error) error

	// Entities returns the entities with the given ids, in the same order, with nil for
	// ids the graph does not define (an entity is defined when some narration gives its type).
	Entities(ctx context.Context, ids []ID) ([]*Entity, error)

	// Mentions returns, for each id, the narrations that define, mention or make claims
	// about it (label a quad with it as subject or object, themselves or through their
	// corpus record: a quad under corpus:KEY is the narration whose PredCorpusRecord quad
	// names that label), sorted; never a reserved graph.
	// Ids no narration touches are absent. It is apart from Entities because on a
	// much-mentioned entity it reads every quad that touches it.
	Mentions(ctx context.Context, ids []ID) (map[ID][]ID, error)

	// MergedInto returns, for each of the ids that a merge retired (an id some narration
	// records as a former id of an entity, PredFormerID), the id of the entity it was merged
	// into. Ids that were never merged are absent. Should two entities record the same
	// former id, the smaller id wins.
	MergedInto(ctx context.Context, ids []ID) (map[ID]ID, error)

	// EntityIDs returns the ids of every defined entity of type t (every type when t is
	// empty), sorted.
	EntityIDs(ctx context.Context, t EntityType) ([]ID, error)

	// DefinedBy returns, for each id, what defines it (gives its type), sorted: the
	// narrations -- through their corpus record too, as Mentions counts it -- and the
	// reserved graphs (PeopleGraph, whose people the corpus's chains resolve to).
	DefinedBy(ctx context.Context, ids []ID) (map[ID][]ID, error)

	// Narrations returns the narrations with the given ids, in order, nil where absent,
	// with their references, chain and gradings in document order.
	Narrations(ctx context.Context, ids []ID) ([]*Narration, error)

	// NarrationSummaries is Narrations with the id, title, chapter and corpus record of
	// each narration only: no references, chain, routes, narrator, gradings or texts, and
	// no text unless a document gives one. It reads one index range per narration, where
	// Narrations reads one more per reference, link, grading and text: for lists of
	// narrations that show their titles.
	NarrationSummaries(ctx context.Context, ids []ID) ([]*Narration, error)

	// NarrationRoutes is Narrations with what Narration.Routes needs only: the id, corpus
	// record, chain, further routes, the record's routes and the narrator -- no
	// references, gradings or texts, whose nodes Narrations reads one by one: for
	// commonLink over many narrations.
	NarrationRoutes(ctx context.Context, ids []ID) ([]*Narration, error)

	// FindClaims returns the claims matching f with their attestations, sorted by subject,
	// predicate, then object or value.
	FindClaims(ctx context.Context, f ClaimFilter) ([]*Claim, error)

	// ClaimsAbout returns, for each id, the claims with it as subject or object, without
	// their attestations, sorted by SortKey: FindClaims(ClaimFilter{Entity: id}) for a list
	// of entities at once, at the cost of reading the entities' own quads only.
	ClaimsAbout(ctx context.Context, ids []ID) (map[ID][]ClaimRef, error)

	// PageClaims returns one page of the claims about an entity (q.Entity: as subject or
	// object; of one predicate when q.Predicate is set too) or of a predicate (q.Predicate
	// alone), without their attestations, sorted by SortKey, with how many there are in
	// all. It reads the page, not every claim: the store keeps these lists sorted beside the
	// graph. Returns an Invalid error when neither is set.
	PageClaims(ctx context.Context, q ClaimPageQuery) (ClaimPage, error)

	// Claims returns the claims with the given ids and their attestations, in order, nil
	// where absent.
	Claims(ctx context.Context, ids []ID) ([]*Claim, error)

	// ClaimHeads returns the claims as Claims does, each with only its first first
	// attestations in Claims' order: a claim that has more is Partial, with its
	// AttestationTotal and NarrationTotal (distinct narrations). A hub's claims have
	// thousands of attestations, and a page shows a few.
	ClaimHeads(ctx context.Context, ids []ID, first int) ([]*Claim, error)

	// ClaimParts returns the claims as Claims does but with their subject, predicate and
	// object or value only: no attestation is read or counted, and each is Bare. For a
	// page of claims that shows neither their attestations nor how many there are (a
	// corpus claim's attestation is a passage of its hadith's text, read to be shown).
	ClaimParts(ctx context.Context, ids []ID) ([]*Claim, error)

	// Edges returns, for each id, the plain triples between entities that touch it in
	// either direction (each with its true source and target), sorted.
	Edges(ctx context.Context, ids []ID) (map[ID][]Edge, error)

	// WeightedEdges returns up to n of the edges touching id (Edges' edges) in weight order
	// -- most attestations first, then by the other end's id, predicate and direction --
	// from the one after the position after ("" from the first), and the position of the
	// last one returned to pass back as after; "" when no edge is left. A best-first walk
	// reads a hub's strongest edges and stops: the store keeps the list sorted.
	WeightedEdges(ctx context.Context, id ID, after string, n int) ([]Edge, string, error)

	// EdgesBetween returns, once each, the edges joining an entity of ids to one of others
	// (a loop when an entity is in both), in no set order, reading no more of a hub's
	// edges than those.
	EdgesBetween(ctx context.Context, ids, others []ID) ([]Edge, error)

	// PageEntities returns one page of the ids of the defined entities of q.Type (of every
	// type when empty), sorted, with how many there are: it reads the page, not every id
	// (EntityIDs does).
	PageEntities(ctx context.Context, q EntityPageQuery) (EntityPage, error)

	// PageGradings returns one page of the gradings of every narration by q.Grader and of
	// q.Grade (either or both may be empty: any), ordered by narration id then position
	// (a document's gradings before a corpus record's), with how many there are: it reads
	// the page, not every narration.
	PageGradings(ctx context.Context, q GradingPageQuery) (GradingPage, error)

	// Close releases the store. Using it afterwards is an error with code Unavailable (the
	// server is shutting down; the request may succeed elsewhere).
	Close() error
}

// ClaimFilter selects claims. Empty fields match everything; all set fields must match.
type ClaimFilter struct {
	Subject         ID
	Predicate       string // vocabulary name
	Object          ID
	Entity          ID // subject or object
	Narration       ID // attested by this narration
	MinAttestations int
}

// ClaimPageQuery selects a page of claims (Store.PageClaims).
type ClaimPageQuery struct {
	Entity    ID     // claims with it as subject or object
	Predicate string // vocabulary name: of this predicate (every claim of it, without Entity)
	After     string // the SortKey of the last claim of the previous page; "" from the start
	First     int    // how many at most; negative for all
	// SkipNarrations leaves each reference's Narrations nil: they are read from a row per
	// narration stating the claim, thousands for a hub's claims, which a caller that only
	// pages or orders the claims does not need.
	SkipNarrations bool
	// AsSubject, with Entity (and Predicate or not), keeps only the claims with Entity as
	// their subject: one range of the entity's list, found by a seek, where the claims
	// with it as object lie scattered among the rest (a hub is the object of tens of
	// thousands).
	AsSubject bool
	// SkipTotal lets the store leave Total unset (0) where it would count the matching
	// claims one by one, for a caller that pages without showing a total. (The Cayley store
	// keeps a count for every list and for the side of an entity's list with it as subject,
	// and gives Total either way; until 2026-12-05 it counted that side row by row: Abu
	// Hurayrah is the subject of 8,319 claims, which a page of 50 read all to count.)
	SkipTotal bool
}

// ClaimPage is a page of claims (Store.PageClaims).
type ClaimPage struct {
	Refs  []ClaimRef // sorted by SortKey; Narrations sorted
	Total int        // the claims matching the query, on every page
	More  bool       // some follow this page
}

// EntityPageQuery selects a page of entity ids (Store.PageEntities).
type EntityPageQuery struct {
	Type  EntityType // "" for every type
	After ID         // the last id of the previous page; "" from the start
	First int        // how many at most; negative for all
}

// EntityPage is a page of entity ids (Store.PageEntities).
type EntityPage struct {
	IDs   []ID // sorted
	Total int  // the entities of the type, on every page
	More  bool // some follow this page
}

// GradingPageQuery selects a page of gradings (Store.PageGradings).
type GradingPageQuery struct {
	Grader ID     // gradings by this person; "" for any grader (named by id or not)
	Grade  Grade  // of this grade; "" for any (with none too)
	After  string // the Key of the last grading of the previous page; "" from the start
	First  int    // how many at most; negative for all
}

// NarrationGrading is one grading with the narration it grades.
type NarrationGrading struct {
	Narration ID
	Grading   Grading
	// Key orders the gradings of a GradingPage (narration id, then position) and is the
	// page's cursor: opaque.
	Key string
}

// GradingPage is a page of gradings (Store.PageGradings).
type GradingPage struct {
	Gradings []NarrationGrading
	Total    int  // the gradings matching the query, on every page
	More     bool // some follow this page
}

// NarrationNamed returns the narration id names and the key of the corpus record that
// narration carries ("" when none): id itself when it is a narration of the store, or,
// for a corpus record's own id (narration:muslim-4588, the record corpus:muslim-4588),
// the narration document carrying the record under another id (narration:muslim-1763,
// which states it with PredCorpusRecord); "" for n when id names no narration. It is how
// GraphQL's narration(id:), the narration export and delete read an id.
func NarrationNamed(ctx context.Context, st interface {
	NarrationSummaries(ctx context.Context, ids []ID) ([]*Narration, error)
	QuadsTo(ctx context.Context, predicate string, object Term) ([]Quad, error)
}, id ID) (n ID, corpus string, err error) {
	ns, err := st.NarrationSummaries(ctx, []ID{id})
	if err != nil {
		return "", "", err
	}
	if len(ns) > 0 && ns[0] != nil {
		return id, ns[0].Corpus, nil
	}
	if id.Prefix() != TypeNarration.Prefix() {
		return "", "", nil
	}
	label := ID(CorpusPrefix + ":" + id.Local()).IRI()
	qs, err := st.QuadsTo(ctx, PredCorpusRecord, IRITerm(label))
	if err != nil {
		return "", "", err
	}
	for _, q := range qs {
		if q.Label == label {
			if n, ok := ParseIRI(q.Subject); ok {
				return n, id.Local(), nil
			}
		}
	}
	return "", "", nil
}
