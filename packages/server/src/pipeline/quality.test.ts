import { DEFAULT_PROCESSING_SETTINGS as D } from '@adam/contracts';
import { describe, expect, it } from 'vitest';
import { bestGrowthVersusLinear, describeGrowth } from '@adam/contracts/testing';
import { BOILERPLATE, DE, EN, ES, FR } from './__fixtures__/paragraphs.js';
import {
  checkDocument,
  checkSegment,
  checkSnippet,
  countAddresses,
  noiseLevel,
  QUALITY_WEIGHTS,
  scoreQuality,
} from './quality.js';

describe('scoreQuality', () => {
  it('ranks clean prose in every language above menus and cookie banners', () => {
    const prose = [EN.physics, EN.software, FR.physics, ES.history, DE.history].map(
      (t) => scoreQuality(t).score,
    );
    const junk = [BOILERPLATE.menu, BOILERPLATE.cookies].map((t) => scoreQuality(t).score);
    for (const p of prose) {
      expect(p).toBeGreaterThan(0.7);
      for (const j of junk) expect(p).toBeGreaterThan(j + 0.4);
    }
    for (const j of junk) expect(j).toBeLessThan(D.segment_quality_threshold);
  });

  it('reports its parts, each between 0 and 1', () => {
    const { score, detailed } = scoreQuality(BOILERPLATE.menu);
    expect(Object.keys(detailed).sort()).toEqual([...Object.keys(QUALITY_WEIGHTS), 'noise'].sort());
    for (const v of Object.values(detailed)) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
    }
    expect(detailed.sentence_completeness).toBe(0);
    expect(detailed.noise).toBeGreaterThan(0.5);
    expect(score).toBeLessThan(0.2);
    expect(Object.values(QUALITY_WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
  });

  it('penalises fragments, repetition and shouting', () => {
    const clean = scoreQuality(EN.cooking).score;
    const fragment = scoreQuality('risotto rice butter onion stock parmesan').score;
    const repeated = scoreQuality('Buy now. Buy now. Buy now. Buy now. Buy now. Buy now.').score;
    const shouting = scoreQuality(EN.cooking.toUpperCase()).score;
    expect(fragment).toBeLessThan(clean - 0.3);
    expect(repeated).toBeLessThan(clean - 0.3);
    expect(shouting).toBeLessThan(clean - 0.2);
  });

  it('uses a given language confidence', () => {
    const sure = scoreQuality(EN.ethics, { languageConfidence: 1 });
    const unsure = scoreQuality(EN.ethics, { languageConfidence: 0 });
    expect(sure.detailed.language_confidence).toBe(1);
    expect(sure.score - unsure.score).toBeCloseTo(QUALITY_WEIGHTS.language_confidence, 2);
  });
});

describe('noiseLevel', () => {
  it('is zero for prose and grows with URLs, boilerplate and symbols', () => {
    expect(noiseLevel(EN.history)).toBe(0);
    expect(noiseLevel('See https://example.com/a and www.example.org for more details.')).toBe(0.3);
    expect(noiseLevel('Nous utilisons des cookies. Cliquez ici pour en savoir plus.')).toBe(0.75);
    expect(noiseLevel('#### >>> ||| ### *** ~~~ ===')).toBe(1);
  });

  it('reads a long run without spaces in linear time (issue 23)', () => {
    // The old URL/e-mail expression was quadratic here, cubic on a run of '@'.
    for (const [unit, n] of [
      ['a', 512],
      ['@', 64],
    ] as const) {
      const g = bestGrowthVersusLinear(noiseLevel, (size) => unit.repeat(size), { n });
      expect(g.excess, `'${unit}': ${describeGrowth(g)}`).toBeLessThan(6);
    }
  });
});

describe('countAddresses', () => {
  // The expression it replaces, kept as the reference.
  const legacy = (text: string) =>
    text.match(/\bhttps?:\/\/\S+|\bwww\.\S+|\S+@\S+\.\w{2,}/g)?.length ?? 0;

  it('counts URLs and e-mail addresses as the old expression did', () => {
    for (const text of [
      'See https://example.com/a and www.example.org for more details.',
      'Write to jane.doe@example.co.uk or to bob@mail.example.com!',
      'http://user@host.example.com/path',
      'a@b.cc-http://x and x@y.zz-www.q',
      'email@x.y alone, @twitter, x@y.zz.',
      'nohttp://x awww.example.org _http://x',
      'http:// www. @.. a@.bb',
    ]) {
      expect(countAddresses(text), text).toBe(legacy(text));
    }
  });

  it('agrees with the old expression on random text', () => {
    const pieces = [
      'http',
      's',
      '://',
      'www',
      '.',
      '@',
      'a',
      'bc',
      '_',
      '-',
      ' ',
      '\u00a0',
      'w',
      'x.yz',
    ];
    let seed = 23;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 5_000; i++) {
      let text = '';
      const length = Math.floor(random() * 14);
      for (let j = 0; j < length; j++) text += pieces[Math.floor(random() * pieces.length)];
      expect(countAddresses(text), JSON.stringify(text)).toBe(legacy(text));
    }
  });
});

describe('acceptance helpers', () => {
  it('checks segments against length, words and the quality threshold, in that order', () => {
    expect(checkSegment('x'.repeat(87), 0.9, D)).toEqual({
      accepted: false,
      reason: 'too short (87 < 150 chars)',
    });
    const fewWords = 'Supercalifragilistic '.repeat(12).trim();
    expect(checkSegment(fewWords, 0.9, D).reason).toBe('too few words (12 < 20)');
    expect(checkSegment(EN.history.slice(0, 400), 0.21, D).reason).toBe(
      'quality 0.21 below threshold 0.30',
    );
    expect(checkSegment(EN.history.slice(0, 400), 0.31, D)).toEqual({
      accepted: true,
      reason: 'accepted',
    });
    expect(checkSegment(EN.physics, 0.9, D).reason).toMatch(/^too long \(\d+ > 500 chars\)$/);
  });

  it('checks snippets against min_quality_score', () => {
    expect(checkSnippet(0.35, D)).toEqual({
      accepted: false,
      reason: 'quality 0.35 below min_quality_score 0.40',
    });
    expect(checkSnippet(0.4, D).accepted).toBe(true);
  });

  it('checks documents against min_content_length and min_word_count', () => {
    expect(checkDocument('Too short.', D)).toMatchObject({
      accepted: false,
      reason: 'content too short (10 < 50 chars)',
    });
    expect(checkDocument(FR.history.slice(0, 120), D)).toMatchObject({
      accepted: false,
      reason: expect.stringMatching(/^content has too few words \(\d+ < 30\)$/),
    });
    expect(checkDocument(EN.physics, D)).toMatchObject({ accepted: true, reason: 'accepted' });
  });
});
