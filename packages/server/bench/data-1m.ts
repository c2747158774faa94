/**
 * A data directory with 1,000,000 real snippets, their built-in-embedder vectors and the saved
 * vector index, built once and reused by every bench that needs the 1M scale.
 *
 *   import { ensureMillion } from './data-1m.js';
 *   const data = await ensureMillion();          // /tmp/adam-bench-1m, built once (see below)
 *   const data = await ensureMillion({ rows: 20_000 }); // /tmp/adam-bench-20000, a quick try
 *
 * What the directory holds (it is a valid ADAM data dir: `ADAM_DATA_DIR=<dir>` starts a server
 * on it):
 *   adam.db          rows written through SnippetRepository.insertMany (triggers, FTS, whatever
 *                    migrations the branch has), each with its embedding; every row indexed
 *                    (index_pending = 0) once the index stage is done
 *   index/           the vector index as the server saves it (VectorIndex.save)
 *   vectors.f32      the same vectors, flat, row i = snippet id i + 1: benches read it in a second
 *   models/builtin   a link to the benches' shared converted model
 *   data-1m.json     the marker: which stages are done, with their versions
 * The rows stage and the index stage each have a version: bumping INDEX_VERSION (e.g. new HNSW
 * settings) rebuilds only the index, never the 1M embeddings. Delete the directory to start over.
 *
 * Texts are built like bench/list.bench.ts's rows: 40–120 words of consecutive sentences of the
 * fixture pages, one in ten led by a sentence of the evaluation documents; theme from the page's
 * topic (15% another), quality uniform in 0..1, 6 job ids and none, 12 sources. All distinct.
 * Embedding uses the built-in embedder on a pool of 2 worker threads (~0.2 ms a text per
 * thread): every vector is the real embedding of its own text. Measured on the shared 2-core
 * machine (load average 8–14): the rows stage took 23 min (generating, embedding and writing
 * 1M rows with their FTS), the index stage (HNSW build of 1M × 384 on 2 threads) over 40 min.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import usearch from 'usearch';
import { DEFAULT_PROCESSING_SETTINGS, THEMES, type IndexStorage } from '@adam/contracts';
import { loadBuiltinEmbedderSync } from '../src/embedding/builtin-embedder.js';
import { createEmbedderPool } from '../src/embedding/embedder-pool.js';
import { EVAL_SET } from './eval/evaluate.js';
import { textHash } from '../src/pipeline/segment-key.js';
import { openDatabase } from '../src/store/db.js';
import { SettingsRepository } from '../src/store/settings.repository.js';
import { SnippetRepository, type NewSnippet } from '../src/store/snippet.repository.js';
import { INDEX_FORMAT, VectorIndex } from '../src/vector/vector-index.js';
import {
  BENCH_MODEL_ROOT,
  pageSentences,
  rng,
  seconds,
  sharedModel,
  splitSentences,
  pageTexts,
  TOPIC_THEME,
} from './common.js';

export const MILLION = 1_000_000;
/** Bump when the rows or their vectors change: the whole directory is rebuilt. */
const ROWS_VERSION = 1;
/** The saved index's format and build settings: a change rebuilds the index stage only. */
/**
 * `ADAM_BENCH_INDEX_STORAGE=i8` builds (or keeps) the index with another storage than the
 * default; the data dir's processing settings then name it, so the app opens it as it is.
 */
const INDEX_STORAGE: IndexStorage =
  (process.env.ADAM_BENCH_INDEX_STORAGE as IndexStorage | undefined) ??
  DEFAULT_PROCESSING_SETTINGS.index_storage;
const INDEX_VERSION = `1/${INDEX_FORMAT}/${INDEX_STORAGE}`;
const CHUNK = 10_000;
const EMBED_BATCH = 500;
const DIMENSION = 384;

export interface MillionData {
  /** The data directory (ADAM_DATA_DIR). */
  dir: string;
  rows: number;
  dimension: number;
  /** Snippet ids are 1..rows; row i of vectors.f32 is id i + 1. */
  vectorsFile: string;
  indexDir: string;
  /** The last fixture page used for rows: queries from later pages are not in the data. */
  lastPage: number;
  /** All vectors, flat (rows × dimension), read from vectors.f32. */
  readVectors(): Float32Array;
}

interface Marker {
  rows_version: number;
  rows: number;
  last_page: number;
  index_version?: string;
}

const JOBS = 6;
const SOURCES = Array.from({ length: 12 }, (_, i) => ({
  url: `https://bench.example/articles/${i + 1}`,
  title: `Bench source ${i + 1}`,
}));

/** Deterministic rows with distinct texts of 40–120 words (as list.bench.ts makes them). */
function* snippetRows(pageSeen: { last: number }): Generator<NewSnippet> {
  const rand = rng(7);
  const evalSentences = EVAL_SET.docs.flatMap((d) => splitSentences(d.text));
  const seen = new Set<string>();
  for (let n = 1; ; n++) {
    pageSeen.last = n;
    const { topic, sentences } = pageSentences(n);
    for (const { text, words } of pageTexts(sentences, rand, evalSentences)) {
      const hash = textHash(text);
      if (seen.has(hash)) continue;
      seen.add(hash);
      const source = SOURCES[n % SOURCES.length]!;
      yield {
        text,
        text_hash: hash,
        theme: rand() < 0.15 ? THEMES[Math.floor(rand() * THEMES.length)]! : TOPIC_THEME[topic]!,
        quality_score: Math.round(rand() * 10_000) / 10_000,
        language: 'en',
        word_count: words,
        size_bytes: Buffer.byteLength(text, 'utf8'),
        source_title: source.title,
        source_url: source.url,
        job_id: rand() < 0.3 ? null : 1 + (n % JOBS),
        metadata: '{}',
        embedding: null,
        embedder_id: null,
      };
    }
  }
}

/**
 * `n` query vectors none of the rows was cut from: one sentence of each fixture page after the
 * data's last, embedded with the built-in embedder (the same queries in every bench).
 */
export async function unseenQueries(data: MillionData, n: number): Promise<Float32Array[]> {
  await sharedModel();
  const { embedder } = loadBuiltinEmbedderSync(BENCH_MODEL_ROOT);
  const texts: string[] = [];
  const rand = rng(99);
  for (let page = data.lastPage + 1; texts.length < n; page++) {
    const { sentences } = pageSentences(page);
    const s = sentences[Math.floor(rand() * sentences.length)];
    if (s) texts.push(s);
  }
  return embedder.embed(texts);
}

/** Exact cosine k nearest rows (row numbers from 0) of the first `count` queries, all threads. */
export function exactNeighbours(
  vectors: Float32Array,
  queries: readonly Float32Array[],
  count: number,
  dimension: number,
  k: number,
): Set<number>[] {
  const flat = new Float32Array(count * dimension);
  for (let i = 0; i < count; i++) flat.set(queries[i]!, i * dimension);
  const exact = usearch.exactSearch(
    vectors,
    flat,
    dimension,
    k,
    usearch.MetricKind.Cos,
    0,
  ) as InstanceType<typeof usearch.BatchMatches>;
  return Array.from({ length: count }, (_, i) => new Set(Array.from(exact.get(i).keys, Number)));
}

const log = (msg: string) => console.log(`[data-1m] ${msg}`);

/**
 * Makes sure `dir` holds `rows` snippets with vectors and a saved index (see the header), building
 * what is missing; answers where everything is. Safe to call from every bench: a complete
 * directory is only checked.
 */
export async function ensureMillion(
  opts: { dir?: string; rows?: number } = {},
): Promise<MillionData> {
  const rows = opts.rows ?? MILLION;
  const dir =
    opts.dir ?? path.join(os.tmpdir(), rows === MILLION ? 'adam-bench-1m' : `adam-bench-${rows}`);
  const markerFile = path.join(dir, 'data-1m.json');
  let marker = readMarker(markerFile);
  const rowsStale = !marker || marker.rows_version !== ROWS_VERSION || marker.rows !== rows;
  if (rowsStale || marker?.index_version !== INDEX_VERSION) {
    // A second process would delete what the first one is building: one builder at a time.
    const release = lockBuild(dir);
    try {
      if (rowsStale) {
        fs.rmSync(dir, { recursive: true, force: true });
        marker = await buildRows(dir, rows);
        fs.writeFileSync(markerFile, JSON.stringify(marker, null, 2));
      }
      buildIndex(dir, rows);
      marker = { ...marker!, index_version: INDEX_VERSION };
      fs.writeFileSync(markerFile, JSON.stringify(marker, null, 2));
    } finally {
      release();
    }
  }
  if (!marker) throw new Error(`no data in ${dir}`);
  const vectorsFile = path.join(dir, 'vectors.f32');
  return {
    dir,
    rows,
    dimension: DIMENSION,
    vectorsFile,
    indexDir: path.join(dir, 'index'),
    lastPage: marker.last_page,
    readVectors: () => readVectors(vectorsFile, rows),
  };
}

/** Takes `<dir>.lock` (beside the dir, which the rows stage deletes); throws while a live process holds it. */
function lockBuild(dir: string): () => void {
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(fs.readFileSync(lock, 'utf8'));
      let alive = false;
      try {
        process.kill(pid, 0);
        alive = pid > 0;
      } catch {
        alive = false;
      }
      if (alive) throw new Error(`process ${pid} is building ${dir}: wait for it (or stop it)`);
      fs.rmSync(lock, { force: true }); // left by a process that died
    }
  }
}

function readMarker(file: string): Marker | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Marker;
  } catch {
    return null;
  }
}

function readVectors(file: string, rows: number): Float32Array {
  const out = new Float32Array(rows * DIMENSION);
  const fd = fs.openSync(file, 'r');
  try {
    const bytes = new Uint8Array(out.buffer);
    let off = 0;
    // readSync reads at most 2 GiB at a time.
    while (off < bytes.length) off += fs.readSync(fd, bytes, off, bytes.length - off, off);
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

async function buildRows(dir: string, rows: number): Promise<Marker> {
  const started = performance.now();
  log(`building ${rows.toLocaleString('en')} snippets with vectors in ${dir}`);
  fs.mkdirSync(dir, { recursive: true });
  await sharedModel();
  const link = path.join(dir, 'models', 'builtin');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(path.join(BENCH_MODEL_ROOT, 'models', 'builtin'), link, 'dir');

  const db = openDatabase(dir);
  const repo = new SnippetRepository(db);
  const pool = await createEmbedderPool({ dataDir: BENCH_MODEL_ROOT, threads: 2 });
  const vectors = new Float32Array(rows * DIMENSION);
  const page = { last: 0 };
  const gen = snippetRows(page);
  const nextChunk = (n: number): NewSnippet[] => {
    const chunk: NewSnippet[] = [];
    while (chunk.length < n) chunk.push(gen.next().value!);
    return chunk;
  };
  const embed = async (chunk: NewSnippet[]): Promise<Float32Array[]> => {
    const parts: Promise<Float32Array[]>[] = [];
    for (let i = 0; i < chunk.length; i += EMBED_BATCH) {
      parts.push(pool.embed(chunk.slice(i, i + EMBED_BATCH).map((r) => r.text)));
    }
    return (await Promise.all(parts)).flat();
  };
  let done = 0;
  let chunk = nextChunk(Math.min(CHUNK, rows));
  let pending = embed(chunk);
  let lastLog = performance.now();
  while (chunk.length) {
    const embedded = await pending;
    const current = chunk;
    // The next chunk is generated and embedded while this one is written.
    chunk = nextChunk(Math.min(CHUNK, rows - done - current.length));
    pending = embed(chunk);
    current.forEach((r, i) => {
      const v = embedded[i]!;
      vectors.set(v, (done + i) * DIMENSION);
      r.embedding = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      r.embedder_id = pool.id;
    });
    const ids = repo.insertMany(current);
    ids.forEach((id, i) => {
      if (id !== done + i + 1)
        throw new Error(`row ${done + i} got id ${id}, expected ${done + i + 1}`);
    });
    done += current.length;
    if (performance.now() - lastLog > 30_000) {
      lastLog = performance.now();
      log(`${done.toLocaleString('en')} rows, ${seconds(performance.now() - started)}`);
    }
  }
  await pending;
  await pool.close();
  db.close();
  writeAll(path.join(dir, 'vectors.f32'), new Uint8Array(vectors.buffer));
  log(`rows done in ${seconds(performance.now() - started)} (pages 1..${page.last})`);
  return { rows_version: ROWS_VERSION, rows, last_page: page.last };
}

function writeAll(file: string, bytes: Uint8Array): void {
  const fd = fs.openSync(file, 'w');
  try {
    let off = 0;
    while (off < bytes.length) off += fs.writeSync(fd, bytes, off, bytes.length - off);
  } finally {
    fs.closeSync(fd);
  }
}

/** Builds and saves the index the server would have, then marks every row indexed. */
function buildIndex(dir: string, rows: number): void {
  const started = performance.now();
  const indexDir = path.join(dir, 'index');
  fs.rmSync(indexDir, { recursive: true, force: true });
  const vectors = readVectors(path.join(dir, 'vectors.f32'), rows);
  log(
    `building the index of ${rows.toLocaleString('en')} vectors (${INDEX_FORMAT}, ${INDEX_STORAGE})`,
  );
  const { index } = VectorIndex.open(indexDir, DIMENSION, { quantization: INDEX_STORAGE });
  const step = 50_000;
  for (let i = 0; i < rows; i += step) {
    const n = Math.min(step, rows - i);
    index.addFlat(
      Float64Array.from({ length: n }, (_, j) => i + j + 1),
      vectors.subarray(i * DIMENSION, (i + n) * DIMENSION),
    );
  }
  const built = performance.now();
  index.save();
  log(`index built in ${seconds(built - started)}, saved in ${seconds(performance.now() - built)}`);
  const db = openDatabase(dir);
  // The storage the index was built with, in the dir's own settings: a start of the app on it
  // (or a copy) opens that index instead of rebuilding it with the default storage.
  new SettingsRepository(db).upsertSection('processing', {
    ...DEFAULT_PROCESSING_SETTINGS,
    index_storage: INDEX_STORAGE,
  });
  const repo = new SnippetRepository(db);
  repo.markAllPending();
  const at = new Date().toISOString();
  const ids = Array.from({ length: rows }, (_, i) => i + 1);
  for (let i = 0; i < rows; i += 100_000) repo.markIndexed(ids.slice(i, i + 100_000), at);
  db.close();
}
