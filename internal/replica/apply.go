package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/narration"
)

var errUnknownKind = errors.New("this version of athar cannot apply it: upgrade it")

// run applies entry e through the local writer (ingest.Local). The entry's own failure (a refused document, a
// conflict, a narration already deleted) is deterministic -- every replica meets it at
// the same position of the same graph -- and is returned in applied.err; the returned error
// is for everything else (the local store failing, an unknown kind), which must not count
// as the entry's outcome.
func (r *Replica) run(ctx context.Context, e Entry) (applied, error) {
	var a applied
	switch e.Kind {
	case KindImport:
		d, err := decodeDocument(e)
		if err != nil {
			a.err = err
			break
		}
		a.result, a.err = r.im.Import(ctx, d)
	case KindDelete:
		a.err = r.im.Delete(ctx, e.Narration)
	case KindRestore:
		qs, err := cayleystore.ReadNQuads(bytes.NewReader(e.Body))
		if err != nil {
			a.err = athar.E("restore "+e.Source, athar.Invalid, err)
			break
		}
		var args RestoreArgs
		if len(e.Args) > 0 {
			if err := json.Unmarshal(e.Args, &args); err != nil {
				a.err = athar.E("restore", athar.Invalid, err, "bad arguments")
				break
			}
		}
		a.ids, a.err = r.im.Restore(ctx, qs, args.Replace)
	case KindMerge:
		var args MergeArgs
		if err := json.Unmarshal(e.Args, &args); err != nil {
			a.err = athar.E("merge", athar.Invalid, err, "bad arguments")
			break
		}
		a.merge, a.err = r.im.Merge(ctx, args.Keep, args.Remove)
	case KindVerses:
		var args VersesArgs
		if err := json.Unmarshal(e.Args, &args); err != nil {
			a.err = athar.E("import verse texts", athar.Invalid, err, "bad arguments")
			break
		}
		a.verses, a.err = r.im.ImportVerseTexts(ctx, args.Texts, args.Source)
	case KindCorpus:
		var args CorpusArgs
		if err := json.Unmarshal(e.Args, &args); err != nil {
			a.err = athar.E("import corpus", athar.Invalid, err, "bad arguments")
			break
		}
		a.hadiths = r.im.ImportHadiths(ctx, args.Records)
		for _, h := range a.hadiths {
			if h.Err != nil && athar.ErrorCode(h.Err) == athar.Internal {
				return a, h.Err // the local store failed: not the entry's outcome
			}
		}
	default:
		return a, fmt.Errorf("a %q change: %w", e.Kind, errUnknownKind)
	}
	if a.err != nil && athar.ErrorCode(a.err) == athar.Internal {
		return a, a.err
	}
	return a, nil
}

// decodeDocument reads an import entry's document.
func decodeDocument(e Entry) (*narration.Document, error) {
	switch e.Format {
	case FormatText:
		return narration.Parse(e.Source, e.Body)
	case FormatDocument:
		var d narration.Document
		if err := json.Unmarshal(e.Body, &d); err != nil {
			return nil, athar.E("import "+string(e.Narration), athar.Invalid, err, "the logged document is not a narration document")
		}
		return &d, nil
	}
	return nil, athar.E("import "+string(e.Narration), athar.Invalid, "unknown document format %q", e.Format)
}

// documents returns what the record keeps of the narrations entry e changed, given its
// outcome: the document of an import, nothing for a deletion, each narration's N-Quads for
// a restore. A merge rewrites narrations' quads but not their documents, which still import
// as if they named the entity kept (the merged id resolves to it).
func (r *Replica) documents(e Entry, o Outcome) []Document {
	if !o.OK {
		return nil
	}
	switch e.Kind {
	case KindImport:
		return []Document{{Narration: e.Narration, Source: e.Source, Format: e.Format, Body: e.Body}}
	case KindDelete:
		return []Document{{Narration: e.Narration, Source: e.Source}}
	case KindRestore:
		qs, err := cayleystore.ReadNQuads(bytes.NewReader(e.Body))
		if err != nil {
			return nil
		}
		byLabel := map[athar.ID][]athar.Quad{}
		var order []athar.ID
		for _, q := range qs {
			id, ok := athar.ParseIRI(q.Label)
			if !ok {
				continue
			}
			if _, seen := byLabel[id]; !seen {
				order = append(order, id)
			}
			byLabel[id] = append(byLabel[id], q)
		}
		var out []Document
		for _, id := range order {
			var b bytes.Buffer
			if err := cayleystore.WriteNQuads(&b, byLabel[id]); err != nil {
				continue
			}
			out = append(out, Document{Narration: id, Source: e.Source, Format: FormatNQuads, Body: b.Bytes()})
		}
		return out
	}
	return nil
}
