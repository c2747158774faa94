/**
 * Ingestion throughput (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/ingest.bench.ts [--e2e]
 *
 * (--e2e: the end-to-end part alone.)
 *
 * First, end to end with 2 workers (the issue's figure): a real server (buildApp + listen, the
 * embedded queue, ADAM_WORKERS=2) and the local fixture site. First 300 other generated pages
 * (/pages/501..800) go through the same path untimed: a server that has been running has its
 * modules loaded and its hot code optimised on every thread. Then the fixture pages
 * /pages/1..500 (every 50th answers 500) are submitted through POST /sources/process in 10 jobs of 50 and
 * fetched over HTTP, extracted, analysed, embedded, stored and indexed; timed from the first
 * submit until every job ended. Next to it, on the same server and the same 2 engine threads,
 * the reference: the text pipeline without entities (engine.analyze of the same pages'
 * extracted text, entities switched off), and the whole text pipeline with them.
 *
 * Then the parts: buildApp on a temporary data dir, IngestionService.ingest (analysis and
 * embedding on the engine's worker threads, rows written, vectors added, index saved) over 200
 * fixture pages, 4 ingests at a time so every thread has work; with 1 and then 2 engine
 * threads. Then, on the same app, the embedding alone (engine.embed on the stored segment
 * texts in batches of 32) and VectorIndex add + save per batch of 32.
 */
import path from 'node:path';
import type { Job, ProcessingSettings } from '@adam/contracts';
import { buildApp, type Adam } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { extractResponse } from '../src/scraping/extract.js';
import type { IngestResult } from '../src/services/ingestion.service.js';
import { SnippetRepository } from '../src/store/snippet.repository.js';
import { VectorIndex } from '../src/vector/vector-index.js';
import {
  FIXTURE_PAGE_COUNT,
  isFailingFixturePage,
  renderGeneratedPage,
} from '../test/fixtures/fixture-pages.js';
import { startFixtureSite } from '../test/fixtures/fixture-site.js';
import {
  fixed,
  footer,
  header,
  measure,
  pageDocument,
  removeDir,
  seconds,
  sharedModel,
  summarize,
  table,
  tempDataDir,
} from './common.js';

const DOCS = 200;
const CONCURRENT_INGESTS = 4;
const EMBED_BATCH = 32;
const THREADS = [1, 2];
/** Texts embedded per embedding-only measure (the stored segments, repeated). */
const EMBED_TEXTS = 8_000;

header('ingest: end to end at 2 workers, then the parts (IngestionService, embedding, index)');
const benchStarted = performance.now();
await sharedModel();

// ---------------------------------------------------------------------------------------------
// End to end, 2 workers

const E2E_WORKERS = 2;
const E2E_JOBS = 10;
/** Generated pages past the timed ones, ingested first to warm the server up. */
const E2E_WARM_PAGES = 300;
/** engine.analyze calls in flight for the reference: enough that no thread waits. */
const REFERENCE_LANES = 4;
const E2E_LIMIT_MS = 4 * 60_000;

/** Wraps obj[name] so each call's duration (ms, synchronous part) lands in the answered list. */
function timeCalls<T extends object, K extends keyof T>(obj: T, name: K): number[] {
  const samples: number[] = [];
  const original = obj[name] as (...args: unknown[]) => unknown;
  obj[name] = ((...args: unknown[]) => {
    const t = performance.now();
    try {
      return original.apply(obj, args);
    } finally {
      samples.push(performance.now() - t);
    }
  }) as T[K];
  return samples;
}

interface E2eOutcome {
  pages: number;
  failed: number;
  segments: number;
  wallMs: number;
  cpuMs: number;
  jobsDone: number;
  timedOut: boolean;
  /** Why pages failed: error type and message, with counts. */
  errors: Map<string, number>;
  /** Server-thread ms in IngestionService.store, and in the index add inside it. */
  storeMs: number;
  indexAddMs: number;
  reference: { pages: number; wallMs: number; cpuMs: number; segments: number };
  withEntities: { pages: number; wallMs: number; cpuMs: number; segments: number };
}

async function endToEnd(): Promise<E2eOutcome> {
  const site = await startFixtureSite(0, { pages: FIXTURE_PAGE_COUNT + E2E_WARM_PAGES });
  const dataDir = tempDataDir('adam-bench-ingest-e2e-');
  let adam: Adam | null = null;
  try {
    adam = await buildApp(
      loadConfig({
        ADAM_DATA_DIR: dataDir,
        ADAM_WEB_DIST: '',
        ADAM_WORKERS: String(E2E_WORKERS),
        ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`,
      }),
    );
    await adam.app.listen({ port: 0, host: '127.0.0.1' });
    await adam.reconciled;
    const addr = adam.app.server.address();
    if (!addr || typeof addr === 'string') throw new Error('no address');
    const base = `http://127.0.0.1:${addr.port}/api/v1`;
    const { engine, jobs, settings } = adam.services;
    const processing = settings.get('processing');

    const post = async (p: string, body: unknown, key?: string) => {
      const res = await fetch(`${base}${p}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status !== 200) throw new Error(`POST ${p}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    const key = String(
      (await post('/auth/login', { email: 'admin@example.com', password: 'admin' })).api_key,
    );
    const submit = async (urls: string[]) =>
      Number((await post('/sources/process', { urls }, key)).job_id);

    // Warm-up, not timed: other generated pages through the same path, so first-call costs
    // (module loads, the JIT's optimising compiles on every thread) stay out of the figure, as
    // they do on a server that has been running.
    const warmUrls = Array.from(
      { length: E2E_WARM_PAGES },
      (_, i) => `${site.url}/pages/${FIXTURE_PAGE_COUNT + i + 1}`,
    );
    const warmPerJob = Math.ceil(E2E_WARM_PAGES / E2E_JOBS);
    const warm = await Promise.all(
      Array.from({ length: E2E_JOBS }, async (_, j) =>
        jobs.waitForEnd(
          await submit(warmUrls.slice(j * warmPerJob, (j + 1) * warmPerJob)),
          E2E_LIMIT_MS,
        ),
      ),
    );
    if (warm.some((j) => j.status !== 'completed')) throw new Error('a warm-up job failed');

    // The recording half runs on the server thread, which every page needs once.
    const storeMs = timeCalls(adam.services.ingestion, 'store');
    const indexAddMs = timeCalls(adam.services.index, 'addDeferred');
    const perJob = Math.ceil(FIXTURE_PAGE_COUNT / E2E_JOBS);
    const urls = Array.from({ length: FIXTURE_PAGE_COUNT }, (_, i) => `${site.url}/pages/${i + 1}`);
    let ended: Job[] = [];
    const { wallMs, cpuMs } = await measure(async () => {
      const ids: number[] = [];
      for (let j = 0; j < E2E_JOBS; j++)
        ids.push(await submit(urls.slice(j * perJob, (j + 1) * perJob)));
      ended = await Promise.all(ids.map((id) => jobs.waitForEnd(id, E2E_LIMIT_MS)));
    });
    const timedOut = ended.some((j) => !['completed', 'failed', 'cancelled'].includes(j.status));
    if (timedOut) await post('/sources/jobs/cancel_pending', {}, key).catch(() => undefined);
    const sum = (f: (j: Job) => number | undefined) => ended.reduce((n, j) => n + (f(j) ?? 0), 0);
    const failed = sum((j) => j.stats.urls_failed);

    // The same pages' text as the workers extracted it, for the pipeline-only runs.
    const texts: string[] = [];
    for (let n = 1; n <= FIXTURE_PAGE_COUNT; n++) {
      if (isFailingFixturePage(n)) continue;
      const body = Buffer.from(renderGeneratedPage(n));
      const res = { url: `${site.url}/pages/${n}`, status: 200, contentType: 'text/html', body };
      texts.push(extractResponse({ ...res, headers: {}, redirects: [] }, null).text);
    }
    const pipeline = async (entities: boolean) => {
      let segments = 0;
      const m = await inLanes(texts, REFERENCE_LANES, async (t) => {
        const r = await engine.analyze(t, 'auto', processing, { entities });
        segments += r.segments.length;
      });
      return { pages: texts.length, segments, ...m };
    };
    const reference = await pipeline(false);
    const withEntities = await pipeline(true);

    return {
      pages: sum((j) => j.stats.urls_done) + failed,
      failed,
      segments: sum((j) => j.stats.segments_created),
      wallMs,
      cpuMs,
      jobsDone: ended.filter((j) => j.status === 'completed').length,
      timedOut,
      errors: ended
        .flatMap((j) => j.errors)
        .reduce(
          (m, e) => m.set(`${e.type}: ${e.message}`, (m.get(`${e.type}: ${e.message}`) ?? 0) + 1),
          new Map<string, number>(),
        ),
      storeMs: storeMs.reduce((a, b) => a + b, 0),
      indexAddMs: indexAddMs.reduce((a, b) => a + b, 0),
      reference,
      withEntities,
    };
  } finally {
    await adam?.app.close();
    await site.close();
    removeDir(dataDir);
  }
}

const docs = Array.from({ length: DOCS }, (_, i) => ({ n: i + 1, ...pageDocument(i + 1) }));
const words = docs.reduce((s, d) => s + d.text.split(/\s+/).length, 0);
console.log(
  `corpus: ${DOCS} fixture pages (test/fixtures/fixture-pages.ts, pages 1..${DOCS}), ` +
    `${words} words, ~${Math.round(words / DOCS)} words/page; ${CONCURRENT_INGESTS} ingests in flight\n`,
);

/** Runs `work` over `items` with `lanes` calls in flight; answers wall and CPU time. */
function inLanes<T>(
  items: readonly T[],
  lanes: number,
  work: (item: T) => Promise<void>,
): Promise<{ wallMs: number; cpuMs: number }> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  return measure(async () => {
    await Promise.all(Array.from({ length: lanes }, lane));
  });
}

const batchesOf = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

interface Outcome {
  threads: number;
  startMs: number;
  ingestMs: number;
  ingestCpuMs: number;
  segments: number;
  duplicates: number;
  saveMs: number[];
  segmentsPerSave: number;
  analyzeMs: number;
  analyzeCpuMs: number;
  embedSeqMs: number;
  embedParMs: number;
  texts: number;
  embedded: number;
  addMs: number[];
  indexSaveMs: number[];
}

async function runWith(threads: number): Promise<Outcome> {
  const dataDir = tempDataDir(`adam-bench-ingest-${threads}-`);
  let adam: Adam | null = null;
  try {
    adam = await buildApp(
      loadConfig({ ADAM_DATA_DIR: dataDir, ADAM_WEB_DIST: '', ADAM_WORKERS: String(threads) }),
    );
    await adam.reconciled;
    const { engine, ingestion, index, settings } = adam.services;
    const processing: ProcessingSettings = settings.get('processing');

    // Pool start (model load in every thread) and a warm-up analysis per lane, not timed below.
    let t = performance.now();
    await engine.embed(['warm up']);
    const startMs = performance.now() - t;
    const warm = [pageDocument(10_001).text, pageDocument(10_002).text];
    await Promise.all(
      Array.from({ length: CONCURRENT_INGESTS }, (_, i) =>
        engine.analyze(warm[i % warm.length]!, 'en', processing),
      ),
    );

    // Times IndexService.addDeferred (the vectors into the index; the save comes later) inside
    // each ingest.
    const saveMs = timeCalls(index, 'addDeferred');

    const results: IngestResult[] = [];
    const { wallMs: ingestMs, cpuMs: ingestCpuMs } = await inLanes(
      docs,
      CONCURRENT_INGESTS,
      async (d) => {
        results.push(
          await ingestion.ingest(
            {
              text: d.text,
              language: 'en',
              source: { title: d.title, url: `https://bench.example/pages/${d.n}` },
              jobId: null,
            },
            processing,
          ),
        );
      },
    );
    const segments = results.reduce((s, r) => s + r.segments_created, 0);
    const duplicates = results.reduce((s, r) => s + r.duplicates, 0);

    // The workers' part alone (segmentation, scoring, embedding), nothing stored.
    const { wallMs: analyzeMs, cpuMs: analyzeCpuMs } = await inLanes(
      docs,
      CONCURRENT_INGESTS,
      async (d) => {
        await engine.analyze(d.text, 'en', processing);
      },
    );

    // Embedding alone, on the texts the ingest stored; several passes so it lasts a second or so.
    const stored = new SnippetRepository(adam.db)
      .listPage({}, 'created_at', 'asc', 100_000, 0)
      .rows.map((r) => r.text);
    const batches = batchesOf(stored, EMBED_BATCH);
    const passes = Math.max(1, Math.ceil(EMBED_TEXTS / stored.length));
    const repeated = Array.from({ length: passes }, () => batches).flat();
    await engine.embed(batches[0]!); // warm
    const vectors: Float32Array[][] = [];
    t = performance.now();
    for (const b of repeated) {
      const vs = await engine.embed(b);
      if (vectors.length < batches.length) vectors.push(vs);
    }
    const embedSeqMs = performance.now() - t;
    const { wallMs: embedParMs } = await inLanes(repeated, CONCURRENT_INGESTS, async (b) => {
      await engine.embed(b);
    });

    // add + save per batch of 32 on a fresh index: the save rewrites the whole index.
    const { index: vi } = VectorIndex.open(path.join(dataDir, 'bench-index'), engine.dimension);
    const addMs: number[] = [];
    const indexSaveMs: number[] = [];
    let key = 1;
    for (const vs of vectors) {
      const entries = vs.map((vector) => ({ key: key++, vector }));
      t = performance.now();
      vi.add(entries);
      addMs.push(performance.now() - t);
      t = performance.now();
      vi.save();
      indexSaveMs.push(performance.now() - t);
    }

    return {
      threads,
      startMs,
      ingestMs,
      ingestCpuMs,
      segments,
      duplicates,
      saveMs,
      segmentsPerSave: segments / (saveMs.length || 1),
      analyzeMs,
      analyzeCpuMs,
      embedSeqMs,
      embedParMs,
      texts: stored.length,
      embedded: stored.length * passes,
      addMs,
      indexSaveMs,
    };
  } finally {
    await adam?.app.close();
    removeDir(dataDir);
  }
}

let t0 = performance.now();
const e2e = await endToEnd();
console.log(`  end to end, ${E2E_WORKERS} workers: done in ${seconds(performance.now() - t0)}`);

const outcomes: Outcome[] = [];
for (const threads of process.argv.includes('--e2e') ? [] : THREADS) {
  t0 = performance.now();
  outcomes.push(await runWith(threads));
  console.log(
    `  ${threads} thread${threads > 1 ? 's' : ''}: done in ${seconds(performance.now() - t0)}`,
  );
}

console.log(
  `\nend to end at ${E2E_WORKERS} workers (embedded queue; fixture site /pages/1..${FIXTURE_PAGE_COUNT} over HTTP, ` +
    `every 50th answers 500; ${E2E_JOBS} jobs through POST /sources/process)${e2e.timedOut ? ' STOPPED at the limit' : ''}:`,
);
const rate = (pages: number, ms: number) => fixed(pages / (ms / 1000));
table(
  ['what', 'pages', 'segments', 'wall', 'CPU', 'CPU / page', 'pages/s'],
  [
    [
      'end to end: fetch, extract, analyse, embed, store, index',
      e2e.pages,
      e2e.segments,
      seconds(e2e.wallMs),
      seconds(e2e.cpuMs),
      `${fixed(e2e.cpuMs / Math.max(1, e2e.pages), 1)} ms`,
      rate(e2e.pages, e2e.wallMs),
    ],
    ...(
      [
        ['reference: text pipeline without entities', e2e.reference],
        ['text pipeline with entities', e2e.withEntities],
      ] as const
    ).map(([what, r]) => [
      `${what} (engine.analyze, ${REFERENCE_LANES} in flight)`,
      r.pages,
      r.segments,
      seconds(r.wallMs),
      seconds(r.cpuMs),
      `${fixed(r.cpuMs / r.pages, 1)} ms`,
      rate(r.pages, r.wallMs),
    ]),
  ],
);
console.log(
  `end to end: ${e2e.jobsDone}/${E2E_JOBS} jobs completed, ${e2e.failed} pages failed (the fixture's 500s); ` +
    'the pipeline rows run on the same server and threads after it, on the pages that answered.',
);
for (const [why, n] of e2e.errors) if (!/HTTP 500/.test(why)) console.log(`  failed ×${n}: ${why}`);
const stored = Math.max(1, e2e.pages - e2e.failed);
console.log(
  `server thread, end to end: IngestionService.store ${fixed(e2e.storeMs / stored, 2)} ms/page ` +
    `(of which the vector index add ${fixed(e2e.indexAddMs / stored, 2)} ms/page), ` +
    `${seconds(e2e.storeMs)} of the ${seconds(e2e.wallMs)} wall.`,
);

if (outcomes.length === 0) {
  footer(benchStarted);
  process.exit(0);
}

console.log('\ningest (IngestionService.ingest, analysis + embedding + store + index save):');
table(
  ['threads', 'pool start', 'wall', 'CPU', 'docs/s', 'segments', 'dup', 'segments/s'],
  outcomes.map((o) => [
    o.threads,
    `${o.startMs.toFixed(0)} ms`,
    seconds(o.ingestMs),
    seconds(o.ingestCpuMs),
    fixed(DOCS / (o.ingestMs / 1000)),
    o.segments,
    o.duplicates,
    fixed(o.segments / (o.ingestMs / 1000)),
  ]),
);

console.log(
  `\nanalysis only (engine.analyze on the same ${DOCS} pages, ${CONCURRENT_INGESTS} in flight, nothing stored):`,
);
table(
  ['threads', 'wall', 'CPU', 'docs/s', 'segments/s (of the ingest count)'],
  outcomes.map((o) => [
    o.threads,
    seconds(o.analyzeMs),
    seconds(o.analyzeCpuMs),
    fixed(DOCS / (o.analyzeMs / 1000)),
    fixed(o.segments / (o.analyzeMs / 1000)),
  ]),
);

console.log(
  '\nIndexService.addDeferred inside each ingest (vectors into the index, save deferred):',
);
table(
  ['threads', 'calls', 'vectors/call', 'mean ms', 'p50 ms', 'p95 ms', 'max ms', 'share of wall'],
  outcomes.map((o) => {
    const s = summarize(o.saveMs);
    const total = o.saveMs.reduce((a, b) => a + b, 0);
    return [
      o.threads,
      s.n,
      fixed(o.segmentsPerSave),
      fixed(s.mean, 2),
      fixed(s.p50, 2),
      fixed(s.p95, 2),
      fixed(s.max, 2),
      `${fixed((100 * total) / o.ingestMs)} %`,
    ];
  }),
);

console.log(
  `\nembedding only (engine.embed, batches of ${EMBED_BATCH}, the stored segment texts repeated):`,
);
table(
  ['threads', 'texts', 'one batch at a time', `${CONCURRENT_INGESTS} batches in flight`],
  outcomes.map((o) => [
    o.threads,
    o.embedded,
    `${fixed(o.embedded / (o.embedSeqMs / 1000), 0)} texts/s`,
    `${fixed(o.embedded / (o.embedParMs / 1000), 0)} texts/s`,
  ]),
);

console.log(`\nVectorIndex add + save per batch of ${EMBED_BATCH} (fresh index, growing):`);
table(
  ['threads', 'batches', 'final size', 'add p50', 'add mean', 'save p50', 'save mean', 'save max'],
  outcomes.map((o) => {
    const a = summarize(o.addMs);
    const s = summarize(o.indexSaveMs);
    return [
      o.threads,
      a.n,
      o.texts,
      `${fixed(a.p50, 2)} ms`,
      `${fixed(a.mean, 2)} ms`,
      `${fixed(s.p50, 2)} ms`,
      `${fixed(s.mean, 2)} ms`,
      `${fixed(s.max, 2)} ms`,
    ];
  }),
);
console.log(
  '\nCPU is this process, every thread included: wall well above CPU / threads means the cores' +
    ' were busy with something else.',
);
footer(benchStarted);
