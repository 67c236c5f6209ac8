package cayleystore

// Gradings by grader and grade, and entity ids by type, in the read model. "Everything
// al-Albani graded sahih" used to read every narration of the store (35,491 with the
// corpus), and counting the persons listed 21,899 ids; both are now a page of a sorted
// list and a count:
//
//	rmGradingBucket  "a\x00" node -> the grading node's facts: every quad of the node the
//	                 index uses, and the quads giving it its narration, sorted (gradingFacts)
//	                 "i\x00" grader \x00 grade \x00 key -> the grading with its narration
//	                 "c\x00" grader \x00 grade -> how many gradings the list holds (uvarint)
//	rmTypesBucket    "e\x00" type \x00 id -> 1: a defined entity of the type
//	                 "n\x00" type -> how many (uvarint)
//
// grader is a person id or "*" (any grader, named by id or not); grade a Grade or "*" (any,
// none included); type an EntityType or "" (every type). A grading is in four lists (two
// when it names no grader by id or gives no grade, one when neither); key is its
// narration's id, its position (a document's gradings before a corpus record's) and its
// node. An entity is in its type's list and in the list of every type.
//
// A grading is several quads (position, grader, verdict, grade, ...; and the narration's
// quad pointing at the node), which a write adds or removes one at a time and in any
// order. Each of them updates the node's facts, and the grading's index rows are derived
// from the facts alone, before and after: what changed is rewritten. So Apply and a
// rebuild write the same bytes, whatever the order of the quads. A grading without its
// narration's quad or its position is in no list.

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/athar-hadith/athar/internal/athar"
)

const (
	rmGradingBucket = "athar.rm.grading"
	rmTypesBucket   = "athar.rm.types"
)

// gradingAttrs are the predicates of a grading node the index keeps, by their code in the
// node's facts.
var gradingAttrs = map[string]string{
	athar.PredPosition: "pos", athar.PredGrader: "grader", athar.PredGraderName: "graderName",
	athar.PredVerdict: "verdict", athar.PredGrade: "grade", athar.PredScope: "scope", athar.PredPart: "part",
	athar.PredStatedIn: "statedIn", athar.PredCollection: "collection", athar.PredEdition: "edition",
	athar.PredNumber: "number", athar.PredURL: "url", athar.RDFSComment: "note",
}

// gradingParent is the code of a narration's quad pointing at the grading node.
const gradingParent = "^narration"

// isGradingNode reports whether iri names a grading node: a document's
// (narration.gradingIRI: Base grading/LOCAL/N) or a corpus record's (hadith.Compile: Base
// corpus/KEY/grading/N).
func isGradingNode(iri string) bool {
	if strings.HasPrefix(iri, athar.Base+"grading/") {
		return true
	}
	rest, ok := strings.CutPrefix(iri, athar.Base+athar.CorpusPrefix+"/")
	return ok && strings.Contains(rest, "/grading/")
}

// gradingFact is one quad of a grading node's facts.
type gradingFact struct {
	attr, term, label, value string
}

// gradingFactOf returns the node and the fact of a quad the grading index keeps.
func gradingFactOf(q quad.Quad) (string, gradingFact, bool) {
	p := iriOf(q.Predicate)
	if p == athar.PredGrading {
		node := iriOf(q.Object)
		if _, ok := q.Object.(quad.IRI); !ok || !isGradingNode(node) {
			return "", gradingFact{}, false
		}
		s := iriOf(q.Subject)
		return node, gradingFact{attr: gradingParent, term: s, label: iriOf(q.Label), value: s}, true
	}
	attr := gradingAttrs[p]
	if attr == "" {
		return "", gradingFact{}, false
	}
	node := iriOf(q.Subject)
	if !isGradingNode(node) {
		return "", gradingFact{}, false
	}
	obj := fromValue(q.Object)
	v := obj.Literal
	if obj.IRI != "" {
		v = obj.IRI
	}
	term := ""
	if q.Object != nil {
		term = q.Object.String()
	}
	return node, gradingFact{attr: attr, term: term, label: iriOf(q.Label), value: v}, true
}

// gradingKeeps reports whether the read model keeps q in the grading index.
func gradingKeeps(q quad.Quad) bool {
	_, _, ok := gradingFactOf(q)
	return ok
}

// gradingPredicate reports whether quads of the predicate may be kept by the grading
// index (a rebuild resolves only those).
func gradingPredicate(p string) bool { return p == athar.PredGrading || gradingAttrs[p] != "" }

func (f gradingFact) less(g gradingFact) bool {
	if f.attr != g.attr {
		return f.attr < g.attr
	}
	if f.term != g.term {
		return f.term < g.term
	}
	return f.label < g.label
}

func encodeFacts(fs []gradingFact) []byte {
	var b []byte
	for _, f := range fs {
		b = appendStr(appendStr(appendStr(appendStr(b, f.attr), f.term), f.label), f.value)
	}
	return b
}

func decodeFacts(b []byte) ([]gradingFact, error) {
	var fs []gradingFact
	str := func() (string, bool) {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return "", false
		}
		s := string(b[k : k+int(l)])
		b = b[k+int(l):]
		return s, true
	}
	for len(b) > 0 {
		var f gradingFact
		var ok1, ok2, ok3, ok4 bool
		f.attr, ok1 = str()
		f.term, ok2 = str()
		f.label, ok3 = str()
		f.value, ok4 = str()
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, errCorruptRow
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// gradingEntry is one index row of a grading.
type gradingEntry struct{ key, value string }

// gradingEntries derives a grading node's index rows from its facts: none when it has no
// narration (a quad labelled by the narration itself or by a corpus record, as
// Store.narration reads them) or no position.
func gradingEntries(node string, fs []gradingFact) []gradingEntry {
	first := map[string]string{}
	var narration athar.ID
	for _, f := range fs { // sorted: the smallest value of each attribute wins
		if f.attr == gradingParent {
			n, ok := athar.ParseIRI(f.value)
			if ok && n.Prefix() == athar.TypeNarration.Prefix() && (f.label == f.value || athar.IsCorpusLabel(f.label)) &&
				(narration == "" || n < narration) {
				narration = n
			}
			continue
		}
		if _, ok := first[f.attr]; !ok {
			first[f.attr] = f.value
		}
	}
	pos, err := strconv.Atoi(first["pos"])
	if narration == "" || err != nil || pos < 0 || pos >= 1<<20 {
		return nil
	}
	g := athar.Grading{
		Position: pos, GraderName: first["graderName"], Verdict: first["verdict"], Grade: athar.Grade(first["grade"]),
		Scope: athar.GradingScope(first["scope"]), Part: first["part"], StatedInText: first["statedIn"], Note: first["note"],
	}
	if p, ok := athar.ParseIRI(first["grader"]); ok {
		g.Grader = p
	}
	ref := athar.Reference{Collection: first["collection"], Edition: first["edition"], Number: first["number"], URL: first["url"]}
	if ref != (athar.Reference{}) {
		g.StatedIn = &ref
	}
	order := pos
	if strings.HasPrefix(node, athar.Base+athar.CorpusPrefix+"/") {
		order |= 1 << 20
	}
	key := fmt.Sprintf("%s\x00%08x\x00%s", narration, order, node)
	value := string(encodeGrading(narration, g))
	graders, grades := []string{"*"}, []string{"*"}
	if g.Grader != "" {
		graders = append(graders, string(g.Grader))
	}
	if g.Grade != "" {
		grades = append(grades, string(g.Grade))
	}
	var out []gradingEntry
	for _, gr := range graders {
		for _, gd := range grades {
			out = append(out, gradingEntry{key: gr + "\x00" + gd + "\x00" + key, value: value})
		}
	}
	return out
}

func encodeGrading(n athar.ID, g athar.Grading) []byte {
	b := appendStr(nil, string(n))
	b = binary.AppendUvarint(b, uint64(g.Position))
	for _, s := range []string{string(g.Grader), g.GraderName, g.Verdict, string(g.Grade), string(g.Scope), g.Part, g.StatedInText, g.Note} {
		b = appendStr(b, s)
	}
	if g.StatedIn == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	for _, s := range []string{g.StatedIn.Collection, g.StatedIn.Edition, g.StatedIn.Number, g.StatedIn.URL} {
		b = appendStr(b, s)
	}
	return b
}

func decodeGrading(b []byte) (athar.ID, athar.Grading, error) {
	ok := true
	str := func() string {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			ok = false
			return ""
		}
		s := string(b[k : k+int(l)])
		b = b[k+int(l):]
		return s
	}
	var g athar.Grading
	n := athar.ID(str())
	pos, k := binary.Uvarint(b)
	if k <= 0 {
		return "", g, errCorruptRow
	}
	b = b[k:]
	g.Position = int(pos)
	g.Grader, g.GraderName, g.Verdict = athar.ID(str()), str(), str()
	g.Grade, g.Scope, g.Part, g.StatedInText, g.Note = athar.Grade(str()), athar.GradingScope(str()), str(), str(), str()
	if !ok || len(b) == 0 {
		return "", g, errCorruptRow
	}
	if b[0] == 1 {
		b = b[1:]
		g.StatedIn = &athar.Reference{Collection: str(), Edition: str(), Number: str(), URL: str()}
	}
	if !ok {
		return "", g, errCorruptRow
	}
	return n, g, nil
}

// gradingApply adds (add) or removes one fact of a grading node, and rewrites the rows
// of the node's grading that change.
func gradingApply(tx manifestTx, q quad.Quad, add bool) error {
	node, f, ok := gradingFactOf(q)
	if !ok {
		return nil
	}
	fk := "a\x00" + node
	old, err := decodeFacts(tx.get(rmGradingBucket, fk))
	if err != nil {
		return fmt.Errorf("grading %s: %w", node, err)
	}
	i := sort.Search(len(old), func(i int) bool { return !old[i].less(f) })
	present := i < len(old) && old[i].attr == f.attr && old[i].term == f.term && old[i].label == f.label
	if present == add {
		return nil
	}
	facts := slices.Clone(old)
	if add {
		facts = slices.Insert(facts, i, f)
	} else {
		facts = slices.Delete(facts, i, i+1)
	}
	if len(facts) == 0 {
		err = tx.del(rmGradingBucket, fk)
	} else {
		err = tx.put(rmGradingBucket, fk, encodeFacts(facts))
	}
	if err != nil {
		return err
	}
	before, after := gradingEntries(node, old), gradingEntries(node, facts)
	kept := map[string]string{}
	for _, e := range after {
		kept[e.key] = e.value
	}
	for _, e := range before {
		if _, ok := kept[e.key]; ok {
			continue
		}
		if err := tx.del(rmGradingBucket, "i\x00"+e.key); err != nil {
			return err
		}
		if err := addListCount(tx, rmGradingBucket, "c\x00"+gradingList(e.key), -1); err != nil {
			return err
		}
	}
	was := map[string]string{}
	for _, e := range before {
		was[e.key] = e.value
	}
	for _, e := range after {
		v, ok := was[e.key]
		if ok && v == e.value {
			continue
		}
		if err := tx.put(rmGradingBucket, "i\x00"+e.key, []byte(e.value)); err != nil {
			return err
		}
		if !ok {
			if err := addListCount(tx, rmGradingBucket, "c\x00"+gradingList(e.key), 1); err != nil {
				return err
			}
		}
	}
	return nil
}

// gradingList is the list (grader \x00 grade) of an entry's key.
func gradingList(key string) string {
	i := strings.IndexByte(key, 0)
	j := strings.IndexByte(key[i+1:], 0)
	return key[:i+1+j]
}

func addListCount(tx manifestTx, bucket, k string, d int) error {
	n, _ := binary.Uvarint(tx.get(bucket, k))
	m := int64(n) + int64(d)
	if m <= 0 {
		return tx.del(bucket, k)
	}
	return tx.put(bucket, k, binary.AppendUvarint(nil, uint64(m)))
}

// typeListApply keeps the lists of entity ids by type, after entPut or entDel has
// changed the count of r's value: an entity enters its type's list when a first label
// gives it its type (the count reached one) and leaves it when none does any more.
func typeListApply(tx manifestTx, r entRow) error {
	if r.kind != "t" {
		return nil
	}
	id, ok := athar.ParseIRI(r.subject)
	if !ok {
		return nil
	}
	t, ok := athar.TypeOfPrefix(id.Prefix())
	if !ok || r.value != t.IRI() {
		return nil
	}
	n, _ := binary.Uvarint(tx.get(rmEntityBucket, "a\x00"+r.valueKey()))
	for _, tt := range []string{string(t), ""} {
		k := "e\x00" + tt + "\x00" + string(id)
		listed := tx.get(rmTypesBucket, k) != nil
		var err error
		switch {
		case n > 0 && !listed:
			if err = tx.put(rmTypesBucket, k, []byte{1}); err == nil {
				err = addListCount(tx, rmTypesBucket, "n\x00"+tt, 1)
			}
		case n == 0 && listed:
			if err = tx.del(rmTypesBucket, k); err == nil {
				err = addListCount(tx, rmTypesBucket, "n\x00"+tt, -1)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// PageEntities implements athar.Store: one seek into the type's list and one count; while
// the read model is stale, the ids from Cayley paged in memory.
func (s *Store) PageEntities(ctx context.Context, q athar.EntityPageQuery) (athar.EntityPage, error) {
	if q.Type != "" && !q.Type.Valid() {
		return athar.EntityPage{}, athar.E("page entities", athar.Invalid, "unknown entity type %q", q.Type)
	}
	if err := s.rlockFor(ctx); err != nil {
		return athar.EntityPage{}, err
	}
	defer s.mu.RUnlock()
	if s.rmStale {
		ids, err := s.entityIDsFromCayley(ctx, q.Type)
		if err != nil {
			return athar.EntityPage{}, err
		}
		page := athar.EntityPage{IDs: []athar.ID{}, Total: len(ids)}
		from := sort.Search(len(ids), func(i int) bool { return q.After != "" && ids[i] > q.After })
		if q.After == "" {
			from = 0
		}
		to := len(ids)
		if q.First >= 0 {
			to = min(to, from+q.First)
		}
		page.IDs = append(page.IDs, ids[from:to]...)
		page.More = to < len(ids)
		return page, nil
	}
	page, err := s.typeList(ctx, q)
	if err != nil {
		return athar.EntityPage{}, fmt.Errorf("page entities: %w", err)
	}
	return page, nil
}

// typeList reads one page of a type's list (every id when q.First < 0) and its count.
// Callers hold a lock, and the read model is not stale.
func (s *Store) typeList(ctx context.Context, q athar.EntityPageQuery) (athar.EntityPage, error) {
	page := athar.EntityPage{IDs: []athar.ID{}}
	prefix := "e\x00" + string(q.Type) + "\x00"
	from := prefix
	if q.After != "" {
		from = prefix + string(q.After) + "\x01"
	}
	err := s.man.view(func(tx manifestTx) error {
		n, _ := binary.Uvarint(tx.get(rmTypesBucket, "n\x00"+string(q.Type)))
		page.Total = int(n)
		if q.First < 0 {
			page.IDs = make([]athar.ID, 0, page.Total)
		}
		tx.scan(rmTypesBucket, from, func(k string, _ []byte) bool {
			if !strings.HasPrefix(k, prefix) {
				return false
			}
			if q.First >= 0 && len(page.IDs) == q.First {
				page.More = true
				return false
			}
			page.IDs = append(page.IDs, athar.ID(k[len(prefix):]))
			return true
		})
		return ctx.Err()
	})
	return page, err
}

// PageGradings implements athar.Store: one seek into the list of the grader and grade and
// one count; while the read model is stale, every narration read and paged in memory.
func (s *Store) PageGradings(ctx context.Context, q athar.GradingPageQuery) (athar.GradingPage, error) {
	if q.Grade != "" && !q.Grade.Valid() {
		return athar.GradingPage{}, athar.E("page gradings", athar.Invalid, "unknown grade %q", q.Grade)
	}
	if err := s.rlockFor(ctx); err != nil {
		return athar.GradingPage{}, err
	}
	if s.rmStale {
		s.mu.RUnlock()
		return s.pageGradingsByScan(ctx, q)
	}
	defer s.mu.RUnlock()
	grader, grade := string(q.Grader), string(q.Grade)
	if grader == "" {
		grader = "*"
	}
	if grade == "" {
		grade = "*"
	}
	list := grader + "\x00" + grade
	prefix := "i\x00" + list + "\x00"
	from := prefix
	if q.After != "" {
		from = prefix + q.After + "\x01"
	}
	page := athar.GradingPage{Gradings: []athar.NarrationGrading{}}
	err := s.man.view(func(tx manifestTx) error {
		n, _ := binary.Uvarint(tx.get(rmGradingBucket, "c\x00"+list))
		page.Total = int(n)
		var err error
		tx.scan(rmGradingBucket, from, func(k string, v []byte) bool {
			if !strings.HasPrefix(k, prefix) {
				return false
			}
			if q.First >= 0 && len(page.Gradings) == q.First {
				page.More = true
				return false
			}
			var ng athar.NarrationGrading
			if ng.Narration, ng.Grading, err = decodeGrading(v); err != nil {
				return false
			}
			ng.Key = k[len(prefix):]
			page.Gradings = append(page.Gradings, ng)
			return true
		})
		if err != nil {
			return err
		}
		return ctx.Err()
	})
	if err != nil {
		return athar.GradingPage{}, fmt.Errorf("page gradings: %w", err)
	}
	return page, nil
}

// pageGradingsByScan is PageGradings from every narration. Its keys number a narration's
// gradings in order (the index's keys name their nodes, which a narration does not give),
// so a cursor of one does not page the other exactly.
func (s *Store) pageGradingsByScan(ctx context.Context, q athar.GradingPageQuery) (athar.GradingPage, error) {
	ids, err := s.EntityIDs(ctx, athar.TypeNarration)
	if err != nil {
		return athar.GradingPage{}, err
	}
	ns, err := s.Narrations(ctx, ids)
	if err != nil {
		return athar.GradingPage{}, err
	}
	page := athar.GradingPage{Gradings: []athar.NarrationGrading{}}
	for _, n := range ns {
		if n == nil {
			continue
		}
		for i, g := range n.Gradings {
			if (q.Grader != "" && g.Grader != q.Grader) || (q.Grade != "" && g.Grade != q.Grade) {
				continue
			}
			page.Total++
			key := fmt.Sprintf("%s\x00%08x\x00", n.ID, i)
			if (q.After != "" && key <= q.After) || page.More {
				continue
			}
			if q.First >= 0 && len(page.Gradings) == q.First {
				page.More = true
				continue
			}
			page.Gradings = append(page.Gradings, athar.NarrationGrading{Narration: n.ID, Grading: g, Key: key})
		}
	}
	return page, nil
}
