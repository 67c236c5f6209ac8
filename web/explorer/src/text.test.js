// Run by CI (node --test web/explorer/src/): the offsets the API gives are code points.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { excerpt, locate } from './text.js';

test('locate slices by code point, not UTF-16 unit', () => {
  // 𝔄 (U+1D504) is two UTF-16 units and one code point; ﷺ is one of each.
  const text = '𝔄 The Messenger of Allah (ﷺ) said: accept a ransom for them.';
  // In UTF-16 units the passage starts at 36; in code points, as the API counts, at 35.
  assert.deepEqual(locate(text, 'accept a ransom for them', 35, 59), {
    before: '𝔄 The Messenger of Allah (ﷺ) said: ',
    match: 'accept a ransom for them',
    after: '.',
  });
});

test('locate handles Arabic text', () => {
  const text = 'قال أبو بكر: أرى أن تأخذ منهم فدية';
  const evidence = 'أرى أن تأخذ منهم فدية';
  const start = Array.from(text).length - Array.from(evidence).length;
  const got = locate(text, evidence, start, start + Array.from(evidence).length);
  assert.equal(got.match, evidence);
  assert.equal(got.before + got.match + got.after, text);
});

test('locate refuses offsets that do not give the evidence', () => {
  const cases = [
    ['out of range', 'short text', 'text', 6, 20],
    ['reversed', 'short text', 'text', 8, 6],
    ['negative', 'short text', 'short', -1, 4],
    ['another passage', 'short text', 'text', 0, 5],
    ['no offsets', 'short text', 'text', null, null],
  ];
  for (const [name, text, evidence, start, end] of cases) {
    assert.equal(locate(text, evidence, start, end), null, name);
  }
});

test('excerpt keeps the passage whole and cuts the context at spaces', () => {
  const before = 'word '.repeat(100);
  const after = ' more'.repeat(100);
  const got = excerpt({ before, match: 'THE PASSAGE', after }, 50);
  assert.equal(got.match, 'THE PASSAGE');
  assert.ok(got.clippedBefore && got.clippedAfter);
  assert.ok(got.before.startsWith('word') && got.before.length <= 50, got.before);
  assert.ok(got.after.endsWith('more') && got.after.length <= 50, got.after);
  assert.ok(before.endsWith(got.before) && after.startsWith(got.after));

  const short = excerpt({ before: 'a ', match: 'b', after: ' c' }, 50);
  assert.deepEqual(short, { before: 'a ', match: 'b', after: ' c', clippedBefore: false, clippedAfter: false });
});
