/**
 * GET /snippets at 100,000 snippets over real HTTP (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/list.bench.ts
 *
 * Starts the real app on a temporary data dir (loopback, port 0), waits for start-up
 * reconciliation, then writes 100k rows straight through SnippetRepository.insertMany (chunks
 * of 5,000; no embeddings, so the index stays empty: listing does not use it and the engine
 * never starts). Then logs in and times ~200 requests of each kind of listing, one at a time;
 * the client runs in the same process, so its time is in the figures.
 *
 * Rows: 40–120 words of consecutive sentences of the fixture pages (test/fixtures/fixture-pages.ts),
 * one in ten led by a sentence of the evaluation documents (they bring the rarer words); theme
 * from the page's topic (15% another), quality uniform in 0..1, 6 job ids (and none), 12 sources.
 */
import fs from 'node:fs';
import path from 'node:path';
import { THEMES, type Theme } from '@adam/contracts';
import { buildApp, type Adam } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { EVAL_SET } from '../src/embedding/eval/evaluate.js';
import { textHash } from '../src/services/ingestion.service.js';
import { SnippetRepository, type NewSnippet } from '../src/store/snippet.repository.js';
import {
  fixed,
  footer,
  header,
  mib,
  pageSentences,
  removeDir,
  rng,
  seconds,
  splitSentences,
  summarize,
  table,
  tempDataDir,
  wordCount,
} from './common.js';

const ROWS = 100_000;
const CHUNK = 5_000;
const REQUESTS = 200;
const WARMUP = 5;
/** A kind of listing stops early past this, so one slow query cannot hold the run. */
const KIND_BUDGET_MS = 90_000;
const JOBS = 6;
const SOURCES = Array.from({ length: 12 }, (_, i) => ({
  url: `https://bench.example/articles/${i + 1}`,
  title: `Bench source ${i + 1}`,
}));
const TOPIC_THEME: Record<string, Theme> = {
  'volcano monitoring': 'science',
  'variable stars': 'science',
  'coastal erosion': 'science',
  'river restoration': 'science',
  'energy storage': 'technology',
  'railway history': 'technology',
  'medieval manuscripts': 'philosophy',
  'chess history': 'philosophy',
  'bread baking': 'general',
  'urban beekeeping': 'general',
};

header(`list: GET /api/v1/snippets at ${ROWS.toLocaleString('en')} snippets over HTTP`);
const benchStarted = performance.now();

/** Deterministic rows, distinct texts of 40–120 words. */
function* snippetRows(): Generator<NewSnippet> {
  const rand = rng(7);
  const evalSentences = EVAL_SET.docs.flatMap((d) => splitSentences(d.text));
  const seen = new Set<string>();
  for (let n = 1; ; n++) {
    const { topic, sentences } = pageSentences(n);
    let i = 0;
    while (i < sentences.length) {
      const target = 40 + Math.floor(rand() * 81);
      const parts: string[] = [];
      let words = 0;
      if (rand() < 0.1) {
        const s = evalSentences[Math.floor(rand() * evalSentences.length)]!;
        parts.push(s);
        words += wordCount(s);
      }
      const before = i;
      while (i < sentences.length && words < target) {
        const w = wordCount(sentences[i]!);
        if (words + w > 120) break;
        parts.push(sentences[i]!);
        words += w;
        i++;
      }
      if (i === before) i++; // nothing fitted: skip that sentence
      const text = parts.join(' ');
      if (words < 40 || seen.has(text)) continue;
      seen.add(text);
      const source = SOURCES[n % SOURCES.length]!;
      yield {
        text,
        text_hash: textHash(text),
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

const KINDS: { name: string; query: string }[] = [
  { name: 'plain, page 1', query: '' },
  { name: 'page 500 (offset 24,950)', query: 'page=500' },
  { name: 'sort_by=quality_score asc', query: 'sort_by=quality_score&order=asc' },
  { name: 'theme=science, min_quality=0.5', query: 'theme=science&min_quality=0.5' },
  { name: 'search, common word "local"', query: 'search=local' },
  { name: 'search, rare word "garbage"', query: 'search=garbage' },
  {
    name: 'search "grid storage", theme=technology',
    query: 'search=grid+storage&theme=technology',
  },
  { name: 'job_id=3', query: 'job_id=3' },
  {
    name: 'source_url=<one of 12>',
    query: `source_url=${encodeURIComponent(SOURCES[4]!.url)}`,
  },
];

const dataDir = tempDataDir('adam-bench-list-');
let adam: Adam | null = null;
try {
  adam = await buildApp(
    loadConfig({ ADAM_DATA_DIR: dataDir, ADAM_WEB_DIST: '', ADAM_LOG_LEVEL: 'warn' }),
  );
  // Rows go in after reconciliation: it would otherwise try to embed them all.
  await adam.reconciled;
  await adam.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = adam.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${addr.port}/api/v1`;

  const repo = new SnippetRepository(adam.db);
  const rows = snippetRows();
  let inserted = 0;
  let insertMs = 0;
  const genStarted = performance.now();
  while (inserted < ROWS) {
    const chunk: NewSnippet[] = [];
    while (chunk.length < Math.min(CHUNK, ROWS - inserted)) chunk.push(rows.next().value!);
    const t = performance.now();
    inserted += repo.insertMany(chunk).filter((id) => id !== null).length;
    insertMs += performance.now() - t;
  }
  const genMs = performance.now() - genStarted - insertMs;
  const dbBytes = ['adam.db', 'adam.db-wal']
    .map((f) => fs.statSync(path.join(dataDir, f), { throwIfNoEntry: false })?.size ?? 0)
    .reduce((a, b) => a + b, 0);
  console.log(
    `rows: ${inserted} inserted in ${seconds(insertMs)} (${fixed(inserted / (insertMs / 1000), 0)} rows/s ` +
      `with the FTS trigger; generating them took ${seconds(genMs)}); database ${mib(dbBytes)}`,
  );
  if (adam.services.engine.started) console.log('warning: the engine started');

  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
  });
  const { api_key: key } = (await login.json()) as { api_key: string };
  if (login.status !== 200 || !key) throw new Error(`login failed: ${login.status}`);

  const get = async (query: string): Promise<{ total: number; count: number; bytes: number }> => {
    const res = await fetch(`${base}/snippets${query ? `?${query}` : ''}`, {
      headers: { 'x-api-key': key },
    });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`GET /snippets?${query}: ${res.status} ${body}`);
    const list = JSON.parse(body) as { total: number; snippets: unknown[] };
    return { total: list.total, count: list.snippets.length, bytes: body.length };
  };

  const out: (string | number)[][] = [];
  for (const kind of KINDS) {
    let last = { total: 0, count: 0, bytes: 0 };
    for (let i = 0; i < WARMUP; i++) last = await get(kind.query);
    const samples: number[] = [];
    const kindStarted = performance.now();
    while (samples.length < REQUESTS && performance.now() - kindStarted < KIND_BUDGET_MS) {
      const t = performance.now();
      await get(kind.query);
      samples.push(performance.now() - t);
    }
    const s = summarize(samples);
    out.push([
      kind.name,
      s.n,
      fixed(s.p50, 2),
      fixed(s.p95, 2),
      fixed(s.p99, 2),
      fixed(s.mean, 2),
      last.total,
      last.count,
      `${fixed(last.bytes / 1024, 0)} KiB`,
    ]);
  }

  console.log(
    `\nGET /api/v1/snippets (per_page 50), ${WARMUP} warm-up requests then up to ${REQUESTS}:`,
  );
  table(['query', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'mean ms', 'total', 'rows', 'body'], out);
} finally {
  await adam?.app.close();
  removeDir(dataDir);
}
console.log();
footer(benchStarted);
