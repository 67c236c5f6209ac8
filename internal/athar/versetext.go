package athar

// VerseText is the text of one verse of the Qur'an, as the reserved graph QuranGraph holds
// it: the Arabic and one translation.
type VerseText struct {
	Verse       ID
	Arabic      string
	Translation string
}

// TextSource says where the verse texts come from and under which terms: what a reader
// must be shown with them.
type TextSource struct {
	Title      string // e.g. "quran-json 3.1.2 (quran_en.json)"
	URL        string // where the file was taken from
	License    string // the licence's IRI, e.g. https://creativecommons.org/licenses/by-sa/4.0/
	Rights     string // the attribution to show, in words
	Translator string // whose translation Translation is
}

// VerseTextQuads returns the quads that hold the texts and their source under QuranGraph,
// sorted. It is deterministic, so importing the same texts again changes nothing.
func VerseTextQuads(texts []VerseText, src TextSource) []Quad {
	label := QuranGraph.IRI()
	var out []Quad
	add := func(s, p string, o Term) {
		if o.IRI != "" || o.Literal != "" {
			out = append(out, Quad{Subject: s, Predicate: p, Object: o, Label: label})
		}
	}
	g := QuranGraph.IRI()
	add(g, RDFType, IRITerm(ClassTextSource))
	add(g, DCTermsTitle, StringTerm(src.Title))
	add(g, DCTermsSource, IRITerm(src.URL))
	add(g, DCTermsLicense, IRITerm(src.License))
	add(g, DCTermsRights, StringTerm(src.Rights))
	add(g, PredTranslator, StringTerm(src.Translator))
	for _, t := range texts {
		add(t.Verse.IRI(), PredVerseText, Term{Literal: t.Arabic, Lang: "ar"})
		add(t.Verse.IRI(), PredVerseTranslation, Term{Literal: t.Translation, Lang: "en"})
	}
	SortQuads(out)
	return out
}

// ReadVerseTexts reads the verse texts and their source back from quads labelled
// QuranGraph (as Store.QuadsAbout returns them for the verses and for QuranGraph itself);
// quads under other labels are ignored. Verses without a text are absent from the map.
func ReadVerseTexts(qs []Quad) (map[ID]VerseText, TextSource) {
	label := QuranGraph.IRI()
	texts := map[ID]VerseText{}
	var src TextSource
	for _, q := range qs {
		if q.Label != label {
			continue
		}
		if q.Subject == label {
			switch q.Predicate {
			case DCTermsTitle:
				src.Title = q.Object.Literal
			case DCTermsSource:
				src.URL = q.Object.IRI
			case DCTermsLicense:
				src.License = q.Object.IRI
			case DCTermsRights:
				src.Rights = q.Object.Literal
			case PredTranslator:
				src.Translator = q.Object.Literal
			}
			continue
		}
		id, ok := ParseIRI(q.Subject)
		if !ok {
			continue
		}
		t := texts[id]
		t.Verse = id
		switch q.Predicate {
		case PredVerseText:
			t.Arabic = q.Object.Literal
		case PredVerseTranslation:
			t.Translation = q.Object.Literal
		default:
			continue
		}
		texts[id] = t
	}
	return texts, src
}
