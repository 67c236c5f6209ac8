package narration

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode"
)

// naiveEvidence is the search findEvidence replaced: every start position of the stripped
// text compared with the stripped evidence, rune by rune. It is the reference for the exact
// semantics (every occurrence, overlapping ones included; offsets in code points; whitespace
// ignored on both sides) and the "before" of BenchmarkFindEvidence.
func naiveEvidence(text, evidence string) []span {
	var hay []rune
	var pos []int
	i := 0
	for _, r := range text {
		if !unicode.IsSpace(r) {
			hay = append(hay, r)
			pos = append(pos, i)
		}
		i++
	}
	var needle []rune
	for _, r := range evidence {
		if !unicode.IsSpace(r) {
			needle = append(needle, r)
		}
	}
	if len(needle) == 0 {
		return nil
	}
	var out []span
outer:
	for s := 0; s+len(needle) <= len(hay); s++ {
		for k, r := range needle {
			if hay[s+k] != r {
				continue outer
			}
		}
		out = append(out, span{start: pos[s], end: pos[s+len(needle)-1] + 1})
	}
	return out
}

func codePoints(spans []span) [][2]int {
	out := make([][2]int, len(spans))
	for i, s := range spans {
		out[i] = [2]int{s.start, s.end}
	}
	return out
}

func TestFindEvidenceAgreesWithTheNaiveSearch(t *testing.T) {
	alphabet := []string{"a", "b", "ab", " ", "  ", "\n", "\t", "\u00a0", "ع", "ُ", "مَر", "'", "\u2019", "é", "\u3000", "🙂"}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	fixed := []struct{ text, evidence string }{
		{"aaaa", "aa"},
		{"a a a a", "a  a"},
		{"Abu Bakr  said:\n\tthis", "Bakr said: this"},
		{"عن عمر قال", "عمرقال"},
		{"", "a"},
		{"abc", "   "},
		{"x\xffy", "\xffy"}, // invalid UTF-8 reads as U+FFFD on both sides
	}
	for _, f := range fixed {
		ix := newTextIndex(f.text)
		got, _ := ix.find(f.evidence, -1)
		if want := naiveEvidence(f.text, f.evidence); !reflect.DeepEqual(codePoints(got), codePoints(want)) {
			t.Errorf("find(%q, %q) = %v, want %v", f.text, f.evidence, codePoints(got), codePoints(want))
		}
		for _, sp := range got {
			if p, want := ix.passage(sp), sliceRunes(f.text, sp.start, sp.end); p != want {
				t.Errorf("passage of %v in %q = %q, want %q", sp, f.text, p, want)
			}
		}
	}
	for i := range 2000 {
		text := pick(rng.IntN(40))
		ix := newTextIndex(text)
		for range 5 {
			evidence := pick(1 + rng.IntN(4))
			if rng.IntN(2) == 0 && len([]rune(text)) > 2 { // a passage of the text itself
				r := []rune(text)
				a := rng.IntN(len(r) - 1)
				evidence = string(r[a : a+1+rng.IntN(len(r)-a-1)])
			}
			got, _ := ix.find(evidence, -1)
			want := naiveEvidence(text, evidence)
			if !reflect.DeepEqual(codePoints(got), codePoints(want)) {
				t.Fatalf("case %d: find(%q, %q) = %v, want %v", i, text, evidence, codePoints(got), codePoints(want))
			}
			for _, sp := range got {
				if p, want := ix.passage(sp), sliceRunes(text, sp.start, sp.end); p != want {
					t.Fatalf("case %d: passage of %v in %q = %q, want %q", i, sp, text, p, want)
				}
			}
		}
	}
}

func TestFindEvidenceStopsAtTheLimit(t *testing.T) {
	ix := newTextIndex(strings.Repeat("ab ", 5000))
	if spans, ok := ix.find("ab", 10); ok || spans != nil {
		t.Errorf("5000 occurrences with a limit of 10: %d spans, complete %v; want none, not complete", len(spans), ok)
	}
	if spans, ok := ix.find("ab", 5000); !ok || len(spans) != 5000 {
		t.Errorf("5000 occurrences with a limit of 5000: %d spans, complete %v", len(spans), ok)
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

// BenchmarkFindEvidence finds 2,000 passages in a 3.9 MB text: through one index of the
// text (what validation does), and with the naive search per passage it replaced (run
// with -bench FindEvidence/naive to see the difference; it takes minutes).
func BenchmarkFindEvidence(b *testing.B) {
	text, evidence := bigText(3_900_000, MaxClaims)
	b.Run("indexed", func(b *testing.B) {
		for b.Loop() {
			ix := newTextIndex(text)
			for _, e := range evidence {
				if spans, _ := ix.find(e, MaxEvidenceOccurrences); len(spans) != 1 {
					b.Fatalf("%q: %d occurrences", e, len(spans))
				}
			}
		}
	})
	b.Run("naive", func(b *testing.B) {
		for b.Loop() {
			for _, e := range evidence[:20] { // a hundredth of the claims: the whole takes minutes
				if spans := naiveEvidence(text, e); len(spans) != 1 {
					b.Fatalf("%q: %d occurrences", e, len(spans))
				}
			}
		}
	})
}
