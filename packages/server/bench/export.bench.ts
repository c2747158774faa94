/**
 * POST /snippets/export at 1,000,000 snippets over real HTTP (not a test: prints figures,
 * asserts nothing).
 *
 *   npm run bench -w @adam/server -- export
 *   npx tsx --conditions=adam-source bench/export.bench.ts 20000   # a quick try on fewer rows
 *
 * Data: bench/export-data.ts (a cached data dir of 1M rows without vectors; the app's start-up
 * reconciliation is stubbed out, as in list.bench.ts, or it would embed them all).
 *
 * Each format is exported once by a client in another process (it only counts bytes and lines,
 * so its work is not in this process's figures), while this process, which runs the server,
 * asks GET /health every 10 ms and samples its own RSS. Printed next to each other, from the same
 * run: rows exported, time, rows/s, RSS growth (peak during the export minus just before),
 * /health p50/p95/max during the export and idle (before any export), the machine's 1-minute
 * load average at the end of each, and the reference: the same rows iterated with bare SQL in
 * this process (SELECT * ORDER BY id, no formatting, no HTTP). The rows are read and written on
 * each export's own thread: the server's thread only passes bytes on.
 * Last, three clients ask at once: two are served, the third is told 429 with Retry-After.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type Adam } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { LiveIndex } from '../src/services/index/live-index.js';
import { EXPORT_CONCURRENCY } from '../src/services/snippet.service.js';
import { fixed, footer, header, mib, seconds, sharedModel, summarize, table } from './common.js';
import { ensureExportData, EXPORT_ROWS } from './export-data.js';

const ROWS = Number(process.argv[2]) || EXPORT_ROWS;
const ALL_FORMATS = ['json', 'jsonl', 'csv'] as const;
/** FORMATS=csv,jsonl runs only those. */
const FORMATS = ALL_FORMATS.filter((f) => (process.env.FORMATS ?? f).split(',').includes(f));
const HEALTH_GAP_MS = 10;
const IDLE_PROBES = 300;

header(`export: POST /api/v1/snippets/export at ${ROWS.toLocaleString('en')} snippets`);
const benchStarted = performance.now();

/**
 * The download client, run by node in its own process: posts the export, reads the body as it
 * comes, counts bytes and line ends, keeps the last 200 bytes (the JSON's total), prints a line.
 */
const CLIENT = `
const [url, key, format] = process.argv.slice(1);
const started = performance.now();
const res = await fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-api-key': key },
  body: JSON.stringify({ format }),
});
let bytes = 0, lines = 0, firstByteMs = null, tail = Buffer.alloc(0);
for await (const chunk of res.body) {
  if (firstByteMs === null) firstByteMs = performance.now() - started;
  bytes += chunk.length;
  for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  tail = Buffer.concat([tail, Buffer.from(chunk)]).subarray(-200);
}
console.log(JSON.stringify({
  status: res.status, retryAfter: res.headers.get('retry-after'), bytes, lines,
  firstByteMs, ms: performance.now() - started, tail: tail.toString('utf8'),
}));
`;

interface ClientResult {
  status: number;
  retryAfter: string | null;
  bytes: number;
  lines: number;
  firstByteMs: number | null;
  ms: number;
  tail: string;
}

function runClient(url: string, key: string, format: string): Promise<ClientResult> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CLIENT, url, key, format], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`export client exited with ${code}: ${out}`));
      else resolve(JSON.parse(out) as ClientResult);
    });
  });
}

/** Rows in an exported file, from what the client counted. */
function rowsOf(format: string, r: ClientResult): number {
  if (r.status !== 200) return 0;
  if (format === 'jsonl') return r.lines;
  if (format === 'csv') return r.lines - 1; // the header; generated texts hold no line break
  return Number(/"total": (\d+)/.exec(r.tail)?.[1] ?? NaN);
}

/**
 * Probes /health every HEALTH_GAP_MS and samples RSS until `done` settles. Answers the peak, and
 * the peak of each half of the run: memory that grows with the rows read shows as a second half
 * above the first; a fixed reserve (V8's young generation grown to its maximum under a steady
 * allocation rate) shows in both.
 */
async function probeWhile(base: string, done: Promise<unknown>) {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  const samples: { at: number; rss: number }[] = [];
  const sample = () => samples.push({ at: performance.now(), rss: process.memoryUsage.rss() });
  sample();
  const sampler = setInterval(sample, 20);
  try {
    while (!finished) {
      const t = performance.now();
      const res = await fetch(`${base}/health`);
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      sample();
      await new Promise((r) => setTimeout(r, HEALTH_GAP_MS));
    }
  } finally {
    clearInterval(sampler);
  }
  const middle = (samples[0]!.at + samples[samples.length - 1]!.at) / 2;
  const peakOf = (list: typeof samples) => Math.max(...list.map((x) => x.rss));
  return {
    health: summarize(latencies),
    peak: peakOf(samples),
    firstHalf: peakOf(samples.filter((x) => x.at <= middle)),
    secondHalf: peakOf(samples.filter((x) => x.at > middle)),
  };
}

/** The machine's 1-minute load average (other processes included: the figures' context). */
const load = () => os.loadavg()[0]!.toFixed(2);

/** RSS once the garbage of what ran before is collected (node --expose-gc; else as it is). */
function settledRss(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage.rss();
}

await sharedModel();
const dataDir = await ensureExportData(ROWS);
// The rows have no vectors: start-up reconciliation would embed all of them.
LiveIndex.prototype.reconcile = () =>
  Promise.resolve({
    total_disk: 0,
    total_index: 0,
    marked_pending: 0,
    reindexed: 0,
    index_only: 0,
  });

let adam: Adam | null = null;
try {
  adam = await buildApp(
    loadConfig({ ADAM_DATA_DIR: dataDir, ADAM_WEB_DIST: '', ADAM_LOG_LEVEL: 'warn' }),
  );
  await adam.reconciled;
  await adam.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = adam.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${addr.port}/api/v1`;
  const dbBytes = ['adam.db', 'adam.db-wal']
    .map((f) => fs.statSync(path.join(dataDir, f), { throwIfNoEntry: false })?.size ?? 0)
    .reduce((a, b) => a + b, 0);
  const total = adam.db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;
  console.log(`database ${mib(dbBytes)}, ${total.toLocaleString('en')} snippets`);

  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
  });
  const { api_key: key } = (await login.json()) as { api_key: string };
  if (login.status !== 200 || !key) throw new Error(`login failed: ${login.status}`);

  // Idle /health, same probe loop, nothing else running.
  const idleLatencies: number[] = [];
  for (let i = 0; i < IDLE_PROBES; i++) {
    const t = performance.now();
    await (await fetch(`${base}/health`)).arrayBuffer();
    idleLatencies.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, HEALTH_GAP_MS));
  }
  const idle = summarize(idleLatencies);
  const idleLoad = load();

  // Reference: the same rows, bare SQL, no formatting, no HTTP.
  let sqlRows = 0;
  const sqlStarted = performance.now();
  for (const row of adam.db.prepare('SELECT * FROM snippets ORDER BY id').iterate()) {
    if (row) sqlRows++;
  }
  const sqlMs = performance.now() - sqlStarted;

  const out: (string | number)[][] = [];
  for (const format of FORMATS) {
    const before = settledRss();
    const client = runClient(`${base}/snippets/export`, key, format);
    const { health, peak, firstHalf, secondHalf } = await probeWhile(base, client);
    const r = await client;
    const rows = rowsOf(format, r);
    out.push([
      format,
      r.status,
      rows.toLocaleString('en'),
      mib(r.bytes),
      seconds(r.ms),
      fixed(r.firstByteMs ?? NaN, 0),
      Math.round(rows / (r.ms / 1000)).toLocaleString('en'),
      mib(peak - before),
      mib(secondHalf - firstHalf),
      fixed(health.p50, 1),
      fixed(health.p95, 1),
      fixed(health.max, 1),
      health.n,
      load(),
    ]);
    console.log(`  ${out[out.length - 1]!.join(' | ')}`);
  }
  out.push([
    'bare SQL (reference)',
    '-',
    sqlRows.toLocaleString('en'),
    '-',
    seconds(sqlMs),
    '-',
    Math.round(sqlRows / (sqlMs / 1000)).toLocaleString('en'),
    '-',
    '-',
    '-',
    '-',
    '-',
    '-',
    '-',
  ]);

  console.log(
    `\nidle /health (same run, ${IDLE_PROBES} probes, ${HEALTH_GAP_MS} ms apart): ` +
      `p50 ${fixed(idle.p50, 1)} ms, p95 ${fixed(idle.p95, 1)} ms, max ${fixed(idle.max, 1)} ms; ` +
      `load average ${idleLoad} (${os.cpus().length} cores)`,
  );
  table(
    [
      'export',
      'status',
      'rows',
      'size',
      'time',
      'first byte ms',
      'rows/s',
      'RSS growth',
      'of it in 2nd half',
      'health p50 ms',
      'health p95 ms',
      'health max ms',
      'probes',
      'load avg',
    ],
    out,
  );

  // Three at once: EXPORT_CONCURRENCY are served, the others are told when to come back.
  const before = settledRss();
  const started = performance.now();
  const clients = Promise.all(
    [0, 1, 2].map(() => runClient(`${base}/snippets/export`, key, 'csv')),
  );
  const { health, peak } = await probeWhile(base, clients);
  const results = await clients;
  console.log(
    `\nthree CSV exports at once (limit ${EXPORT_CONCURRENCY}), all done in ${seconds(performance.now() - started)}; ` +
      `RSS growth ${mib(peak - before)}; /health p50 ${fixed(health.p50, 1)} ms, p95 ${fixed(health.p95, 1)} ms, ` +
      `max ${fixed(health.max, 1)} ms; load average ${load()}`,
  );
  table(
    ['client', 'status', 'Retry-After', 'rows', 'time'],
    results.map((r, i) => [
      i + 1,
      r.status,
      r.retryAfter ?? '-',
      rowsOf('csv', r).toLocaleString('en'),
      seconds(r.ms),
    ]),
  );
} finally {
  await adam?.app.close();
}
console.log();
footer(benchStarted);
