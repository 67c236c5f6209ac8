package textindex

import (
	"strings"

	asearch "github.com/athar-hadith/athar/internal/search"
)

// renderings are groups of English phrases that the translations in the corpus use for the
// same Arabic words, so that a search in one translator's words finds the others'. The
// seed's Musnad Ahmad 208 and 21 texts of the corpus say 'Umar asked to "strike his neck"
// (فأضرب عنقه); Siddiqui's Sahih Muslim 4588, the same report, says "cut off his head".
// رسول الله is "the Messenger of Allah" (15,339 English texts of the corpus), "Allah's
// Messenger" (6,379), "Allah's Apostle" (1,165) or "the Apostle of Allah" (189).
//
// Checked against ../shared/corpus: of the English texts with a member of the first two
// groups, 32 of 34 have عنق (أعناق) or رأس in their Arabic; of the other two, al-Bukhari 7416's
// "strike him (behead him)" glosses لضربته بالسيف, and Abu Dawud 2667's "cut off his head"
// translates ليقطعن يده, "cut off his hand" -- the translation's slip, found as written;
// of those with a member of the last, 99.4% have رسول الله or النبي. docs/search.md lists
// the groups.
var renderings = [][]string{
	{"strike his neck", "strike off his neck", "cut off his head", "strike off his head", "chop off his head", "behead him"},
	{"strike their necks", "strike off their necks", "cut off their heads", "strike off their heads", "behead them"},
	{"Messenger of Allah", "Apostle of Allah", "Allah's Messenger", "Allah's Apostle"},
}

// foldedRenderings are the groups' members folded as a query's words are (search.Normalize),
// as word lists.
var foldedRenderings = func() [][][]string {
	out := make([][][]string, len(renderings))
	for i, g := range renderings {
		for _, m := range g {
			out[i] = append(out[i], strings.Fields(asearch.Normalize(m)))
		}
	}
	return out
}()

// equivalents returns the renderings equivalent to a run of words within words (a query's
// unquoted words, in order): for each member of a group found there, the group's other
// members, each once, in the table's order.
func equivalents(words []string) []string {
	folded := strings.Fields(asearch.Normalize(strings.Join(words, " ")))
	var out []string
	for i, g := range foldedRenderings {
		found := -1
		for j, m := range g {
			if containsRun(folded, m) {
				found = j
				break
			}
		}
		if found < 0 {
			continue
		}
		for j, m := range renderings[i] {
			if j != found {
				out = append(out, m)
			}
		}
	}
	return out
}

// containsRun reports whether run occurs in words as consecutive words.
func containsRun(words, run []string) bool {
	if len(run) == 0 {
		return false
	}
	for i := 0; i+len(run) <= len(words); i++ {
		ok := true
		for j, w := range run {
			if words[i+j] != w {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
