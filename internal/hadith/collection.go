// Package hadith models the canonical hadith collections as narrations: a hadith of a
// collection (its texts in one or more languages, its references, its chapter and its
// gradings) compiles, purely and deterministically, into one labelled changeset.
//
// Reading the files the records come from is internal/hadithapi's; writing the
// changesets is internal/ingest's (Writer.ImportHadiths). See docs/corpus.md.
package hadith

import (
	"strings"
)

// Collection is a canonical collection the corpus import knows.
type Collection struct {
	Slug    string   // the file stem of hadith-api's editions: eng-{Slug}, ara-{Slug}
	Name    string   // the collection as references name it
	Arabic  string   // its name in Arabic
	Aliases []string // other spellings documents use for it, lower-case
}

var collections = []Collection{
	{Slug: "abudawud", Name: "Sunan Abi Dawud", Arabic: "سنن أبي داود", Aliases: []string{"sunan abu dawud", "abu dawud", "abi dawud"}},
	{Slug: "bukhari", Name: "Sahih al-Bukhari", Arabic: "صحيح البخاري", Aliases: []string{"sahih bukhari", "bukhari", "al-bukhari"}},
	{Slug: "muslim", Name: "Sahih Muslim", Arabic: "صحيح مسلم", Aliases: []string{"muslim"}},
	{Slug: "tirmidhi", Name: "Jami' at-Tirmidhi", Arabic: "جامع الترمذي", Aliases: []string{"jami at-tirmidhi", "jami` at-tirmidhi", "sunan at-tirmidhi", "tirmidhi", "al-tirmidhi"}},
	{Slug: "nasai", Name: "Sunan an-Nasa'i", Arabic: "سنن النسائي", Aliases: []string{"sunan an-nasai", "sunan al-nasa'i", "nasai", "an-nasa'i"}},
	{Slug: "ibnmajah", Name: "Sunan Ibn Majah", Arabic: "سنن ابن ماجه", Aliases: []string{"ibn majah"}},
	{Slug: "malik", Name: "Muwatta Malik", Arabic: "موطأ مالك", Aliases: []string{"muwatta", "al-muwatta", "muwatta' malik"}},
	{Slug: "nawawi", Name: "Forty Hadith of an-Nawawi", Arabic: "الأربعون النووية", Aliases: []string{"an-nawawi's forty hadith", "nawawi"}},
	{Slug: "qudsi", Name: "Forty Hadith Qudsi", Arabic: "الأحاديث القدسية الأربعون", Aliases: []string{"hadith qudsi", "qudsi"}},
	{Slug: "dehlawi", Name: "Shah Waliullah Dehlawi's forty", Arabic: "الأربعون الدهلوية", Aliases: []string{"forty hadith of shah waliullah dehlawi", "dehlawi"}},
}

// Collections returns the known collections, in a fixed order.
func Collections() []Collection { return append([]Collection(nil), collections...) }

// CollectionBySlug returns the collection with the given file stem.
func CollectionBySlug(slug string) (Collection, bool) {
	for _, c := range collections {
		if c.Slug == slug {
			return c, true
		}
	}
	return Collection{}, false
}

// CollectionByName returns the collection a reference names, forgiving case and the
// spellings in Aliases.
func CollectionByName(name string) (Collection, bool) {
	k := strings.ToLower(strings.TrimSpace(name))
	for _, c := range collections {
		if k == strings.ToLower(c.Name) || k == c.Slug {
			return c, true
		}
		for _, a := range c.Aliases {
			if k == a {
				return c, true
			}
		}
	}
	return Collection{}, false
}

// Slugs lists the known collections' slugs, for messages.
func Slugs() string {
	s := make([]string, len(collections))
	for i, c := range collections {
		s[i] = c.Slug
	}
	return strings.Join(s, ", ")
}
