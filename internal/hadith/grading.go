package hadith

import (
	"regexp"
	"strings"

	"github.com/athar-hadith/athar/internal/athar"
)

// Grader is a scholar whose verdicts the editions list, as a person of the graph.
type Grader struct {
	ID     athar.ID
	Name   string // as the seeds name them, so that the name vote does not change with the corpus
	Arabic string
	Spells []string // the names the editions write, lower-case
}

var graders = []Grader{
	{ID: "person:al-albani", Name: "al-Albani", Arabic: "محمد ناصر الدين الألباني", Spells: []string{"al-albani", "albani"}},
	{ID: "person:zubair-ali-zai", Name: "Zubair Ali Zai", Arabic: "زبير علي زئي", Spells: []string{"zubair ali zai"}},
	{ID: "person:shuaib-al-arnaut", Name: "Shu'ayb al-Arna'ut", Arabic: "شعيب الأرنؤوط", Spells: []string{"shuaib al arnaut", "shuaib al-arnaut"}},
	{ID: "person:muhammad-muhyi-al-din-abd-al-hamid", Name: "Muhammad Muhyi al-Din 'Abd al-Hamid", Arabic: "محمد محيي الدين عبد الحميد", Spells: []string{"muhammad muhyi al-din abdul hamid"}},
	{ID: "person:abu-ghuddah", Name: "'Abd al-Fattah Abu Ghuddah", Arabic: "عبد الفتاح أبو غدة", Spells: []string{"abu ghuddah"}},
	{ID: "person:muhammad-fuad-abd-al-baqi", Name: "Muhammad Fu'ad 'Abd al-Baqi", Arabic: "محمد فؤاد عبد الباقي", Spells: []string{"muhammad fouad abd al-baqi"}},
	{ID: "person:ahmad-muhammad-shakir", Name: "Ahmad Muhammad Shakir", Arabic: "أحمد محمد شاكر", Spells: []string{"ahmad muhammad shakir"}},
	{ID: "person:bashar-awad-maarouf", Name: "Bashar 'Awwad Ma'ruf", Arabic: "بشار عواد معروف", Spells: []string{"bashar awad maarouf"}},
	{ID: "person:salim-al-hilali", Name: "Salim al-Hilali", Arabic: "سليم الهلالي", Spells: []string{"salim al-hilali"}},
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// GraderFor returns the person a grader's name as written in an edition denotes: one of
// the known graders, or a person whose id is the name made a slug (and whose name is the
// name as written). ok is false for a name that gives no slug.
func GraderFor(name string) (g Grader, ok bool) {
	k := strings.ToLower(strings.TrimSpace(name))
	for _, g := range graders {
		for _, s := range g.Spells {
			if k == s {
				return g, true
			}
		}
	}
	slug := strings.Trim(nonSlug.ReplaceAllString(k, "-"), "-")
	if slug == "" {
		return Grader{}, false
	}
	return Grader{ID: athar.ID("person:" + slug), Name: strings.TrimSpace(name)}, true
}

// Normalise reads a verdict as the editions write it ("Sahih", "Hasan Sahih", "Isnaad
// Sahih", "Da'if", "Sahih Muslim (1763)", "Mauquf Sahih", "Very Daif") into the common
// grade and the scope it judges: a verdict on the isnad ("isnaad", "sanad") judges the
// chain, every other the text. The grade is empty when the verdict names none ("-",
// "Mursal", "Maqtu", a word not on the scale); the verdict is kept as written either way.
func Normalise(verdict string) (athar.Grade, athar.GradingScope) {
	v := strings.ToLower(verdict)
	v = strings.NewReplacer("'", "", "’", "", "`", "", "ʿ", "").Replace(v)
	words := strings.FieldsFunc(v, func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	scope := athar.ScopeText
	has := map[string]bool{}
	for _, w := range words {
		has[w] = true
	}
	if has["isnaad"] || has["isnad"] || has["sanad"] {
		scope = athar.ScopeChain
	}
	switch {
	case has["mawdu"] || has["mawdoo"] || has["batil"]:
		return athar.GradeMawdu, scope
	case has["daif"] || has["munkar"] || has["shadh"] || has["malool"] || has["weak"]:
		if has["sahih"] && !has["daif"] { // "shadh, sahih": the text is sound, a wording is odd
			return athar.GradeSahih, scope
		}
		return athar.GradeDaif, scope
	case has["hasan"] && has["sahih"]:
		// "Hasan Sahih" is al-Tirmidhi's (and al-Albani's) combined verdict; "Isnaad
		// Hasan, Sahih Muslim" grades the chain hasan and cites Muslim for the text.
		if strings.Contains(strings.Join(strings.Fields(v), " "), "hasan sahih") {
			return athar.GradeHasanSahih, scope
		}
		return athar.GradeHasan, scope
	case has["sahih"]:
		return athar.GradeSahih, scope
	case has["hasan"]:
		return athar.GradeHasan, scope
	}
	return "", scope
}
