package graph_test

import (
	"bytes"
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
// answer is the one the page shows; -update rewrites the answers that differ.
func TestLinkingDoc(t *testing.T) {
	raw, err := os.ReadFile(linkingDoc)
	if err != nil {
		t.Fatal(err)
	}
	blocks := gqlBlock.FindAllStringSubmatch(string(raw), -1)
	spans := gqlBlock.FindAllStringSubmatchIndex(string(raw), -1)
	page := string(raw)
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
	type rewrite struct {
		start, end int
		text       string
	}
	var rewrites []rewrite
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
		if !reflect.DeepEqual(gotAny, want) && *update {
			// Rewrite the answer as returned, in the server's field order (json.Marshal
			// sorts only the top level: data, then errors). Later blocks move by the
			// difference in length, so rewrite from the last changed block back.
			answer := map[string]any{}
			if len(r.Data) > 0 && string(r.Data) != "null" {
				answer["data"] = json.RawMessage(r.Data)
			}
			if len(r.Errors) > 0 {
				answer["errors"] = r.Errors
			}
			out, _ := json.Marshal(answer)
			var pretty bytes.Buffer
			json.Indent(&pretty, out, "", "  ")
			rewrites = append(rewrites, rewrite{spans[i][8], spans[i][9], pretty.String()})
		} else if !reflect.DeepEqual(gotAny, want) {
			t.Errorf("request %d of %s (go test ./graph -run TestLinkingDoc -update rewrites it):\n%s\nanswers\n%s\nthe page shows\n%s", i+1, linkingDoc, b[3], gotJSON, b[4])
		}
	}
	if len(rewrites) > 0 {
		for i := len(rewrites) - 1; i >= 0; i-- {
			w := rewrites[i]
			page = page[:w.start] + w.text + page[w.end:]
		}
		if err := os.WriteFile(linkingDoc, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
