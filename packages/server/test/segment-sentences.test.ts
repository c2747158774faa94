import { DEFAULT_PROCESSING_SETTINGS, type ProcessingSettings } from '@adam/contracts';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { describe, expect, it } from 'vitest';
import { hashEmbed } from '../src/pipeline/__fixtures__/hash-embed.js';
import * as paragraphs from '../src/pipeline/__fixtures__/paragraphs.js';
import {
  type Candidate,
  fallbackCandidates,
  regexCandidates,
  segmentText,
} from '../src/pipeline/segmenter.js';
import { splitSentences } from '../src/pipeline/sentences.js';
import { countTokens, cutAtWordBoundaries } from '../src/pipeline/text.js';
import { FIXTURE_ARTICLES } from './fixtures/fixture-articles.js';
import { generatePage } from './fixtures/fixture-pages.js';
import { rng } from './fixtures/seeded-random.js';

/**
 * Snippets read as sentences (issue 25): on fixture pages and generated texts, every segment's
 * own text is whole sentences (pieces only of a sentence longer than the limits), and its
 * overlap is the whole sentences right before it in the text, within the overlap budget, as
 * many as fit.
 */

interface Doc {
  name: string;
  text: string;
  language: string;
}

const bodyText = (body: string[]) => body.map((p) => p.replace(/^## /, '')).join('\n\n');

function fixtureDocs(): Doc[] {
  const docs: Doc[] = FIXTURE_ARTICLES.map((a) => ({
    name: a.path,
    text: bodyText(a.body),
    language: a.lang,
  }));
  for (let n = 0; n < 30; n++) {
    docs.push({ name: `/pages/${n}`, text: bodyText(generatePage(n).body), language: 'en' });
  }
  for (const [lang, set] of Object.entries({
    en: paragraphs.EN,
    fr: paragraphs.FR,
    es: paragraphs.ES,
    de: paragraphs.DE,
  })) {
    docs.push({
      name: `paragraphs.${lang}`,
      text: Object.values(set).join('\n\n'),
      language: lang,
    });
  }
  return docs;
}

const WORDS =
  'the a volcano bread of Dr. ash 1926 p. and quantum, dough; mr. lava e.g. rises in'.split(' ');

/** Sentences of 1 to 60 words (now and then 100 to 160: longer than the limits), in paragraphs. */
function generatedDoc(seed: number): Doc {
  const rand = rng(seed);
  const paras: string[] = [];
  for (let p = 0; p < 2 + Math.floor(rand() * 4); p++) {
    const sentences: string[] = [];
    for (let s = 0; s < 1 + Math.floor(rand() * 6); s++) {
      const n = rand() < 0.1 ? 100 + Math.floor(rand() * 60) : 1 + Math.floor(rand() * 60);
      const words = Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]);
      const first = words[0] ?? 'x';
      words[0] = first.charAt(0).toUpperCase() + first.slice(1);
      sentences.push(`${words.join(' ')}${['.', '!', '?'][Math.floor(rand() * 3)]}`);
    }
    paras.push(sentences.join(' '));
  }
  return { name: `generated ${seed}`, text: paras.join('\n\n'), language: 'en' };
}

interface Piece {
  text: string;
  whole: boolean;
}

/** The text's sentences as the segmenter must keep them: cut only when over the limits. */
function expectedUnits(doc: Doc, s: ProcessingSettings): Piece[] {
  return splitSentences(doc.text, doc.language).flatMap((sentence) => {
    const pieces = cutAtWordBoundaries(sentence, s.segment_max_length, s.segment_max_tokens);
    return pieces.map((text) => ({ text, whole: pieces.length === 1 }));
  });
}

function expectSentences(doc: Doc, s: ProcessingSettings, candidates: Candidate[]): number {
  const budget = Math.min(s.segment_overlap, Math.floor(s.segment_max_length / 2));
  const units = expectedUnits(doc, s);
  // The segments' own sentences are the text's sentences, in order, none left out.
  expect(
    candidates.flatMap((c) => c.sentences),
    doc.name,
  ).toEqual(units.map((u) => u.text));
  let k = 0;
  let carried = 0;
  for (const c of candidates) {
    const label = `${doc.name}: ${c.text}`;
    expect(c.text.length, label).toBeLessThanOrEqual(s.segment_max_length);
    expect(countTokens(c.text), label).toBeLessThanOrEqual(s.segment_max_tokens);
    expect(c.text, label).toBe([c.overlap, ...c.sentences].filter(Boolean).join(' '));
    expect(c.overlap.length, label).toBeLessThanOrEqual(budget);
    // The overlap is the whole sentences right before the body.
    let m = 0;
    while (
      m < k &&
      units
        .slice(k - m - 1, k)
        .map((u) => u.text)
        .join(' ').length <= c.overlap.length
    ) {
      m++;
    }
    const before = units.slice(k - m, k);
    expect(before.map((u) => u.text).join(' '), label).toBe(c.overlap);
    expect(
      before.every((u) => u.whole),
      label,
    ).toBe(true);
    if (m > 0) carried++;
    // As many as fit: the next sentence back would break the budget or a limit (or is a piece).
    const next = units[k - m - 1];
    if (next?.whole && k > 0) {
      const ov = [next.text, c.overlap].filter(Boolean).join(' ');
      const text = `${ov} ${c.sentences.join(' ')}`;
      const fits =
        ov.length <= budget &&
        text.length <= s.segment_max_length &&
        countTokens(text) <= s.segment_max_tokens;
      // Lists lend nothing to the next paragraph; generated and fixture prose has none.
      expect(fits, `${label} | could also carry: ${next.text}`).toBe(false);
    }
    k += c.sentences.length;
  }
  return carried;
}

const settings = (over: Partial<ProcessingSettings>): ProcessingSettings => ({
  ...DEFAULT_PROCESSING_SETTINGS,
  ...over,
});

const VARIANTS: [string, Partial<ProcessingSettings>][] = [
  ['defaults', {}],
  ['overlap 0', { segment_overlap: 0 }],
  ['overlap 120', { segment_overlap: 120 }],
  ['overlap 300 of 400', { segment_overlap: 300, segment_max_length: 400 }],
  ['tight', { segment_max_length: 200, segment_max_tokens: 60, segment_overlap: 100 }],
];

describe('snippets read as sentences', () => {
  const docs = [...fixtureDocs(), ...Array.from({ length: 25 }, (_, i) => generatedDoc(i + 1))];

  for (const [name, over] of VARIANTS) {
    it(`regex and fallback candidates, ${name}`, () => {
      const s = settings(over);
      let carried = 0;
      for (const doc of docs) {
        carried += expectSentences(doc, s, regexCandidates(doc.text, doc.language, s));
        carried += expectSentences(doc, s, fallbackCandidates(doc.text, doc.language, s));
      }
      // A budget of whole sentences carries some: the generated texts have short ones.
      if (s.segment_overlap >= 50) expect(carried).toBeGreaterThan(0);
    });

    it(`semantic segmentation, ${name}`, async () => {
      const s = settings(over);
      let carried = 0;
      for (const doc of docs) {
        const r = await segmentText(doc.text, {
          language: doc.language,
          settings: s,
          embed: hashEmbed(),
        });
        carried += expectSentences(doc, s, r.candidates);
      }
      if (s.segment_overlap >= 120) expect(carried).toBeGreaterThan(0);
    });
  }

  // Hostile shapes: tiny sentences (the most overlap candidates per segment, a budget of 250
  // holds ~80 of them), no punctuation at all, one endless word. Cutting stays linear.
  for (const [name, make] of [
    ['tiny sentences', (n: number) => 'A. B! '.repeat(n / 6)],
    ['no punctuation', (n: number) => 'word '.repeat(n / 5)],
    ['one word', (n: number) => 'x'.repeat(n)],
  ] as const) {
    it(`cuts ${name} in linear time`, () => {
      const s = settings({ segment_overlap: 250, segment_max_sentences: 10 });
      // The shared default (factor 16, bound 6): a quadratic cut shows an excess near 16. Its
      // re-measuring stops at that bound, so the assertion uses the same one; inputs large
      // enough and five tries, so a busy machine's pauses do not decide it.
      const g = bestGrowthVersusLinear((t: string) => regexCandidates(t, 'en', s).length, make, {
        n: 6_000,
        attempts: 5,
      });
      expect(g.excess, describeGrowth(g)).toBeLessThan(6);
    });
  }
});
