package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/athar-hadith/athar/internal/athar"
	"github.com/athar-hadith/athar/internal/cayleystore"
	"github.com/athar-hadith/athar/internal/narration"
	"github.com/athar-hadith/athar/schema"
)

// bigDocument returns a document (JSON) whose text is about size bytes, with claims claims,
// each quoting a different sentence of the text.
func bigDocument(id string, size, claims int) []byte {
	text, evidence := bigText(size, claims)
	type claim struct {
		Subject   string `json:"subject"`
		Predicate string `json:"predicate"`
		Object    string `json:"object"`
		Evidence  string `json:"evidence"`
	}
	doc := map[string]any{
		"narration": map[string]any{
			"id": id, "title": "A long report", "text": text,
			"references": []map[string]string{{"collection": "Test", "number": id}},
		},
		"entities": []map[string]string{
			{"id": "person:speaker", "type": "Person", "name": "The speaker"},
			{"id": "concept:caravan", "type": "Concept", "name": "caravan"},
		},
	}
	var cs []claim
	for _, e := range evidence {
		cs = append(cs, claim{"person:speaker", "advises", "concept:caravan", e})
	}
	doc["claims"] = cs
	data, err := json.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return data
}

func newTestImporter(t *testing.T) *Local {
	t.Helper()
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return NewLocal(st, schema.Vocabulary())
}

const smallDoc = `
narration:
  id: narration:small
  title: A small report
  references: [{collection: Test, number: "1"}]
  text: "Abu Bakr advised ransom."
entities:
  - {id: person:abu-bakr, type: Person, name: Abu Bakr}
  - {id: concept:ransom, type: Concept, name: ransom}
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
`

func mustParse(t *testing.T, source string, data []byte) *narration.Document {
	t.Helper()
	d, err := narration.Parse(source, data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestLargeDocumentImports imports a document at the size limit with the most claims
// allowed: the evidence of every claim is found through one index of the text (see
// BenchmarkFindEvidence for the work it takes, before and after).
func TestLargeDocumentImports(t *testing.T) {
	im := newTestImporter(t)
	data := bigDocument("narration:big", 3_750_000, narration.MaxClaims)
	if len(data) < 3_900_000 {
		t.Fatalf("the document is %d bytes: make it larger", len(data))
	}
	d := mustParse(t, "big.json", data)
	res, err := im.Import(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if res.ClaimsAdded != 1 { // every claim says the same, each with its own evidence
		t.Errorf("claims added: %d, want 1", res.ClaimsAdded)
	}
}

func TestDocumentLimits(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"too many claims", bigDocument("narration:big", 200_000, narration.MaxClaims+1), []string{"big.json", "claims", "2001 claims", "the limit is 2000 (MaxClaims)"}},
		{"too large", []byte(strings.Repeat("#", narration.MaxDocumentSize+1)), []string{"big.json", "the limit is 4194304 (MaxDocumentSize)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := narration.Parse("big.json", tt.data)
			var ve *athar.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("Parse: %v, want a validation error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

// TestEvidenceIsMatchedOutsideTheWriteLock deletes a narration from inside the evidence
// matching of a large document's import: the delete can only complete if that matching does
// not hold the importer's write lock. It hooks into the context, which locateEvidence checks
// between claims, so no clock is involved.
func TestEvidenceIsMatchedOutsideTheWriteLock(t *testing.T) {
	im := newTestImporter(t)
	if _, err := im.Import(context.Background(), mustParse(t, "small.yaml", []byte(smallDoc))); err != nil {
		t.Fatal(err)
	}
	var deleted atomic.Bool
	ctx := &hookCtx{Context: context.Background(), in: "locateEvidence", fn: func() {
		dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := im.Delete(dctx, "narration:small"); err != nil {
			t.Errorf("delete during the evidence matching of another import: %v", err)
			return
		}
		deleted.Store(true)
	}}
	big := mustParse(t, "big.json", bigDocument("narration:big", 1_000_000, narration.MaxClaims))
	if _, err := im.Import(ctx, big); err != nil {
		t.Fatal(err)
	}
	if !deleted.Load() {
		t.Fatal("the delete did not complete while the evidence of the large document was being matched")
	}
}

// hookCtx calls fn once, the first time its Err method is called from function in.
type hookCtx struct {
	context.Context
	in   string
	fn   func()
	done bool
}

func (c *hookCtx) Err() error {
	if !c.done && calledFrom(c.in) {
		c.done = true
		c.fn()
	}
	return c.Context.Err()
}

func calledFrom(name string) bool {
	pc := make([]uintptr, 16)
	frames := runtime.CallersFrames(pc[:runtime.Callers(2, pc)])
	for {
		f, more := frames.Next()
		if strings.HasSuffix(f.Function, "."+name) {
			return true
		}
		if !more {
			return false
		}
	}
}

// stopAfter is a store whose reads cancel the context after n of them, as a SIGTERM or a
// request deadline does mid-batch.
type stopAfter struct {
	athar.Store
	n      atomic.Int32
	cancel context.CancelFunc
}

func (s *stopAfter) DefinedBy(ctx context.Context, ids []athar.ID) (map[athar.ID][]athar.ID, error) {
	if s.n.Add(-1) == 0 {
		s.cancel()
	}
	return s.Store.DefinedBy(ctx, ids)
}

// TestBatchStoppedMidwayRefusesNothing stops a batch in the middle: every document is then
// either stored or reported as not attempted (CANCELLED), never refused as invalid.
func TestBatchStoppedMidwayRefusesNothing(t *testing.T) {
	st, err := cayleystore.Open("memory:", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wrapped := &stopAfter{Store: st, cancel: cancel}
	wrapped.n.Store(-1)
	im := NewLocal(wrapped, schema.Vocabulary())
	// The batch's documents use what this one, already stored, defines.
	if _, err := im.Import(ctx, mustParse(t, "small.yaml", []byte(smallDoc))); err != nil {
		t.Fatal(err)
	}
	wrapped.n.Store(3)
	var docs []Doc
	for i := range 6 {
		src := fmt.Sprintf(`
narration:
  id: narration:user-%d
  title: Uses Abu Bakr
  references: [{collection: Test, number: "u%d"}]
  text: "Abu Bakr advised ransom again."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
`, i, i)
		docs = append(docs, Doc{Document: mustParse(t, fmt.Sprintf("user-%d.yaml", i), []byte(src))})
	}
	stored, stopped := 0, 0
	for i, r := range im.ImportMany(ctx, docs) {
		switch code := athar.ErrorCode(r.Err); {
		case r.Err == nil:
			stored++
		case code == athar.Cancelled:
			stopped++
		default:
			t.Errorf("%s: %v (code %s), want it stored or not attempted (%s)", docs[i].Source, r.Err, code, athar.Cancelled)
		}
	}
	if stopped == 0 {
		t.Errorf("no document was stopped (%d stored): the test did not cancel mid-batch", stored)
	}
}

// bigText returns a text of about size bytes made of numbered sentences, and evidence
// passages quoting n of them (each occurring once).
func bigText(size, n int) (string, []string) {
	var b strings.Builder
	var sentences []string
	for i := 0; b.Len() < size; i++ {
		s := fmt.Sprintf("Sentence %d: the people of the town said that the caravan came back before nightfall. ", i)
		sentences = append(sentences, s)
		b.WriteString(s)
	}
	evidence := make([]string, n)
	for i := range evidence {
		evidence[i] = strings.TrimSpace(sentences[(i*7919)%len(sentences)])
	}
	return b.String(), evidence
}

// TestConflictNamesAFewUsers: deleting the narration that alone defines an entity many
// others use is refused with a message naming a few of them and how many there are, not
// every one (a hub is used by thousands).
func TestConflictNamesAFewUsers(t *testing.T) {
	im := newTestImporter(t)
	ctx := context.Background()
	if _, err := im.Import(ctx, mustParse(t, "small.yaml", []byte(smallDoc))); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 7; i++ {
		doc := fmt.Sprintf(`
narration:
  id: narration:user-%d
  title: A user
  references: [{collection: Test, number: "u%d"}]
  text: "Abu Bakr advised ransom again."
claims:
  - {subject: person:abu-bakr, predicate: advises, object: concept:ransom, evidence: "Abu Bakr advised ransom"}
`, i, i)
		if _, err := im.Import(ctx, mustParse(t, "user.yaml", []byte(doc))); err != nil {
			t.Fatal(err)
		}
	}
	err := im.Delete(ctx, "narration:small")
	if athar.ErrorCode(err) != athar.Conflict {
		t.Fatalf("delete: %v, want a conflict", err)
	}
	msg := err.Error()
	for _, want := range []string{"person:abu-bakr is defined only by narration:small and still used by narration:user-1, narration:user-2, narration:user-3, narration:user-4, narration:user-5 and 2 more (7 narrations)", "concept:ransom"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if strings.Contains(msg, "narration:user-7") {
		t.Errorf("message names every user: %q", msg)
	}
}
