//go:build bench

package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
)

// benchToken authorises the bench's mutations on the server it starts.
const benchToken = "athar-bench"

// writeNarration is the generated narration the write kinds replace and delete: the last
// one, which defines only what no other narration uses (an entity is defined by the first
// narration using it), so deleting it is allowed.
func writeNarration(n int) athar.ID { return athar.ID(fmt.Sprintf("narration:gen-%06d", n-1)) }

// writes times the two writes a researcher waits for on a large graph: importing a new
// version of one narration (its title changed, so every import replaces what it asserted)
// and deleting one (re-imported, untimed, before each run). Raw Cayley does the same with
// one ApplyDeltas of the narration's quads, knowing them.
type writes struct {
	id        athar.ID
	doc       map[string]any // the narration document, as generated
	version   int
	quads     []athar.Quad // the narration's quads, as Athar stored them
	raw       *cayleystore.Raw
	rawStored bool // whether raw holds quads (a raw delete's next run restores them first)
	// The document's bytes and the narration's quads as loaded, which restore puts back.
	original []byte
	loaded   []athar.Quad
}

func newWrites(id athar.ID, path string, quads []athar.Quad) (*writes, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	w := &writes{id: id, quads: quads, rawStored: true, original: b, loaded: quads}
	if err := json.Unmarshal(b, &w.doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(quads) == 0 {
		return nil, fmt.Errorf("the store holds no quads of %s", id)
	}
	return w, nil
}

// next returns the document with a title it has not had before.
func (w *writes) next() string {
	w.version++
	n := w.doc["narration"].(map[string]any)
	title, _ := n["title"].(string)
	if i := strings.Index(title, " (version "); i >= 0 {
		title = title[:i]
	}
	n["title"] = fmt.Sprintf("%s (version %d)", title, w.version)
	b, _ := json.Marshal(w.doc)
	return string(b)
}

const (
	importMutation = `mutation($d: String!) { importNarration(document: $d) { narration { id } } }`
	deleteMutation = `mutation($id: ID!) { deleteNarration(id: $id) }`
)

// renamed returns the narration's quads with its title changed, as a new version carries.
func (w *writes) renamed() []athar.Quad {
	out := make([]athar.Quad, len(w.quads))
	for i, q := range w.quads {
		if q.Predicate == athar.RDFSLabel && q.Object.Lang == "" && q.Subject == w.id.IRI() {
			q.Object = athar.StringTerm(fmt.Sprintf("raw version %d", w.version))
			w.version++
		}
		out[i] = q
	}
	return out
}

func (w *writes) kinds() []kind {
	var url string
	deleted := false
	reimport := func() error {
		if !deleted {
			return nil
		}
		deleted = false
		return graphql(url, importMutation, map[string]any{"d": w.next()})
	}
	rawRestore := func() error {
		if w.rawStored {
			return nil
		}
		w.rawStored = true
		return w.raw.Replace(nil, w.quads)
	}
	return []kind{
		{key: "reimport", name: "re-import one narration (mutation)",
			run:  func(u string) error { url = u; return graphql(u, importMutation, map[string]any{"d": w.next()}) },
			prep: reimport,
			raw: func(_ context.Context, r *cayleystore.Raw) error {
				w.raw = r
				next := w.renamed()
				err := r.Replace(w.quads, next)
				w.quads = next
				return err
			},
		},
		{key: "delete", name: "delete one narration (mutation)",
			run: func(u string) error {
				url = u
				deleted = true
				return graphql(u, deleteMutation, map[string]any{"id": string(w.id)})
			},
			prep: reimport,
			raw: func(_ context.Context, r *cayleystore.Raw) error {
				w.raw = r
				w.rawStored = false
				return r.Replace(w.quads, nil)
			},
			rawPrep: rawRestore,
		},
	}
}

// restoreAthar imports the narration as generated into the server at url, which the
// write kinds left with a new title or without the narration: the store is then as
// loaded, for a later run to reuse (--reuse).
func (w *writes) restoreAthar(url string) error {
	return graphql(url, importMutation, map[string]any{"d": string(w.original)})
}

// restoreRaw puts the narration's quads as loaded back into raw Cayley's store, in place
// of what the raw write kinds left there (nothing when none ran).
func (w *writes) restoreRaw() error {
	if w.raw == nil {
		return nil
	}
	var now []athar.Quad
	if w.rawStored {
		now = w.quads
	}
	w.quads, w.rawStored = w.loaded, true
	return w.raw.Replace(now, w.loaded)
}

// commonLinkQuery asks for the common link of the first n generated narrations.
func commonLinkQuery(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%q", fmt.Sprintf("narration:gen-%06d", i))
	}
	return `{ commonLink(narrations: [` + strings.Join(ids, ", ") + `]) { person { id name } sharedRoute { id } positions { position route } } }`
}
