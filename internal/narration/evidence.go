package narration

import "unicode"

// span is a passage of a text in code points: [start, end).
type span struct{ start, end int }

// findEvidence returns every place where evidence occurs in text when all whitespace is
// ignored on both sides. Offsets are in code points of text and cover the passage exactly
// as the text writes it, from its first to its last non-space character.
func findEvidence(text, evidence string) []span {
	var hay []rune // text without whitespace
	var pos []int  // pos[i] = code point offset in text of hay[i]
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
		out = append(out, span{pos[s], pos[s+len(needle)-1] + 1})
	}
	return out
}

// sliceRunes returns text[start:end] in code points.
func sliceRunes(text string, start, end int) string {
	return string([]rune(text)[start:end])
}
