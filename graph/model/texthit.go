package model

import "github.com/athar-hadith/athar/internal/textindex"

// TextHit is one text matching a full-text search; its narration is resolved by the
// TextHit resolver, through the request's loader.
type TextHit struct {
	H textindex.Hit
}

// Position is which of the narration's texts matched.
func (h *TextHit) Position() int { return h.H.Position }

// Language is the text's language.
func (h *TextHit) Language() string { return h.H.Language }

// Edition is the edition or translation the text is from.
func (h *TextHit) Edition() *string { return optional(h.H.Edition) }

// Title is the narration's title.
func (h *TextHit) Title() string { return h.H.Title }

// Score is the hit's relevance.
func (h *TextHit) Score() float64 { return h.H.Score }

// Match is which group of hits the text is in.
func (h *TextHit) Match() TextMatch {
	switch h.H.Match {
	case textindex.SideBySide:
		return TextMatchSideBySide
	case textindex.EveryWord:
		return TextMatchEveryWord
	default:
		return TextMatchSomeWords
	}
}

// References are where the narration is found.
func (h *TextHit) References() []*Reference {
	out := make([]*Reference, len(h.H.References))
	for i, r := range h.H.References {
		out[i] = &Reference{Collection: r.Collection, Number: r.Number, Edition: optional(r.Edition)}
	}
	return out
}

// Snippet is the passage around what matched, with code point offsets.
func (h *TextHit) Snippet() *TextSnippet {
	s := h.H.Snippet
	hl := make([]*TextSpan, len(s.Highlights))
	for i, x := range s.Highlights {
		hl[i] = &TextSpan{Start: x.Start, End: x.End}
	}
	return &TextSnippet{Text: s.Text, Start: s.Start, End: s.End, Highlights: hl}
}
