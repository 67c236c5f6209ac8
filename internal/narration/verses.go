package narration

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
)

// QuranJSONSource is the attribution of the verse texts in quran_en.json of the npm package
// quran-json 3.1.2 (https://github.com/risan/quran-json), the file `athar verses import`
// reads. Its LICENSE.txt is CC BY-SA 4.0 (its package.json says CC-BY-4.0; the stricter
// licence is recorded). The package names its own sources: the Uthmani text from The Noble
// Qur'an Encyclopedia (quranenc.com), the English translation of Saheeh International
// from tanzil.net.
var QuranJSONSource = athar.TextSource{
	Title:   "quran-json 3.1.2, dist/quran_en.json",
	URL:     "https://cdn.jsdelivr.net/npm/quran-json@3.1.2/dist/quran_en.json",
	License: "https://creativecommons.org/licenses/by-sa/4.0/",
	Rights: "Qur'an text and English translation from quran-json 3.1.2 by Risan Bagja Pradana " +
		"(https://github.com/risan/quran-json), CC BY-SA 4.0. Arabic (Uthmani) text: The Noble Qur'an " +
		"Encyclopedia (quranenc.com). English translation: Saheeh International (Umm Muhammad), via tanzil.net.",
	Translator: "Saheeh International",
}

// maxQuranJSON bounds the file ReadQuranJSON reads (quran_en.json is about 2.4 MB).
const maxQuranJSON = 32 << 20

// ReadQuranJSON reads the verse texts of a quran-json translation file (quran_en.json):
// an array of surahs {id, total_verses, verses: [{id, text, translation}]}. Every surah
// and verse must exist and every surah's total_verses must be the Qur'an's count; a file
// may hold only some surahs or verses (test fixtures do). Texts come in surah and verse
// order.
func ReadQuranJSON(r io.Reader) ([]athar.VerseText, error) {
	var surahs []struct {
		ID          int `json:"id"`
		TotalVerses int `json:"total_verses"`
		Verses      []struct {
			ID          int    `json:"id"`
			Text        string `json:"text"`
			Translation string `json:"translation"`
		} `json:"verses"`
	}
	dec := json.NewDecoder(io.LimitReader(r, maxQuranJSON))
	if err := dec.Decode(&surahs); err != nil {
		return nil, athar.E("read quran-json", athar.Invalid, "not a quran-json file (an array of surahs with their verses): %v", err)
	}
	var out []athar.VerseText
	seen := map[athar.ID]bool{}
	for i, s := range surahs {
		surah, ok := athar.TheQuran().Surah(s.ID)
		if !ok {
			return nil, athar.E("read quran-json", athar.Invalid, "surah %d (item %d): there is no such surah", s.ID, i+1)
		}
		if s.TotalVerses != surah.Verses {
			return nil, athar.E("read quran-json", athar.Invalid, "surah %d: total_verses is %d, but the surah has %d verses", s.ID, s.TotalVerses, surah.Verses)
		}
		for _, v := range s.Verses {
			ref, err := athar.ParseVerseRef(fmt.Sprintf("%d:%d", s.ID, v.ID))
			if err != nil {
				return nil, athar.E("read quran-json", athar.Invalid, "surah %d, verse %d: %v", s.ID, v.ID, err)
			}
			if seen[ref.ID()] {
				return nil, athar.E("read quran-json", athar.Invalid, "verse %s is given twice", ref)
			}
			seen[ref.ID()] = true
			t := athar.VerseText{Verse: ref.ID(), Arabic: strings.TrimSpace(v.Text), Translation: strings.TrimSpace(v.Translation)}
			if t.Arabic == "" || t.Translation == "" {
				return nil, athar.E("read quran-json", athar.Invalid, "verse %s has no text or no translation", ref)
			}
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, athar.E("read quran-json", athar.Invalid, "the file holds no verses")
	}
	return out, nil
}
