import { describe, expect, it } from 'vitest';
import { EMOTION_LEXICON } from './emotion-lexicon.js';
import { Lexicon } from './lexicon.js';
import { THEME_LEXICON } from './theme-lexicon.js';

describe('Lexicon', () => {
  it('matches exact words first, then the longest prefix', () => {
    const lex = new Lexicon({ a: 'hoff* hope', b: 'hoffnungslos* hopeless' });
    expect(lex.lookup('hoffnung')).toEqual(['a']);
    expect(lex.lookup('hoffnungslosigkeit')).toEqual(['b']);
    expect(lex.lookup('hopeless')).toEqual(['b']);
    expect(lex.lookup('hopes')).toEqual([]);
  });

  it('folds its entries like the tokens it is given', () => {
    const lex = new Lexicon({ fear: 'Épouvant* Straße' });
    expect(lex.lookup('epouvantable')).toEqual(['fear']);
    expect(lex.lookup('strasse')).toEqual(['fear']);
  });

  it('ships no prefix shorter than three letters, which would match half the dictionary', () => {
    const lists = [
      ...Object.values(THEME_LEXICON),
      ...Object.values(EMOTION_LEXICON).flatMap((l) => Object.values(l)),
    ];
    for (const list of lists) {
      for (const entry of list.split(/\s+/).filter((e) => e.endsWith('*'))) {
        expect(entry.length - 1, entry).toBeGreaterThanOrEqual(3);
      }
    }
  });
});
