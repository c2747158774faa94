/**
 * The generated snippets of the list and export benches: deterministic rows of 40–120 words of
 * consecutive sentences of the fixture pages (test/fixtures/fixture-pages.ts), one in ten led by
 * a sentence of the evaluation documents (they bring the rarer words, commas and quotes); theme
 * from the page's topic (15% another), quality uniform in 0..1. Each bench says where a page's
 * rows come from (source, job, metadata).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { THEMES } from '@adam/contracts';
import { buildApp, type Adam } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { EVAL_SET } from './eval/evaluate.js';
import { textHash } from '../src/pipeline/segment-key.js';
import { openDatabase } from '../src/store/db.js';
import { SnippetRepository, type NewSnippet } from '../src/store/snippet.repository.js';
import {
  BENCH_MODEL_ROOT,
  pageSentences,
  pageTexts,
  rng,
  seconds,
  splitSentences,
  TOPIC_THEME,
} from './common.js';

/** Where the rows of fixture page `n` come from, per bench. */
export type PageOrigin = (page: {
  n: number;
  topic: string;
  quality: number;
}) => Pick<NewSnippet, 'source_title' | 'source_url' | 'job_id' | 'metadata'>;

/** Endless deterministic rows (the few repeated texts are dropped by insertMany). */
export function* benchSnippets(seed: number, origin: PageOrigin): Generator<NewSnippet> {
  const rand = rng(seed);
  const evalSentences = EVAL_SET.docs.flatMap((d) => splitSentences(d.text));
  for (let n = 1; ; n++) {
    const { topic, sentences } = pageSentences(n);
    for (const { text, words } of pageTexts(sentences, rand, evalSentences)) {
      const theme =
        rand() < 0.15 ? THEMES[Math.floor(rand() * THEMES.length)]! : TOPIC_THEME[topic]!;
      const quality = Math.round(rand() * 10_000) / 10_000;
      yield {
        text,
        text_hash: textHash(text),
        theme,
        quality_score: quality,
        language: 'en',
        word_count: words,
        size_bytes: Buffer.byteLength(text, 'utf8'),
        ...origin({ n, topic, quality }),
        embedding: null,
        embedder_id: null,
      };
    }
  }
}

const CHUNK = 5_000;

/**
 * Empties `dir` into a data dir (the shared built-in model linked in) and writes `count` rows of
 * `rows` through SnippetRepository.insertMany in chunks, so every trigger a real ingestion fires
 * runs. Logs every `logEvery` rows; answers the rows written.
 */
export function writeBenchSnippets(
  dir: string,
  rows: Iterator<NewSnippet>,
  count: number,
  logEvery: number,
): number {
  fs.rmSync(dir, { recursive: true, force: true });
  const link = path.join(dir, 'models', 'builtin');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(path.join(BENCH_MODEL_ROOT, 'models', 'builtin'), link, 'dir');
  const db = openDatabase(dir);
  try {
    const repo = new SnippetRepository(db);
    let inserted = 0;
    const started = performance.now();
    while (inserted < count) {
      const chunk: NewSnippet[] = [];
      while (chunk.length < Math.min(CHUNK, count - inserted)) chunk.push(rows.next().value!);
      inserted += repo.insertMany(chunk).filter((id) => id !== null).length;
      if (inserted % logEvery < CHUNK)
        console.log(
          `data: ${inserted.toLocaleString('en')} rows, ${seconds(performance.now() - started)}`,
        );
    }
    return inserted;
  } finally {
    db.close();
  }
}

/** The page URL of fixture page `n` in the search benches' data. */
export const benchPageUrl = (n: number): string => `https://bench.example/pages/${n}`;

/**
 * A server over `count` generated rows (page `n`'s rows titled `Page n`, at benchPageUrl(n)),
 * embedded by the built-in embedder and indexed through a rebuild_index job: where the benches
 * of search features start. The caller closes the app and removes the directory.
 */
export async function indexedBenchApp(
  prefix: string,
  seed: number,
  count: number,
): Promise<{ adam: Adam; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const origin: PageOrigin = ({ n }) => ({
    source_title: `Page ${n}`,
    source_url: benchPageUrl(n),
    job_id: null,
    metadata: '{}',
  });
  writeBenchSnippets(dir, benchSnippets(seed, origin), count, 5_000);
  const adam = await buildApp(
    loadConfig({ ADAM_DATA_DIR: dir, ADAM_WEB_DIST: '', ADAM_LOG_LEVEL: 'warn' }),
  );
  try {
    await adam.reconciled;
    await adam.queueStarted;
    const { jobs } = adam.services;
    const started = performance.now();
    const rebuild = jobs.create({ type: 'rebuild_index', input: { reembed: true } });
    const rebuilt = await jobs.waitForEnd(rebuild.id, 600_000);
    console.log(`embedded and indexed: ${rebuilt.status}, ${seconds(performance.now() - started)}`);
    return { adam, dir };
  } catch (e) {
    await adam.app.close();
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
