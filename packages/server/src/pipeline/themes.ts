import { Lexicon } from './lexicon.js';
import { round } from '../lib/round.js';
import { dot, embedBatched, type EmbedFn, matchTokens, STOPWORDS } from './text.js';
import { THEME_LEXICON, THEME_PROTOTYPES, THEMES, type Theme } from './theme-lexicon.js';

export { THEMES, type Theme } from './theme-lexicon.js';

export type ThemeScores = Record<Theme, number>;

interface ThemeResult {
  theme: Theme;
  /** 0–1 per theme, summing to 1. */
  scores: ThemeScores;
}

/** Embedded prototype descriptions per theme. */
type ThemePrototypes = Record<Theme, Float32Array[]>;

const lexicon = new Lexicon<Theme>(THEME_LEXICON);

// Softmax temperature over the themes' best prototype cosines: embedders differ in their
// absolute cosine levels, but a lead of 0.1 (a factor e) is meaningful for all of them.
const PROTOTYPE_TEMPERATURE = 0.1;
// Additive smoothing of keyword counts: one or two stray keywords do not decide a theme.
const KEYWORD_SMOOTHING = 1;
// Weight of the prototype part; the keyword part has the rest.
const PROTOTYPE_WEIGHT = 0.5;
/**
 * A specific theme is given only when its combined score leads every other theme, 'general'
 * included, by at least this much; otherwise the snippet is 'general'.
 */
export const THEME_MARGIN = 0.1;

const cache = new WeakMap<EmbedFn, Promise<ThemePrototypes>>();

/** Prototypes embedded with this embed function, once per function. */
export function themePrototypes(embed: EmbedFn, batchSize = 32): Promise<ThemePrototypes> {
  let p = cache.get(embed);
  if (!p) {
    p = embedPrototypes(embed, batchSize);
    cache.set(embed, p);
    // A failed attempt is not cached: the next call tries again.
    p.catch(() => cache.delete(embed));
  }
  return p;
}

async function embedPrototypes(embed: EmbedFn, batchSize: number): Promise<ThemePrototypes> {
  const texts = THEMES.flatMap((t) => THEME_PROTOTYPES[t]);
  const vectors = await embedBatched(embed, texts, batchSize);
  const out = {} as ThemePrototypes;
  let k = 0;
  for (const t of THEMES) {
    out[t] = THEME_PROTOTYPES[t].map(() => vectors[k++] ?? new Float32Array());
  }
  return out;
}

/** Keyword hits per theme (each token counts once, function words never). */
export function keywordHits(text: string): ThemeScores {
  const hits: ThemeScores = { science: 0, technology: 0, philosophy: 0, general: 0 };
  for (const token of matchTokens(text)) {
    if (token.length < 2 || STOPWORDS.has(token)) continue;
    for (const theme of lexicon.lookup(token)) hits[theme]++;
  }
  return hits;
}

/**
 * Theme of a snippet: ½ softmax of its best cosine with each theme's prototypes + ½ smoothed
 * share of keyword hits; 'general' unless a specific theme leads by THEME_MARGIN.
 */
export function classifyTheme(
  text: string,
  vector: Float32Array | undefined,
  prototypes: ThemePrototypes | undefined,
): ThemeResult {
  const hits = keywordHits(text);
  const totalHits = THEMES.reduce((n, t) => n + hits[t], 0);
  const keyword = {} as ThemeScores;
  for (const t of THEMES) {
    keyword[t] = (hits[t] + KEYWORD_SMOOTHING) / (totalHits + KEYWORD_SMOOTHING * THEMES.length);
  }

  let proto: ThemeScores | undefined;
  if (vector && prototypes) {
    const best = THEMES.map((t) => Math.max(...prototypes[t].map((p) => dot(vector, p)), -1));
    const top = Math.max(...best);
    const exp = best.map((s) => Math.exp((s - top) / PROTOTYPE_TEMPERATURE));
    const sum = exp.reduce((a, b) => a + b, 0);
    proto = {} as ThemeScores;
    THEMES.forEach((t, i) => {
      (proto as ThemeScores)[t] = (exp[i] ?? 0) / sum;
    });
  }

  const scores = {} as ThemeScores;
  for (const t of THEMES) {
    scores[t] = proto
      ? PROTOTYPE_WEIGHT * proto[t] + (1 - PROTOTYPE_WEIGHT) * keyword[t]
      : keyword[t];
  }
  const ranked = [...THEMES].sort((a, b) => scores[b] - scores[a]);
  const [first, second] = ranked as [Theme, Theme];
  const theme: Theme =
    first !== 'general' && scores[first] - scores[second] >= THEME_MARGIN ? first : 'general';
  for (const t of THEMES) scores[t] = round(scores[t], 4);
  return { theme, scores };
}
