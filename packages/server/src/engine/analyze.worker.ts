import type { SharedModelBytes } from '../embedding/builtin-model.js';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadId } from 'node:worker_threads';
import { valueSymbol } from 'piscina';
import type { ProcessingSettings } from '@adam/contracts';
import { getWorkerEmbedder, offerModelBytes, packVectors } from '../embedding/embedder.worker.js';
import { awaitAllThreads, type BarrierTask } from '../embedding/every-thread.js';
import { compileRobotsBytes, type CompiledRobots } from '../crawl/robots.js';
import { parseSitemapBytes, type ParsedSitemap } from '../crawl/sitemap.js';
import { extractResponse } from '../scraping/extract.js';
import { isFetchError, type FetchErrorCode } from '../scraping/fetch-error.js';
import type { ScrapingRuleLike } from '../scraping/rules.js';
import type { EmbeddingSpace } from './engine.js';
import { markStarted, type TimedTask } from './task-deadline.js';
import type { DocumentSection, SectionsAnalysis } from '../documents/document-task.js';
import { joinSections, placeSegments } from '../documents/section-places.js';
import {
  analyzeText,
  documentEntities,
  extractEntities,
  rankSentences,
  resolveLanguage,
  type AnalyzeResult,
  type EmbedFn,
  type NerFn,
} from '../pipeline/index.js';

/**
 * Worker-thread tasks of the engine: the whole text pipeline (segmentation, scoring and
 * embedding) runs here, off the server's event loop, with the thread's loaded embedder.
 */

export interface AnalyzeTask extends TimedTask {
  dataDir: string;
  /** The space to embed in: the engine's current one when the task was sent. */
  space: EmbeddingSpace;
  text: string;
  language: string;
  settings: ProcessingSettings;
  /** See AnalyzeOptions.entities. */
  entities?: boolean;
  /** Installed language packs: their NER model's directory by language. */
  packs?: Readonly<Record<string, string>>;
  /** See AnalyzeOptions.known: segment keys whose embedding is skipped (a sync). */
  known?: string[];
}

const embedFns = new Map<string, EmbedFn>();

type OnnxRuntime = typeof import('../embedding/onnx-runtime.js');
/** The ONNX runtime, loaded on first use: a thread that never meets a model never loads it. */
let onnx: Promise<OnnxRuntime> | null = null;

/**
 * Compiled, a dynamic import. From the sources (tests, tsx), the pool's threads run this module
 * through tsx's require hook, and their dynamic imports miss tsx's loader: require it there.
 */
function loadOnnxRuntime(): Promise<OnnxRuntime> {
  const source = import.meta.url.endsWith('.ts');
  const file = new URL(`../embedding/onnx-runtime${source ? '.ts' : '.js'}`, import.meta.url);
  if (source)
    return Promise.resolve(createRequire(import.meta.url)(fileURLToPath(file)) as OnnxRuntime);
  return import(file.href) as Promise<OnnxRuntime>;
}

async function embedOnnx(dir: string, texts: string[]): Promise<EmbedSpaceResult> {
  onnx ??= loadOnnxRuntime();
  // The runtime takes a directory under a root: the model's own parent is that root.
  const answer = await (
    await onnx
  ).embed({ modelsRoot: path.dirname(dir), dir: path.basename(dir), texts });
  // Its answer is wrapped for piscina to transfer: the value is inside.
  const { packed, dimension } = ((answer as unknown as Record<symbol, unknown>)[valueSymbol] ??
    answer) as EmbedSpaceResult;
  return { packed, dimension };
}

export interface RerankTask extends TimedTask {
  /** The reranker model's absolute directory. */
  dir: string;
  query: string;
  texts: string[];
}

/** One score per (query, text) pair from a reranker (cross-encoder) model. */
export async function rerankPairs(task: RerankTask): Promise<number[]> {
  markStarted(task);
  onnx ??= loadOnnxRuntime();
  return (await onnx).rerank({
    modelsRoot: path.dirname(task.dir),
    dir: path.basename(task.dir),
    query: task.query,
    texts: task.texts,
  });
}

/**
 * Frees the ONNX models this thread loaded (one task of a broadcast: every thread runs it);
 * they load again on their next use. Answers their directories.
 */
export async function unloadOnnx(task: BarrierTask): Promise<string[]> {
  awaitAllThreads(task);
  // A thread that never met a model has not loaded the runtime: nothing to free.
  if (onnx === null) return [];
  return (await onnx).unloadAll();
}

/** Entity recognition with the language packs' models, for the languages that have one. */
function nerFn(packs: Readonly<Record<string, string>> | undefined): NerFn | undefined {
  if (!packs || Object.keys(packs).length === 0) return undefined;
  return async (text, language) => {
    const dir = packs[language];
    if (!dir) return null;
    onnx ??= loadOnnxRuntime();
    const found = await (
      await onnx
    ).tokenClassify({ modelsRoot: path.dirname(dir), dir: path.basename(dir), text });
    return found.map((e) => ({ text: e.text, label: e.label }));
  };
}

/**
 * The thread's embed function for a data dir and a space: always the same one, since the theme
 * prototypes are cached per embed function (a new closure per task re-embedded them for every
 * page).
 */
function embedFn(dataDir: string, space: EmbeddingSpace): EmbedFn {
  const key = `${dataDir}\0${space.id}`;
  let fn = embedFns.get(key);
  if (!fn) {
    if (space.model) {
      const dir = space.model.dir;
      fn = async (texts) => {
        if (texts.length === 0) return [];
        const { packed, dimension } = await embedOnnx(dir, texts);
        return texts.map((_, i) => packed.slice(i * dimension, (i + 1) * dimension));
      };
    } else {
      const embedder = getWorkerEmbedder(dataDir);
      fn = async (texts) => texts.map((t) => embedder.embedOne(t));
    }
    embedFns.set(key, fn);
  }
  return fn;
}

/** The analysis says which space embedded it: the server stores that, not its current one. */
export async function analyze(task: AnalyzeTask): Promise<AnalyzeResult> {
  markStarted(task);
  const result = await analyzeText(task.text, {
    language: task.language,
    settings: task.settings,
    embed: embedFn(task.dataDir, task.space),
    entities: task.entities ?? true,
    ner: nerFn(task.packs),
    ...(task.known && { known: new Set(task.known) }),
  });
  return { ...result, embedder_id: task.space.id };
}

export interface EmbedSpaceTask extends TimedTask {
  dataDir: string;
  space: EmbeddingSpace;
  texts: string[];
}

export interface EmbedSpaceResult {
  dimension: number;
  /** The vectors back to back (texts.length × dimension). */
  packed: Float32Array;
}

/** Embeds in a given space, the built-in one or an installed ONNX model's. */
export async function embedSpace(task: EmbedSpaceTask): Promise<EmbedSpaceResult> {
  markStarted(task);
  if (task.space.model) return embedOnnx(task.space.model.dir, task.texts);
  const embedder = getWorkerEmbedder(task.dataDir);
  return {
    dimension: embedder.dimension,
    packed: packVectors(
      task.texts.map((t) => embedder.embedOne(t)),
      embedder.dimension,
    ),
  };
}

export interface WarmTask {
  dataDir: string;
  space: EmbeddingSpace;
  /** The built-in model's bytes as the pool loaded them: this thread maps them, no read. */
  sharedBytes?: SharedModelBytes;
}

/**
 * Loads this thread's models (the built-in one, which short queries and a switch back need, and
 * the current space's) and runs the pipeline once on a short text, so the first real task pays
 * for none of it (module loading, compromise's lexicon, the JIT). Answers the thread's id.
 */
export async function warm(task: WarmTask): Promise<number> {
  offerModelBytes(task.sharedBytes);
  getWorkerEmbedder(task.dataDir).embedOne('warm up');
  if (task.space.model) await embedFn(task.dataDir, task.space)(['warm up']);
  extractEntities('Marie Curie was born in Warsaw on 7 November 1867.', 'en');
  resolveLanguage('auto', 'A short sentence in English, to load the language profiles.');
  return threadId;
}

export interface RankTask extends TimedTask {
  dataDir: string;
  space: EmbeddingSpace;
  context: string;
  question: string;
  language: string;
  topK: number;
  packs?: Readonly<Record<string, string>>;
}

export interface RankResult {
  language: string;
  answers: { sentence: string; score: number }[];
  entities: { text: string; label: string }[];
}

export async function rank(task: RankTask): Promise<RankResult> {
  markStarted(task);
  const language = resolveLanguage(task.language, task.context).code;
  const lang = language === 'und' ? 'en' : language;
  const answers = await rankSentences(task.context, task.question, {
    language: lang,
    topK: task.topK,
    embed: embedFn(task.dataDir, task.space),
  });
  const entities = await documentEntities(task.context, lang, nerFn(task.packs));
  return { language, answers, entities };
}

export interface ExtractTask extends TimedTask {
  url: string;
  status: number;
  contentType: string;
  body: Uint8Array;
  rule: ScrapingRuleLike | null;
}

export type ExtractTaskResult =
  | { ok: true; result: ReturnType<typeof extractResponse> }
  | { ok: false; code: FetchErrorCode; message: string; url: string | undefined };

/** Readability extraction of a fetched page (a FetchError travels back as data, keeping its code). */
export function extract(task: ExtractTask): ExtractTaskResult {
  markStarted(task);
  const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
  try {
    const result = extractResponse(
      {
        url: task.url,
        status: task.status,
        contentType: task.contentType,
        body,
        headers: {},
        redirects: [],
      },
      task.rule,
    );
    return { ok: true, result };
  } catch (e) {
    if (isFetchError(e)) return { ok: false, code: e.code, message: e.message, url: e.url };
    throw e;
  }
}

export interface SitemapTask extends TimedTask {
  url: string;
  contentType: string;
  /** The URL or the response said gzip (`.xml.gz`); the magic number is checked as well. */
  gz: boolean;
  body: Uint8Array;
}

export type SitemapTaskResult =
  | { ok: true; result: ParsedSitemap }
  | { ok: false; code: FetchErrorCode; message: string; url: string | undefined };

/** A fetched sitemap parsed (inflated first when gzip; a FetchError travels back as data). */
export function sitemap(task: SitemapTask): SitemapTaskResult {
  markStarted(task);
  try {
    const result = parseSitemapBytes(task.body, {
      url: task.url,
      contentType: task.contentType,
      gz: task.gz,
    });
    return { ok: true, result };
  } catch (e) {
    if (isFetchError(e)) return { ok: false, code: e.code, message: e.message, url: e.url };
    throw e;
  }
}

export interface RobotsTask extends TimedTask {
  /** The answer's first bytes: one past ROBOTS_MAX_BYTES at most (that one says it was cut). */
  body: Uint8Array;
  userAgent: string;
}

/** A fetched robots.txt read for one user agent; its rules come back as plain data. */
export function robots(task: RobotsTask): CompiledRobots {
  markStarted(task);
  return compileRobotsBytes(task.body, task.userAgent);
}

/** An uploaded document's text: parsed on this thread, under the task budget (documents/). */
export { parseDocumentFile } from '../documents/document-task.js';

export interface AnalyzeSectionsTask extends Omit<AnalyzeTask, 'text'> {
  sections: DocumentSection[];
}

/** A document's sections analysed as one text, each segment placed back in its section. */
export async function analyzeSections(task: AnalyzeSectionsTask): Promise<SectionsAnalysis> {
  const { sections, ...rest } = task;
  const analysis = await analyze({ ...rest, text: joinSections(sections) });
  return { analysis, places: placeSegments(sections, analysis) };
}
