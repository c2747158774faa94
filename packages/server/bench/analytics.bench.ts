/**
 * Analytics at 1,000,000 snippets (not a test: prints figures, asserts nothing).
 *
 *   npm run bench -w @adam/server -- analytics
 *
 * Writes 1M snippet rows straight into a fresh store (one prepared INSERT, transactions of
 * 50,000 rows) so every row goes through the triggers that keep the aggregate tables (and the
 * FTS trigger), then times each analytics endpoint's service call, without HTTP, next to a
 * reference: the same figures computed by scanning the snippets (json_each over the metadata
 * of every row of the period). The figures of both are compared before timing.
 *
 * Rows: created_at uniform over the last 60 days; the 8 emotion scores each 0 half of the
 * time, else uniform in 0..1 (4 decimals); ~450 bytes of metadata like the pipeline's (theme
 * scores, entities, a diagnostic); 4 themes, 4 languages and unknown, quality uniform in 0..1.
 * Also 5,000 sources, 5,000 jobs over the last 48 hours and 10,000 activity lines.
 *
 * Separately, on a store of the schema before the analytics (migrations 1–4): the insert rate
 * of 100,000 rows without the analytics triggers, the time migration 5 takes to backfill their
 * aggregates, then the rate of 100,000 more rows with the triggers, on the same store.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { EMOTIONS, THEMES } from '@adam/contracts';
import type { QueueDriver } from '../src/queue/queue-driver.js';
import { createLogger, LogSink } from '../src/logging.js';
import { EventBus } from '../src/lib/event-bus.js';
import { ActivityService } from '../src/services/activity.service.js';
import { AnalyticsService } from '../src/services/analytics.service.js';
import { JobService } from '../src/services/job.service.js';
import { ActivityRepository } from '../src/store/activity.repository.js';
import { AnalyticsRepository } from '../src/store/analytics.repository.js';
import { migrate, openDatabase, type Db } from '../src/store/db.js';
import { JobRepository } from '../src/store/job.repository.js';
import { migrations } from '../src/store/migrations/index.js';
import { SourceRepository } from '../src/store/source.repository.js';
import {
  fixed,
  footer,
  header,
  mib,
  removeDir,
  rng,
  seconds,
  summarize,
  table,
  tempDataDir,
} from './common.js';

/** A smaller count may be given for a quick try: `tsx bench/analytics.bench.ts 20000`. */
const ROWS = Number(process.argv[2]) || 1_000_000;
const SIDE_ROWS = Math.min(ROWS, 100_000);
const CHUNK = 50_000;
const DAYS = 60;
const SERVICE_RUNS = 200;
const REFERENCE_RUNS = 5;
const SERVICE_BUDGET_MS = 20_000;
const REFERENCE_BUDGET_MS = 60_000;
const LANGUAGES = ['en', 'fr', 'de', 'es', null] as const;
const WORDS =
  'river stone light market engine garden winter harbour signal orbit forest letter bridge ' +
  'window mountain theory canvas thunder island machine';

header(`analytics: aggregate tables vs full scans at ${ROWS.toLocaleString('en')} snippets`);
const benchStarted = performance.now();
const NOW = Date.now();
const DAY_MS = 86_400_000;

function insertSnippets(db: Db, count: number, seed: number): number {
  const rand = rng(seed);
  const words = WORDS.split(' ');
  const stmt = db.prepare(
    `INSERT INTO snippets (text, text_hash, theme, quality_score, language, word_count, size_bytes,
       source_title, source_url, job_id, metadata, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 14, 90, ?, ?, ?, ?, ?, ?)`,
  );
  const started = performance.now();
  for (let done = 0; done < count;) {
    const n = Math.min(CHUNK, count - done);
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const id = done + i;
        const text = `Bench snippet ${seed}-${id}: ${Array.from({ length: 12 }, () => words[Math.floor(rand() * words.length)]).join(' ')}`;
        const emotions = Object.fromEntries(
          EMOTIONS.map((e) => [e, rand() < 0.5 ? 0 : Math.round(rand() * 10_000) / 10_000]),
        );
        const metadata = JSON.stringify({
          segmentation_method: 'builtin',
          segmentation_fallback_reason: null,
          segmentation_diagnostic: [{ snippet: text.slice(0, 60), score: 0.7, status: 'accepted' }],
          quality_score_detailed: { length: 0.8, structure: 0.6, density: 0.7 },
          theme_scores: Object.fromEntries(THEMES.map((t) => [t, Math.round(rand() * 100) / 100])),
          emotions,
          entities: [{ text: 'River', type: 'place' }],
          language_confidence: 0.93,
          sentence_count: 2,
          embedder: 'builtin-384',
        });
        const at = new Date(NOW - rand() * DAYS * DAY_MS).toISOString();
        const source = id % 5000;
        stmt.run(
          text,
          `${seed}-${id}`,
          THEMES[Math.floor(rand() * THEMES.length)]!,
          Math.round(rand() * 10_000) / 10_000,
          LANGUAGES[Math.floor(rand() * LANGUAGES.length)] ?? null,
          `Source ${source}`,
          `https://bench.example/page/${source}`,
          1 + (id % 5000),
          metadata,
          at,
          at,
        );
      }
    })();
    done += n;
  }
  return performance.now() - started;
}

function insertSideTables(db: Db): void {
  const rand = rng(11);
  db.transaction(() => {
    const src = db.prepare(
      `INSERT INTO sources (url, domain, title, segments_count, created_at, updated_at)
       VALUES (?, 'bench.example', ?, ?, ?, ?)`,
    );
    for (let i = 0; i < 5000; i++) {
      const at = new Date(NOW - rand() * DAYS * DAY_MS).toISOString();
      src.run(`https://bench.example/page/${i}`, `Source ${i}`, Math.floor(rand() * 400), at, at);
    }
    const job = db.prepare(
      `INSERT INTO jobs (type, status, urls, stats, created_at, started_at, completed_at, failed_at, updated_at)
       VALUES ('process_urls', ?, ?, '{"segments_created": 10}', ?, ?, ?, ?, ?)`,
    );
    for (let i = 0; i < 5000; i++) {
      const created = NOW - rand() * 2 * DAY_MS;
      const started = created + rand() * 60_000;
      const ended = started + rand() * 600_000;
      const failed = rand() < 0.1;
      const iso = (ms: number) => new Date(ms).toISOString();
      job.run(
        failed ? 'failed' : 'completed',
        JSON.stringify([`https://bench.example/page/${i}`, `https://other.example/${i}`]),
        iso(created),
        iso(started),
        failed ? null : iso(ended),
        failed ? iso(ended) : null,
        iso(ended),
      );
    }
    const act = db.prepare(
      `INSERT INTO activity (kind, message, level, job_id, created_at) VALUES ('job_completed', ?, 'success', ?, ?)`,
    );
    for (let i = 0; i < 10_000; i++) {
      act.run(
        `Job ${i} completed: 10 segments`,
        i,
        new Date(NOW - (10_000 - i) * 1000).toISOString(),
      );
    }
  })();
}

// ------------------------------------------------------------------ references (full scans)

const PRESENT = 0.1;
interface EmotionFigures {
  total: number;
  with_emotion: number;
  count: Record<string, number>;
  dominant: Record<string, number>;
}

function referenceEmotions(db: Db, sinceIso: string): EmotionFigures {
  const totals = db
    .prepare(
      `SELECT COUNT(*) AS n, SUM(EXISTS (SELECT 1 FROM json_each(metadata, '$.emotions') WHERE value >= ${PRESENT})) AS w
       FROM snippets WHERE created_at >= ?`,
    )
    .get(sinceIso) as { n: number; w: number | null };
  const per = db
    .prepare(
      `SELECT e.key AS emotion, SUM(e.value >= ${PRESENT}) AS n_present, SUM(e.value) AS score_sum,
         SUM(IIF(e.value >= ${PRESENT}, e.value, 0)) AS present_sum
       FROM snippets s, json_each(s.metadata, '$.emotions') e WHERE s.created_at >= ? GROUP BY e.key`,
    )
    .all(sinceIso) as { emotion: string; n_present: number }[];
  const dom = db
    .prepare(
      `SELECT dominant, COUNT(*) AS n FROM (
         SELECT (SELECT key FROM json_each(metadata, '$.emotions') WHERE value >= ${PRESENT}
                 ORDER BY value DESC, key LIMIT 1) AS dominant
         FROM snippets WHERE created_at >= ?) WHERE dominant IS NOT NULL GROUP BY dominant`,
    )
    .all(sinceIso) as { dominant: string; n: number }[];
  return {
    total: totals.n,
    with_emotion: totals.w ?? 0,
    count: Object.fromEntries(per.map((p) => [p.emotion, p.n_present])),
    dominant: Object.fromEntries(dom.map((d) => [d.dominant, d.n])),
  };
}

function referenceTimeline(db: Db, sinceIso: string): number {
  const perHour = db
    .prepare(
      `SELECT substr(s.created_at, 1, 13) AS hour, e.key, COUNT(*) AS n, SUM(e.value >= ${PRESENT}) AS p, SUM(e.value) AS v
       FROM snippets s, json_each(s.metadata, '$.emotions') e WHERE s.created_at >= ? GROUP BY hour, e.key`,
    )
    .all(sinceIso) as { n: number }[];
  return perHour.length;
}

function referenceOverview(db: Db): { total: number; themes: Record<string, number> } {
  const themes = db
    .prepare('SELECT theme, COUNT(*) AS n, SUM(quality_score) AS q FROM snippets GROUP BY theme')
    .all() as { theme: string; n: number }[];
  return {
    total: themes.reduce((a, t) => a + t.n, 0),
    themes: Object.fromEntries(themes.map((t) => [t.theme, t.n])),
  };
}

function referenceSnippets(db: Db, sinceIso: string): { total: number; days: number } {
  const rows = db
    .prepare(
      `SELECT theme, COALESCE(language, '') AS language, MIN(9, CAST(quality_score * 10 AS INTEGER)) AS b,
         COUNT(*) AS n, SUM(quality_score) AS q FROM snippets GROUP BY 1, 2, 3`,
    )
    .all() as { n: number }[];
  const days = db
    .prepare(
      'SELECT substr(created_at, 1, 10) AS day, COUNT(*) AS n FROM snippets WHERE created_at >= ? GROUP BY day',
    )
    .all(sinceIso);
  return { total: rows.reduce((a, r) => a + r.n, 0), days: days.length };
}

function referenceActivityTimeline(db: Db, sinceIso: string): number {
  return (
    db
      .prepare(
        'SELECT substr(created_at, 1, 13) AS hour, COUNT(*) AS n FROM snippets WHERE created_at >= ? GROUP BY hour',
      )
      .all(sinceIso) as { n: number }[]
  ).reduce((a, r) => a + r.n, 0);
}

function time(fn: () => unknown, runs: number, budgetMs: number, warmup: number) {
  for (let i = 0; i < warmup; i++) fn();
  const samples: number[] = [];
  const started = performance.now();
  while (
    samples.length < runs &&
    (samples.length === 0 || performance.now() - started < budgetMs)
  ) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  return summarize(samples);
}

// ------------------------------------------------------------------ run

const dataDir = tempDataDir('adam-bench-analytics-');
const sideDir = tempDataDir('adam-bench-analytics-side-');
try {
  // Side measurement first: the insert rate without the analytics triggers, then the backfill.
  const side = new Database(path.join(sideDir, 'side.db'));
  side.pragma('journal_mode = WAL');
  side.pragma('synchronous = NORMAL');
  migrate(
    side,
    migrations.filter((m) => m.id < 5),
  );
  const plainMs = insertSnippets(side, SIDE_ROWS, 2);
  const backfillStarted = performance.now();
  migrate(side, migrations);
  const backfillMs = performance.now() - backfillStarted;
  const triggeredMs = insertSnippets(side, SIDE_ROWS, 3);
  side.close();

  const db = openDatabase(dataDir);
  const insertMs = insertSnippets(db, ROWS, 1);
  insertSideTables(db);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.exec('ANALYZE');
  const dbBytes = fs.statSync(path.join(dataDir, 'adam.db')).size;
  const aggregateRows = (
    ['snippet_stats', 'snippet_hourly', 'emotion_hourly', 'emotion_totals'] as const
  ).map((t) => `${t} ${db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck().get() as number}`);
  console.log(
    `insert through the triggers: ${ROWS.toLocaleString('en')} rows in ${seconds(insertMs)} ` +
      `(${fixed(ROWS / (insertMs / 1000), 0)} rows/s); database ${mib(dbBytes)}`,
  );
  const side100k = SIDE_ROWS.toLocaleString('en');
  console.log(
    `side store: ${side100k} rows without the analytics triggers (FTS trigger only) at ` +
      `${fixed(SIDE_ROWS / (plainMs / 1000), 0)} rows/s; migration 5 backfilled them in ` +
      `${seconds(backfillMs)}; ${side100k} more with the triggers at ` +
      `${fixed(SIDE_ROWS / (triggeredMs / 1000), 0)} rows/s`,
  );
  console.log(`aggregate rows: ${aggregateRows.join(', ')}\n`);

  const sink = new LogSink();
  const log = createLogger({ level: 'warn', sink, stdout: false });
  const bus = new EventBus();
  const jobRepo = new JobRepository(db);
  const analytics = new AnalyticsService({
    analytics: new AnalyticsRepository(db),
    jobs: jobRepo,
    sources: new SourceRepository(db),
    index: { size: ROWS, diskBytes: () => 0, cacheHitRate: () => null },
    bus,
    log,
    segmentsPerSecond: () => 0,
  });
  const activity = new ActivityService({ activity: new ActivityRepository(db), bus, log });
  const jobs = new JobService({ jobs: jobRepo, queue: {} as QueueDriver, bus, log });

  // The same figures both ways, before any timing.
  const check = (name: string, ok: boolean) => {
    if (!ok) throw new Error(`${name}: the service and the reference disagree`);
  };
  const periodSince = (p: 'day' | 'month' | 'all') => {
    const e = analytics.emotions(p);
    return { e, since: e.since ?? '' };
  };
  for (const p of ['day', 'month', 'all'] as const) {
    const { e, since } = periodSince(p);
    const ref = referenceEmotions(db, since);
    check(
      `emotions ${p}`,
      e.total_snippets === ref.total &&
        e.with_emotion === ref.with_emotion &&
        e.emotions.every(
          (f) =>
            f.count === (ref.count[f.emotion] ?? 0) &&
            f.dominant_count === (ref.dominant[f.emotion] ?? 0),
        ),
    );
  }
  const ov = analytics.overview();
  const refOv = referenceOverview(db);
  check(
    'overview',
    ov.total_snippets === refOv.total &&
      Object.entries(refOv.themes).every(([t, n]) => ov.themes[t] === n),
  );
  const sn = analytics.snippets(30);
  const refSn = referenceSnippets(db, `${sn.growth[0]!.day}`);
  check('snippets', sn.total === refSn.total);
  const at = analytics.activityTimeline('day');
  check(
    'activity timeline',
    at.buckets.reduce((a, b) => a + b.snippets, 0) ===
      referenceActivityTimeline(db, at.buckets[0]!.start),
  );
  console.log('figures: the services and the full scans agree (totals, emotions, themes)\n');

  const day = periodSince('day').since;
  const month = periodSince('month').since;
  const t720 = analytics.emotionTimeline(720).buckets[0]!.hour;
  const growthSince = sn.growth[0]!.day;
  const dayTimeline = at.buckets[0]!.start;
  const cases: { name: string; service: () => unknown; reference: (() => unknown) | null }[] = [
    {
      name: 'emotions?period=day',
      service: () => analytics.emotions('day'),
      reference: () => referenceEmotions(db, day),
    },
    {
      name: 'emotions?period=month',
      service: () => analytics.emotions('month'),
      reference: () => referenceEmotions(db, month),
    },
    {
      name: 'emotions?period=all',
      service: () => analytics.emotions('all'),
      reference: () => referenceEmotions(db, ''),
    },
    {
      name: 'emotions/distribution?period=all',
      service: () => analytics.distribution('all'),
      reference: () => referenceEmotions(db, ''),
    },
    {
      name: 'emotions/timeline?hours=720',
      service: () => analytics.emotionTimeline(720),
      reference: () => referenceTimeline(db, t720),
    },
    {
      name: 'activity/timeline?period=day',
      service: () => analytics.activityTimeline('day'),
      reference: () => referenceActivityTimeline(db, dayTimeline),
    },
    {
      name: 'activity/timeline?period=hour',
      service: () => analytics.activityTimeline('hour'),
      reference: null,
    },
    { name: 'activity/recent?limit=100', service: () => activity.recent(100), reference: null },
    {
      name: 'overview',
      service: () => analytics.overview(),
      reference: () => referenceOverview(db),
    },
    {
      name: 'snippets?days=30',
      service: () => analytics.snippets(30),
      reference: () => referenceSnippets(db, growthSince),
    },
    { name: 'sources/jobs/throughput', service: () => analytics.throughput(), reference: null },
    { name: 'sources/jobs/find?q=4242', service: () => jobs.find('4242', 50), reference: null },
    {
      name: 'sources/jobs/find?q=page/42',
      service: () => jobs.find('page/42', 50),
      reference: null,
    },
  ];

  const out: (string | number)[][] = [];
  for (const c of cases) {
    const s = time(c.service, SERVICE_RUNS, SERVICE_BUDGET_MS, 3);
    const r = c.reference ? time(c.reference, REFERENCE_RUNS, REFERENCE_BUDGET_MS, 1) : null;
    out.push([
      c.name,
      s.n,
      fixed(s.p50, 3),
      fixed(s.p99, 3),
      r ? r.n : '-',
      r ? fixed(r.p50, 1) : '-',
      r ? fixed(r.p99, 1) : '-',
      r ? `${fixed(r.p50 / s.p50, 0)}x` : '-',
    ]);
  }
  console.log(
    `service call (aggregates) vs reference (full scan of the period's snippets), in ms:`,
  );
  table(['call', 'n', 'p50', 'p99', 'ref n', 'ref p50', 'ref p99', 'ref/svc p50'], out);
  db.close();
} finally {
  removeDir(dataDir);
  removeDir(sideDir);
}
console.log();
footer(benchStarted);
