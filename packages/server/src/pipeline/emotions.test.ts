import { describe, expect, it } from 'vitest';
import { EMOTION, EN } from './__fixtures__/paragraphs.js';
import { dominantEmotion, EMOTIONS, scoreEmotions } from './emotions.js';

describe('scoreEmotions', () => {
  it('ranks a joyful text above a fearful one on joy, and the reverse on fear', () => {
    const joyful = scoreEmotions(EMOTION.joyful);
    const fearful = scoreEmotions(EMOTION.fearful);
    expect(joyful.joy).toBeGreaterThan(0.5);
    expect(fearful.fear).toBeGreaterThan(0.5);
    expect(joyful.joy).toBeGreaterThan(fearful.joy + 0.5);
    expect(fearful.fear).toBeGreaterThan(joyful.fear + 0.5);
    expect(dominantEmotion(joyful)).toBe('joy');
    expect(dominantEmotion(fearful)).toBe('fear');
  });

  it('lowers joy under negation and shifts part of it to sadness', () => {
    const plain = scoreEmotions(EMOTION.happy);
    const negated = scoreEmotions(EMOTION.notHappy);
    expect(negated.joy).toBeLessThan(plain.joy);
    expect(negated.sadness).toBeGreaterThan(plain.sadness);
    expect(scoreEmotions("We weren't afraid of the storm at all.").fear).toBeLessThan(
      scoreEmotions('We were afraid of the storm at all.').fear,
    );
  });

  it('handles negation in French, Spanish and German', () => {
    expect(scoreEmotions("Il n'était pas heureux.", 'fr').joy).toBeLessThan(
      scoreEmotions('Il était heureux.', 'fr').joy,
    );
    expect(scoreEmotions('No estaba feliz.', 'es').joy).toBeLessThan(
      scoreEmotions('Estaba feliz.', 'es').joy,
    );
    expect(scoreEmotions('Ich freue mich nicht.', 'de').joy).toBeLessThan(
      scoreEmotions('Ich freue mich.', 'de').joy,
    );
  });

  it('scores the four languages from their own lexicons', () => {
    expect(dominantEmotion(scoreEmotions('La peur et la terreur envahirent la ville.', 'fr'))).toBe(
      'fear',
    );
    expect(dominantEmotion(scoreEmotions('Una gran tristeza y muchas lágrimas.', 'es'))).toBe(
      'sadness',
    );
    expect(dominantEmotion(scoreEmotions('Die Wut und der Zorn waren groß.', 'de'))).toBe('anger');
  });

  it('is deterministic, bounded and length-normalised', () => {
    const a = scoreEmotions(EMOTION.joyful);
    expect(scoreEmotions(EMOTION.joyful)).toEqual(a);
    expect(Object.keys(a)).toEqual([...EMOTIONS]);
    for (const v of Object.values(a)) {
      expect(v).toBeGreaterThanOrEqual(0);
      expect(v).toBeLessThanOrEqual(1);
    }
    // The same joyful text diluted in neutral prose scores lower.
    const diluted = scoreEmotions(`${EMOTION.joyful} ${EN.software} ${EN.cooking}`);
    expect(diluted.joy).toBeLessThan(a.joy);
    expect(diluted.joy).toBeGreaterThan(0);
    expect(dominantEmotion(scoreEmotions(EN.cooking))).toBeNull();
  });

  it('strengthens a word after an intensifier', () => {
    const text = 'The crowd was happy. '.padEnd(200, ' ') + 'x '.repeat(60);
    const very = text.replace('happy', 'very happy');
    expect(scoreEmotions(very).joy).toBeGreaterThan(scoreEmotions(text).joy);
  });
});
