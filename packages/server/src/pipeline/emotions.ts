import {
  EMOTION_LEXICON,
  EMOTIONS,
  type Emotion,
  INTENSIFIERS,
  NEGATORS,
} from './emotion-lexicon.js';
import { Lexicon } from './lexicon.js';
import { round } from '../lib/round.js';
import { fold } from './text.js';

export { EMOTIONS, type Emotion } from './emotion-lexicon.js';

export type EmotionScores = Record<Emotion, number>;

interface LanguagePack {
  lexicon: Lexicon<Emotion>;
  negators: Set<string>;
  intensifiers: Set<string>;
}

const packs = new Map<string, LanguagePack>();

function packFor(language: string): LanguagePack {
  const lang = EMOTION_LEXICON[language] ? language : 'en';
  let pack = packs.get(lang);
  if (!pack) {
    pack = {
      lexicon: new Lexicon<Emotion>(EMOTION_LEXICON[lang] ?? {}),
      negators: new Set((NEGATORS[lang] ?? '').split(' ')),
      intensifiers: new Set((INTENSIFIERS[lang] ?? '').split(' ')),
    };
    packs.set(lang, pack);
  }
  return pack;
}

// A negator reaches this many words ahead within its clause ("not at all happy").
const NEGATION_SCOPE = 3;
// A negated joy word counts this much towards sadness and the reverse ("not happy" is a little
// sad); other negated emotions simply count nothing, "not afraid" being no anger.
const NEGATION_FLIP = 0.5;
const FLIP: Partial<Record<Emotion, Emotion>> = { joy: 'sadness', sadness: 'joy' };
const INTENSIFIER_BOOST = 1.5;
// Density (weighted emotion words per word) at which a score reaches 1 − 1/e ≈ 0.63.
const DENSITY_SCALE = 0.04;
// Short texts are measured as if they had this many words: one word in a five-word title is
// not a text saturated with emotion.
const MIN_WORDS = 20;

/**
 * Lexicon emotion scores, 0–1 each. Every emotion word adds 1 (1.5 after an intensifier) to
 * its emotions; a negated word adds nothing (joy and sadness flip at half weight). The sum per
 * emotion is divided by the word count (at least 20) and mapped by 1 − exp(−density / 0.04),
 * so scores are comparable across snippet lengths and deterministic for a given text.
 */
export function scoreEmotions(text: string, language = 'en'): EmotionScores {
  const pack = packFor(language);
  const raw = Object.fromEntries(EMOTIONS.map((e) => [e, 0])) as EmotionScores;
  let wordTotal = 0;
  // German puts "nicht" after the verb: "ich freue mich nicht".
  const trailingNegation = language === 'de';
  for (const clause of fold(text).split(/[.,;:!?()\n"“”«»]+/)) {
    const tokens = clause.match(/[\p{L}\p{N}]+/gu) ?? [];
    wordTotal += tokens.length;
    let negatedUntil = -1;
    tokens.forEach((token, i) => {
      if (pack.negators.has(token)) {
        negatedUntil = i + NEGATION_SCOPE;
        return;
      }
      const emotions = pack.lexicon.lookup(token);
      if (emotions.length === 0) return;
      const weight = pack.intensifiers.has(tokens[i - 1] ?? '') ? INTENSIFIER_BOOST : 1;
      const negated =
        i <= negatedUntil ||
        (trailingNegation && tokens.slice(i + 1, i + 3).some((t) => pack.negators.has(t)));
      for (const e of emotions) {
        if (!negated) {
          raw[e] += weight;
        } else {
          const flipped = FLIP[e];
          if (flipped) raw[flipped] += weight * NEGATION_FLIP;
        }
      }
    });
  }
  const words = Math.max(wordTotal, MIN_WORDS);
  const scores = {} as EmotionScores;
  for (const e of EMOTIONS) scores[e] = round(1 - Math.exp(-raw[e] / words / DENSITY_SCALE), 4);
  return scores;
}

/** The strongest emotion, or null when none reaches `min`. */
export function dominantEmotion(scores: EmotionScores, min = 0.1): Emotion | null {
  let best: Emotion | null = null;
  for (const e of EMOTIONS) if (scores[e] >= min && (!best || scores[e] > scores[best])) best = e;
  return best;
}
