import type { ProcessingSettings } from '@adam/contracts';
import { scoreEmotions, type EmotionScores } from './emotions.js';
import { documentEntities, entitiesWithin, type Entity, type NerFn } from './entities.js';
import { type DetectedLanguage, detectLanguage, resolveLanguage } from './language.js';
import { checkDocument, type DocumentCheck, type QualityDetail } from './quality.js';
import {
  type Diagnostic,
  segmentText,
  type SegmentationMethod,
  type SegmentationStats,
} from './segmenter.js';
import { segmentKey } from './segment-key.js';
import { splitSentences } from './sentences.js';
import { classifyTheme, type Theme, type ThemeScores, themePrototypes } from './themes.js';
import {
  clamp01,
  dot,
  embedBatched,
  type EmbedFn,
  fold,
  matchTokens,
  STOPWORDS,
  wordCount,
} from './text.js';
import { round } from '../lib/round.js';

interface AnalyzeOptions {
  /** 'auto' to detect, or an ISO 639-1 code. */
  language: string;
  settings: ProcessingSettings;
  /** Returns one L2-normalised vector per text. */
  embed: EmbedFn;
  /**
   * false leaves every segment's entities empty: the ingestion bench's reference, "the text
   * pipeline without entities". Default true.
   */
  entities?: boolean;
  /** The language packs' entity recognition (absent: the built-in rules for every language). */
  ner?: NerFn;
  /**
   * segmentKey()s of segments already stored with their vectors (a sync of a changed page):
   * such a segment is neither embedded nor classified again, and comes back with an empty vector.
   */
  known?: ReadonlySet<string>;
}

export interface AnalyzedSegment {
  text: string;
  /** The heading path of its section (pipeline/sections.ts), null before any heading. */
  section: string | null;
  quality_score: number;
  quality_score_detailed: QualityDetail;
  theme: Theme;
  theme_scores: ThemeScores;
  emotions: EmotionScores;
  entities: Entity[];
  word_count: number;
  sentence_count: number;
  /** Embedding of `text`, to be indexed as is. */
  vector: Float32Array;
}

export interface AnalyzeResult {
  language: DetectedLanguage;
  /** Document-level check (min_content_length, min_word_count); no segments when it fails. */
  document: DocumentCheck;
  segments: AnalyzedSegment[];
  method: SegmentationMethod;
  fallback_reason: string | null;
  diagnostics: Diagnostic[];
  segmentation_stats: SegmentationStats;
  /**
   * The vector space the segments' vectors are in, set by the engine's worker (a bare
   * analyzeText leaves it out): ingestion stores it with each row.
   */
  embedder_id?: string;
}

/**
 * The whole text pipeline for one document: language, document check, segmentation with
 * quality diagnostics, then for each accepted segment its embedding (one batched pass), theme,
 * emotions and entities. Language detection and entity recognition run once on the document
 * (they cost most when run per piece); each segment takes the document's entities it holds.
 * Pure: same text, settings and embedder give the same result.
 */
export async function analyzeText(text: string, opts: AnalyzeOptions): Promise<AnalyzeResult> {
  const { settings, embed } = opts;
  const clean = text.replaceAll('\u0000', '').trim();
  const language = resolveLanguage(opts.language, clean);
  const document = checkDocument(clean, settings);
  if (!document.accepted) {
    const method: SegmentationMethod = settings.smart_segmentation ? 'semantic' : 'regex';
    return {
      language,
      document,
      segments: [],
      method,
      fallback_reason: null,
      diagnostics: clean
        ? [{ snippet: clean.slice(0, 120), score: 0, status: 'rejected', reason: document.reason }]
        : [],
      segmentation_stats: { method, counts: { before: 0, after: 0 } },
    };
  }

  // An explicit language is certain, but the quality score still wants the detector's view.
  const detected =
    opts.language.trim().toLowerCase() === language.code ? detectLanguage(clean) : language;
  const seg = await segmentText(clean, { language: language.code, settings, embed, detected });
  const texts = seg.accepted.map((c) => c.text);
  const known = opts.known;
  const isKnown = texts.map((t) => (known ? known.has(segmentKey(t)) : false));
  const fresh = texts.filter((_, i) => !isKnown[i]);
  // Prototypes first: cached per embed function, so usually no call at all.
  const prototypes = fresh.length
    ? await themePrototypes(embed, settings.embedding_batch_size)
    : undefined;
  const freshVectors = await embedBatched(embed, fresh, settings.embedding_batch_size);
  let next = 0;
  const vectors = isKnown.map((k) => (k ? new Float32Array(0) : freshVectors[next++]));
  const entities =
    opts.entities === false || texts.length === 0
      ? []
      : await documentEntities(clean, language.code, opts.ner);

  const segments = seg.accepted.map((c, i): AnalyzedSegment => {
    const vector = vectors[i] ?? new Float32Array();
    const theme = classifyTheme(c.text, vector.length ? vector : undefined, prototypes);
    return {
      text: c.text,
      section: c.section ?? null,
      quality_score: c.quality.score,
      quality_score_detailed: c.quality.detailed,
      theme: theme.theme,
      theme_scores: theme.scores,
      emotions: scoreEmotions(c.text, language.code),
      entities: entitiesWithin(entities, c.text),
      word_count: wordCount(c.text),
      sentence_count: c.sentences.length,
      vector,
    };
  });

  return {
    language,
    document,
    segments,
    method: seg.method,
    fallback_reason: seg.fallback_reason,
    diagnostics: seg.diagnostics,
    segmentation_stats: seg.segmentation_stats,
  };
}

interface RankOptions {
  language: string;
  topK: number;
  embed: EmbedFn;
  /** Batch size for the embed calls (default 32). */
  batchSize?: number;
}

interface RankedSentence {
  sentence: string;
  score: number;
}

/**
 * Weight of the embedding cosine in the playground's sentence ranking; word overlap has the
 * rest. Overlap keeps exact names and numbers from the question ranking high even when an
 * embedder blurs them, the cosine catches paraphrases.
 */
const RANK_COSINE_WEIGHT = 0.7;

/**
 * Splits the context into sentences and scores each against the question:
 * 0.7 × max(0, cosine) + 0.3 × share of the question's content words found in the sentence.
 * Top K by score, descending; scores 0–1 rounded to 4 decimals.
 */
export async function rankSentences(
  context: string,
  question: string,
  opts: RankOptions,
): Promise<RankedSentence[]> {
  const language = resolveLanguage(opts.language, context).code;
  const sentences = splitSentences(context, language);
  if (sentences.length === 0 || opts.topK <= 0) return [];
  const [q, ...vs] = await embedBatched(opts.embed, [question, ...sentences], opts.batchSize ?? 32);
  const qWords = contentWords(question);
  const scored = sentences.map((sentence, i) => {
    const cosine = q && vs[i] ? Math.max(0, dot(q, vs[i])) : 0;
    const sWords = contentWords(sentence);
    let shared = 0;
    for (const w of qWords) if (sWords.has(w)) shared++;
    const overlap = qWords.size ? shared / qWords.size : 0;
    const score = clamp01(RANK_COSINE_WEIGHT * cosine + (1 - RANK_COSINE_WEIGHT) * overlap);
    return { sentence, score: round(score, 4), index: i };
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, opts.topK).map(({ sentence, score }) => ({ sentence, score }));
}

/** Folded content words with a light plural strip ("atoms" meets "atom"). */
function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of matchTokens(fold(text))) {
    if (STOPWORDS.has(t) || t.length < 2) continue;
    out.add(t.length > 3 ? t.replace(/s$/, '') : t);
  }
  return out;
}
