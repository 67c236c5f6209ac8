package graph

import (
	"context"

	"github.com/athar-hadith/athar/graph/model"
	"github.com/athar-hadith/athar/internal/athar"
)

// verseText returns the verse's text from the reserved graph athar.QuranGraph, and whether
// it has one.
func (r *Resolver) verseText(ctx context.Context, v *model.Verse) (athar.VerseText, bool, error) {
	qs, err := r.loaders(ctx).quads.Load(ctx, v.EntityID())
	if err != nil {
		return athar.VerseText{}, false, err
	}
	texts, _ := athar.ReadVerseTexts(qs)
	t, ok := texts[v.EntityID()]
	return t, ok, nil
}

func (r *verseResolver) Text(ctx context.Context, obj *model.Verse) (*string, error) {
	t, ok, err := r.verseText(ctx, obj)
	if err != nil || !ok {
		return nil, err
	}
	return optionalString(t.Arabic), nil
}

func (r *verseResolver) Translation(ctx context.Context, obj *model.Verse) (*string, error) {
	t, ok, err := r.verseText(ctx, obj)
	if err != nil || !ok {
		return nil, err
	}
	return optionalString(t.Translation), nil
}

// TextAttribution is null when the verse has no text.
func (r *verseResolver) TextAttribution(ctx context.Context, obj *model.Verse) (*model.TextAttribution, error) {
	_, ok, err := r.verseText(ctx, obj)
	if err != nil || !ok {
		return nil, err
	}
	qs, err := r.loaders(ctx).quads.Load(ctx, athar.QuranGraph)
	if err != nil {
		return nil, err
	}
	_, src := athar.ReadVerseTexts(qs)
	return &model.TextAttribution{
		Title: src.Title, URL: optionalString(src.URL), License: optionalString(src.License),
		Rights: src.Rights, Translator: optionalString(src.Translator),
	}, nil
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
