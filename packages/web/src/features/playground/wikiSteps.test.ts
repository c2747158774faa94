import { describe, expect, it } from 'vitest';
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
