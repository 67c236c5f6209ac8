// Run by CI (node --test web/explorer/src/): searchTexts' highlights are code points.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { groupLabel, referenceLabel, segments, withGroups } from './textsearch.js';

test('segments marks by code point, in Arabic with harakat', () => {
  // The opening of Sahih Muslim 4588's Arabic text; the API counts code points, and each
  // haraka is one.
  const text = 'حَدَّثَنَا ابْنُ الْمُبَارَكِ، عَنْ عِكْرِمَةَ بْنِ عَمَّارٍ، حَدَّثَنِي';
  const cps = Array.from(text);
  const phrase = 'عِكْرِمَةَ بْنِ عَمَّارٍ';
  const start = cps.join('').indexOf(phrase); // BMP only: UTF-16 index = code point index here
  const end = start + Array.from(phrase).length;
  const snippet = { text: cps.slice(5).join(''), start: 5, end: cps.length, highlights: [{ start, end }] };
  const segs = segments(snippet);
  assert.equal(segs.map((s) => s.text).join(''), snippet.text);
  assert.deepEqual(segs.filter((s) => s.mark).map((s) => s.text), [phrase]);
});

test('segments counts characters outside the BMP once', () => {
  // 𝔄 is two UTF-16 units and one code point.
  const snippet = { text: '𝔄 accept a ransom', start: 10, end: 27, highlights: [{ start: 21, end: 27 }] };
  assert.deepEqual(segments(snippet), [
    { text: '𝔄 accept a ', mark: false },
    { text: 'ransom', mark: true },
  ]);
});

test('segments ignores highlights outside the snippet or overlapping', () => {
  const snippet = { text: 'strike his neck', start: 0, end: 15, highlights: [{ start: 0, end: 6 }, { start: 3, end: 9 }, { start: 11, end: 40 }] };
  assert.deepEqual(segments(snippet), [
    { text: 'strike', mark: true },
    { text: ' his neck', mark: false },
  ]);
});

test('referenceLabel', () => {
  assert.equal(referenceLabel({ narration: { id: 'narration:x' }, references: [{ collection: 'Sahih Muslim', number: '1763' }] }), 'Sahih Muslim 1763');
  assert.equal(referenceLabel({ narration: { id: 'narration:x' }, references: [] }), 'narration:x');
});

test('withGroups heads each group of hits once, across pages', () => {
  const page1 = [{ match: 'SIDE_BY_SIDE', id: 1 }, { match: 'SIDE_BY_SIDE', id: 2 }, { match: 'EVERY_WORD', id: 3 }];
  assert.deepEqual(withGroups(page1, null), [
    { heading: groupLabel('SIDE_BY_SIDE') },
    { node: page1[0] },
    { node: page1[1] },
    { heading: groupLabel('EVERY_WORD') },
    { node: page1[2] },
  ]);
  // The next page continues the group the last one ended in, then starts another.
  const page2 = [{ match: 'EVERY_WORD', id: 4 }, { match: 'SOME_WORDS', id: 5 }];
  assert.deepEqual(withGroups(page2, 'EVERY_WORD'), [
    { node: page2[0] },
    { heading: 'With some of the words' },
    { node: page2[1] },
  ]);
  assert.deepEqual(withGroups([], 'EVERY_WORD'), []);
});
