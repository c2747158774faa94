import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { EVAL_SET } from '../../bench/eval/evaluate.js';
import { generatePage } from '../../test/fixtures/fixture-pages.js';
import { rng } from '../../test/fixtures/seeded-random.js';
import { terms } from './tokenizer.js';

/** The snippets table's tokenizer (store/migrations, migration 6). */
const TOKENIZE = 'porter unicode61 remove_diacritics 2';

/** The terms FTS5 itself makes of each text, in order, as byte strings. */
function ftsTerms(texts: readonly string[]): string[][] {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(text, tokenize='${TOKENIZE}');
           CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
  const insert = db.prepare('INSERT INTO t(rowid, text) VALUES (?, ?)');
  texts.forEach((text, i) => insert.run(i + 1, text));
  const out: string[][] = texts.map(() => []);
  const rows = db
    .prepare('SELECT doc, "offset" AS o, CAST(term AS BLOB) AS term FROM v ORDER BY doc, o')
    .all() as { doc: number; o: number; term: Buffer }[];
  for (const r of rows) out[r.doc - 1]!.push(r.term.toString('latin1'));
  db.close();
  return out;
}

/** Words that walk the Porter rules: English-like stems with every suffix FTS5's stemmer knows. */
function porterWords(count: number, seed: number): string[] {
  const rand = rng(seed);
  const pick = <T>(a: readonly T[]) => a[Math.floor(rand() * a.length)]!;
  const stems = [
    'r',
    'hop',
    'cat',
    'feed',
    'agree',
    'plast',
    'siz',
    'fil',
    'tann',
    'troubl',
    'sky',
    'happ',
    'relat',
    'condition',
    'valen',
    'hesit',
    'digit',
    'conform',
    'radic',
    'differ',
    'vietnam',
    'predic',
    'electr',
    'hope',
    'sens',
    'rate',
    'cease',
    'controll',
    'roll',
    'oscill',
    'adopt',
    'commun',
    'activ',
    'bowdler',
    'formal',
    'gener',
    'homolog',
    'effect',
    'irrit',
    'depend',
    'adjust',
    'ador',
    'angul',
    'gyrosc',
    'cr',
    'y',
    'sy',
    'fal',
    'at',
    'ing',
  ];
  const suffixes = [
    '',
    's',
    'es',
    'sses',
    'ies',
    'ss',
    'ed',
    'eed',
    'ing',
    'at',
    'bl',
    'iz',
    'y',
    'ational',
    'tional',
    'enci',
    'anci',
    'izer',
    'bli',
    'alli',
    'entli',
    'eli',
    'ousli',
    'ization',
    'ation',
    'ator',
    'alism',
    'iveness',
    'fulness',
    'ousness',
    'aliti',
    'iviti',
    'biliti',
    'logi',
    'icate',
    'ative',
    'alize',
    'iciti',
    'ical',
    'ful',
    'ness',
    'al',
    'ance',
    'ence',
    'er',
    'ic',
    'able',
    'ible',
    'ant',
    'ement',
    'ment',
    'ent',
    'ion',
    'sion',
    'tion',
    'ou',
    'ism',
    'ate',
    'iti',
    'ous',
    'ive',
    'ize',
    'e',
    'll',
    'ling',
    'ings',
    'edly',
  ];
  const out: string[] = [];
  for (let i = 0; i < count; i++)
    out.push(pick(stems) + pick(suffixes) + (rand() < 0.3 ? pick(suffixes) : ''));
  return out;
}

/** Text of letters from many scripts, with diacritics, case, digits, marks and separators. */
function mixedText(length: number, seed: number): string {
  const rand = rng(seed);
  const alphabet = [
    ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
    ...'àáâãäåæçèéêëìíîïðñòóôõöøùúûüýþÿÀÉÎÕÜŸĀăĄćĈčĎđĒėĘěĜğĠģĤħĨīĮİĲĵĶĸĹľĿłŃņŇŉŊōŐœŔŗŘśŜşŠţŤŧŨūŮűŲŵŶźŻžſǅǆǍǎǰǱǲǳȀȁȂ',
    ...'ßẞﬁﬂΣσςΆάΐΰЁёЖжЩщҐґԱաႠⴀ',
    ...'日本語中文한국어ไทยالعربيةעברית',
    '\u0301',
    '\u0308',
    '\u0327',
    '\u0336',
    '\u20dd', // combining marks (the last one is not a diacritic)
    '\ue000',
    '\u2160',
    '\u2170',
    '\u24b6',
    '\u00b2',
    '\u00bd',
    '\uff21',
    '\uff41',
    '😀',
    '𝐀',
    '𐐀',
    '𐐨',
    '_',
    '-',
    "'",
    '.',
    ',',
    '"',
    '\u00a0',
    '\u2028',
    '\u200b',
    '\t',
    '\n',
  ];
  let s = '';
  while (s.length < length) {
    s += rand() < 0.2 ? ' ' : alphabet[Math.floor(rand() * alphabet.length)]!;
  }
  return s;
}

describe('the keyword tokenizer', () => {
  it('makes the terms FTS5 makes of the fixture pages and the evaluation documents', () => {
    const texts = [
      ...Array.from({ length: 40 }, (_, i) => generatePage(i + 1).body.join('\n')),
      ...EVAL_SET.docs.map((d) => d.text),
    ];
    const expected = ftsTerms(texts);
    expect(expected.flat().length).toBeGreaterThan(10_000);
    texts.forEach((text, i) => expect(terms(text)).toEqual(expected[i]));
  });

  it('stems as FTS5 stems, rule by rule', () => {
    const words = porterWords(20_000, 5);
    const expected = ftsTerms(words);
    const differing = words.filter((w, i) => terms(w).join() !== expected[i]!.join());
    expect(differing).toEqual([]);
    // The sample reaches the stemmer's rules: many distinct stems, many changed words.
    expect(new Set(expected.flat()).size).toBeGreaterThan(2_000);
    expect(words.filter((w, i) => expected[i]![0] !== w).length).toBeGreaterThan(15_000);
  });

  it('folds case and diacritics and splits tokens as unicode61 does, in every script', () => {
    const texts = Array.from({ length: 400 }, (_, i) => mixedText(200, 100 + i));
    texts.push(
      'x'.repeat(70) + 'ing',
      'ÉTUDIÉES études etudie',
      'a'.repeat(40_000),
      'é'.repeat(20_000),
    );
    const expected = ftsTerms(texts);
    texts.forEach((text, i) => expect(terms(text), JSON.stringify(text)).toEqual(expected[i]));
  });

  it('reads hostile text in linear time', () => {
    const cases: ((n: number) => string)[] = [
      (n) => 'a'.repeat(n),
      (n) => 'e\u0301'.repeat(n),
      (n) => '. '.repeat(n),
      (n) => 'ational '.repeat(n),
    ];
    for (const make of cases) {
      const g = bestGrowthVersusLinear((s: string) => terms(s).length, make, { n: 2_000 });
      expect(g.excess, describeGrowth(g)).toBeLessThan(6);
    }
  });
});
