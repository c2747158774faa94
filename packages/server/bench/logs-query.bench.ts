/**
 * GET /admin/logs's query at 1,000,000 log lines (not a test: prints figures, asserts nothing).
 *
 *   npm run bench -w @adam/server -- logs-query
 *
 * Data: a data dir cached under the temporary directory (rebuilt when its marker's version
 * differs), filled once through LogRepository.insertMany in chunks of 5,000, so with the
 * triggers a real logging fires (the trigram index of migration 10): 1M lines over the 24 hours
 * before the fill, in time order as the log sink writes them, 2% stored twice (duplicates).
 * Levels: 15% debug, 70% info, 10% warning, 5% error. Messages: request lines, job lines
 * ("Job 123 ..."), index saves; a request id appears in 3 lines only.
 *
 * Each call goes through LogService.list with the querystring parsed by the route's schema, on
 * a clock set to the fill's time (the ranges stay put between runs); no HTTP or JSON. Next to
 * them, the reference: the bare `SELECT ... FROM logs ORDER BY id DESC LIMIT 20`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LogsQuery } from '@adam/contracts';
import { LogService } from '../src/services/log.service.js';
import { openDatabase } from '../src/store/db.js';
import { LogRepository, type LogRow } from '../src/store/log.repository.js';
import { fixed, footer, header, mib, rng, seconds, summarize, table } from './common.js';

const LINES = 1_000_000;
/** Bump when the generated lines change: the cached dir is then rebuilt. */
const DATA_VERSION = 'logs-v1';
const DATA_DIR = path.join(os.tmpdir(), 'adam-bench-logs-1m');
const MARKER = path.join(DATA_DIR, 'bench-data.json');
const CHUNK = 5_000;
const REPEAT = 30;
const WARMUP = 3;
const RARE_ID = 'req-7f3a9c';

header(`logs-query: GET /admin/logs's query at ${LINES.toLocaleString('en')} log lines`);
const benchStarted = performance.now();

function* logLines(end: number): Generator<LogRow> {
  const rand = rng(11);
  const span = 24 * 3600_000 - 60_000;
  const paths = [
    '/api/v1/snippets',
    '/api/v1/admin/logs',
    '/api/v1/sources/jobs',
    '/api/v1/health',
  ];
  for (let i = 0; i < LINES; i++) {
    const timestamp = new Date(end - span + Math.floor((i * span) / LINES)).toISOString();
    const r = rand();
    const level = r < 0.15 ? 'debug' : r < 0.85 ? 'info' : r < 0.95 ? 'warning' : 'error';
    const kind = rand();
    let component: string;
    let message: string;
    if (kind < 0.6) {
      component = 'http';
      const p = paths[Math.floor(rand() * paths.length)]!;
      message = `GET ${p}?page=${1 + Math.floor(rand() * 50)} answered 200 in ${fixed(rand() * 40)} ms`;
    } else if (kind < 0.9) {
      component = 'queue';
      message = `Job ${Math.floor(i / 2000)} (process_urls) ${level === 'error' ? 'failed: fetch timed out' : `stored ${Math.floor(rand() * 30)} segments`}`;
    } else {
      component = 'index';
      message = `Vector index saved: ${Math.floor(rand() * 100_000)} vectors`;
    }
    if (i % 333_333 === 100) message = `GET /api/v1/snippets answered 500 (request ${RARE_ID})`;
    const line = { timestamp, level, component, message } as LogRow;
    yield line;
    if (rand() < 0.02) yield line;
  }
}

/** Fills DATA_DIR unless its marker says it holds this version's lines; answers the fill's time. */
function prepareData(): number {
  const marker = fs.existsSync(MARKER)
    ? (JSON.parse(fs.readFileSync(MARKER, 'utf8')) as { version: string; end: number })
    : null;
  if (marker?.version === DATA_VERSION) {
    console.log(`data: reusing ${DATA_DIR}`);
    return marker.end;
  }
  fs.rmSync(DATA_DIR, { recursive: true, force: true });
  const end = Date.now();
  const db = openDatabase(DATA_DIR);
  try {
    const repo = new LogRepository(db);
    const started = performance.now();
    let chunk: LogRow[] = [];
    let written = 0;
    for (const line of logLines(end)) {
      chunk.push(line);
      if (chunk.length < CHUNK) continue;
      repo.insertMany(chunk);
      written += chunk.length;
      chunk = [];
      if (written % 200_000 === 0)
        console.log(
          `data: ${written.toLocaleString('en')} lines, ${seconds(performance.now() - started)}`,
        );
    }
    repo.insertMany(chunk);
    written += chunk.length;
    db.pragma('wal_checkpoint(TRUNCATE)');
    console.log(
      `data: ${written.toLocaleString('en')} lines written in ${seconds(performance.now() - started)}`,
    );
  } finally {
    db.close();
  }
  fs.writeFileSync(MARKER, JSON.stringify({ version: DATA_VERSION, end }));
  return end;
}

const end = prepareData();
const db = openDatabase(DATA_DIR);
const size = (name: string) =>
  (db.prepare('SELECT SUM(pgsize) FROM dbstat WHERE name = ?').pluck().get(name) as number) ?? 0;
const lines = db.prepare('SELECT COUNT(*) FROM logs').pluck().get() as number;
console.log(
  `store: ${lines.toLocaleString('en')} lines; logs table ${mib(size('logs'))}, its indexes ${mib(
    size('logs_timestamp') + size('logs_level_timestamp'),
  )}, trigram index ${mib(size('logs_fts_data') + size('logs_fts_idx'))}\n`,
);

const logs = new LogService({ logs: new LogRepository(db), now: () => end + 30_000 });
const reference = db.prepare(
  'SELECT timestamp, level, component, message FROM logs ORDER BY id DESC LIMIT 20',
);

function time(fn: () => unknown): { ms: number[]; result: unknown } {
  let result: unknown;
  for (let i = 0; i < WARMUP; i++) result = fn();
  const ms: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    const t = performance.now();
    result = fn();
    ms.push(performance.now() - t);
  }
  return { ms, result };
}

const KINDS: [string, string][] = [
  ['first page, every level, 24h', 'range=24h'],
  ['first page, every level, 1h', 'range=1h'],
  ['first page, every level, 7d', 'range=7d'],
  ['level=error, 24h', 'range=24h&level=error'],
  ['level=warning, page 50', 'range=24h&level=warning&page=50&tail=1000'],
  ['q, common ("answered 200")', 'range=24h&q=answered%20200'],
  ['q, a job ("Job 250 ")', 'range=24h&q=Job%20250%20'],
  [`q, rare (3 lines: "${RARE_ID}")`, `range=24h&q=${RARE_ID}`],
  ['q, nowhere ("no-such-term")', 'range=24h&q=no-such-term'],
  ['q, 2 characters ("5x")', 'range=24h&q=5x'],
  ['q + level=error ("timed out")', 'range=24h&level=error&q=timed%20out'],
  ['page 500 (offset 9,980)', 'range=24h&page=500&tail=10000'],
  ['page 5,000 (offset 99,980, the deepest)', 'range=24h&page=5000&tail=100000'],
  ['page 1,000 of q "answered 200"', 'range=24h&q=answered%20200&page=1000&tail=20000'],
];

const rows: (string | number)[][] = [];
const ref = time(() => reference.all());
const refP50 = summarize(ref.ms).p50;
rows.push(['reference: ORDER BY id DESC LIMIT 20', ...figures(ref.ms), 20, '1.0']);
for (const [name, query] of KINDS) {
  const q = LogsQuery.parse(Object.fromEntries(new URLSearchParams(query)));
  const { ms, result } = time(() => logs.list(q));
  const s = summarize(ms);
  rows.push([
    name,
    ...figures(ms),
    (result as { logs: unknown[] }).logs.length,
    fixed(s.p50 / refP50),
  ]);
}
table(['call', 'p50 ms', 'p95 ms', 'max ms', 'lines', '× ref'], rows);
db.close();
footer(benchStarted);

function figures(ms: number[]): string[] {
  const s = summarize(ms);
  return [fixed(s.p50, 2), fixed(s.p95, 2), fixed(s.max, 2)];
}
