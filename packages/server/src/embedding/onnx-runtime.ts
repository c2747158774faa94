import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import { env, LogLevel, pipeline, Tensor } from '@huggingface/transformers';
import { normalizeInPlace } from './embedder.js';
import {
  encodePairs,
  pairScores,
  RERANK_CHARS_PER_TOKEN,
  RERANK_MAX_TOKENS,
} from './onnx-reranker.js';
import { awaitAllThreads, type BarrierTask } from './every-thread.js';
import { transferring } from './embedder.worker.js';
import { REQUIRED_MODEL_FILES } from './model-files.js';
import { round } from '../lib/round.js';

/**
 * ONNX models through @huggingface/transformers (onnxruntime-node), run inside the worker
 * threads of an OnnxRunner: each exported function is a piscina task, structured-cloneable in
 * and out. Loaded pipelines stay in a per-thread cache keyed by model directory.
 *
 * Models come from local files only: remote loading is off, the library's fetch refuses, and
 * the model id handed to transformers.js is the directory's absolute path, which it never
 * treats as a hub repository. Importing this module has no side effect.
 */

/** The transformers.js task a model runs. */
export type OnnxTask = 'feature-extraction' | 'token-classification' | 'text-classification';
export const ONNX_TASKS: readonly OnnxTask[] = [
  'feature-extraction',
  'token-classification',
  'text-classification',
];

export interface ModelRef {
  /** The models directory (the data directory's models/ folder). */
  modelsRoot: string;
  /** The model's directory, relative to modelsRoot. */
  dir: string;
}

export interface LoadRequest extends ModelRef {
  task: OnnxTask;
}

/** Measured when a model loads (the spec's performance fields). */
export interface LoadMeasurement {
  load_time_ms: number;
  /** Resident memory the load added (RSS difference, the whole process). */
  memory_mb: number;
  /** Texts per second on a small warm-up batch, right after the load. */
  inference_speed: number;
}

export interface LoadResult extends LoadMeasurement {
  threadId: number;
  /** Vector length of a feature-extraction model, as its warm-up returned; null otherwise. */
  dimension: number | null;
}

export interface EmbedRequest extends ModelRef {
  texts: string[];
}

export interface EmbedResult {
  threadId: number;
  dimension: number;
  /** The vectors back to back (texts.length × dimension), transferred, not copied. */
  packed: Float32Array;
}

export interface TextRequest extends ModelRef {
  text: string;
}

export interface RerankRequest extends ModelRef {
  query: string;
  texts: string[];
}

export type OnnxEntityLabel = 'PERSON' | 'ORG' | 'GPE' | 'MISC';

export interface OnnxEntity {
  /** Exactly text.slice(start, end) of the text classified. */
  text: string;
  label: OnnxEntityLabel;
  /** UTF-16 offsets into the text classified. */
  start: number;
  end: number;
  /** Mean probability of the label over the entity's words. */
  score: number;
}

export interface LabelScore {
  label: string;
  score: number;
}

/** The warm-up batch of a load: short sentences, English and French. */
const WARMUP_TEXTS = [
  'Marie Curie lived and worked in Paris.',
  'The river flooded the lower town after a week of rain.',
  'Bees visit linden blossom in early summer.',
  'La gare de Lyon est pleine le vendredi soir.',
  'Prices rose sharply at the end of the year.',
  'He loved the film but hated the ending.',
  'A telescope on the mountain measured the star every night.',
  'Le musée ouvre une nouvelle salle au printemps.',
];

/** Texts per call of the model inside one task: bounds the padded tensors of a big batch. */
const MODEL_BATCH = 32;
/** Token classification reads long texts in windows of at most this many characters. */
const WINDOW_CHARS = 500;
/** A token is looked for at most this far past the previous one (folded characters). */
const MAX_TOKEN_SKIP = 256;

// ---------------------------------------------------------------------------------------------
// Loading

interface TensorLike {
  dims: number[];
  data: Float32Array | BigInt64Array;
  tolist(): unknown[];
}
interface TokenizerLike {
  (texts: string | string[], options: object): Record<string, TensorLike>;
  decode(ids: number[], options: object): string;
  encode(text: string, options: { add_special_tokens: boolean }): number[];
  convert_tokens_to_ids(token: string): number;
  all_special_ids: number[];
  sep_token_id?: number;
  pad_token_id?: number;
  model_max_length: number;
  _tokenizerConfig?: { cls_token?: string | { content?: string } };
}
/** The parts of a transformers.js pipeline used here (its own types are generic per task). */
interface PipelineLike {
  (input: string | string[], options?: object): Promise<unknown>;
  tokenizer: TokenizerLike;
  model: ((inputs: object) => Promise<Record<string, TensorLike>>) & {
    config: { id2label?: Record<string, string>; max_position_embeddings?: number };
  };
  dispose(): Promise<void>;
}

interface Loaded {
  task: OnnxTask;
  pipe: PipelineLike;
  measurement: LoadResult;
}

const loaded = new Map<string, Promise<Loaded>>();

/** Local files only, no cache written, quiet; set before every load (env is per thread). */
function configureEnvironment(modelsRoot: string): void {
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = modelsRoot;
  env.useFSCache = false;
  env.useBrowserCache = false;
  env.logLevel = LogLevel.ERROR;
  // The library's only way out is env.fetch: make it refuse, whatever a later version tries.
  env.fetch = (input: string | URL) =>
    Promise.reject(
      new Error(`ADAM loads models from local files only (asked for ${String(input)})`),
    );
}

/** The model's absolute directory; refuses one outside modelsRoot. */
export function modelDirectory({ modelsRoot, dir }: ModelRef): string {
  const root = path.resolve(modelsRoot);
  const full = path.resolve(root, dir);
  if (full !== root && !full.startsWith(root + path.sep)) {
    throw new Error(`Model directory ${dir} is outside the models directory`);
  }
  return full;
}

/** Missing files and unreadable config.json, said plainly before transformers.js tries. */
function checkModelFiles(full: string, dir: string): void {
  if (!fs.statSync(full, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`Model directory ${dir} not found`);
  }
  const missing = REQUIRED_MODEL_FILES.filter(
    (f) => !fs.statSync(path.join(full, f), { throwIfNoEntry: false })?.isFile(),
  );
  if (missing.length > 0) throw new Error(`Model ${dir} is missing ${missing.join(', ')}`);
  try {
    JSON.parse(fs.readFileSync(path.join(full, 'config.json'), 'utf8'));
  } catch (err) {
    throw new Error(`Model ${dir} has an unreadable config.json: ${(err as Error).message}`);
  }
}

async function loadPipeline(ref: ModelRef, task: OnnxTask): Promise<Loaded> {
  const full = modelDirectory(ref);
  checkModelFiles(full, ref.dir);
  configureEnvironment(ref.modelsRoot);
  const rssBefore = process.memoryUsage.rss();
  const started = performance.now();
  let pipe: PipelineLike;
  try {
    pipe = (await pipeline(task, full, {
      local_files_only: true,
      dtype: 'fp32',
      device: 'cpu',
      // One core per worker thread: the pool's size is the number of cores used.
      session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 },
    })) as unknown as PipelineLike;
  } catch (err) {
    throw new Error(`Could not load model ${ref.dir}: ${(err as Error).message}`);
  }
  const loadMs = performance.now() - started;
  const memoryMb = (process.memoryUsage.rss() - rssBefore) / 2 ** 20;
  const entry: Loaded = {
    task,
    pipe,
    measurement: {
      threadId,
      load_time_ms: round(loadMs, 1),
      memory_mb: round(Math.max(0, memoryMb), 1),
      inference_speed: 0,
      dimension: null,
    },
  };
  try {
    const warm = performance.now();
    const dimension = await warmUp(entry);
    const seconds = (performance.now() - warm) / 1000;
    entry.measurement.inference_speed = round(WARMUP_TEXTS.length / Math.max(seconds, 1e-6), 1);
    entry.measurement.dimension = dimension;
  } catch (err) {
    await pipe.dispose();
    throw new Error(`Model ${ref.dir} loaded but could not run: ${(err as Error).message}`);
  }
  return entry;
}

async function warmUp(entry: Loaded): Promise<number | null> {
  switch (entry.task) {
    case 'feature-extraction':
      return (await runEmbedding(entry.pipe, WARMUP_TEXTS)).dimension;
    case 'token-classification':
      for (const t of WARMUP_TEXTS) await runTokenClassification(entry.pipe, t);
      return null;
    case 'text-classification':
      for (const t of WARMUP_TEXTS) await runTextClassification(entry.pipe, t);
      return null;
  }
}

/** This thread's pipeline for the model, loaded on first use (concurrent callers share it). */
async function getLoaded(ref: ModelRef, task: OnnxTask): Promise<Loaded> {
  const key = modelDirectory(ref);
  let entry = loaded.get(key);
  if (entry !== undefined) {
    const current = await entry.catch(() => undefined);
    if (current !== undefined && current.task === task) return current;
    if (current !== undefined) await disposeEntry(key, current);
    entry = undefined;
  }
  entry = loadPipeline(ref, task);
  loaded.set(key, entry);
  // A failed load is not cached: the next call tries again (files may have been repaired).
  entry.catch(() => {
    if (loaded.get(key) === entry) loaded.delete(key);
  });
  return entry;
}

async function disposeEntry(key: string, entry: Loaded): Promise<void> {
  loaded.delete(key);
  await entry.pipe.dispose();
}

// ---------------------------------------------------------------------------------------------
// Running

async function runEmbedding(
  pipe: PipelineLike,
  texts: readonly string[],
): Promise<{ packed: Float32Array; dimension: number }> {
  let packed = new Float32Array(0);
  let dimension = 0;
  for (let i = 0; i < texts.length; i += MODEL_BATCH) {
    const batch = texts.slice(i, i + MODEL_BATCH);
    const inputs = pipe.tokenizer(batch, { padding: true, truncation: true });
    const out = await pipe.model(inputs);
    const hidden = out.last_hidden_state ?? out.token_embeddings ?? out.logits;
    if (hidden === undefined) throw new Error('the model has no last_hidden_state output');
    const vectors = meanPooled(hidden, inputs.attention_mask!);
    if (i === 0) {
      dimension = hidden.dims[hidden.dims.length - 1]!;
      packed = new Float32Array(texts.length * dimension);
    }
    packed.set(vectors, i * dimension);
  }
  return { packed, dimension };
}

/**
 * Mean of the token vectors over the attention mask, then L2 normalisation: what
 * sentence-transformers does, computed here in one pass (the library's mean_pooling walks the
 * tensor element by element and cost more than the tiny model itself).
 */
function meanPooled(hidden: TensorLike, mask: TensorLike): Float32Array {
  const data = hidden.data as Float32Array;
  if (hidden.dims.length === 2) {
    // Already one vector per text (a model that pools in its graph).
    const out = Float32Array.from(data);
    const d = hidden.dims[1]!;
    for (let b = 0; b < hidden.dims[0]!; b++) normalizeInPlace(out.subarray(b * d, (b + 1) * d));
    return out;
  }
  const [batch, seq, d] = hidden.dims as [number, number, number];
  const m = mask.data;
  const out = new Float32Array(batch * d);
  for (let b = 0; b < batch; b++) {
    const v = out.subarray(b * d, (b + 1) * d);
    let count = 0;
    for (let t = 0; t < seq; t++) {
      if (Number(m[b * seq + t]) === 0) continue;
      count++;
      const row = (b * seq + t) * d;
      for (let k = 0; k < d; k++) v[k]! += data[row + k]!;
    }
    if (count > 0) for (let k = 0; k < d; k++) v[k]! /= count;
    normalizeInPlace(v);
  }
  return out;
}

/**
 * One score per (query, text) pair from a cross-encoder: the pairs laid out by encodePairs
 * (onnx-reranker.ts) with the model's tokenizer, in batches of MODEL_BATCH.
 */
async function runRerank(
  pipe: PipelineLike,
  query: string,
  texts: readonly string[],
): Promise<number[]> {
  const tok = pipe.tokenizer;
  const maxLength = Math.min(
    RERANK_MAX_TOKENS,
    Number.isFinite(tok.model_max_length) ? tok.model_max_length : RERANK_MAX_TOKENS,
    pipe.model.config.max_position_embeddings ?? RERANK_MAX_TOKENS,
  );
  const clsToken = tok._tokenizerConfig?.cls_token;
  const cls = tok.convert_tokens_to_ids(
    typeof clsToken === 'string' ? clsToken : (clsToken?.content ?? '[CLS]'),
  );
  const sep = tok.sep_token_id;
  if (cls === undefined || sep === undefined) {
    throw new Error('the tokenizer has no [CLS] or [SEP] token: not a BERT-style cross-encoder');
  }
  const special = { cls, sep, pad: tok.pad_token_id ?? 0 };
  const maxChars = maxLength * RERANK_CHARS_PER_TOKEN;
  const ids = (t: string) => tok.encode(t.slice(0, maxChars), { add_special_tokens: false });
  const queryIds = ids(query);
  const scores: number[] = [];
  for (let i = 0; i < texts.length; i += MODEL_BATCH) {
    const batch = texts.slice(i, i + MODEL_BATCH).map(ids);
    const pairs = encodePairs(queryIds, batch, special, maxLength);
    const shape = [batch.length, pairs.input_ids[0]!.length];
    const tensor = (rows: number[][]) =>
      new Tensor(
        'int64',
        BigInt64Array.from(rows.flat(), (x) => BigInt(x)),
        shape,
      );
    const { logits } = await pipe.model({
      input_ids: tensor(pairs.input_ids),
      attention_mask: tensor(pairs.attention_mask),
      token_type_ids: tensor(pairs.token_type_ids),
    });
    if (logits === undefined) throw new Error('the model has no logits output');
    scores.push(...pairScores(logits.dims, logits.data as Float32Array));
  }
  return scores;
}

async function runTextClassification(pipe: PipelineLike, text: string): Promise<LabelScore[]> {
  const labels = Object.keys(pipe.model.config.id2label ?? {}).length || 1;
  const out = (await pipe(text, { top_k: labels })) as LabelScore | LabelScore[];
  const list = Array.isArray(out) ? out : [out];
  return list.map((s) => ({ label: s.label, score: s.score }));
}

/** CoNLL tags to the pipeline's entity labels; a tag of another scheme counts as MISC. */
const LABELS: Record<string, OnnxEntityLabel> = {
  PER: 'PERSON',
  PERSON: 'PERSON',
  ORG: 'ORG',
  LOC: 'GPE',
  GPE: 'GPE',
  MISC: 'MISC',
};

interface TokenSpan {
  start: number;
  end: number;
  /** Label (as in id2label) and its probability. */
  label: string;
  score: number;
}

async function runTokenClassification(pipe: PipelineLike, text: string): Promise<OnnxEntity[]> {
  const entities: OnnxEntity[] = [];
  const windows = splitWindows(text, WINDOW_CHARS);
  for (let i = 0; i < windows.length; i += MODEL_BATCH) {
    const batch = windows.slice(i, i + MODEL_BATCH);
    const inputs = pipe.tokenizer(
      batch.map((w) => w.text),
      { padding: true, truncation: true },
    );
    const { logits } = await pipe.model(inputs);
    if (logits === undefined) throw new Error('the model has no logits output');
    const ids = inputs.input_ids!.tolist() as (number | bigint)[][];
    const mask = inputs.attention_mask!.tolist() as (number | bigint)[][];
    batch.forEach((w, b) => {
      const spans = alignTokens(pipe, w.text, ids[b]!, mask[b]!, logits, b);
      for (const e of groupEntities(spans, w.text)) {
        entities.push({ ...e, start: e.start + w.offset, end: e.end + w.offset });
      }
    });
  }
  return entities;
}

/** Pieces of at most `max` characters, cut at whitespace where there is some. */
export function splitWindows(text: string, max: number): { offset: number; text: string }[] {
  const out: { offset: number; text: string }[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + max);
    if (end < text.length) {
      const cut = text.lastIndexOf(' ', end);
      const nl = text.lastIndexOf('\n', end);
      const at = Math.max(cut, nl);
      if (at > start) end = at;
    }
    out.push({ offset: start, text: text.slice(start, end) });
    start = end;
  }
  return out;
}

/** Lower case, accents removed: how BERT-style tokenizers normalise before the lookup. */
const fold = (s: string): string => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/** The text folded, with each folded character's span in the original text. */
function foldWithOffsets(text: string): { folded: string; starts: number[]; ends: number[] } {
  let folded = '';
  const starts: number[] = [];
  const ends: number[] = [];
  for (let i = 0; i < text.length;) {
    const len = text.codePointAt(i)! > 0xffff ? 2 : 1;
    const f = fold(text.slice(i, i + len));
    // A lone combining mark folds to nothing: it belongs to the character before.
    if (f.length === 0 && ends.length > 0) ends[ends.length - 1] = i + len;
    for (let k = 0; k < f.length; k++) {
      folded += f[k];
      starts.push(i);
      ends.push(i + len);
    }
    i += len;
  }
  return { folded, starts, ends };
}

/**
 * Places each token of one sequence in the text (transformers.js gives no offsets): its
 * decoded, folded form is searched from where the previous token ended. Special tokens and
 * [UNK] have no text and are skipped, and so is a token that cannot be found nearby.
 */
function alignTokens(
  pipe: PipelineLike,
  text: string,
  ids: readonly (number | bigint)[],
  mask: readonly (number | bigint)[],
  logits: TensorLike,
  row: number,
): TokenSpan[] {
  const [, seq, labels] = logits.dims as [number, number, number];
  const data = logits.data as Float32Array;
  const id2label = pipe.model.config.id2label ?? {};
  const special = new Set(pipe.tokenizer.all_special_ids.map(Number));
  const { folded, starts, ends } = foldWithOffsets(text);
  const spans: TokenSpan[] = [];
  let cursor = 0;
  for (let j = 0; j < seq; j++) {
    const id = Number(ids[j]);
    if (Number(mask[j]) === 0 || special.has(id)) continue;
    const piece = fold(pipe.tokenizer.decode([id], { skip_special_tokens: true }))
      .trim()
      .replace(/^##/, '');
    if (piece === '') continue;
    const at = folded.indexOf(piece, cursor);
    if (at < 0 || at - cursor > MAX_TOKEN_SKIP) continue;
    cursor = at + piece.length;
    const { index, probability } = softmaxMax(data, (row * seq + j) * labels, labels);
    spans.push({
      start: starts[at]!,
      end: ends[at + piece.length - 1]!,
      label: id2label[String(index)] ?? `LABEL_${index}`,
      score: probability,
    });
  }
  return spans;
}

function softmaxMax(
  data: Float32Array,
  offset: number,
  n: number,
): { index: number; probability: number } {
  let index = 0;
  for (let k = 1; k < n; k++) if (data[offset + k]! > data[offset + index]!) index = k;
  let sum = 0;
  for (let k = 0; k < n; k++) sum += Math.exp(data[offset + k]! - data[offset + index]!);
  return { index, probability: 1 / sum };
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/**
 * Tokens into words (a token glued to the previous one inside a word continues it; the word
 * takes its first token's label, as the "first" strategy of HF pipelines), then words into
 * entities by their B-/I- tags (a lone I- starts an entity, as HF's "simple" strategy does).
 */
function groupEntities(spans: readonly TokenSpan[], text: string): OnnxEntity[] {
  const words: TokenSpan[] = [];
  for (const s of spans) {
    const last = words[words.length - 1];
    if (
      last !== undefined &&
      s.start === last.end &&
      isWordChar(text[s.start]) &&
      isWordChar(text[last.end - 1])
    ) {
      last.end = s.end;
    } else {
      words.push({ ...s });
    }
  }

  const entities: OnnxEntity[] = [];
  let open: { tag: string; start: number; end: number; scores: number[] } | undefined;
  const close = () => {
    if (open === undefined) return;
    const label = LABELS[open.tag.toUpperCase()] ?? 'MISC';
    const score = open.scores.reduce((a, b) => a + b, 0) / open.scores.length;
    entities.push({
      text: text.slice(open.start, open.end),
      label,
      start: open.start,
      end: open.end,
      score: round(score, 4),
    });
    open = undefined;
  };
  for (const w of words) {
    const [prefix, tag] = splitTag(w.label);
    if (tag === 'O') {
      close();
      continue;
    }
    if (open !== undefined && open.tag === tag && (prefix === 'I' || prefix === 'E')) {
      open.end = w.end;
      open.scores.push(w.score);
    } else {
      close();
      open = { tag, start: w.start, end: w.end, scores: [w.score] };
    }
    if (prefix === 'E' || prefix === 'S') close();
  }
  close();
  return entities;
}

function splitTag(label: string): [prefix: string, tag: string] {
  if (label === 'O') return ['O', 'O'];
  const m = /^([BIES])-(.+)$/.exec(label);
  return m ? [m[1]!, m[2]!] : ['I', label];
}

// ---------------------------------------------------------------------------------------------
// Tasks (piscina runs them by name)

/** Loads the model on this thread (if not yet) and answers its load measurement. */
export async function load(request: LoadRequest): Promise<LoadResult> {
  if (!ONNX_TASKS.includes(request.task)) throw new Error(`Unknown ONNX task ${request.task}`);
  return { ...(await getLoaded(request, request.task)).measurement };
}

export async function embed(request: EmbedRequest): Promise<EmbedResult> {
  const { pipe } = await getLoaded(request, 'feature-extraction');
  const { packed, dimension } = await runEmbedding(pipe, request.texts);
  return transferring({ threadId, dimension, packed }, [packed.buffer]);
}

export async function tokenClassify(request: TextRequest): Promise<OnnxEntity[]> {
  const { pipe } = await getLoaded(request, 'token-classification');
  return runTokenClassification(pipe, request.text);
}

export async function textClassify(request: TextRequest): Promise<LabelScore[]> {
  const { pipe } = await getLoaded(request, 'text-classification');
  return runTextClassification(pipe, request.text);
}

/** A cross-encoder (loaded as a sequence classifier): one score per (query, text) pair. */
export async function rerank(request: RerankRequest): Promise<number[]> {
  const { pipe } = await getLoaded(request, 'text-classification');
  return runRerank(pipe, request.query, request.texts);
}

/** Frees the model's sessions on this thread; answers the directories unloaded (0 or 1). */
export async function unload(ref: ModelRef): Promise<string[]> {
  const key = modelDirectory(ref);
  const entry = loaded.get(key);
  if (entry === undefined) return [];
  const current = await entry.catch(() => undefined);
  if (current === undefined) return [];
  await disposeEntry(key, current);
  return [key];
}

/** Frees every model of this thread; answers the directories unloaded. */
export async function unloadAll(): Promise<string[]> {
  const keys = [...loaded.keys()];
  const done: string[] = [];
  for (const key of keys) {
    const current = await loaded.get(key)?.catch(() => undefined);
    if (current === undefined) continue;
    await disposeEntry(key, current);
    done.push(key);
  }
  return done;
}

/** Directories loaded on this thread (for tests and stats). */
export function loadedModels(): string[] {
  return [...loaded.keys()];
}

// ---------------------------------------------------------------------------------------------
// One task on every thread

const EVERY_THREAD_OPS = { load, unload, unloadAll } as const;
export type EveryThreadOp = keyof typeof EVERY_THREAD_OPS;

export interface EveryThreadTask extends BarrierTask {
  op: EveryThreadOp;
  args: unknown;
}

/** Runs `op` as one of the tasks of a broadcast (every-thread.ts): once on each thread. */
export async function onEveryThread(task: EveryThreadTask): Promise<unknown> {
  awaitAllThreads(task);
  const op = EVERY_THREAD_OPS[task.op] as (args: unknown) => Promise<unknown>;
  return op(task.args);
}

/**
 * A worker's start-up loads the module's default export: under tsx (sources) piscina requires
 * the module and, finding no default function, retries with import(), which cannot load .ts.
 */
export default embed;
