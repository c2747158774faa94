import type { ProcessingSettings } from '@adam/contracts';
import { detectLanguage } from './language.js';
import { splitSentences } from './sentences.js';
import { round } from '../lib/round.js';
import { clamp01, fold, wordCount, words } from './text.js';

/** Each part is 0–1. All are "higher is better" except noise, which is a penalty. */
export interface QualityDetail {
  /** Enough words to stand alone: 0 at 5 words, 1 from 40. */
  length: number;
  /** Moving-average type/token ratio (25-word window), mapped from 0.3–0.7 to 0–1. */
  lexical_diversity: number;
  /** Share of sentences with a capital start, end punctuation and at least three words. */
  sentence_completeness: number;
  /** Mean sentence length: 1 for 8–35 words, less for fragments and run-ons. */
  sentence_length: number;
  /** How sure the language detector is about the text. */
  language_confidence: number;
  /** Boilerplate: URLs, cookie/menu phrases, repeated punctuation, ALL CAPS, digits, symbols. */
  noise: number;
}

export interface QualityResult {
  score: number;
  detailed: QualityDetail;
}

/**
 * Weights of the positive parts (they sum to 1). The weighted sum is then multiplied by
 * (1 − noise): a cookie banner in perfect sentences is still a cookie banner, which a merely
 * additive noise term would let through.
 */
export const QUALITY_WEIGHTS = {
  length: 0.15,
  lexical_diversity: 0.2,
  sentence_completeness: 0.3,
  sentence_length: 0.15,
  language_confidence: 0.2,
} as const;

interface QualityOptions {
  language?: string;
  /** Known detector confidence for this text; detected when left out. */
  languageConfidence?: number;
  /** The text's sentences when the caller already has them. */
  sentences?: string[];
}

export function scoreQuality(text: string, opts: QualityOptions = {}): QualityResult {
  const language = opts.language ?? 'en';
  const sentences = opts.sentences ?? splitSentences(text, language);
  const wc = wordCount(text);
  const detailed: QualityDetail = {
    length: clamp01((wc - 5) / 35),
    lexical_diversity: lexicalDiversity(text),
    sentence_completeness: sentenceCompleteness(sentences),
    sentence_length: sentenceLengthScore(sentences),
    language_confidence: clamp01(opts.languageConfidence ?? detectLanguage(text).confidence),
    noise: noiseLevel(text),
  };
  let base = 0;
  for (const [key, w] of Object.entries(QUALITY_WEIGHTS)) {
    base += w * detailed[key as keyof typeof QUALITY_WEIGHTS];
  }
  const score = clamp01(base * (1 - detailed.noise));
  for (const key of Object.keys(detailed) as (keyof QualityDetail)[]) {
    detailed[key] = round(detailed[key], 3);
  }
  return { score: round(score, 3), detailed };
}

const MATTR_WINDOW = 25;

function lexicalDiversity(text: string): number {
  const tokens = words(text)
    .filter((w) => /\p{L}/u.test(w))
    .map(fold);
  if (tokens.length === 0) return 0;
  let ttr: number;
  if (tokens.length <= MATTR_WINDOW) {
    ttr = new Set(tokens).size / tokens.length;
  } else {
    // A moving window keeps the ratio comparable between short and long texts.
    let sum = 0;
    let windows = 0;
    for (let i = 0; i + MATTR_WINDOW <= tokens.length; i++) {
      sum += new Set(tokens.slice(i, i + MATTR_WINDOW)).size / MATTR_WINDOW;
      windows++;
    }
    ttr = sum / windows;
  }
  return clamp01((ttr - 0.3) / 0.4);
}

function sentenceCompleteness(sentences: string[]): number {
  if (sentences.length === 0) return 0;
  let complete = 0;
  for (const s of sentences) {
    const startsWell = /^["“‘'«„¿¡(]?[\p{Lu}\p{N}\p{Lo}]/u.test(s);
    const endsWell = /[.!?…。！？]["”’'»)\]]*$/u.test(s);
    if (startsWell && endsWell && wordCount(s) >= 3) complete++;
  }
  return complete / sentences.length;
}

function sentenceLengthScore(sentences: string[]): number {
  if (sentences.length === 0) return 0;
  const mean = sentences.reduce((n, s) => n + wordCount(s), 0) / sentences.length;
  if (mean < 8) return clamp01((mean - 2) / 6);
  if (mean > 35) return clamp01(1 - (mean - 35) / 40);
  return 1;
}

// Phrases that almost only occur in web page furniture (folded: lower case, no accents).
const BOILERPLATE_PHRASES = `
use cookies|uses cookies|accept cookies|cookie policy|cookie settings|cookie preferences|
click here|privacy policy|terms of use|terms of service|terms and conditions|all rights reserved|
subscribe to|newsletter|sign in|sign up|log in|login|follow us|share this|share on|
skip to content|skip to main|read more|accept all|add to cart|back to top|enable javascript|
powered by|contact us|sitemap|
utilise des cookies|utilisons des cookies|cliquez ici|en savoir plus|politique de confidentialite|
tous droits reserves|mentions legales|conditions generales|abonnez-vous|se connecter|suivez-nous|
lire la suite|retour en haut|
utiliza cookies|usamos cookies|haga clic|haz clic|politica de privacidad|
todos los derechos reservados|aviso legal|suscribete|iniciar sesion|siguenos|leer mas|
volver arriba|
verwendet cookies|cookies verwenden|cookie-einstellungen|hier klicken|klicken sie hier|
datenschutz|impressum|alle rechte vorbehalten|jetzt anmelden|abonnieren|folgen sie uns|
weiterlesen|mehr erfahren|nach oben`
  .split('|')
  .map((p) => p.trim())
  .filter(Boolean);
const BOILERPLATE_RE = BOILERPLATE_PHRASES.map((p) => new RegExp(`(?<![\\p{L}])${p}`, 'u'));

/**
 * 0 (clean) to 1 (all furniture). Contributions add up and saturate: 0.25 per boilerplate
 * phrase, 0.15 per URL or e-mail address, 0.1 per run of repeated punctuation or separator bars,
 * up to 0.5 each for ALL CAPS words, digits and symbols beyond what prose has, up to 0.6 for
 * many short lines (menus).
 */
export function noiseLevel(text: string): number {
  const folded = fold(text);
  let noise = 0;
  noise += 0.25 * BOILERPLATE_RE.filter((re) => re.test(folded)).length;
  noise += 0.15 * countAddresses(text);
  noise += 0.1 * (text.match(/([!?*=_~#>•|-])\1{2,}|\.{4,}|\s[|»>•·]\s/g)?.length ?? 0);

  const ws = words(text).filter((w) => /\p{L}{3,}/u.test(w));
  if (ws.length > 0) {
    const caps = ws.filter((w) => /\p{Lu}/u.test(w) && !/\p{Ll}/u.test(w)).length / ws.length;
    noise += 0.5 * clamp01((caps - 0.1) / 0.4);
  }
  const visible = text.replace(/\s/g, '');
  if (visible.length > 0) {
    const digits = (visible.match(/\p{N}/gu)?.length ?? 0) / visible.length;
    noise += 0.5 * clamp01((digits - 0.15) / 0.35);
    const symbols =
      (visible.match(/[^\p{L}\p{M}\p{N}.,;:!?'’"“”«»()\-–—%/]/gu)?.length ?? 0) / visible.length;
    noise += 0.5 * clamp01((symbols - 0.03) / 0.12);
  }
  const lines = text.split('\n').filter((l) => l.trim());
  if (lines.length >= 3) {
    const short = lines.filter((l) => wordCount(l) <= 3).length / lines.length;
    noise += 0.6 * clamp01((short - 0.2) / 0.6);
  }
  return clamp01(noise);
}

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);
const isWord = (c: string | undefined) => c !== undefined && /\w/.test(c);

/**
 * How many matches /\bhttps?:\/\/\S+|\bwww\.\S+|\S+@\S+\.\w{2,}/g finds: URLs and e-mail
 * addresses. Scanned by hand because that expression backtracks cubically on a long run of
 * '@' or of word characters (issue 23); same count, one pass per whitespace-free token.
 */
export function countAddresses(text: string): number {
  let count = 0;
  let start = 0;
  while (start < text.length) {
    if (isSpace(text[start])) {
      start++;
      continue;
    }
    let end = start;
    while (end < text.length && !isSpace(text[end])) end++;
    count += countInToken(text, start, end);
    start = end;
  }
  return count;
}

/** Matches inside text[start, end), a run without white space (no match can cross one). */
function countInToken(text: string, start: number, end: number): number {
  // '\S+@\S+\.\w{2,}' matches from p when some '@' after p precedes a '.' followed by two
  // word characters; greed takes the last such '.' and the word characters after it.
  let dot = -1;
  for (let k = end - 3; k >= start && dot < 0; k--) {
    if (text[k] === '.' && isWord(text[k + 1]) && isWord(text[k + 2])) dot = k;
  }
  let at = -1;
  for (let j = dot - 2; j >= start && at < 0; j--) if (text[j] === '@') at = j;
  let mailEnd = dot + 3;
  while (isWord(text[mailEnd])) mailEnd++;

  let count = 0;
  let p = start;
  while (p < end) {
    const boundary = p === 0 || !isWord(text[p - 1]);
    if (boundary && (isUrlAt(text, p) || isWwwAt(text, p))) return count + 1;
    if (p < at) {
      count++;
      p = mailEnd;
      continue;
    }
    p++;
  }
  return count;
}

/** 'http://' or 'https://' then at least one character (the caller checked the \b). */
function isUrlAt(text: string, p: number): boolean {
  if (!text.startsWith('http', p)) return false;
  const q = p + (text[p + 4] === 's' ? 5 : 4);
  return text.startsWith('://', q) && q + 3 < text.length && !isSpace(text[q + 3]);
}

function isWwwAt(text: string, p: number): boolean {
  return text.startsWith('www.', p) && p + 4 < text.length && !isSpace(text[p + 4]);
}

interface Acceptance {
  accepted: boolean;
  /** 'accepted' or why not, e.g. 'too short (87 < 150 chars)'. */
  reason: string;
}

/** Segment-level limits: segment_min_length, segment_min_words, segment_quality_threshold. */
export function checkSegment(
  text: string,
  quality: number,
  settings: ProcessingSettings,
): Acceptance {
  const chars = text.length;
  if (chars < settings.segment_min_length) {
    return reject(`too short (${chars} < ${settings.segment_min_length} chars)`);
  }
  if (chars > settings.segment_max_length) {
    return reject(`too long (${chars} > ${settings.segment_max_length} chars)`);
  }
  const wc = wordCount(text);
  if (wc < settings.segment_min_words) {
    return reject(`too few words (${wc} < ${settings.segment_min_words})`);
  }
  if (quality < settings.segment_quality_threshold) {
    return reject(
      `quality ${quality.toFixed(2)} below threshold ${settings.segment_quality_threshold.toFixed(2)}`,
    );
  }
  return { accepted: true, reason: 'accepted' };
}

/** Snippet-level acceptance: min_quality_score, applied to each segment after checkSegment. */
export function checkSnippet(quality: number, settings: ProcessingSettings): Acceptance {
  if (quality < settings.min_quality_score) {
    return reject(
      `quality ${quality.toFixed(2)} below min_quality_score ${settings.min_quality_score.toFixed(2)}`,
    );
  }
  return { accepted: true, reason: 'accepted' };
}

export interface DocumentCheck extends Acceptance {
  char_count: number;
  word_count: number;
}

/** Document-level acceptance of fetched or pasted content: min_content_length, min_word_count. */
export function checkDocument(text: string, settings: ProcessingSettings): DocumentCheck {
  const char_count = text.trim().length;
  const word_count = wordCount(text);
  if (char_count < settings.min_content_length) {
    return {
      ...reject(`content too short (${char_count} < ${settings.min_content_length} chars)`),
      char_count,
      word_count,
    };
  }
  if (word_count < settings.min_word_count) {
    return {
      ...reject(`content has too few words (${word_count} < ${settings.min_word_count})`),
      char_count,
      word_count,
    };
  }
  return { accepted: true, reason: 'accepted', char_count, word_count };
}

function reject(reason: string): Acceptance {
  return { accepted: false, reason };
}
