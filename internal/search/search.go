// Package search is an in-memory name index over the entities of the Athar
// knowledge graph (people, events, Qur'an verses). Entities are found by
// any of their names — primary name, aliases, Arabic names — with
// transliteration and spelling variants folded away by Normalize.
//
// The index is a flat list of names, normalised once by Put and scanned
// linearly by each Search. Each name has a 24-byte filter (its length and
// bitmaps of the bytes and byte pairs it contains) in a dense array, so
// most names are rejected without reading them; and once Search holds
// enough good hits, longer names that could not rank above them are
// skipped too. Neither shortcut ever drops a result. Put and Delete cost
// O(names of the document), amortised.
package search

import (
	"cmp"
	"container/heap"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Doc is what the index knows of one entity.
type Doc struct {
	ID    string   // e.g. "person:umar-ibn-al-khattab"; the key of the entity
	Type  string   // e.g. "Person"; returned in hits, not searched
	Names []string // primary name first, then aliases and Arabic names
}

// Rank says how a query matched a name. Lower is better.
type Rank int

const (
	// Exact: the normalised name equals the normalised query.
	Exact Rank = iota
	// Prefix: the normalised name starts with the normalised query.
	Prefix
	// WordPrefix: a word of the normalised name other than the first
	// starts with the normalised query.
	WordPrefix
	// Contains: the normalised query occurs elsewhere inside the
	// normalised name.
	Contains
)

// String returns the name of the rank, e.g. "Exact".
func (r Rank) String() string {
	switch r {
	case Exact:
		return "Exact"
	case Prefix:
		return "Prefix"
	case WordPrefix:
		return "WordPrefix"
	case Contains:
		return "Contains"
	}
	return "Rank(" + strconv.Itoa(int(r)) + ")"
}

// Hit is one entity found by Search.
type Hit struct {
	ID   string
	Type string
	Name string // the name that matched, exactly as given to Put
	Rank Rank
}

// Index is an in-memory name index. The zero value is not usable; call
// NewIndex. All methods are safe for concurrent use.
type Index struct {
	mu      sync.RWMutex
	strs    strs             // every string below (strs.go)
	slots   map[string]int32 // live document ID (in strs) -> index into docs
	docs    []doc            // in insertion order; dead ones await compaction
	names   []name           // grouped by document, in the order of docs
	filters []filter         // filters[i] is the filter of names[i]
	given   []str            // the names as given, grouped by document
	skels   []skel           // the names' Skeletons, grouped by document, for Forgiving
	types   []string         // the distinct Doc.Types; doc.typ indexes it
	typeOf  map[string]int32 // Doc.Type -> index into types
	ofType  []int            // live documents per type, indexed as types
	live    int              // live documents
	dead    int              // dead documents plus dead names
}

// doc is one stored document. Like every element of the index's arrays it holds no
// pointer (strs.go).
type doc struct {
	id     str
	typ    int32 // index into Index.types
	given  int32 // index of its first name as given in Index.given
	ngiven int32
	skels  int32 // index of its first skeleton in Index.skels
	nskels int32
	first  int32 // index of its first entry in Index.names
	n      int32 // number of its entries in Index.names
	alive  bool
}

// name is one distinct normalised name of a document.
type name struct {
	norm str
	slot int32 // index into Index.docs; -1 once deleted
	idx  int32 // index of the name as given among its document's
}

// filter summarises a normalised string: its length, and the bytes and
// the adjacent byte pairs that occur in it, each hashed into 64 bits. If q
// is a substring of n then n.size >= q.size and n.covers(q). Filters are
// kept apart from names so that the scan in Search reads 24 bytes per name
// and touches the name itself only for likely matches.
type filter struct {
	bytes, pairs uint64
	size         uint32 // len(s)
	runes        uint32 // utf8.RuneCountInString(s)
}

// filterOf returns the filter of s. The filter of a non-empty string is
// never zero, so a zero filter matches no query.
func filterOf(s string) filter {
	f := filter{size: uint32(len(s)), runes: uint32(utf8.RuneCountInString(s))}
	for i := 0; i < len(s); i++ {
		f.bytes |= 1 << byteBit(s[i])
		if i > 0 {
			f.pairs |= 1 << pairBit(s[i-1], s[i])
		}
	}
	return f
}

// covers reports whether f contains every bit of q.
func (f filter) covers(q filter) bool {
	return f.size >= q.size && f.bytes&q.bytes == q.bytes && f.pairs&q.pairs == q.pairs
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{slots: make(map[string]int32), typeOf: map[string]int32{}}
}

// Len returns the number of documents in the index.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// LenOf returns the number of documents of type typ in the index.
func (ix *Index) LenOf(typ string) int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if t, ok := ix.typeOf[typ]; ok {
		return ix.ofType[t]
	}
	return 0
}

// Put inserts d, replacing everything previously known under d.ID. The
// index keeps its own copy of d.Names. Names that normalise to the empty
// string never match; a Doc without names is stored but never found.
func (ix *Index) Put(d Doc) {
	type entry struct {
		norm string
		idx  int32
	}
	entries := make([]entry, 0, len(d.Names))
	for i, g := range d.Names {
		norm := Normalize(g)
		if norm == "" || slices.ContainsFunc(entries, func(e entry) bool { return e.norm == norm }) {
			continue // an earlier name of d already matches exactly as this one would
		}
		entries = append(entries, entry{norm: norm, idx: int32(i)})
	}
	skels := skeletonsOf(d.Names)

	ix.mu.Lock()
	defer ix.mu.Unlock()
	if slot, ok := ix.slots[d.ID]; ok {
		ix.remove(slot)
	}
	typ, ok := ix.typeOf[d.Type]
	if !ok {
		typ = int32(len(ix.types))
		ix.types = append(ix.types, d.Type)
		ix.ofType = append(ix.ofType, 0)
		ix.typeOf[d.Type] = typ
	}
	slot := int32(len(ix.docs))
	nd := doc{
		id: ix.strs.add(d.ID), typ: typ,
		given: int32(len(ix.given)), ngiven: int32(len(d.Names)),
		skels: int32(len(ix.skels)), nskels: int32(len(skels)),
		first: int32(len(ix.names)), n: int32(len(entries)), alive: true,
	}
	for _, g := range d.Names {
		ix.given = append(ix.given, ix.strs.add(g))
	}
	for _, e := range entries {
		ix.names = append(ix.names, name{norm: ix.strs.add(e.norm), slot: slot, idx: e.idx})
		ix.filters = append(ix.filters, filterOf(e.norm))
	}
	for _, sk := range skels {
		ix.skels = append(ix.skels, skel{norm: ix.strs.add(sk.norm), f: sk.f, runes: sk.runes, idx: sk.idx})
	}
	ix.docs = append(ix.docs, nd)
	ix.slots[ix.strs.get(nd.id)] = slot
	ix.live++
	ix.ofType[typ]++
	ix.compactIfSparse()
}

// Delete removes the document with the given ID, if any.
func (ix *Index) Delete(id string) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if slot, ok := ix.slots[id]; ok {
		ix.remove(slot)
		ix.compactIfSparse()
	}
}

// remove marks the document in slot and its names dead. ix.mu must be held
// for writing.
func (ix *Index) remove(slot int32) {
	d := &ix.docs[slot]
	for i := d.first; i < d.first+d.n; i++ {
		ix.names[i].slot = -1
		ix.filters[i] = filter{}
	}
	delete(ix.slots, ix.strs.get(d.id))
	ix.ofType[d.typ]--
	d.alive = false
	ix.live--
	ix.dead += 1 + int(d.n)
}

// compactIfSparse drops dead documents and names, and their strings, once they
// make up half of what is stored, so that Put and Delete stay O(1) amortised in
// the size of the index. ix.mu must be held for writing.
func (ix *Index) compactIfSparse() {
	if ix.dead < 1024 || 2*ix.dead < len(ix.docs)+len(ix.names) {
		return
	}
	n := 0
	for _, d := range ix.docs {
		if d.alive {
			n += int(d.n)
		}
	}
	var a strs
	move := func(r str) str { return a.add(ix.strs.get(r)) }
	slots := make(map[string]int32, ix.live)
	docs := make([]doc, 0, ix.live)
	names := make([]name, 0, n)
	filters := make([]filter, 0, n)
	var given []str
	var skels []skel
	for _, d := range ix.docs {
		if !d.alive {
			continue
		}
		slot := int32(len(docs))
		nd := d
		nd.id = move(d.id)
		nd.first, nd.given, nd.skels = int32(len(names)), int32(len(given)), int32(len(skels))
		for _, e := range ix.names[d.first : d.first+d.n] {
			names = append(names, name{norm: move(e.norm), slot: slot, idx: e.idx})
		}
		filters = append(filters, ix.filters[d.first:d.first+d.n]...)
		for _, g := range ix.given[d.given : d.given+d.ngiven] {
			given = append(given, move(g))
		}
		for _, sk := range ix.skels[d.skels : d.skels+d.nskels] {
			sk.norm = move(sk.norm)
			skels = append(skels, sk)
		}
		docs = append(docs, nd)
		slots[a.get(nd.id)] = slot
	}
	ix.strs, ix.slots, ix.docs, ix.names, ix.filters, ix.given, ix.skels, ix.dead = a, slots, docs, names, filters, given, skels, 0
}

// hit is the Hit of match m, its strings copied out of the arena.
func (ix *Index) hit(m match) Hit {
	d := &ix.docs[m.slot]
	return Hit{
		ID:   strings.Clone(ix.strs.get(d.id)),
		Type: ix.types[d.typ],
		Name: strings.Clone(ix.strs.get(ix.given[d.given+m.idx])),
		Rank: m.rank,
	}
}

// idOf is the id of the document in slot, in the arena.
func (ix *Index) idOf(slot int32) string { return ix.strs.get(ix.docs[slot].id) }

// Search returns up to first entities having a name that matches text, best
// first. text is normalised with Normalize and matched against every
// normalised name; each entity appears once, with its best-matching name.
//
// Order: by Rank; then by the shorter matched name (its normalised length
// in runes); then by ID. Within one entity, the best rank wins, then the
// shorter name, then the name given first in Doc.Names.
//
// Search returns nil if first <= 0, if text normalises to the empty string
// (blank or punctuation only), or if nothing matches.
func (ix *Index) Search(text string, first int) []Hit {
	if first <= 0 {
		return nil
	}
	q := Normalize(text)
	if q == "" {
		return nil
	}
	qf := filterOf(q)

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 {
		return nil
	}

	top := topK{ix: ix, k: min(first, ix.live)}
	best := match{slot: -1, rank: -1}
	for i := range ix.filters {
		f := &ix.filters[i]
		if !f.covers(qf) {
			continue // also skips deleted names, whose filter is zero
		}
		runes := int32(f.runes)
		if top.full() {
			// Skip names that cannot beat the worst hit kept so far,
			// judging by length alone: a name longer than the query is
			// at best a Prefix match. Ties on ID are left to offer.
			atBest := Prefix
			if f.size == qf.size {
				atBest = Exact
			}
			if w := top.m[0]; atBest > w.rank || atBest == w.rank && runes > w.runes {
				continue
			}
		}
		// The names of a document are adjacent, so a change of slot
		// means the previous document has been seen in full. (Skipping
		// names only delays offering it, which prunes less, never wrongly.)
		e := &ix.names[i]
		if e.slot != best.slot {
			if best.rank >= 0 {
				top.offer(best)
			}
			best = match{slot: e.slot, rank: -1}
		}
		r, ok := rankOf(ix.strs.get(e.norm), q)
		if !ok {
			continue
		}
		// Names of a document are scanned in the order given, so only a
		// strictly better match replaces the current one.
		if best.rank < 0 || r < best.rank || r == best.rank && runes < best.runes {
			best.rank, best.runes, best.idx = r, runes, e.idx
		}
	}
	if best.rank >= 0 {
		top.offer(best)
	}
	if len(top.m) == 0 {
		return nil
	}

	slices.SortFunc(top.m, top.compare)
	hits := make([]Hit, len(top.m))
	for i, m := range top.m {
		hits[i] = ix.hit(m)
	}
	return hits
}

// rankOf reports how q matches the normalised name n, and whether it does.
func rankOf(n, q string) (Rank, bool) {
	i := strings.Index(n, q)
	switch {
	case i < 0:
		return 0, false
	case i == 0 && len(n) == len(q):
		return Exact, true
	case i == 0:
		return Prefix, true
	}
	for {
		if n[i-1] == ' ' {
			return WordPrefix, true
		}
		j := strings.Index(n[i+1:], q)
		if j < 0 {
			return Contains, true
		}
		i += 1 + j
	}
}

// match is the best match found for one document.
type match struct {
	rank  Rank // -1: none yet
	runes int32
	slot  int32
	idx   int32
}

// topK keeps the k best matches seen, as a max-heap with the worst on top.
type topK struct {
	ix *Index
	k  int
	m  []match
}

func (t *topK) compare(a, b match) int {
	if c := cmp.Compare(a.rank, b.rank); c != 0 {
		return c
	}
	if c := cmp.Compare(a.runes, b.runes); c != 0 {
		return c
	}
	return strings.Compare(t.ix.idOf(a.slot), t.ix.idOf(b.slot))
}

// full reports whether t holds k matches, so that a new one must beat the
// worst, t.m[0], to get in.
func (t *topK) full() bool { return len(t.m) == t.k }

func (t *topK) offer(m match) {
	switch {
	case len(t.m) < t.k:
		heap.Push(t, m)
	case t.compare(m, t.m[0]) < 0:
		t.m[0] = m
		heap.Fix(t, 0)
	}
}

// heap.Interface, ordered worst first.
func (t *topK) Len() int           { return len(t.m) }
func (t *topK) Less(i, j int) bool { return t.compare(t.m[i], t.m[j]) > 0 }
func (t *topK) Swap(i, j int)      { t.m[i], t.m[j] = t.m[j], t.m[i] }
func (t *topK) Push(x any)         { t.m = append(t.m, x.(match)) }
func (t *topK) Pop() any {
	x := t.m[len(t.m)-1]
	t.m = t.m[:len(t.m)-1]
	return x
}

// byteBit gives ASCII letters and digits a bit each and shares the rest.
func byteBit(c byte) uint {
	switch {
	case 'a' <= c && c <= 'z':
		return uint(c - 'a')
	case '0' <= c && c <= '9':
		return 26 + uint(c-'0')
	}
	return 36 + uint(c)%28
}

// pairBit hashes a byte pair to 0..63.
func pairBit(a, b byte) uint {
	return uint((uint32(a)<<8|uint32(b))*0x9E3779B1) >> 26
}
