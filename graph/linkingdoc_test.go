package graph_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"testing"

	"github.com/athar-hadith/athar/internal/narration"
)

// linkingDoc is the tutorial whose GraphQL requests TestLinkingDoc replays.
const linkingDoc = "../docs/linking.md"

// gqlBlock matches a request of docs/linking.md -- `gql <<'EOF'` or `gqldoc FILE <<'EOF'`
// in an sh block -- and the json block of its answer that follows.
var gqlBlock = regexp.MustCompile("(?s)```sh\n(gql|gqldoc ([^ ]+)) <<'EOF'\n(.*?)\nEOF\n```\n\n```json\n(.*?)\n```")

// TestLinkingDoc replays every GraphQL request of docs/linking.md, in order, against a
// server set up as the tutorial sets up its own (the seeds, Bukhari 3039 loaded, the verse
// texts imported: here from the fixture cut from the same file), and checks that each
// answer is the one the page shows.
func TestLinkingDoc(t *testing.T) {
	raw, err := os.ReadFile(linkingDoc)
	if err != nil {
		t.Fatal(err)
	}
	blocks := gqlBlock.FindAllStringSubmatch(string(raw), -1)
	if len(blocks) < 8 {
		t.Fatalf("%s has %d GraphQL requests with answers, want at least 8", linkingDoc, len(blocks))
	}
	e := newEnv(t, options{token: testToken})
	ctx := context.Background()
	d, err := narration.Parse("bukhari-3039.yaml", []byte(readExample(t, "bukhari-3039.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.importer.Import(ctx, d); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "internal", "narration", "testdata", "quran_en.fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	texts, err := narration.ReadQuranJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.importer.ImportVerseTexts(ctx, texts, narration.QuranJSONSource); err != nil {
		t.Fatal(err)
	}
	for i, b := range blocks {
		req := request{Query: b[3], token: testToken}
		if b[2] != "" {
			doc, err := os.ReadFile(filepath.Join("..", b[2]))
			if err != nil {
				t.Fatal(err)
			}
			req.Variables = map[string]any{"document": string(doc)}
		}
		r := e.do(t, req)
		got := map[string]any{}
		if len(r.Data) > 0 {
			var data any
			json.Unmarshal(r.Data, &data)
			got["data"] = data
		}
		if len(r.Errors) > 0 {
			got["errors"] = r.Errors
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(b[4]), &want); err != nil {
			t.Fatalf("request %d: the page's answer is not JSON: %v", i+1, err)
		}
		gotJSON, _ := json.Marshal(got)
		var gotAny map[string]any
		json.Unmarshal(gotJSON, &gotAny)
		if !reflect.DeepEqual(gotAny, want) {
			t.Errorf("request %d of %s:\n%s\nanswers\n%s\nthe page shows\n%s", i+1, linkingDoc, b[3], gotJSON, b[4])
		}
	}
}
