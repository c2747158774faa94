import { describe, expect, it } from 'vitest';
import { countTokens, cutAtWordBoundaries, embedBatched, fold, wordCount } from './text.js';

describe('text helpers', () => {
  it('counts words as a reader does and tokens as words plus punctuation', () => {
    expect(wordCount('L’énergie vaut 3.14, et state-of-the-art reste un mot.')).toBe(8);
    expect(countTokens('Hello, world!')).toBe(4);
    expect(countTokens('l’espace')).toBe(3);
    expect(countTokens('Pi is 3.14.')).toBe(4);
    expect(wordCount('今天天气很好')).toBe(6);
  });

  it('folds case, accents and ß', () => {
    expect(fold('Élève Straße ÇA')).toBe('eleve strasse ca');
  });

  it('cuts at word boundaries, and inside a word only when it is longer than the limit', () => {
    expect(cutAtWordBoundaries('aaa bbb ccc ddd', 7)).toEqual(['aaa bbb', 'ccc ddd']);
    expect(cutAtWordBoundaries('abcdefghij kl', 4)).toEqual(['abcd', 'efgh', 'ij', 'kl']);
    expect(cutAtWordBoundaries('a, b, c, d', 100, 4)).toEqual(['a, b,', 'c, d']);
  });

  it('embeds in batches and checks the answer size', async () => {
    const sizes: number[] = [];
    const embed = async (t: string[]) => {
      sizes.push(t.length);
      return t.map(() => new Float32Array(2));
    };
    expect(await embedBatched(embed, ['a', 'b', 'c', 'd', 'e'], 2)).toHaveLength(5);
    expect(sizes).toEqual([2, 2, 1]);
    await expect(embedBatched(async () => [], ['a'], 2)).rejects.toThrow(
      'embed returned 0 vectors for 1 texts',
    );
  });
});
