/**
 * Keyword and hybrid search through HTTP on a real data dir (not a test: prints figures, asserts
 * nothing).
 *
 *   SEARCH_HTTP_DIR=<a COPY of /tmp/adam-bench-200000 or of the 1M dir> \
 *     npm run bench -w @adam/server -- search-http
 *
 * The server writes to its data dir (keyword change log, saves): point it at a copy, never at
 * the original. The real app is started on it (buildApp + listen) and, once the keyword engine
 * answers, every query is sent once per mode through POST /snippets/search (k 10), one at a
 * time, interleaved with GET /health (the same run's floor for an HTTP call). Queries, three
 * kinds: "common" (two words each in over 3% of the rows), "rare" (one word in 2–20 rows),
 * "question" (10–15 words of a fixture-page sentence the rows were not cut from).
 *
 * Beside each figure: the server's own latency_ms (so HTTP + JSON is the difference), the
 * engine's top 50 alone (called in process, its thread hop included) and the time spent in each
 * stage of the call, summed per request from wrappers around the stages' methods: the change
 * log's drain, the keyword side, the query's embedding, the vector index, the rows and vectors
 * read from SQLite. SEARCH_HTTP_PROFILE=<file.cpuprofile> also records the main thread's CPU
 * profile over the timed searches and prints its top functions by self time.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { Engine } from '../src/engine/engine.js';
import { KeywordService } from '../src/keyword/keyword.service.js';
import { ftsMatch, queryWords } from '../src/services/hybrid-search.js';
import { SnippetRepository } from '../src/store/snippet.repository.js';
import {
  benchLogin,
  fixed,
  footer,
  header,
  pageSentences,
  rng,
  serverWarm,
  summarize,
  table,
} from './common.js';

const DIR = process.env.SEARCH_HTTP_DIR;
if (!DIR) throw new Error('SEARCH_HTTP_DIR=<a copy of a bench data dir> is required');
const PER_KIND = Number(process.env.SEARCH_HTTP_PER_KIND ?? 60);
const WARMUP = 10;
const MODES = (process.env.SEARCH_HTTP_MODES ?? 'keyword,hybrid').split(',');
const STAGE_NAMES = ['drain', 'keyword', 'scores', 'embed', 'index', 'rows', 'vectors'] as const;
type Stage = (typeof STAGE_NAMES)[number];

/** The profile's functions by self time (samples × interval), top 25. */
function printTopSelf(profile: {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  startTime: number;
  endTime: number;
}): void {
  const byNode = new Map<number, number>();
  for (const id of profile.samples ?? []) byNode.set(id, (byNode.get(id) ?? 0) + 1);
  const perSample = (profile.endTime - profile.startTime) / 1000 / (profile.samples?.length || 1);
  const byFn = new Map<string, number>();
  for (const n of profile.nodes) {
    const c = byNode.get(n.id);
    if (!c) continue;
    const f = n.callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    byFn.set(name, (byFn.get(name) ?? 0) + c * perSample);
  }
  const top = [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.log('\nmain thread, self time over the timed loop (ms)');
  table(
    ['function', 'ms'],
    top.map(([n, ms]) => [n.slice(0, 110), fixed(ms, 0)]),
  );
}

header(`search-http: keyword and hybrid search through HTTP on ${path.basename(DIR)}`);
const benchStarted = performance.now();

// Stage timers: each wrapped method adds its wall time to the current request's stage.
const spent = new Map<Stage, number>();
function timeStage<T extends object>(proto: T, method: keyof T & string, stage: Stage): void {
  const original = proto[method] as unknown as (...a: unknown[]) => unknown;
  (proto as Record<string, unknown>)[method] = function (this: unknown, ...args: unknown[]) {
    const t = performance.now();
    const add = () => spent.set(stage, (spent.get(stage) ?? 0) + performance.now() - t);
    const r = original.apply(this, args);
    if (r instanceof Promise) return r.finally(add);
    add();
    return r;
  };
}
timeStage(KeywordService.prototype, 'sync', 'drain');
timeStage(KeywordService.prototype, 'keywordSearch', 'keyword');
timeStage(KeywordService.prototype, 'keywordScores', 'scores');
timeStage(Engine.prototype, 'embed', 'embed');
timeStage(SnippetRepository.prototype, 'findByIds', 'rows');
timeStage(SnippetRepository.prototype, 'storedVectors', 'vectors');

const adam = await buildApp(
  loadConfig({ ADAM_DATA_DIR: DIR, ADAM_WEB_DIST: '', ADAM_LOG_LEVEL: 'warn' }),
);
await adam.app.listen({ port: 0, host: '127.0.0.1' });
try {
  await adam.reconciled;
  const keyword = adam.services.keyword;
  const index = adam.services.index;
  // The figures below are of the server once its keyword engine answers and, after a load, the
  // index's columns are filled (serverWarm).
  const warm = await serverWarm(adam);
  console.log(`keyword engine ready after ${fixed(warm.keywordS, 1)} s`);
  console.log(`index columns filled after ${fixed(warm.columnsS, 1)} s more`);
  timeStage(index, 'search', 'index');
  // The drain is inside keywordSearch: its time is counted apart, and taken off the keyword side.
  const { base, key } = await benchLogin(adam);

  // Queries: words of a fixed sample of rows by their document frequency (the engine's count).
  const db = adam.db;
  const size = db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;
  const df = async (w: string) => {
    const m = ftsMatch(w, 'any');
    return m && !m.includes(' OR ') ? ((await keyword.keywordPage(m, 0, 1, {}))?.total ?? 0) : 0;
  };
  const sample = db
    .prepare('SELECT text FROM snippets WHERE id % 997 = 1 LIMIT 300')
    .pluck()
    .all() as string[];
  const words = [...new Set(sample.flatMap((t) => queryWords(t.toLowerCase())))].filter((w) =>
    /^[a-z0-9]{3,}$/.test(w),
  );
  const common: string[] = [];
  const rare: string[] = [];
  for (const w of words) {
    const n = await df(w);
    if (n > size * 0.03 && /^[a-z]{4,}$/.test(w)) common.push(w);
    else if (n >= 2 && n <= 20) rare.push(w);
  }
  const rand = rng(36);
  const pick = (a: string[]) => a[Math.floor(rand() * a.length)]!;
  const queries: { kind: string; text: string }[] = [];
  const total = PER_KIND + WARMUP;
  for (let i = 0; i < total && common.length > 1; i++)
    queries.push({ kind: 'common', text: `${pick(common)} ${pick(common)}` });
  for (let i = 0; i < total && rare.length > 0; i++)
    queries.push({ kind: 'rare', text: pick(rare) });
  for (let n = 100_000, got = 0; got < total; n++) {
    for (const s of pageSentences(n).sentences) {
      const w = queryWords(s);
      if (w.length < 10) continue;
      queries.push({ kind: 'question', text: w.slice(0, 10 + Math.floor(rand() * 6)).join(' ') });
      got++;
      break;
    }
  }
  console.log(
    `${size.toLocaleString('en')} snippets; words sampled: ${common.length} common, ${rare.length} rare`,
  );

  const search = async (query: string, mode: string) => {
    const r = await fetch(`${base}/snippets/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ query, k: 10, mode }),
    });
    if (r.status !== 200) throw new Error(`search: ${r.status} ${await r.text()}`);
    return (await r.json()) as { latency_ms: number; results: unknown[] };
  };
  const health = async () => {
    const r = await fetch(`${base}/health`);
    await r.text();
  };

  const profileFile = process.env.SEARCH_HTTP_PROFILE;
  const session = profileFile ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const cpuStarted = process.cpuUsage();
  const rows: (string | number)[][] = [];
  const stageRows: (string | number)[][] = [];
  for (const kind of ['common', 'rare', 'question']) {
    const mine = queries.filter((q) => q.kind === kind);
    if (mine.length === 0) continue;
    const healthMs: number[] = [];
    const engineMs: number[] = [];
    for (const q of mine.slice(WARMUP)) {
      const match = ftsMatch(q.text, 'any');
      if (!match) continue;
      const t = performance.now();
      await keyword.keywordSearch(match, 50, {});
      engineMs.push(performance.now() - t);
    }
    for (const mode of MODES) {
      for (const q of mine.slice(0, WARMUP)) await search(q.text, mode);
      const http: number[] = [];
      const server: number[] = [];
      const stages = new Map<Stage, number[]>(STAGE_NAMES.map((s) => [s, []]));
      for (const q of mine.slice(WARMUP)) {
        let t = performance.now();
        await health();
        healthMs.push(performance.now() - t);
        spent.clear();
        t = performance.now();
        const r = await search(q.text, mode);
        http.push(performance.now() - t);
        server.push(r.latency_ms);
        for (const s of STAGE_NAMES) {
          let v = spent.get(s) ?? 0;
          if (s === 'keyword') v -= spent.get('drain') ?? 0;
          stages.get(s)!.push(v);
        }
      }
      const h = summarize(http);
      const sv = summarize(server);
      rows.push([kind, mode, fixed(h.p50, 1), fixed(h.p95, 1), fixed(sv.p50, 1), fixed(sv.p95, 1)]);
      stageRows.push([
        kind,
        mode,
        ...STAGE_NAMES.map((s) => {
          const x = summarize(stages.get(s)!);
          return `${fixed(x.p50, 2)}/${fixed(x.p95, 1)}`;
        }),
      ]);
    }
    const hh = summarize(healthMs);
    const e = summarize(engineMs);
    rows.push([kind, 'ref: GET /health', fixed(hh.p50, 1), fixed(hh.p95, 1), '', '']);
    rows.push([kind, 'ref: engine top 50 alone', fixed(e.p50, 1), fixed(e.p95, 1), '', '']);
  }
  const cpu = process.cpuUsage(cpuStarted);
  console.log(
    `process CPU over the timed loop: ${fixed((cpu.user + cpu.system) / 1000 / 1000, 1)} s ` +
      `(client, server and its threads: the machine's load does not inflate it)`,
  );
  if (session && profileFile) {
    const { profile } = await session.post('Profiler.stop');
    fs.writeFileSync(profileFile, JSON.stringify(profile));
    printTopSelf(profile);
  }
  console.log(`\n${PER_KIND} queries per kind, k 10, one at a time (ms)`);
  table(['kind', 'mode', 'HTTP p50', 'HTTP p95', 'server p50', 'server p95'], rows);
  console.log('\nStages per request, p50/p95 ms (wall time inside each stage)');
  table(['kind', 'mode', ...STAGE_NAMES], stageRows);
} finally {
  await adam.app.close();
}
footer(benchStarted);
