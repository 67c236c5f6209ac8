// Package isnad extracts what a hadith text says about its own transmission, without
// touching any store (it imports only the standard library, internal/athar and
// internal/search):
//
//   - Segment splits the isnad at the start of an Arabic text into routes (split at ح),
//     each an ordered list of links, nearest the compiler first: the name as written,
//     the transmission term before it, the text's gloss (هو ... / يعني ...), parallel
//     narrators (فلان وفلان قالا); where the matn starts; whether the chain is given by
//     reference to another's (بهذا الإسناد، مثله، نحوه ...), which Join completes.
//   - NarratorOfRecord finds the narrator named by the opening of the English translation.
//   - Resolver resolves written names, Arabic or English, to known people: by name, gloss
//     and context, reporting ambiguity rather than guessing; ResolveHadith lets the
//     narrator of record and the chain's last link help each other. Its built-in table of
//     frequent transmitters is data (data/people.tsv, data/context.tsv).
//   - Mentions finds verse citations and known names in either text.
//
// Every offset is in Unicode code points into the text given, end exclusive, as the
// narration format's evidence offsets are. docs/corpus.md ("Chains and narrators: how well
// extraction works") gives the measured precision and recall, from the hand-checked
// samples in testdata.
package isnad
