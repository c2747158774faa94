import { describe, expect, it } from 'vitest';
import { findUnfaithfulText } from './faithful-text.js';

describe('findUnfaithfulText', () => {
  it('names the first field holding a NUL or an unpaired surrogate', () => {
    expect(findUnfaithfulText({ title: 'ok', text: 'a\u0000b' })).toEqual({
      field: 'text',
      message: 'contains a NUL character',
    });
    expect(findUnfaithfulText({ urls: ['https://a', 'x\ud800'] })).toEqual({
      field: 'urls.1',
      message: 'contains an unpaired surrogate',
    });
    expect(findUnfaithfulText({ a: { b: [{ c: '\udc00x' }] } })?.field).toBe('a.b.0.c');
    expect(findUnfaithfulText({ first: '\u0000', second: '\ud800' })?.field).toBe('first');
    expect(findUnfaithfulText('top\u0000')?.field).toBe('(body)');
    expect(findUnfaithfulText({ 'k\u0000': 1 })).toEqual({
      field: 'k\\u0000',
      message: 'contains a NUL character',
    });
  });

  it('accepts paired surrogates (astral characters), other controls and non-text values', () => {
    expect(findUnfaithfulText({ t: '𝔸 😀 \t\n\u0001 é', n: 1, b: true, z: null })).toBeNull();
    expect(findUnfaithfulText(undefined)).toBeNull();
    // Low then high is two unpaired halves, not a pair.
    expect(findUnfaithfulText({ t: '\udc00\ud800' })?.message).toBe(
      'contains an unpaired surrogate',
    );
    expect(findUnfaithfulText({ t: 'end\ud83d' })?.message).toBe('contains an unpaired surrogate');
    expect(findUnfaithfulText(Buffer.from([0, 0xed, 0xa0, 0x80]))).toBeNull();
  });

  it('walks the objects of the query-string parser, whose prototype has no prototype', () => {
    function Empty() {}
    Empty.prototype = Object.create(null) as object;
    const query = Object.assign(Object.create(Empty.prototype as object) as object, {
      q: 'a\u0000',
    });
    expect(findUnfaithfulText(query)?.field).toBe('q');
  });

  it('walks a body nested far deeper than the call stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(findUnfaithfulText(deep)).toEqual({
      field: [...Array(10).fill('0'), '…', ...Array(10).fill('0')].join('.'),
      message: 'contains a NUL character',
    });
  });
});
