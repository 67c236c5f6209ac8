package isnad

// Join completes a route given by reference ("... حَدَّثَنَا سَيَّارٌ، بِهَذَا الإِسْنَادِ
// مِثْلَهُ") with the route it refers to, usually the previous hadith's: the route's own
// links up to its last, then the referenced route's links after the same narrator
// (compared by ArabicKey), and the referenced route's end (the Prophet). It returns false
// when the referenced route does not contain the narrator where the reference joins it.
// The links taken from ref keep their spans in ref's text.
func Join(own, ref Route) (Route, bool) {
	chain := own.Chain()
	if len(chain) == 0 {
		return Route{}, false
	}
	key := ArabicKey(chain[len(chain)-1].Name.Text)
	for i, l := range ref.Links {
		if l.Parallel || ArabicKey(l.Name.Text) != key {
			continue
		}
		out := Route{Links: append(append([]Link(nil), own.Links...), ref.Links[i+1:]...), Prophet: ref.Prophet}
		return out, true
	}
	return Route{}, false
}
