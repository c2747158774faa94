/**
 * The job history's keyset pages at 100,000 jobs (not a test: prints figures, asserts nothing).
 *
 *   npm run bench -w @adam/server -- job-history
 *
 * Data: a fresh temporary store with 100k job rows written by bare SQL over 30 days: 85%
 * completed, 10% failed, 5% cancelled; types as an operator's day mixes them; URL jobs hold
 * 1-20 URLs, saved texts a title. Each call goes through JobService.page with the querystring
 * parsed by the route's schema (no HTTP or JSON), the 500th page's cursor found by walking
 * the pages on the repository. Next to them, measured in the same run: the bare keyset SELECT (the floor) and the
 * OFFSET query the same page would cost without a cursor.
 */
import { JobHistoryQuery, type JobPage } from '@adam/contracts';
import { encodeCursor, JobService } from '../src/services/job.service.js';
import { openDatabase } from '../src/store/db.js';
import { JobRepository, type JobKey } from '../src/store/job.repository.js';
import {
  fixed,
  footer,
  header,
  removeDir,
  rng,
  seconds,
  summarize,
  table,
  tempDataDir,
} from './common.js';

const JOBS = 100_000;
const LIMIT = 200;
const REPEAT = 30;
const WARMUP = 3;

header(`job-history: keyset pages of the job history at ${JOBS.toLocaleString('en')} jobs`);
const benchStarted = performance.now();
const dir = tempDataDir('adam-bench-jobs-');
const db = openDatabase(dir);

const TYPES = ['process_urls', 'save_segments', 'sync_sources', 'rebuild_index', 'crawl_site'];
{
  const rand = rng(7);
  const end = Date.UTC(2026, 10, 27);
  const span = 30 * 86400_000;
  const insert = db.prepare(
    `INSERT INTO jobs (id, type, status, priority, priority_rank, urls, metadata, stats, created_at,
       started_at, completed_at, failed_at, cancelled_at, updated_at)
     VALUES (?, ?, ?, 'normal', 1, ?, ?, '{"segments_created":12}', ?, ?, ?, ?, ?, ?)`,
  );
  const started = performance.now();
  db.transaction(() => {
    for (let i = 1; i <= JOBS; i++) {
      const created = new Date(end - span + Math.floor((i * span) / JOBS)).toISOString();
      const r = rand();
      const status = r < 0.85 ? 'completed' : r < 0.95 ? 'failed' : 'cancelled';
      const t = rand();
      const type = TYPES[t < 0.5 ? 0 : t < 0.85 ? 1 : t < 0.95 ? 2 : t < 0.98 ? 3 : 4]!;
      const urls =
        type === 'process_urls' || type === 'sync_sources'
          ? Array.from(
              { length: 1 + Math.floor(rand() * 20) },
              (_, k) => `https://site${Math.floor(rand() * 400)}.example/article/${i}-${k}`,
            )
          : [];
      const metadata = type === 'save_segments' ? { title: `Article ${i}` } : {};
      insert.run(
        i,
        type,
        status,
        JSON.stringify(urls),
        JSON.stringify(metadata),
        created,
        created,
        status === 'completed' ? created : null,
        status === 'failed' ? created : null,
        status === 'cancelled' ? created : null,
        created,
      );
    }
  })();
  console.log(
    `data: ${JOBS.toLocaleString('en')} jobs written in ${seconds(performance.now() - started)}`,
  );
}

const repo = new JobRepository(db);
const service = new JobService({
  jobs: repo,
  queue: { submit() {}, cancel() {} } as never,
  bus: { emit() {}, on: () => () => {} } as never,
  log: { info() {}, warn() {} } as never,
});

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

const page = (query: string) => {
  const q = JobHistoryQuery.parse(Object.fromEntries(new URLSearchParams(query)));
  return service.page('history', q);
};

/** The cursor of page `n` (1-based): the pages before it walked on the repository. */
function cursorOf(statuses: string[], n: number): { cursor: string | null; walkMs: number } {
  let after: JobKey | null = null;
  const t = performance.now();
  for (let i = 1; i < n; i++) {
    const rows = repo.listPage({ statuses }, after, LIMIT);
    const last = rows.at(-1);
    if (!last) break;
    after = { created_at: last.created_at, id: last.id };
  }
  return { cursor: after ? encodeCursor(after) : null, walkMs: performance.now() - t };
}
const HISTORY = ['completed', 'failed', 'cancelled'];

const base = `limit=${LIMIT}`;
const deep = cursorOf(HISTORY, 500);
console.log(`walk: 499 pages to reach page 500 in ${seconds(deep.walkMs)}\n`);
const [createdAt, lastId] = JSON.parse(
  Buffer.from(deep.cursor ?? '', 'base64url').toString('utf8') || '[null,null]',
) as [string, number];

const keysetRef = db.prepare(
  `SELECT * FROM jobs WHERE +status IN ('completed','failed','cancelled') AND (created_at, id) < (?, ?)
   ORDER BY created_at DESC, id DESC LIMIT ${LIMIT}`,
);
const firstRef = db.prepare(
  `SELECT * FROM jobs WHERE +status IN ('completed','failed','cancelled')
   ORDER BY created_at DESC, id DESC LIMIT ${LIMIT}`,
);
const offsetRef = db.prepare(
  `SELECT * FROM jobs WHERE +status IN ('completed','failed','cancelled')
   ORDER BY created_at DESC, id DESC LIMIT ${LIMIT} OFFSET ${499 * LIMIT}`,
);

const rows: (string | number)[][] = [];
const add = (name: string, fn: () => unknown, count: (r: unknown) => number) => {
  const { ms, result } = time(fn);
  const s = summarize(ms);
  rows.push([name, fixed(s.p50, 2), fixed(s.p95, 2), fixed(s.max, 2), count(result)]);
};
const n = (r: unknown) => (r as unknown[]).length;
const jobs = (r: unknown) => (r as JobPage).jobs.length;

add('reference: bare SELECT, first page', () => firstRef.all(), n);
add('reference: bare keyset SELECT, page 500', () => keysetRef.all(createdAt, lastId), n);
add('reference: bare OFFSET 99,800 (no cursor)', () => offsetRef.all(), n);
add('service: first page', () => page(base), jobs);
add('service: page 500', () => page(`${base}&cursor=${deep.cursor}`), jobs);
add('service: status=failed, first page', () => page(`${base}&status=failed`), jobs);
const failed500 = cursorOf(['failed'], 50);
add(
  'service: status=failed, page 50',
  () => page(`${base}&status=failed&cursor=${failed500.cursor}`),
  jobs,
);
add('service: type=save_segments, first page', () => page(`${base}&type=save_segments`), jobs);
add(
  'service: created in one day, first page',
  () => page(`${base}&created_from=2026-11-10&created_to=2026-11-10T23:59:59.999Z`),
  jobs,
);
add('service: q=site42.example (common)', () => page(`${base}&q=site42.example`), jobs);
add('service: q=Article 99999 (rare)', () => page(`${base}&q=Article%2099999`), jobs);
add('service: q=nowhere (scans all)', () => page(`${base}&q=no-such-text`), jobs);
table(['call', 'p50 ms', 'p95 ms', 'max ms', 'rows'], rows);
console.log(
  '\nThe service figures include the per-status counts (every page answers by_status) and, with' +
    ' a type, date or text filter, a total counted up to 10,000.',
);

db.close();
removeDir(dir);
footer(benchStarted);
