package cayleystore

// Entity records in the read model. An entity record (Store.entity) is read from the
// entity's type, name, alias, description and former-id quads; a much-mentioned entity is
// named by thousands of narrations, one rdfs:label quad each, and Cayley resolves every one
// of them to vote on its name. The read model keeps, per entity, the distinct values of
// those quads with how many labels give each, so a record is one short range scan:
//
//	rmEntityBucket  "r\x00" entity \x00 kind \x00 value \x00 label \x00 term -> 1 (one row per quad)
//	                "l\x00" entity \x00 kind \x00 value \x00 label -> its rows (uvarint)
//	                "a\x00" entity \x00 kind \x00 value -> how many labels give it (uvarint)
//
// kind is t (rdf:type, value the type's IRI), n (rdfs:label), a (rdfs:label in Arabic),
// l (skos:altLabel), c (rdfs:comment) or f (a former id); term is the object as N-Quads
// writes it, so that two quads differing only in language or datatype stay two rows.

import (
	"context"
	"encoding/binary"
	"strings"

	"github.com/cayleygraph/quad"

	"github.com/athar-hadith/athar/internal/athar"
)

const rmEntityBucket = "athar.rm.entity"

// entityKind maps the predicates of an entity record to their kind; rdfs:label is "n"
// here and "a" for an Arabic name.
var entityKind = map[string]string{
	athar.RDFType: "t", athar.RDFSLabel: "n", athar.SKOSAltLbl: "l", athar.RDFSComment: "c", athar.PredFormerID: "f",
}

// entRow is one quad of an entity record.
type entRow struct {
	subject, kind, value, label, term string
}

func entRowOf(q quad.Quad) (entRow, bool) {
	kind := entityKind[iriOf(q.Predicate)]
	if kind == "" {
		return entRow{}, false
	}
	subj := iriOf(q.Subject)
	id, ok := athar.ParseIRI(subj)
	if !ok {
		return entRow{}, false
	}
	if _, ok := athar.TypeOfPrefix(id.Prefix()); !ok {
		return entRow{}, false
	}
	obj := fromValue(q.Object)
	v := obj.Literal
	switch {
	case kind == "t":
		v = obj.IRI
	case kind == "n" && obj.Lang == "ar":
		kind = "a"
	}
	term := ""
	if q.Object != nil {
		term = q.Object.String()
	}
	return entRow{subject: subj, kind: kind, value: v, label: iriOf(q.Label), term: term}, true
}

func (r entRow) valueKey() string { return r.subject + "\x00" + r.kind + "\x00" + r.value }

// entPut stores a row; a label new to its value adds one to the value's count. The
// "l" key counts the label's rows for the value (quads that differ in language or
// datatype only), so that newness is a lookup, not a seek.
func entPut(tx manifestTx, r entRow) error {
	byLabel := r.valueKey() + "\x00" + r.label
	k := "r\x00" + byLabel + "\x00" + r.term
	if tx.get(rmEntityBucket, k) != nil {
		return nil
	}
	fresh := tx.get(rmEntityBucket, "l\x00"+byLabel) == nil
	if err := tx.put(rmEntityBucket, k, []byte{1}); err != nil { // not empty: see addEntityCount
		return err
	}
	if err := addEntityCount(tx, "l\x00"+byLabel, 1); err != nil {
		return err
	}
	if !fresh {
		return nil
	}
	if err := addEntityCount(tx, "a\x00"+r.valueKey(), 1); err != nil {
		return err
	}
	return typeListApply(tx, r)
}

// entDel removes a row; a value one label fewer gives takes one from its count.
func entDel(tx manifestTx, r entRow) error {
	byLabel := r.valueKey() + "\x00" + r.label
	k := "r\x00" + byLabel + "\x00" + r.term
	if tx.get(rmEntityBucket, k) == nil {
		return nil
	}
	if err := tx.del(rmEntityBucket, k); err != nil {
		return err
	}
	if err := addEntityCount(tx, "l\x00"+byLabel, -1); err != nil {
		return err
	}
	if tx.get(rmEntityBucket, "l\x00"+byLabel) != nil {
		return nil
	}
	if err := addEntityCount(tx, "a\x00"+r.valueKey(), -1); err != nil {
		return err
	}
	return typeListApply(tx, r)
}

func addEntityCount(tx manifestTx, k string, d int) error {
	n, _ := binary.Uvarint(tx.get(rmEntityBucket, k))
	m := int64(n) + int64(d)
	if m <= 0 {
		return tx.del(rmEntityBucket, k)
	}
	// Never empty: get tells a present key by a non-nil value.
	return tx.put(rmEntityBucket, k, binary.AppendUvarint(nil, uint64(m)))
}

// rmDefinedBy reads from the read model what gives an entity a type, as
// Store.definedByFromCayley does from Cayley: the labels of its "l" rows of kind t, the
// narrations' and reserved graphs' as ids (definer), the corpus records' as they are
// (records), for Store.recordNarrations to name.
func rmDefinedBy(ctx context.Context, tx manifestTx, id athar.ID) (by []athar.ID, records []string, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	prefix := "l\x00" + id.IRI() + "\x00t\x00"
	tx.scan(rmEntityBucket, prefix, func(k string, _ []byte) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		_, label, ok := strings.Cut(k[len(prefix):], "\x00")
		if !ok {
			err = errCorruptRow
			return false
		}
		if n, ok := definer(label); ok {
			by = append(by, n)
		} else if athar.IsCorpusLabel(label) {
			records = append(records, label)
		}
		return true
	})
	return by, records, err
}

// rmEntity reads an entity record from the read model, by the rules of Store.entity.
func rmEntity(ctx context.Context, tx manifestTx, id athar.ID) (*athar.Entity, error) {
	t, ok := athar.TypeOfPrefix(id.Prefix())
	if !ok {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prefix := "a\x00" + id.IRI() + "\x00"
	e := &athar.Entity{ID: id, Type: t}
	defined := false
	votes := map[string]int{}
	var aliases, arabic []string
	var former []athar.ID
	var err error
	tx.scan(rmEntityBucket, prefix, func(k string, v []byte) bool {
		if !strings.HasPrefix(k, prefix) {
			return false
		}
		kind, value, ok := strings.Cut(k[len(prefix):], "\x00")
		if !ok {
			err = errCorruptRow
			return false
		}
		switch kind {
		case "t":
			defined = defined || value == t.IRI()
		case "n":
			n, _ := binary.Uvarint(v)
			votes[value] = int(n)
		case "a":
			arabic = append(arabic, value)
		case "l":
			aliases = append(aliases, value)
		case "c":
			if e.Description == "" || value < e.Description {
				e.Description = value
			}
		case "f":
			former = append(former, athar.ID(value))
		}
		return true
	})
	if err != nil || !defined {
		return nil, err
	}
	if len(former) > 0 {
		e.FormerIDs = uniqueIDs(former)
	}
	e.Name, e.Aliases = athar.ChooseName(id, votes, aliases)
	e.Arabic = uniqueStrings(arabic, "")
	return e, nil
}
