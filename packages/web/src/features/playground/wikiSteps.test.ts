import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import {
  analysisToasts,
  canAnalyze,
  canFetch,
  checkAnalysis,
  cleanArticleText,
  sanitizeTitle,
} from './wikiSteps';

describe('the encyclopedia page checks', () => {
  it('sanitises the title: trimmed, whitespace runs collapsed, control characters dropped', () => {
    expect(sanitizeTitle('  Honey   bee  ')).toBe('Honey bee');
    expect(sanitizeTitle('Honey\tbee\n')).toBe('Honey bee');
    expect(sanitizeTitle('Hon\u0000ey\u0007 bee\u200b')).toBe('Honey bee');
    expect(sanitizeTitle('Honey \u0001 bee')).toBe('Honey bee');
    expect(sanitizeTitle(' \u0000\t ')).toBe('');
    expect(sanitizeTitle('Édith Piaf')).toBe('Édith Piaf');
  });

  it('cleans the fetched text: \\n line ends, no trailing blanks, at most one empty line', () => {
    expect(cleanArticleText('A.\r\n\r\n\r\n\r\nB.  \r\nC.\n\n')).toBe('A.\n\nB.\nC.');
  });

  it('drops the spaces before every line end as the old expression did', () => {
    // The expression chain it replaces, kept as the reference.
    const legacy = (text: string) =>
      text
        .replace(/\r\n?/g, '\n')
        .replace(/[ \t]+$/gm, '')
        .replace(/\n{3,}/g, '\n\n')
        .trim();
    const pieces = ['a', ' ', '\t', '\n', '\r', '\u2028', '\u00a0', 'b c'];
    let seed = 23;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 3_000; i++) {
      let text = '';
      const length = Math.floor(random() * 14);
      for (let j = 0; j < length; j++) text += pieces[Math.floor(random() * pieces.length)];
      expect(cleanArticleText(text), JSON.stringify(text)).toBe(legacy(text));
    }
  });

  it('tidies a line of thousands of spaces in linear time (issue 23)', () => {
    const hostile = (n: number) => `Intro.\n${' '.repeat(n)}x`;
    const g = bestGrowthVersusLinear(cleanArticleText, hostile, { n: 512 });
    expect(g.excess, describeGrowth(g)).toBeLessThan(6);
  });

  it('enables fetch with a typed title and analyse with a text and a question', () => {
    expect(canFetch('')).toBe(false);
    expect(canFetch(' ')).toBe(true);
    expect(canAnalyze('text', '')).toBe(false);
    expect(canAnalyze('', 'q')).toBe(false);
    expect(canAnalyze('text', 'q')).toBe(true);
  });

  it('names a blank context or question in French, inline and as toasts', () => {
    expect(checkAnalysis('  ', 'q')).toEqual({ context: 'Le contexte est vide' });
    expect(checkAnalysis('t', ' ')).toEqual({ question: 'La question est vide' });
    const both = checkAnalysis(' ', ' ');
    expect(both).toEqual({ context: 'Le contexte est vide', question: 'La question est vide' });
    expect(analysisToasts(both)).toEqual(['Le contexte est requis', 'La question est requise']);
    expect(checkAnalysis('t', 'q')).toEqual({});
  });
});
