import { threadId } from 'node:worker_threads';
import type { ProcessingSettings } from '@adam/contracts';
import { getWorkerEmbedder } from '../embedding/embedder.worker.js';
import { extractResponse } from '../scraping/extract.js';
import { isFetchError, type FetchErrorCode } from '../scraping/fetch-error.js';
import type { ScrapingRuleLike } from '../scraping/rules.js';
import {
  analyzeText,
  extractEntities,
  rankSentences,
  resolveLanguage,
  type AnalyzeResult,
  type EmbedFn,
} from '../pipeline/index.js';

/**
 * Worker-thread tasks of the engine: the whole text pipeline (segmentation, scoring and
 * embedding) runs here, off the server's event loop, with the thread's loaded embedder.
 */

export interface AnalyzeTask {
  dataDir: string;
  text: string;
  language: string;
  settings: ProcessingSettings;
  /** See AnalyzeOptions.entities. */
  entities?: boolean;
}

const embedFns = new Map<string, EmbedFn>();

/**
 * The thread's embed function for a data dir: always the same one, since the theme prototypes
 * are cached per embed function (a new closure per task re-embedded them for every page).
 */
function embedFn(dataDir: string): EmbedFn {
  let fn = embedFns.get(dataDir);
  if (!fn) {
    const embedder = getWorkerEmbedder(dataDir);
    fn = async (texts) => texts.map((t) => embedder.embedOne(t));
    embedFns.set(dataDir, fn);
  }
  return fn;
}

export async function analyze(task: AnalyzeTask): Promise<AnalyzeResult> {
  return analyzeText(task.text, {
    language: task.language,
    settings: task.settings,
    embed: embedFn(task.dataDir),
    entities: task.entities ?? true,
  });
}

export interface WarmTask {
  dataDir: string;
}

/**
 * Loads this thread's model and runs the pipeline once on a short text, so the first real task
 * pays for neither (module loading, compromise's lexicon, the JIT). Answers the thread's id.
 */
export function warm(task: WarmTask): number {
  getWorkerEmbedder(task.dataDir).embedOne('warm up');
  extractEntities('Marie Curie was born in Warsaw on 7 November 1867.', 'en');
  resolveLanguage('auto', 'A short sentence in English, to load the language profiles.');
  return threadId;
}

export interface RankTask {
  dataDir: string;
  context: string;
  question: string;
  language: string;
  topK: number;
}

export interface RankResult {
  language: string;
  answers: { sentence: string; score: number }[];
  entities: { text: string; label: string }[];
}

export async function rank(task: RankTask): Promise<RankResult> {
  const language = resolveLanguage(task.language, task.context).code;
  const lang = language === 'und' ? 'en' : language;
  const answers = await rankSentences(task.context, task.question, {
    language: lang,
    topK: task.topK,
    embed: embedFn(task.dataDir),
  });
  return { language, answers, entities: extractEntities(task.context, lang) };
}

export interface ExtractTask {
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
