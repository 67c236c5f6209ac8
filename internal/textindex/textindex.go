// Package textindex is the full-text index of narration texts, on Bleve. It is the only
// package that imports Bleve.
//
// Each text of a narration (a narration may have several: an Arabic text and its English
// translation) is one Bleve document, holding the text in the field of its language and the
// narration's filters (collection, chapter, grades, graders) beside it. The index is
// derived: its owner (graph.OpenTextIndex) builds Docs from the store, keeps the index in
// step with every committed change, and rebuilds it when its Stamp disagrees with the
// store's. What is folded (case, transliteration marks, diacritics, Arabic letter variants)
// is in analysis.go; how a query is read, in query.go.
package textindex

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/search"
)

// Version is the version of the index's schema (its mapping, analyzers and what a Doc
// holds). An index written with another version has no Stamp, so its owner rebuilds it.
const Version = "6"

// Doc is what the index knows of one narration.
type Doc struct {
	Narration  string      // the narration's id, e.g. "narration:muslim-1763"
	Title      string      // shown with its hits
	References []Reference // where the narration is found, in document order
	Texts      []Text      // the narration's texts; each is searched and hit on its own
	Collection []string    // the collections it is in (filter); by default its references'
	Chapter    Chapter     // the chapter (book) it is in, when known
	Grades     []Grade     // its gradings
	// Source identifies what the Doc was built from (e.g. a digest of the narration's
	// quads), when its owner can compute it more cheaply than the Doc itself: the stamp is
	// then made of (Narration, Source) pairs, and the owner checks the index against the
	// store without building any Doc (Stamp.AddSource). Empty: the Doc's content counts.
	Source string
}

// Reference locates a narration in a source.
type Reference struct {
	Collection string `json:"c,omitempty"`
	Edition    string `json:"e,omitempty"` // the edition or numbering scheme
	Number     string `json:"n,omitempty"`
}

// Text is one text of a narration: the Arabic text, a translation.
type Text struct {
	Language string // BCP 47, e.g. "ar", "en"; "ar" (or "ar-...") selects the Arabic analyzer
	Edition  string // which edition or translation this text is, e.g. "eng-muslim"
	Text     string
}

// Chapter is the chapter (book) of a collection a narration is in.
type Chapter struct {
	ID   string
	Name string
}

// Grade is one grader's verdict.
type Grade struct {
	Grader     string // the grader: a person's id or name as given
	GraderName string // the grader's name, when Grader is an id
	Verdict    string // as stated, e.g. "hasan gharib"
	Grade      string // normalised (athar.Grade), e.g. "hasan"; empty when unknown
}

// Index is a full-text index of narration texts, safe for concurrent use.
type Index struct {
	bx bleve.Index
	// mu serialises writes: each reads and rewrites the stamp and the narration's entry.
	mu sync.Mutex
}

// Internal keys, in Bleve's internal key-value space beside the documents. Scorch copies
// every internal value into each snapshot it persists, so only these few small ones live
// there; what the index records of each narration is a document (entry).
const (
	keyVersion = "athar.version"
	keyStamp   = "athar.stamp"
)

// entry is what the index records of each narration it holds, as a document of its own
// (id: the narration's id; no text field, so no search finds it): the hash of its Doc (for
// the stamp) and how many texts it indexed (for Delete).
type entry struct {
	Hash  string
	Texts int
}

func (e entry) doc() map[string]any {
	return map[string]any{fieldKind: kindEntry, fieldHash: e.Hash, fieldTexts: strconv.Itoa(e.Texts)}
}

// Open opens the index in dir, creating it when dir does not exist. An index of another
// Version, or one Bleve cannot open, is an error: the owner then removes dir and builds the
// index again (Remove, then Open). With dir "", the index lives in memory.
func Open(dir string) (*Index, error) {
	op := "open text index " + dir
	if dir == "" {
		op = "open text index in memory"
	}
	m, err := newMapping()
	if err != nil {
		return nil, athar.E(op, athar.Internal, err)
	}
	var bx bleve.Index
	switch _, statErr := os.Stat(dir); {
	case dir == "":
		bx, err = bleve.NewMemOnly(m)
	case errors.Is(statErr, os.ErrNotExist):
		bx, err = bleve.New(dir, m)
	default:
		bx, err = bleve.Open(dir)
	}
	if err != nil {
		return nil, athar.E(op, athar.Internal, err)
	}
	ix := &Index{bx: bx}
	v, err := bx.GetInternal([]byte(keyVersion))
	switch {
	case err != nil:
		bx.Close()
		return nil, athar.E(op, athar.Internal, err)
	case v == nil:
		// New: record the version (an existing index without one is from before it and
		// has no stamp, so its owner rebuilds it).
		count, err := bx.DocCount()
		if err == nil && count == 0 {
			err = bx.SetInternal([]byte(keyVersion), []byte(Version))
		}
		if err != nil {
			bx.Close()
			return nil, athar.E(op, athar.Internal, err)
		}
	case string(v) != Version:
		bx.Close()
		return nil, athar.E(op, athar.Conflict, "the index has schema version %s, this program writes %s: remove it to rebuild it", v, Version)
	}
	return ix, nil
}

// Remove deletes the index in dir, so that Open creates it anew.
func Remove(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return athar.E("remove text index "+dir, athar.Internal, err)
	}
	return nil
}

// Close releases the index.
func (ix *Index) Close() error {
	if err := ix.bx.Close(); err != nil {
		return athar.E("close text index", athar.Internal, err)
	}
	return nil
}

// Len returns how many texts the index holds.
func (ix *Index) Len() (int, error) {
	n, err := ix.bx.DocCount()
	if err == nil {
		q := bleve.NewTermQuery(kindEntry)
		q.SetField(fieldKind)
		var res *bleve.SearchResult
		if res, err = ix.bx.Search(bleve.NewSearchRequestOptions(q, 0, 0, false)); err == nil {
			n -= res.Total
		}
	}
	if err != nil {
		return 0, athar.E("count texts", athar.Internal, err)
	}
	return int(n), nil
}

// Diff compares what the index holds with want, the narrations it should hold and the
// Source of each one's Doc (Doc.Source): it returns those whose entry is missing or of
// another Doc (stale), and those it holds that want lacks (extra). Its owner re-indexes
// and deletes them instead of rebuilding the whole index when the stamps disagree (a write
// the index missed). It reads every entry once, not the texts.
func (ix *Index) Diff(ctx context.Context, want map[string]string) (stale, extra []string, err error) {
	held := make(map[string]string, len(want))
	q := bleve.NewTermQuery(kindEntry)
	q.SetField(fieldKind)
	var after []string
	for {
		if err := athar.Stopped(ctx, "compare text index"); err != nil {
			return nil, nil, err
		}
		req := bleve.NewSearchRequestOptions(q, diffPage, 0, false)
		req.Fields = []string{fieldHash}
		req.SortBy([]string{"_id"})
		if after != nil {
			req.SearchAfter = after
		}
		res, err := ix.bx.SearchInContext(ctx, req)
		if err != nil {
			return nil, nil, athar.E("compare text index", athar.Internal, err)
		}
		for _, h := range res.Hits {
			hash, _ := h.Fields[fieldHash].(string)
			held[h.ID] = hash
		}
		if len(res.Hits) < diffPage {
			break
		}
		after = []string{res.Hits[len(res.Hits)-1].ID}
	}
	for n, src := range want {
		h := hashDoc(Doc{Narration: n, Source: src})
		if held[n] != hex.EncodeToString(h[:]) {
			stale = append(stale, n)
		}
	}
	for n := range held {
		if _, ok := want[n]; !ok {
			extra = append(extra, n)
		}
	}
	slices.Sort(stale)
	slices.Sort(extra)
	return stale, extra, nil
}

// diffPage is how many entries Diff reads a search (a variable for the tests).
var diffPage = 10000

// batchTexts is how many texts one Bleve batch holds at most. Each batch is a segment on
// disk, written and synced before Put returns; larger ones index faster and leave fewer
// segments to merge, and hold more in memory while they are analysed.
const batchTexts = 2048

// Compact merges the index's segments into one, waiting until it is done: after a bulk
// build, so that searches read one segment and the files of the many small ones written
// batch by batch are released. In memory, it does nothing.
func (ix *Index) Compact(ctx context.Context) error {
	adv, err := ix.bx.Advanced()
	if err != nil {
		return athar.E("compact text index", athar.Internal, err)
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil
	}
	if err := sc.ForceMerge(ctx, &mergeplan.SingleSegmentMergePlanOptions); err != nil {
		if c := athar.Stopped(ctx, "compact text index"); c != nil {
			return c
		}
		return athar.E("compact text index", athar.Internal, err)
	}
	return nil
}

// Put indexes the docs, replacing what the index held for their narrations (texts a new
// version no longer has are removed). Docs are written in batches; each batch is atomic,
// its stamp included, so the index never holds half a narration.
func (ix *Index) Put(ctx context.Context, docs ...Doc) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	stamp, err := ix.stamp()
	if err != nil {
		return athar.E("index texts", athar.Internal, err)
	}
	b := ix.bx.NewBatch()
	pending := map[string]entry{} // entries written by b, not yet readable from the index
	flush := func() error {
		b.SetInternal([]byte(keyStamp), stamp[:])
		if err := ix.bx.Batch(b); err != nil {
			return athar.E("index texts", athar.Internal, err)
		}
		b.Reset()
		clear(pending)
		return nil
	}
	for _, d := range docs {
		if err := athar.Stopped(ctx, "index texts"); err != nil {
			return err
		}
		old, had, err := ix.entryOf(d.Narration, pending)
		if err != nil {
			return athar.E("index "+d.Narration, athar.Internal, err)
		}
		h := hashDoc(d)
		if had {
			stamp.xor(old.hash())
		}
		stamp.xor(h)
		for i, t := range d.Texts {
			if err := b.Index(textID(d.Narration, i), bleveDoc(d, i, t)); err != nil {
				return athar.E("index "+d.Narration, athar.Internal, err)
			}
		}
		for i := len(d.Texts); i < old.Texts; i++ {
			b.Delete(textID(d.Narration, i))
		}
		e := entry{Hash: hex.EncodeToString(h[:]), Texts: len(d.Texts)}
		pending[d.Narration] = e
		if err := b.Index(d.Narration, e.doc()); err != nil {
			return athar.E("index "+d.Narration, athar.Internal, err)
		}
		if b.Size() >= batchTexts {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if b.Size() == 0 {
		return nil
	}
	return flush()
}

// Delete removes a narration's texts. Deleting a narration the index does not hold does
// nothing.
func (ix *Index) Delete(ctx context.Context, narration string) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if err := athar.Stopped(ctx, "unindex "+narration); err != nil {
		return err
	}
	old, had, err := ix.entryOf(narration, nil)
	if err != nil || !had {
		return wrapInternal("unindex "+narration, err)
	}
	stamp, err := ix.stamp()
	if err != nil {
		return athar.E("unindex "+narration, athar.Internal, err)
	}
	stamp.xor(old.hash())
	b := ix.bx.NewBatch()
	for i := range old.Texts {
		b.Delete(textID(narration, i))
	}
	b.Delete(narration)
	b.SetInternal([]byte(keyStamp), stamp[:])
	if err := ix.bx.Batch(b); err != nil {
		return athar.E("unindex "+narration, athar.Internal, err)
	}
	return nil
}

func wrapInternal(op string, err error) error {
	if err == nil {
		return nil
	}
	return athar.E(op, athar.Internal, err)
}

func (ix *Index) entryOf(narration string, pending map[string]entry) (entry, bool, error) {
	if e, ok := pending[narration]; ok {
		return e, true, nil
	}
	doc, err := ix.bx.Document(narration)
	if err != nil || doc == nil {
		return entry{}, false, err
	}
	var e entry
	var texts string
	doc.VisitFields(func(f index.Field) {
		switch f.Name() {
		case fieldHash:
			e.Hash = string(f.Value())
		case fieldTexts:
			texts = string(f.Value())
		}
	})
	if e.Texts, err = strconv.Atoi(texts); err != nil || len(e.Hash) != 2*len(Stamp{}) {
		return entry{}, false, fmt.Errorf("entry of %s is damaged", narration)
	}
	return e, true, nil
}

func (e entry) hash() Stamp {
	var s Stamp
	b, _ := hex.DecodeString(e.Hash)
	copy(s[:], b)
	return s
}

// textID is the Bleve document id of a narration's i-th text.
func textID(narration string, i int) string { return narration + "#" + strconv.Itoa(i) }

// bleveDoc is the Bleve document of d's i-th text.
func bleveDoc(d Doc, i int, t Text) map[string]any {
	refs, _ := json.Marshal(d.References)
	m := map[string]any{
		fieldNarration: d.Narration,
		fieldLanguage:  search.Normalize(t.Language),
		fieldEdition:   t.Edition,
		fieldPosition:  strconv.Itoa(i),
		fieldTitle:     d.Title,
		fieldRefs:      string(refs),
	}
	if isArabic(t.Language) {
		m[fieldTextAr] = t.Text
	} else {
		m[fieldText] = t.Text
	}
	keys := func(vs ...string) []string {
		var out []string
		for _, v := range vs {
			if k := search.Normalize(v); k != "" {
				out = append(out, k)
			}
		}
		return out
	}
	colls := d.Collection
	if len(colls) == 0 {
		for _, r := range d.References {
			colls = append(colls, r.Collection)
		}
	}
	m[fieldColl] = keys(colls...)
	m[fieldChapter] = keys(d.Chapter.ID, d.Chapter.Name)
	var grades, graders []string
	for _, g := range d.Grades {
		grades = append(grades, keys(g.Grade)...)
		graders = append(graders, keys(g.Grader, g.GraderName)...)
	}
	m[fieldGrade] = grades
	m[fieldGrader] = graders
	return m
}

func isArabic(lang string) bool {
	l := search.Normalize(lang)
	return l == "ar" || len(l) > 3 && l[:3] == "ar " || l == "arabic"
}

// Stamp identifies the content of an index: the XOR of the SHA-256 hashes of every Doc it
// holds. It does not depend on the order the docs were put in, and an owner computes the
// stamp the store's narrations should give (Stamp.Add) and compares: a difference means the
// index missed a change (a write while it was closed, a crash between the store's commit
// and the index's) and must be rebuilt.
type Stamp [sha256.Size]byte

// Add adds d to the stamp.
func (s *Stamp) Add(d Doc) { s.xor(hashDoc(d)) }

// AddSource adds the Doc of narration built from source (Doc.Source) to the stamp.
func (s *Stamp) AddSource(narration, source string) {
	s.xor(hashDoc(Doc{Narration: narration, Source: source}))
}

func (s *Stamp) xor(h Stamp) {
	for i := range s {
		s[i] ^= h[i]
	}
}

func (s Stamp) String() string { return hex.EncodeToString(s[:]) }

// hashDoc hashes d's narration and source or, without a source, everything of d the index
// uses; with the schema version.
func hashDoc(d Doc) Stamp {
	if d.Source != "" {
		return sha256.Sum256([]byte(Version + "\x00" + d.Narration + "\x00" + d.Source))
	}
	b, _ := json.Marshal(d) // a struct of strings and slices: never fails, deterministic
	return sha256.Sum256(append([]byte(Version+"\x01"), b...))
}

// Stamp returns the stamp of what the index holds (the zero Stamp when empty).
func (ix *Index) Stamp() (Stamp, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s, err := ix.stamp()
	return s, wrapInternal("read text index stamp", err)
}

func (ix *Index) stamp() (Stamp, error) {
	var s Stamp
	v, err := ix.bx.GetInternal([]byte(keyStamp))
	if err != nil {
		return s, err
	}
	if v != nil && len(v) != len(s) {
		return s, fmt.Errorf("stamp has %d bytes", len(v))
	}
	copy(s[:], v)
	return s, nil
}
