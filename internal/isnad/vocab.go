package isnad

import "strings"

// The transmission vocabulary, in folded form (no diacritics; أ إ آ → ا, ى → ي, ة → ه).

// terms introduce a narrator: "حدثنا فلان", "عن فلان", "أن فلانا".
var terms = map[string]bool{
	"حدثنا": true, "حدثني": true, "حدثناه": true, "حدثنيه": true, "حدثتنا": true, "حدثتني": true,
	"اخبرنا": true, "اخبرني": true, "اخبرناه": true, "اخبرنيه": true, "اخبرتنا": true, "اخبرتني": true,
	"انبانا": true, "انباني": true, "نبانا": true, "انباناه": true,
	"ثنا": true, "نا": true,
	"عن":   true,
	"سمعت": true, "سمعنا": true, "سمع": true, "سمعا": true,
	"ان": true,
}

// connectors sit between a name and the next term ("قال حدثنا", "يقول سمعت", "أنه سمع",
// "كلاهما عن"); followed by anything else they open the matn.
var connectors = map[string]bool{
	"قال": true, "قالا": true, "قالوا": true, "قالت": true, "وقال": true, "قالتا": true,
	"يقول": true, "يقولان": true, "تقول": true, "يقولون": true,
	"يحدث": true, "يحدثه": true, "يحدثان": true, "تحدث": true, "يخبر": true,
	"انه": true, "انها": true, "انهما": true, "انهم": true,
	"كلاهما": true, "كلاهم": true, "كلهم": true, "جميعا": true, "ثلاثتهم": true, "كلتاهما": true,
	"ثم": true, "كل": true, "هولاء": true, "سمعته": true, "منه": true,
	"حدثه": true, "حدثهم": true, "حدثها": true, "اخبره": true, "اخبرهم": true, "اخبرها": true,
	"حدثهما": true, "اخبرهما": true, "اخبراه": true, "حدثاه": true,
}

// descriptors open an apposition after a name: "عَنْ أَبِي النَّضْرِ، مَوْلَى عُمَرَ ..."
var descriptors = map[string]bool{
	"مولي": true, "زوج": true, "زوجه": true, "صاحب": true, "اخو": true, "اخي": true, "اخا": true,
	"ابن": true, "بنت": true, "ام": true, "خادم": true, "امراه": true, "عم": true, "خال": true,
	"جد": true, "جده": true, "قاضي": true, "يقال": true, "من": true, "امير": true, "رضيع": true, "ختن": true, "حليف": true,
}

// isTerm reports whether the folded word is a transmission term, possibly with a leading
// و or ف ("وَحَدَّثَنَا"); prefixed is true when it had one.
func isTerm(sk string) (term, prefixed bool) {
	if terms[sk] {
		return true, false
	}
	if len(sk) > 4 && (strings.HasPrefix(sk, "و") || strings.HasPrefix(sk, "ف")) {
		if rest := sk[2:]; terms[rest] && rest != "ان" && rest != "نا" {
			return true, true
		}
	}
	return false, false
}

// strip drops a leading و or ف from a term.
func strip(sk string) string {
	if ok, p := isTerm(sk); ok && p {
		return sk[2:]
	}
	return sk
}

func termSk(sk string) string { return strip(sk) }

func isAn(sk string) bool { return sk == "ان" }

func isConnector(sk string) bool { return connectors[sk] }

// isNonName: words after أنّ/عن that begin the matn, not a narrator.
func isNonName(sk string) bool {
	switch sk {
	case "رجلا", "رجل", "امراه", "ناسا", "قوما", "اعرابيا", "اعرابي", "غلاما", "اناسا", "نفرا", "رهطا", "اباه", "امه",
		"الله", "هذا", "هذه", "ذلك", "اول", "بعض", "ابنه", "ابنته", "مولي", "جاريه", "يهوديا", "رجالا", "اهل", "عبدا",
		"ما", "لا", "من", "في", "كان", "كانت", "قد", "لم", "اذا", "بني", "اصحاب", "ناس", "الناس", "قوم", "نساء", "رجال":
		return true
	}
	return false
}

func isHonorific(sk string) bool {
	return sk == "رضي" || sk == "رضوان"
}

func isGlossWord(sk string) bool {
	return sk == "يعني" || sk == "هو" || sk == "وهو" || sk == "يعنى" || sk == "اي" || sk == "هي" || sk == "وهي"
}

// isNisba: one word of the form ال...ي, a relational adjective (الحنفي، الزهري).
func isNisba(sk string) bool {
	if !strings.HasPrefix(sk, "ال") || !strings.HasSuffix(sk, "ي") || len(sk) < 8 {
		return false
	}
	switch sk {
	case "النبي", "الذي", "التي":
		return false
	}
	return true
}
