import { describe, expect, it } from 'vitest';
import { MAX_QUERY_WORDS, ftsMatch } from './hybrid-search.js';

describe('ftsMatch', () => {
  it('ORs the distinct content words of a question, quoted', () => {
    expect(ftsMatch('Why does the Index grow? The index!', 'any')).toBe('"index" OR "grow"');
  });

  it('keeps stop words when nothing else is left', () => {
    expect(ftsMatch('what is the', 'any')).toBe('"what" OR "is" OR "the"');
  });

  it('ANDs every word, or quotes the phrase', () => {
    expect(ftsMatch('volcano erupt', 'all')).toBe('"volcano" "erupt"');
    expect(ftsMatch('calm, the events', 'phrase')).toBe('"calm the events"');
  });

  it('lets no FTS5 operator through and answers null when no word is left', () => {
    expect(ftsMatch('a* NEAR(b c) OR "d', 'any')).toBe('"near" OR "b" OR "c" OR "d"');
    expect(ftsMatch('"); DROP TABLE snippets; --', 'all')).toBe('"DROP" "TABLE" "snippets"');
    expect(ftsMatch('!!! ???', 'any')).toBeNull();
  });

  it(`keeps at most ${MAX_QUERY_WORDS} words`, () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`);
    expect(ftsMatch(words.join(' '), 'any')!.split(' OR ')).toHaveLength(MAX_QUERY_WORDS);
  });
});
