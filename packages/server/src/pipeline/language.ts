import { trigramRanker } from './trigram-rank.js';

export interface DetectedLanguage {
  /** ISO 639-1 code, or 'und' when the text is too short or undetectable. */
  code: string;
  /** 0–1; 0 for 'und'. */
  confidence: number;
}

/** ISO 639-3 (franc) → ISO 639-1 for the languages ADAM detects. */
const ISO3_TO_ISO1: Readonly<Record<string, string>> = {
  eng: 'en',
  fra: 'fr',
  spa: 'es',
  deu: 'de',
  ita: 'it',
  por: 'pt',
  nld: 'nl',
  rus: 'ru',
  jpn: 'ja',
  cmn: 'zh',
};

// franc knows ~190 languages; left open it calls short English text Scots or Nigerian Pidgin.
// Restricting it to the languages we map keeps answers stable and meaningful.
export const DETECTED_LANGUAGES = Object.keys(ISO3_TO_ISO1);
const rankLanguages = trigramRanker(DETECTED_LANGUAGES);

/** Below this many letters trigram statistics are noise. */
const MIN_DETECT_LETTERS = 20;
// Confidence reaches its full length factor at this many letters.
const FULL_CONFIDENCE_LETTERS = 120;
// franc normalises by text length, so on a paragraph the runner-up scores 0.85–0.95 of the
// winner even when the answer is clear; a lead of 0.1 counts as certain.
const CERTAIN_LEAD = 0.1;
// Pieces of about this size are voted on separately (see detectLanguage).
const VOTE_CHUNK_CHARS = 200;
const MAX_SAMPLE_CHARS = 2048;

/**
 * Detects the language with franc, restricted to the mapped languages. Confidence is
 * lengthFactor × (½ leadFactor + ½ agreement): the winner's lead over the runner-up (0.1 lead
 * = certain), and the share of ~200-character pieces that vote for the same language (mixed or
 * menu-like text disagrees with itself). Text under 120 letters scales down.
 */
export function detectLanguage(text: string): DetectedLanguage {
  const sample = text.slice(0, MAX_SAMPLE_CHARS);
  const letters = letterWeight(sample);
  if (letters < MIN_DETECT_LETTERS) return { code: 'und', confidence: 0 };
  const best = rank(sample);
  if (!best) return { code: 'und', confidence: 0 };
  const leadFactor = Math.min(1, best.lead / CERTAIN_LEAD);
  const chunks = voteChunks(sample);
  let agreement = leadFactor;
  if (chunks.length > 1) {
    let agree = 0;
    let total = 0;
    for (const c of chunks) {
      total += c.length;
      if (rank(c)?.code === best.code) agree += c.length;
    }
    agreement = total ? agree / total : 0;
  }
  const lengthFactor = Math.min(1, letters / FULL_CONFIDENCE_LETTERS);
  const confidence = lengthFactor * (0.5 * leadFactor + 0.5 * agreement);
  return { code: best.code, confidence: Math.round(confidence * 1000) / 1000 };
}

// A Han or kana character carries about as much as a short word: it counts as three letters.
function letterWeight(text: string): number {
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  const cjk = text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu)?.length ?? 0;
  return letters + 2 * cjk;
}

function rank(text: string): { code: string; lead: number } | undefined {
  const [best, second] = rankLanguages(text);
  const code = best ? ISO3_TO_ISO1[best[0]] : undefined;
  if (!best || !code) return undefined;
  // A script with a single candidate (Cyrillic, kana, Han) has no runner-up: the script decides.
  return { code, lead: second ? best[1] - second[1] : 1 };
}

/** Consecutive word runs of about VOTE_CHUNK_CHARS; pieces too short to judge are dropped. */
function voteChunks(text: string): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const w of text.split(/\s+/)) {
    current = current ? `${current} ${w}` : w;
    if (current.length >= VOTE_CHUNK_CHARS) {
      chunks.push(current);
      current = '';
    }
  }
  if ((current.match(/\p{L}/gu)?.length ?? 0) >= MIN_DETECT_LETTERS * 2) chunks.push(current);
  return chunks;
}

/**
 * The language to work in: an explicit code wins with confidence 1, 'auto' (or empty) detects.
 */
export function resolveLanguage(requested: string, text: string): DetectedLanguage {
  const r = requested.trim().toLowerCase();
  if (r && r !== 'auto') return { code: r, confidence: 1 };
  return detectLanguage(text);
}
