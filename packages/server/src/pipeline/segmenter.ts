import type { ProcessingSettings } from '@adam/contracts';
import { type DetectedLanguage, detectLanguage } from './language.js';
import { checkSegment, checkSnippet, scoreQuality, type QualityResult } from './quality.js';
import { joinShortSections, splitSections, type TextSection } from './sections.js';
import { splitParagraphs, splitSentences } from './sentences.js';
import {
  countTokens,
  cutAtWordBoundaries,
  dot,
  embedBatched,
  type EmbedFn,
  wordCount,
} from './text.js';

export type SegmentationMethod = 'semantic' | 'regex' | 'fallback';

export interface Diagnostic {
  /** First 120 characters of the candidate. */
  snippet: string;
  /** Its quality score. */
  score: number;
  status: 'accepted' | 'rejected';
  reason: string;
}

export interface SegmentationStats {
  method: SegmentationMethod;
  counts: { before: number; after: number };
}

/** A candidate segment: `text` is what would be stored, `overlap` + ' ' + body. */
export interface Candidate {
  text: string;
  /** Whole sentences from right before the segment carried into it ('' for none). */
  overlap: string;
  /** The segment's own sentences (pieces of over-long sentences count as sentences). */
  sentences: string[];
  /** The heading path of the section it is in (pipeline/sections.ts), null before any heading. */
  section?: string | null;
}

interface AssessedCandidate extends Candidate {
  quality: QualityResult;
  accepted: boolean;
  reason: string;
}

interface SegmentationResult {
  method: SegmentationMethod;
  fallback_reason: string | null;
  candidates: AssessedCandidate[];
  accepted: AssessedCandidate[];
  diagnostics: Diagnostic[];
  segmentation_stats: SegmentationStats;
}

interface SegmentOptions {
  /** ISO 639-1 code of the document, or 'und'. */
  language: string;
  settings: ProcessingSettings;
  embed: EmbedFn;
  /** The detector's answer for the whole text, when the caller has it (detected otherwise). */
  detected?: DetectedLanguage;
}

/** SegmentOptions once the text's language is detected. */
interface Assessing extends SegmentOptions {
  detected: DetectedLanguage;
}

/**
 * Cuts text into scored candidate segments. Order of methods: semantic (when
 * smart_segmentation), then regex, then fixed windows; the next one runs when the previous
 * threw or had no accepted segment, and fallback_reason says why.
 */
export async function segmentText(
  text: string,
  options: SegmentOptions,
): Promise<SegmentationResult> {
  // Once for the whole text: per candidate it cost more than the rest of the scoring.
  const opts: Assessing = { ...options, detected: options.detected ?? detectLanguage(text) };
  const { settings } = opts;
  // A snippet never spans two sections: each is cut on its own, overlap included.
  const sections = joinShortSections(
    splitSections(text),
    options.settings.segment_min_length,
    options.settings.segment_min_words,
  );
  const reasons: string[] = [];
  if (settings.smart_segmentation) {
    try {
      const candidates: Candidate[] = [];
      for (const s of sections) {
        for (const c of await semanticCandidates(s.text, opts)) candidates.push(inSection(c, s));
      }
      const assessed = assessAll(candidates, opts);
      if (assessed.some((c) => c.accepted)) return result('semantic', null, assessed);
      reasons.push(`semantic segmentation produced no accepted segment${rejectedNote(assessed)}`);
    } catch (err) {
      reasons.push(`semantic segmentation failed: ${err instanceof Error ? err.message : err}`);
    }
  }
  const regex = assessAll(
    sections.flatMap((s) =>
      regexCandidates(s.text, opts.language, settings).map((c) => inSection(c, s)),
    ),
    opts,
  );
  if (regex.some((c) => c.accepted)) {
    return result('regex', reasons.length ? reasons.join('; ') : null, regex);
  }
  reasons.push(`regex segmentation produced no accepted segment${rejectedNote(regex)}`);
  const windows = assessAll(
    sections.flatMap((s) =>
      fallbackCandidates(s.text, opts.language, settings).map((c) => inSection(c, s)),
    ),
    opts,
  );
  return result('fallback', reasons.join('; '), windows);
}

function inSection(c: Candidate, s: TextSection): Candidate {
  return { ...c, section: s.section };
}

function rejectedNote(assessed: AssessedCandidate[]): string {
  const n = assessed.length;
  return n ? ` (${n} candidate${n === 1 ? '' : 's'} rejected)` : ' (no candidate)';
}

function result(
  method: SegmentationMethod,
  fallback_reason: string | null,
  candidates: AssessedCandidate[],
): SegmentationResult {
  const accepted = candidates.filter((c) => c.accepted);
  return {
    method,
    fallback_reason,
    candidates,
    accepted,
    diagnostics: candidates.map((c) => ({
      snippet: c.text.slice(0, 120),
      score: c.quality.score,
      status: c.accepted ? 'accepted' : 'rejected',
      reason: c.reason,
    })),
    segmentation_stats: { method, counts: { before: candidates.length, after: accepted.length } },
  };
}

function assessAll(candidates: Candidate[], opts: Assessing): AssessedCandidate[] {
  return candidates.map((c) => assess(c, opts));
}

/**
 * Quality is scored on the segment's own sentences: the overlap is context borrowed from the
 * sentences before it. The limits apply to the stored text. The
 * language confidence is the whole text's.
 */
function assess(c: Candidate, opts: Assessing): AssessedCandidate {
  const body = c.sentences.join(' ');
  const { detected } = opts;
  // Text in another language than the one asked for is suspect (a wrong setting, a quote page).
  const mismatch =
    opts.language !== 'und' && detected.code !== 'und' && detected.code !== opts.language;
  const quality = scoreQuality(body, {
    language: opts.language,
    sentences: c.sentences,
    languageConfidence: mismatch ? detected.confidence * 0.5 : detected.confidence,
  });
  let verdict = checkSegment(c.text, quality.score, opts.settings);
  if (verdict.accepted) verdict = checkSnippet(quality.score, opts.settings);
  return { ...c, quality, accepted: verdict.accepted, reason: verdict.reason };
}

// ---------------------------------------------------------------------------------------------
// Limits and units

interface Limits {
  maxChars: number;
  maxTokens: number;
  maxSentences: number;
  minChars: number;
  minWords: number;
  overlap: number;
}

/**
 * The overlap is capped at half of segment_max_length so every segment holds at least as
 * much new text as borrowed text.
 */
function limitsOf(s: ProcessingSettings): Limits {
  return {
    maxChars: s.segment_max_length,
    maxTokens: s.segment_max_tokens,
    maxSentences: s.segment_max_sentences,
    minChars: s.segment_min_length,
    minWords: s.segment_min_words,
    overlap: Math.min(s.segment_overlap, Math.floor(s.segment_max_length / 2)),
  };
}

interface Unit {
  text: string;
  paragraph: number;
  /** Its paragraph is a list or menu: mostly lines without end punctuation. */
  listLike: boolean;
  /** A whole sentence, not a piece of one longer than the limits: only these may be overlap. */
  whole: boolean;
  chars: number;
  tokens: number;
  words: number;
}

/**
 * Sentences of every paragraph; only a sentence longer than the segment limits is cut, at word
 * boundaries (its pieces are not whole sentences).
 */
function unitsOf(text: string, language: string, limits: Limits): Unit[] {
  const units: Unit[] = [];
  splitParagraphs(text).forEach((p, paragraph) => {
    const sentences = splitSentences(p, language);
    const open = sentences.filter((s) => !/[.!?…。！？]["”’'»)\]]*$/u.test(s)).length;
    const listLike = sentences.length >= 2 && open > sentences.length / 2;
    for (const sentence of sentences) pushSentence(units, sentence, paragraph, listLike, limits);
  });
  return units;
}

function pushSentence(
  units: Unit[],
  sentence: string,
  paragraph: number,
  listLike: boolean,
  limits: Limits,
): void {
  const pieces = cutAtWordBoundaries(sentence, limits.maxChars, limits.maxTokens);
  const whole = pieces.length === 1;
  for (const piece of pieces) units.push(unit(piece, paragraph, listLike, whole));
}

function unit(text: string, paragraph: number, listLike: boolean, whole: boolean): Unit {
  return {
    text,
    paragraph,
    listLike,
    whole,
    chars: text.length,
    tokens: countTokens(text),
    words: wordCount(text),
  };
}

/**
 * The sentences that may be carried into a segment starting at unit i, nearest first: whole
 * sentences right before it whose joined length stays within the overlap budget. A sentence
 * that does not fit ends the run (no sentence fits: no overlap), and so does a piece of an
 * over-long sentence. A menu or list paragraph lends nothing to the paragraph after it: its
 * lines would be noise there.
 */
function overlapBefore(units: Unit[], i: number, limits: Limits): Unit[] {
  const out: Unit[] = [];
  if (limits.overlap === 0) return out;
  const paragraph = units[i]?.paragraph;
  let chars = -1;
  for (let k = i - 1; k >= 0; k--) {
    const u = units[k];
    if (!u || !u.whole || (u.listLike && u.paragraph !== paragraph)) break;
    if (chars + 1 + u.chars > limits.overlap) break;
    chars += 1 + u.chars;
    out.push(u);
  }
  return out;
}

/** The stored text: overlap sentences (in text order) then the segment's own sentences. */
function build(overlap: Unit[], body: Unit[]): Candidate {
  const sentences = body.map((u) => u.text);
  const bodyText = sentences.join(' ');
  const ov = overlap
    .map((u) => u.text)
    .reverse()
    .join(' ');
  return { text: ov ? `${ov} ${bodyText}` : bodyText, overlap: ov, sentences };
}

class Spans {
  private readonly chars: number[] = [0];
  private readonly tokens: number[] = [0];
  private readonly words: number[] = [0];
  private readonly lists: number[] = [0];
  /** Each unit's overlap candidates, nearest first (see overlapBefore). */
  private readonly overlaps: Unit[][];

  constructor(
    readonly units: Unit[],
    readonly limits: Limits,
    /** Packing windows: paragraphs, lists and segment_max_sentences do not count. */
    private readonly windows = false,
  ) {
    for (const u of units) {
      this.chars.push((this.chars.at(-1) ?? 0) + u.chars);
      this.tokens.push((this.tokens.at(-1) ?? 0) + u.tokens);
      this.words.push((this.words.at(-1) ?? 0) + u.words);
      this.lists.push((this.lists.at(-1) ?? 0) + (u.listLike ? 1 : 0));
    }
    this.overlaps = units.map((_, i) => overlapBefore(units, i, limits));
  }

  /**
   * The overlap of [i, j): as many of the nearest sentences before i as fit the budget and,
   * with the body, segment_max_length and segment_max_tokens. Whole sentences are dropped
   * from the far end, never cut.
   */
  overlap(i: number, j: number): Unit[] {
    const all = this.overlaps[i] ?? [];
    let chars = this.bodyChars(i, j);
    let tokens = (this.tokens[j] ?? 0) - (this.tokens[i] ?? 0);
    let n = 0;
    for (const u of all) {
      chars += u.chars + 1;
      tokens += u.tokens;
      if (chars > this.limits.maxChars || tokens > this.limits.maxTokens) break;
      n++;
    }
    return n === all.length ? all : all.slice(0, n);
  }

  /** Characters of units [i, j) joined by spaces, without overlap. */
  bodyChars(i: number, j: number): number {
    return (this.chars[j] ?? 0) - (this.chars[i] ?? 0) + (j - i - 1);
  }

  /**
   * Would [i, j) respect the maxima (the overlap gives way to the body)? A single unit always
   * may. A menu or list paragraph is never joined to another paragraph: it would drag noise
   * into good prose.
   */
  fits(i: number, j: number): boolean {
    if (j - i === 1) return true;
    if (!this.windows) {
      if (j - i > this.limits.maxSentences) return false;
      const crosses = this.units[i]?.paragraph !== this.units[j - 1]?.paragraph;
      if (crosses && (this.lists[j] ?? 0) > (this.lists[i] ?? 0)) return false;
    }
    const tokens = (this.tokens[j] ?? 0) - (this.tokens[i] ?? 0);
    return this.bodyChars(i, j) <= this.limits.maxChars && tokens <= this.limits.maxTokens;
  }

  /** Does [i, j) with its overlap reach the minima? */
  viable(i: number, j: number): boolean {
    let chars = this.bodyChars(i, j);
    let words = (this.words[j] ?? 0) - (this.words[i] ?? 0);
    for (const u of this.overlap(i, j)) {
      chars += u.chars + 1;
      words += u.words;
    }
    return chars >= this.limits.minChars && words >= this.limits.minWords;
  }

  build(i: number, j: number): Candidate {
    return build(this.overlap(i, j), this.units.slice(i, j));
  }
}

// ---------------------------------------------------------------------------------------------
// Semantic

// A paragraph break is itself a hint of a topic change: it lowers the similarity across it.
const PARAGRAPH_PENALTY = 0.05;
// Keeping a topic change inside a segment costs this many times its depth below θ, more than
// the extra cut that avoids it usually costs: a forced cut goes to the topic change.
const DIP_WEIGHT = 4;
// A segment below segment_min_length / segment_min_words costs more than any cut can gain, so
// short fragments are attached to a neighbour whenever the maxima allow.
const SHORT_PENALTY = 3;

/**
 * Groups adjacent sentences by embedding similarity. The similarity across each gap compares
 * the two sentences before it with the two after it. Cut points are chosen by dynamic
 * programming over all segmentations that respect the maxima. With θ = mean − 1 std of the gap
 * similarities, a cut costs max(0, sim − θ) and a gap left inside a segment costs
 * DIP_WEIGHT × max(0, θ − sim): segments split at clear dips (topic changes), and when the
 * limits force more cuts they go to the least similar gaps.
 */
async function semanticCandidates(text: string, opts: SegmentOptions): Promise<Candidate[]> {
  const limits = limitsOf(opts.settings);
  const units = unitsOf(text, opts.language, limits);
  if (units.length === 0) return [];
  const vectors = await embedBatched(
    opts.embed,
    units.map((u) => u.text),
    opts.settings.embedding_batch_size,
  );
  vectors.forEach((v, k) => {
    if (!v || !v.every(Number.isFinite)) throw new Error(`embed returned no usable vector (#${k})`);
  });
  const sims = gapSimilarities(vectors);
  units.forEach((u, k) => {
    if (k + 1 < units.length && u.paragraph !== units[k + 1]?.paragraph) {
      sims[k] = (sims[k] ?? 0) - PARAGRAPH_PENALTY;
    }
  });
  const theta = cutThreshold(sims);
  const spans = new Spans(units, limits);
  const n = units.length;
  // dips[k] = Σ over gaps < k of the depth below θ, so a span's inner dips cost O(1).
  const dips: number[] = [0];
  sims.forEach((s, k) => dips.push((dips[k] ?? 0) + Math.max(0, theta - s)));
  const best: number[] = [0];
  const from: number[] = [0];
  for (let j = 1; j <= n; j++) {
    best[j] = Infinity;
    from[j] = j - 1;
    for (let i = j - 1; i >= 0; i--) {
      if (!spans.fits(i, j)) {
        // Longer spans only grow (give or take the overlap): stop once the body alone is over.
        if (spans.bodyChars(i, j) > limits.maxChars || j - i > limits.maxSentences) break;
        continue;
      }
      const cut = j < n ? Math.max(0, (sims[j - 1] ?? 0) - theta) : 0;
      const inner = DIP_WEIGHT * ((dips[j - 1] ?? 0) - (dips[i] ?? 0));
      const short = spans.viable(i, j) ? 0 : SHORT_PENALTY;
      const cost = (best[i] ?? Infinity) + short + inner + cut;
      if (cost < (best[j] ?? Infinity)) {
        best[j] = cost;
        from[j] = i;
      }
    }
  }
  const bounds: [number, number][] = [];
  for (let j = n; j > 0; j = from[j] ?? 0) bounds.unshift([from[j] ?? 0, j]);
  return bounds.map(([i, j]) => spans.build(i, j));
}

// Sentences on each side of a gap that are compared (TextTiling's blocks): one sentence is a
// thin sample of a topic, and a single odd sentence should not look like a topic change.
const BLOCK = 2;

/** Similarity across each gap k (between units k and k+1): block before vs block after. */
function gapSimilarities(vectors: Float32Array[]): number[] {
  const sims: number[] = [];
  for (let k = 0; k + 1 < vectors.length; k++) {
    const left = centroid(vectors.slice(Math.max(0, k + 1 - BLOCK), k + 1));
    const right = centroid(vectors.slice(k + 1, k + 1 + BLOCK));
    sims.push(dot(left, right));
  }
  return sims;
}

/** Normalised mean of unit vectors. */
function centroid(vs: Float32Array[]): Float32Array {
  const dim = vs[0]?.length ?? 0;
  const m = new Float32Array(dim);
  for (const v of vs) for (let i = 0; i < dim; i++) m[i] = (m[i] ?? 0) + (v[i] ?? 0);
  let norm = 0;
  for (const x of m) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < dim; i++) m[i] = (m[i] ?? 0) / norm;
  return m;
}

export function cutThreshold(sims: number[]): number {
  if (sims.length === 0) return 0;
  const mean = sims.reduce((a, b) => a + b, 0) / sims.length;
  const std = Math.sqrt(sims.reduce((a, b) => a + (b - mean) ** 2, 0) / sims.length);
  // Too few pairs, or all alike: no topic signal, every cut costs and only the limits cut.
  if (sims.length < 3 || std < 0.02) return Math.min(...sims) - 0.01;
  return mean - std;
}

// ---------------------------------------------------------------------------------------------
// Regex and fixed windows

/**
 * Paragraph and sentence rules: paragraphs (blank lines) start a new segment once the current
 * one reaches the minima; sentences are packed greedily under the maxima.
 */
export function regexCandidates(
  text: string,
  language: string,
  settings: ProcessingSettings,
): Candidate[] {
  const limits = limitsOf(settings);
  const units = unitsOf(text, language, limits);
  const spans = new Spans(units, limits);
  const out: Candidate[] = [];
  let start = 0;
  for (let j = 1; j < units.length; j++) {
    const newParagraph = units[j]?.paragraph !== units[j - 1]?.paragraph;
    if ((newParagraph && spans.viable(start, j)) || !spans.fits(start, j + 1)) {
      out.push(spans.build(start, j));
      start = j;
    }
  }
  if (units.length > start) out.push(spans.build(start, units.length));
  return out;
}

/**
 * Last resort: windows of up to segment_max_length characters (overlap included) packed with
 * whole sentences, whatever the paragraphs, lists and segment_max_sentences; a sentence longer
 * than the limits is cut at word boundaries.
 */
export function fallbackCandidates(
  text: string,
  language: string,
  settings: ProcessingSettings,
): Candidate[] {
  const limits = limitsOf(settings);
  const units: Unit[] = [];
  for (const sentence of splitSentences(text, language)) {
    pushSentence(units, sentence, 0, false, limits);
  }
  const spans = new Spans(units, limits, true);
  const out: Candidate[] = [];
  let start = 0;
  for (let j = 1; j < units.length; j++) {
    if (!spans.fits(start, j + 1)) {
      out.push(spans.build(start, j));
      start = j;
    }
  }
  if (units.length > start) out.push(spans.build(start, units.length));
  return out;
}
