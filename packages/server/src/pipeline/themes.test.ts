import { describe, expect, it } from 'vitest';
import { hashEmbed, hashEmbedOne } from './__fixtures__/hash-embed.js';
import { DE, EN, ES, FR } from './__fixtures__/paragraphs.js';
import { classifyTheme, keywordHits, THEME_MARGIN, themePrototypes, THEMES } from './themes.js';

describe('classifyTheme', () => {
  const cases: [string, string, string][] = [
    ['physics', EN.physics, 'science'],
    ['software', EN.software, 'technology'],
    ['ethics', EN.ethics, 'philosophy'],
    ['cooking', EN.cooking, 'general'],
    ['French physics', FR.physics, 'science'],
    ['Spanish physics', ES.physics, 'science'],
    ['German physics', DE.physics, 'science'],
    ['German history', DE.history, 'general'],
  ];
  for (const [name, text, theme] of cases) {
    it(`files the ${name} paragraph under ${theme}`, async () => {
      const prototypes = await themePrototypes(hashEmbed());
      const r = classifyTheme(text, hashEmbedOne(text), prototypes);
      expect(r.theme).toBe(theme);
      expect(Object.keys(r.scores).sort()).toEqual([...THEMES].sort());
      const sum = Object.values(r.scores).reduce((a, b) => a + b, 0);
      expect(sum).toBeCloseTo(1, 3);
    });
  }

  it('answers general when no theme leads by the margin', () => {
    const r = classifyTheme('The compiler studied the atoms.', undefined, undefined);
    expect(r.scores.science).toBeCloseTo(r.scores.technology, 5);
    expect(r.theme).toBe('general');
    const clear = classifyTheme(EN.physics, undefined, undefined);
    expect(clear.theme).toBe('science');
    expect(clear.scores.science - clear.scores.general).toBeGreaterThanOrEqual(THEME_MARGIN);
  });

  it('embeds the prototypes once per embed function', async () => {
    const embed = hashEmbed();
    const a = await themePrototypes(embed, 8);
    const b = await themePrototypes(embed, 8);
    expect(a).toBe(b);
    expect(Math.max(...embed.calls)).toBeLessThanOrEqual(8);
    const total = embed.calls.reduce((x, y) => x + y, 0);
    expect(total).toBe(THEMES.reduce((n, t) => n + a[t].length, 0));
  });

  it('does not cache a failed prototype embedding', async () => {
    let fail = true;
    const embed = async (texts: string[]) => {
      if (fail) throw new Error('offline');
      return texts.map(hashEmbedOne);
    };
    await expect(themePrototypes(embed)).rejects.toThrow('offline');
    fail = false;
    await expect(themePrototypes(embed)).resolves.toHaveProperty('science');
  });
});

describe('keywordHits', () => {
  it('matches stems across languages and ignores function words', () => {
    expect(keywordHits('Die Quantenmechanik und die Physik der Atome')).toMatchObject({
      science: 3,
    });
    expect(keywordHits('le logiciel, la programmation et les données').technology).toBe(3);
    expect(keywordHits('la virtud y la justicia').philosophy).toBe(2);
    expect(keywordHits('the and of to in')).toEqual({
      science: 0,
      technology: 0,
      philosophy: 0,
      general: 0,
    });
  });
});
