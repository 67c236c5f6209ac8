package textindex

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// Phrases of two words or more are looked for in the pairs field of each language: a
// quoted phrase, and the words of an unquoted query side by side. (That they find the same
// texts as phrases of words is TestPairsFindWhatPhrasesFind's.)
func TestPhrasesAreLookedUpAsPairs(t *testing.T) {
	ix, err := Open(filepath.Join(t.TempDir(), "texts"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, tc := range []struct {
		query string
		want  []string // fields the query must look in
	}{
		{`"عكرمة بن عمار"`, []string{fieldTextArPairs}},
		{`قال رسول الله`, []string{fieldTextArPairs}},
		{`"strike his neck"`, []string{fieldTextPairs}},
		{`Messenger of Allah said`, []string{fieldTextPairs}},
	} {
		pl, err := buildQuery(Query{Text: tc.query}, ix.analyze, false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(pl.whole)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range tc.want {
			if !strings.Contains(string(b), `"field":"`+f+`"`) {
				t.Errorf("%s: the query does not look in %s: %s", tc.query, f, b)
			}
		}
		exact, err := buildQuery(Query{Text: tc.query}, ix.analyze, true)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := json.Marshal(exact.whole); strings.Contains(string(b), "_pairs") {
			t.Errorf("%s: the exact query looks in a pairs field: %s", tc.query, b)
		}
	}
}

// A word typed twice is one clause: the eulogy's الله is read once in the texts with
// every word and once alone, not twice each; the words side by side keep it twice.
func TestRepeatedWordsAreOneClause(t *testing.T) {
	ix, err := Open(filepath.Join(t.TempDir(), "texts"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	pl, err := buildQuery(Query{Text: "رسول الله صلى الله عليه وسلم"}, ix.analyze, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(pl.whole)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"match":"الله","field":"text_ar"`); n != 2 {
		t.Errorf("الله is %d clauses, want 2 (every word, and alone): %s", n, b)
	}
	if !strings.Contains(string(b), `"match_phrase":"رسول الله صلى الله عليه وسلم","field":"text_ar"`) {
		t.Errorf("the words side by side are not the words as typed: %s", b)
	}
}
