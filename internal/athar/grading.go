package athar

import "strings"

// Grade is a grading's verdict normalised to the common scale of hadith criticism, so that
// gradings by different graders can be compared and filtered. The verdict as stated ("hasan
// gharib", "Sahih Muslim") is kept beside it, never replaced.
type Grade string

// The grades, from strongest to weakest.
const (
	GradeSahih      Grade = "sahih"       // sound
	GradeHasanSahih Grade = "hasan-sahih" // al-Tirmidhi's "hasan sahih": between the two, or both by two routes
	GradeHasan      Grade = "hasan"       // good
	GradeDaif       Grade = "daif"        // weak
	GradeMawdu      Grade = "mawdu"       // fabricated
)

// Grades lists the grades from strongest to weakest.
func Grades() []Grade {
	return []Grade{GradeSahih, GradeHasanSahih, GradeHasan, GradeDaif, GradeMawdu}
}

// Valid reports whether g is one of the grades.
func (g Grade) Valid() bool {
	for _, x := range Grades() {
		if g == x {
			return true
		}
	}
	return false
}

// GradingScope says what a grading judges.
type GradingScope string

// The scopes of a grading.
const (
	// ScopeChain judges one chain of transmission (isnad) only, e.g. "its isnad is sahih" or
	// al-Tirmidhi's "gharib as a narration of al-Thawri": the report may be stronger or
	// weaker through other routes.
	ScopeChain GradingScope = "chain"
	// ScopeText judges the report as a whole: its text (matn) as transmitted, all routes
	// considered.
	ScopeText GradingScope = "text"
	// ScopePart judges one part of the text only; Grading.Part says which.
	ScopePart GradingScope = "part"
)

// GradingScopes lists the scopes.
func GradingScopes() []GradingScope { return []GradingScope{ScopeChain, ScopeText, ScopePart} }

// Valid reports whether s is one of the scopes.
func (s GradingScope) Valid() bool {
	for _, x := range GradingScopes() {
		if s == x {
			return true
		}
	}
	return false
}

// Grading is one grader's verdict on a narration, as the narration's document records it.
// A narration may carry several, by different graders or for different scopes, and they
// may disagree: each is data, none overrides another.
type Grading struct {
	Position     int    // 1-based, in the document's order
	Grader       ID     // the grader as a person of the graph, when the document names one by id
	GraderName   string // the grader as written, when the document names them in text
	Verdict      string // the verdict as stated, e.g. "hasan gharib"
	Grade        Grade  // the verdict normalised; empty when the document gives none
	Scope        GradingScope
	Part         string     // which part of the text, for ScopePart
	StatedIn     *Reference // where the verdict is stated, as a reference
	StatedInText string     // or as free text
	Note         string
}

// ParseGrade reads a grade as documents write it, forgiving case, spaces and apostrophes:
// "Da'if", "daif" and "DAIF" are all GradeDaif; "hasan sahih" is GradeHasanSahih.
func ParseGrade(s string) (Grade, bool) {
	k := strings.ToLower(strings.TrimSpace(s))
	k = strings.NewReplacer("'", "", "’", "", "ʿ", "", "`", "", "_", "-", " ", "-").Replace(k)
	g := Grade(k)
	return g, g.Valid()
}
