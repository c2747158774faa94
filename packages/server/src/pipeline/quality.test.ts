import { DEFAULT_PROCESSING_SETTINGS as D } from '@adam/contracts';
import { describe, expect, it } from 'vitest';
import { BOILERPLATE, DE, EN, ES, FR } from './__fixtures__/paragraphs.js';
import {
  checkDocument,
  checkSegment,
  checkSnippet,
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
