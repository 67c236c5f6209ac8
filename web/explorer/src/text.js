// Locating an attestation's evidence in its narration's text.
//
// The API gives evidence offsets in Unicode code points (end exclusive), while JavaScript
// strings index UTF-16 code units: a character outside the Basic Multilingual Plane counts
// once in the offsets and twice in String.prototype.slice. Everything here slices by code
// point (Array.from iterates a string by code point).

/**
 * Splits text around the evidence at code-point offsets [start, end).
 *
 * Returns {before, match, after} with before + match + after === text, or null when the
 * offsets are missing or out of range, or do not slice out `evidence` (when it is given):
 * a highlight that is not the attested passage would mislead the reader.
 */
export function locate(text, evidence, start, end) {
  if (typeof text !== 'string' || !Number.isInteger(start) || !Number.isInteger(end)) {
    return null;
  }
  const cps = Array.from(text);
  if (start < 0 || start > end || end > cps.length) {
    return null;
  }
  const match = cps.slice(start, end).join('');
  if (evidence != null && match !== evidence) {
    return null;
  }
  return { before: cps.slice(0, start).join(''), match, after: cps.slice(end).join('') };
}

/**
 * Shortens the text around a located passage to about `context` code points on each side,
 * cut at a space where there is one nearby, so the reader sees the passage in its sentence.
 * clippedBefore and clippedAfter say whether anything was left out on that side.
 */
export function excerpt({ before, match, after }, context = 200) {
  const b = Array.from(before);
  const a = Array.from(after);
  let from = Math.max(0, b.length - context);
  if (from > 0) {
    const space = b.indexOf(' ', from);
    if (space !== -1 && space - from < 40) {
      from = space + 1;
    }
  }
  let to = Math.min(a.length, context);
  if (to < a.length) {
    const space = a.lastIndexOf(' ', to);
    if (space !== -1 && to - space < 40) {
      to = space;
    }
  }
  return {
    before: b.slice(from).join(''),
    match,
    after: a.slice(0, to).join(''),
    clippedBefore: from > 0,
    clippedAfter: to < a.length,
  };
}
