import { describe, expect, it } from 'vitest';
import { BOILERPLATE, DE, EN, ES, FR } from './__fixtures__/paragraphs.js';
import { detectLanguage, resolveLanguage } from './language.js';

describe('detectLanguage', () => {
  const cases: [string, Record<string, string>][] = [
    ['en', EN],
    ['fr', FR],
    ['es', ES],
    ['de', DE],
  ];
  for (const [code, paragraphs] of cases) {
    it(`recognises every ${code} paragraph with confidence`, () => {
      for (const text of Object.values(paragraphs)) {
        const d = detectLanguage(text);
        expect(d.code, text.slice(0, 60)).toBe(code);
        expect(d.confidence).toBeGreaterThan(0.5);
        expect(d.confidence).toBeLessThanOrEqual(1);
      }
    });
  }

  it('answers und with zero confidence for short or letterless text', () => {
    expect(detectLanguage('Hello world')).toEqual({ code: 'und', confidence: 0 });
    expect(detectLanguage('12345 67890 !!! ???')).toEqual({ code: 'und', confidence: 0 });
    expect(detectLanguage('')).toEqual({ code: 'und', confidence: 0 });
  });

  it('is less sure of a menu than of prose', () => {
    expect(detectLanguage(BOILERPLATE.menu).confidence).toBeLessThan(
      detectLanguage(EN.physics).confidence,
    );
  });

  it('maps other scripts to ISO 639-1', () => {
    expect(detectLanguage('Привет, как дела? Сегодня очень хорошая погода в Москве.').code).toBe(
      'ru',
    );
    expect(detectLanguage('今日はとてもいい天気ですね。公園に散歩に行きましょう。').code).toBe(
      'ja',
    );
    expect(detectLanguage('今天天气很好，我们一起去公园散步吧。').code).toBe('zh');
  });
});

describe('resolveLanguage', () => {
  it('takes an explicit code as certain and detects on auto', () => {
    expect(resolveLanguage('fr', EN.physics)).toEqual({ code: 'fr', confidence: 1 });
    expect(resolveLanguage('auto', DE.physics).code).toBe('de');
  });
});
