import nlp from 'compromise';
import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { DE, EN, ES, FR } from './__fixtures__/paragraphs.js';
import { cleanEntityText, datePatterns, entitiesWithin, extractEntities } from './entities.js';

describe('extractEntities, English', () => {
  it('finds people, organisations, places, dates and money', () => {
    const e = extractEntities(EN.history, 'en');
    expect(e).toEqual(
      expect.arrayContaining([
        { text: 'Marie Curie', label: 'PERSON' },
        { text: 'Pierre Curie', label: 'PERSON' },
        { text: 'University of Paris', label: 'ORG' },
        { text: 'Warsaw', label: 'GPE' },
        { text: 'Paris', label: 'GPE' },
        { text: '7 November 1867', label: 'DATE' },
        { text: '$50,000', label: 'MONEY' },
      ]),
    );
  });

  it("finds the people and places compromise's whole tagger finds, with its rules cut", () => {
    // compromise's own tagger in the same thread: both taggers build their rule nets, and
    // neither may break the other's (the net builder parses rules in place).
    const full = nlp(EN.history);
    const people = full.people().out('array') as string[];
    const places = full.places().out('array') as string[];
    const e = extractEntities(EN.history, 'en');
    const clean = (s: string) => s.replace(/[’']s$|[,.;:]$/u, '');
    for (const p of people) {
      expect(e).toContainEqual({ text: clean(p), label: 'PERSON' });
    }
    for (const p of places) expect(e).toContainEqual({ text: clean(p), label: 'GPE' });
    expect(extractEntities(EN.history, 'en')).toEqual(e);
  });

  it('deduplicates and drops honorifics and trailing punctuation', () => {
    const e = extractEntities(
      'Dr. John Smith works for Microsoft. John Smith lives in London. Microsoft grew by 12% in 2021.',
      'en',
    );
    expect(e.filter((x) => x.text === 'John Smith')).toEqual([
      { text: 'John Smith', label: 'PERSON' },
    ]);
    expect(e.filter((x) => x.text === 'Microsoft')).toHaveLength(1);
    expect(e).toEqual(
      expect.arrayContaining([
        { text: 'London', label: 'GPE' },
        { text: '2021', label: 'DATE' },
        { text: '12%', label: 'PERCENT' },
      ]),
    );
    const keys = e.map((x) => `${x.label}:${x.text.toLowerCase()}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('entitiesWithin', () => {
  it('keeps the entities whose text the piece holds as whole words, in order', () => {
    const doc = extractEntities(
      'Marie Curie moved to Paris in 1891. She taught at the University of Paris. Parisians admired her.',
      'en',
    );
    const piece = entitiesWithin(doc, 'She taught at the University of Paris.');
    expect(piece).toContainEqual({ text: 'University of Paris', label: 'ORG' });
    expect(piece.some((e) => e.text === 'Marie Curie')).toBe(false);
    expect(entitiesWithin([{ text: 'Paris', label: 'GPE' }], 'Parisians admired her.')).toEqual([]);
    expect(entitiesWithin([{ text: 'Paris', label: 'GPE' }], 'In Paris, then')).toEqual([
      { text: 'Paris', label: 'GPE' },
    ]);
  });

  it('reads percentages, decades and years after a cue in English', () => {
    const e = extractEntities(
      'By the late 1950s the club had grown by 40% and, around 1962, it moved to Leeds.',
      'en',
    );
    expect(e).toEqual(
      expect.arrayContaining([
        { text: 'late 1950s', label: 'DATE' },
        { text: '1962', label: 'DATE' },
        { text: '40%', label: 'PERCENT' },
      ]),
    );
  });
});

describe('extractEntities, other languages', () => {
  it('finds titled persons, organisations, names and dates in French', () => {
    const e = extractEntities(FR.history, 'fr');
    expect(e).toEqual(
      expect.arrayContaining([
        { text: 'Dupont', label: 'PERSON' },
        { text: 'de Maintenon', label: 'PERSON' },
        { text: 'Louis XIV', label: 'MISC' },
        { text: '1789', label: 'DATE' },
      ]),
    );
    expect(extractEntities(FR.quotes, 'fr')).toContainEqual({ text: '12.05.2024', label: 'DATE' });
  });

  it('finds Spanish titled persons and organisations', () => {
    const e = extractEntities(ES.physics + ' ' + ES.history, 'es');
    expect(e).toEqual(
      expect.arrayContaining([
        { text: 'Martínez', label: 'PERSON' },
        { text: 'López', label: 'PERSON' },
        { text: 'Universidad de Salamanca', label: 'ORG' },
      ]),
    );
  });

  it('keeps German nouns apart from names and reads German dates', () => {
    const e = extractEntities(DE.history + ' ' + DE.physics, 'de');
    expect(e).toEqual(
      expect.arrayContaining([
        { text: '13. August 1961', label: 'DATE' },
        { text: '9. November 1989', label: 'DATE' },
        { text: 'Max Planck', label: 'MISC' },
        { text: 'Albert Einstein', label: 'MISC' },
        { text: 'East Side Gallery', label: 'MISC' },
      ]),
    );
    // Capitalised common nouns and the sentence-initial article are not names.
    expect(e.map((x) => x.text)).not.toContain('Die Berliner Mauer');
    expect(e.some((x) => x.text.includes('Arbeiten'))).toBe(false);
  });
});

describe('datePatterns', () => {
  it('reads written dates in each language', () => {
    expect(datePatterns('Il est né le 1er mars 1850 à Lyon.', 'fr')).toContain('1er mars 1850');
    expect(datePatterns('Llegó el 3 de mayo de 2021.', 'es')).toContain('3 de mayo de 2021');
    expect(datePatterns('It opened on March 3, 2021.', 'en')).toContain('March 3, 2021');
    expect(datePatterns('Am 3. Oktober 1990 endete die Teilung.', 'de')).toContain(
      '3. Oktober 1990',
    );
    expect(datePatterns('Version 2024-05-12 und 12/05/2024.', 'de')).toEqual(
      expect.arrayContaining(['2024-05-12', '12/05/2024']),
    );
    // A month name alone is no date ("Mars" is also a planet).
    expect(datePatterns('La planète Mars est rouge.', 'fr')).toEqual([]);
  });
});

describe('cleanEntityText', () => {
  // The expression chain it replaces, kept as the reference.
  const legacy = (s: string) =>
    s
      .replace(/\s+/gu, ' ')
      .replace(/[’']s$/u, '')
      .replace(/^[\s"'“‘«(]+|[\s"'”’»),.;:!?]+$/gu, '')
      .trim();

  it('trims quotes, punctuation and the possessive as the old expressions did', () => {
    for (const text of [
      '“Marie Curie”',
      "(Pierre Curie's",
      '« Paris »,',
      'Dr.  Jane\nDoe!?',
      '"\'"',
      '!!!',
      'O’Brien’s',
      '',
    ]) {
      expect(cleanEntityText(text), text).toBe(legacy(text));
    }
  });

  it('agrees with the old expressions on random text', () => {
    const pieces = [
      'a',
      'B',
      ' ',
      '\n',
      '"',
      "'",
      '’',
      's',
      '“',
      '”',
      '«',
      '»',
      '(',
      ')',
      '.',
      '!',
    ];
    let seed = 23;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5_000; i++) {
      let text = '';
      const length = Math.floor(random() * 12);
      for (let j = 0; j < length; j++) text += pieces[Math.floor(random() * pieces.length)];
      expect(cleanEntityText(text), JSON.stringify(text)).toBe(legacy(text));
    }
  });

  it('trims a long punctuation run in linear time (issue 23)', () => {
    const hostile = (n: number) => `Paris${'!'.repeat(n)}x`;
    const g = bestGrowthVersusLinear(cleanEntityText, hostile, { n: 512 });
    expect(g.excess, describeGrowth(g)).toBeLessThan(6);
  });
});
