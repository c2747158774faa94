import { EMOTION_PRESENT_THRESHOLD, EMOTIONS } from '@adam/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { percentile } from '../src/lib/stats.js';
import { ARTICLES } from './corpus.js';
import { startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import { saveText, startServer, type TestServer } from './helpers.js';

/** Texts the emotion lexicon has plenty to say about, one mood each. */
const MOODS = {
  joy: `The children were happy and laughed with delight at the summer festival in the village square. Everyone celebrated the wonderful victory of the local team with joy, songs and dancing until late at night. Friends shared a cheerful feast, smiled at the beautiful sunset and thanked each other for a glorious day.
The old fisherman was proud and grateful when his granddaughter won the prize at the school fair. He hugged her, laughed and told everyone how lucky and blessed the family felt that evening.`,
  fear: `The villagers were afraid when the storm arrived in the night and the river began to rise. Terror spread through the valley as the flood threatened the houses, and frightened families fled in panic towards the hills. Nobody dared to sleep, and the danger grew worse with every hour of rain.
The sailors were terrified by the huge waves and feared the ship would sink. They trembled in the dark, anxious and scared, while the wind screamed over the deck and the hull cracked.`,
  anger: `The workers were furious when the factory closed without warning, and angry crowds gathered at the gates. They shouted with rage at the managers, and the hostile mood turned into a violent protest that lasted for days. Many felt betrayed, bitter and outraged by the insulting offer they received.
The council meeting ended in a fierce argument: the residents were annoyed and irritated by the broken promises, and some stormed out in a furious temper, slamming the doors behind them.`,
};

let site: FixtureSite;
let s: TestServer;
let key: string;
const jobIds: number[] = [];

const get = (p: string) => s.api(`/api/v1${p}`, { key });
const T = EMOTION_PRESENT_THRESHOLD;

interface SnippetRow {
  id: number;
  theme: string;
  quality_score: number;
  language: string | null;
  metadata: string;
  created_at: string;
}

const rows = () =>
  s.adam.db
    .prepare('SELECT id, theme, quality_score, language, metadata, created_at FROM snippets')
    .all() as SnippetRow[];

function emotionsOf(r: SnippetRow): Record<string, number> {
  try {
    return (JSON.parse(r.metadata) as { emotions?: Record<string, number> }).emotions ?? {};
  } catch {
    return {};
  }
}

/** The strongest present emotion; ties go to the first name in alphabetical order. */
function dominantOf(r: SnippetRow): string | null {
  const present = Object.entries(emotionsOf(r)).filter(([, v]) => v >= T);
  present.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  return present[0]?.[0] ?? null;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const countBy = <T>(xs: T[], key: (x: T) => string) => {
  const m: Record<string, number> = {};
  for (const x of xs) m[key(x)] = (m[key(x)] ?? 0) + 1;
  return m;
};

/** Inserts a snippet row dated `daysAgo` days back, straight into the store (through the triggers). */
function insertOld(daysAgo: number, emotions: Record<string, number>, theme = 'philosophy') {
  const at = new Date(Date.now() - daysAgo * 86_400_000).toISOString();
  s.adam.db
    .prepare(
      `INSERT INTO snippets (text, text_hash, theme, quality_score, language, metadata, created_at, updated_at)
       VALUES (?, ?, ?, 0.42, 'fr', ?, ?, ?)`,
    )
    .run(`Old snippet ${daysAgo}`, `old-${daysAgo}`, theme, JSON.stringify({ emotions }), at, at);
}

/** Every figure of the emotion, distribution and timeline calls against the snippet rows. */
async function checkEmotionFigures() {
  const all = rows();
  for (const period of ['hour', 'day', 'week', 'month', 'all']) {
    const r = await get(`/analytics/emotions?period=${period}`);
    expect(r.status).toBe(200);
    const e = r.body;
    expect(e.period).toBe(period);
    const inPeriod = all.filter((x) => e.since === null || x.created_at >= e.since);
    expect(e.total_snippets, period).toBe(inPeriod.length);
    expect(e.with_emotion).toBe(
      inPeriod.filter((x) => Object.values(emotionsOf(x)).some((v) => v >= T)).length,
    );
    expect(e.emotions.map((f: { emotion: string }) => f.emotion)).toEqual([...EMOTIONS]);
    const dominants = countBy(
      inPeriod.filter((x) => dominantOf(x) !== null),
      (x) => dominantOf(x)!,
    );
    for (const f of e.emotions) {
      const scores = inPeriod.map((x) => emotionsOf(x)[f.emotion] ?? 0);
      const present = scores.filter((v) => v >= T);
      expect(f.count, `${period} ${f.emotion}`).toBe(present.length);
      expect(f.average).toBeCloseTo(inPeriod.length ? sum(scores) / inPeriod.length : 0, 3);
      expect(f.average_when_present).toBeCloseTo(
        present.length ? sum(present) / present.length : 0,
        3,
      );
      expect(f.dominant_count).toBe(dominants[f.emotion] ?? 0);
    }
    const top = Object.entries(dominants).sort((a, b) => b[1] - a[1])[0];
    if (top) expect(dominants[e.dominant]).toBe(top[1]);
    else expect(e.dominant).toBeNull();
    expect(e.diversity).toBeGreaterThanOrEqual(0);
    expect(e.diversity).toBeLessThanOrEqual(1);

    const d = (await get(`/analytics/emotions/distribution?period=${period}`)).body;
    expect(d.total).toBe(inPeriod.length);
    const withDominant = sum(Object.values(dominants));
    expect(sum(d.distribution.map((x: { count: number }) => x.count))).toBe(withDominant);
    expect(withDominant + inPeriod.filter((x) => dominantOf(x) === null).length).toBe(
      inPeriod.length,
    );
    for (const x of d.distribution) {
      expect(x.count).toBe(dominants[x.emotion] ?? 0);
      expect(x.percentage).toBeCloseTo(withDominant ? (100 * x.count) / withDominant : 0, 1);
    }
    if (withDominant) {
      expect(sum(d.distribution.map((x: { percentage: number }) => x.percentage))).toBeCloseTo(
        100,
        0,
      );
    }
  }

  for (const hours of [24, 720]) {
    const t = (await get(`/analytics/emotions/timeline?hours=${hours}`)).body;
    expect(t.hours).toBe(hours);
    expect(t.buckets).toHaveLength(hours);
    const first = t.buckets[0].hour as string;
    const inWindow = all.filter((x) => x.created_at >= first);
    expect(sum(t.buckets.map((b: { total: number }) => b.total))).toBe(inWindow.length);
    for (const b of t.buckets) {
      const inHour = inWindow.filter((x) => x.created_at.slice(0, 13) === b.hour.slice(0, 13));
      expect(b.total).toBe(inHour.length);
      for (const emotion of EMOTIONS) {
        const scores = inHour.map((x) => emotionsOf(x)[emotion] ?? 0);
        expect(b.counts[emotion]).toBe(scores.filter((v) => v >= T).length);
        expect(b.averages[emotion]).toBeCloseTo(inHour.length ? sum(scores) / inHour.length : 0, 3);
      }
    }
  }
}

async function checkSnippetFigures() {
  const all = rows();
  const a = (await get('/analytics/snippets?days=30')).body;
  expect(a.total).toBe(all.length);
  const themes = countBy(all, (x) => x.theme);
  for (const t of a.themes) expect(t.count).toBe(themes[t.theme] ?? 0);
  expect(a.quality).toHaveLength(10);
  expect(a.quality[0]).toMatchObject({ from: 0, to: 0.1 });
  expect(a.quality[9]).toMatchObject({ from: 0.9, to: 1 });
  const deciles = countBy(all, (x) => String(Math.min(9, Math.floor(x.quality_score * 10))));
  a.quality.forEach((q: { count: number }, i: number) => expect(q.count).toBe(deciles[i] ?? 0));
  expect(a.average_quality).toBeCloseTo(sum(all.map((x) => x.quality_score)) / all.length, 3);
  const languages = countBy(all, (x) => x.language ?? 'und');
  expect(
    Object.fromEntries(
      a.languages.map((l: { language: string; count: number }) => [l.language, l.count]),
    ),
  ).toEqual(languages);
  expect(a.growth).toHaveLength(30);
  for (const g of a.growth) {
    expect(g.count).toBe(all.filter((x) => x.created_at.slice(0, 10) === g.day).length);
    expect(g.cumulative).toBe(all.filter((x) => x.created_at.slice(0, 10) <= g.day).length);
  }
  const top = s.adam.db
    .prepare(
      'SELECT url, segments_count FROM sources WHERE segments_count > 0 ORDER BY segments_count DESC, id LIMIT 10',
    )
    .all();
  expect(
    a.top_sources.map((x: { url: string; segments_count: number }) => ({
      url: x.url,
      segments_count: x.segments_count,
    })),
  ).toEqual(top);
  return a;
}

beforeAll(async () => {
  site = await startFixtureSite();
  s = await startServer({ env: { ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`, ADAM_WORKERS: '1' } });
  await s.adam.reconciled;
  key = await s.login();
  for (const [mood, text] of Object.entries(MOODS))
    jobIds.push((await saveText(s, key, text, mood)).job_id);
  jobIds.push((await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis')).job_id);
  // The same text again: every segment is a refused duplicate.
  jobIds.push((await saveText(s, key, MOODS.joy, 'joy again')).job_id);
  const urls = await s.api('/api/v1/sources/process', {
    method: 'POST',
    key,
    body: { urls: [`${site.url}/articles/honeybees`, `${site.url}/articles/comte`] },
  });
  const failing = await s.api('/api/v1/sources/process', {
    method: 'POST',
    key,
    body: { urls: [`${site.url}/missing-page`] },
  });
  for (const id of [urls.body.job_id, failing.body.job_id]) {
    jobIds.push(id);
    await s.adam.services.jobs.waitForEnd(id, 60_000);
  }
}, 120_000);

afterAll(async () => {
  await s?.close();
  await site?.close();
});

describe('analytics over HTTP', () => {
  it('reports the segment rate of the last minute right after jobs stored segments', async () => {
    const m = await get('/metrics/realtime');
    expect(m.status).toBe(200);
    expect(m.body.segmentsPerSecond).toBeGreaterThan(0);
    const stored = s.adam.db.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;
    expect(m.body.segmentsPerSecond).toBeLessThanOrEqual(stored / 60 + 0.001);
    const o = await get('/analytics/overview');
    expect(o.body.segments_per_second).toBeCloseTo(m.body.segmentsPerSecond, 2);
  });

  it('answers the emotion figures the snippet rows give, in every period', async () => {
    expect(rows().some((x) => dominantOf(x) === 'fear')).toBe(true);
    // Older rows the short periods must leave out.
    insertOld(3, { joy: 0.2, sadness: 0.9 });
    insertOld(40, { trust: 0.5, anger: 0.05 });
    await checkEmotionFigures();
    const day = (await get('/analytics/emotions')).body;
    const all = (await get('/analytics/emotions/distribution')).body;
    expect(day.period).toBe('day');
    expect(all.period).toBe('all');
    expect(all.total).toBe(day.total_snippets + 2);
  });

  it('answers the snippets screen figures: themes, deciles, languages, growth and top sources', async () => {
    const a = await checkSnippetFigures();
    expect(a.top_sources.length).toBeGreaterThan(0);
    expect(a.top_sources[0].domain).toBe('127.0.0.1');
    expect(a.growth.at(-1).cumulative).toBe(a.total);
    expect(a.growth[0].cumulative).toBe(1); // the 40-day-old row, before the window
  });

  it('answers the overview totals from the store, the jobs and the index', async () => {
    const all = rows();
    const o = (await get('/analytics/overview')).body;
    expect(o.total_snippets).toBe(all.length);
    const jobs = s.adam.db.prepare('SELECT stats FROM jobs').pluck().all() as string[];
    const segments = sum(
      jobs.map((j) => {
        const st = JSON.parse(j) as { segments_created?: number; duplicates?: number };
        return (st.segments_created ?? 0) + (st.duplicates ?? 0);
      }),
    );
    expect(o.total_segments).toBe(segments);
    expect(o.total_segments).toBeGreaterThan(all.length - 2); // duplicates count, old rows do not
    expect(o.total_sources).toBe(3);
    expect(o.total_vectors).toBe(s.adam.services.index.size);
    expect(o.index_size_mb).toBeGreaterThan(0);
    expect(o.active_jobs).toBe(0);
    expect(o.pending_jobs).toBe(0);
    expect(o.throughput_last_hour).toBe(jobIds.length);
    expect(o.themes).toEqual(countBy(all, (x) => x.theme));
    expect(o.average_quality).toBeCloseTo(sum(all.map((x) => x.quality_score)) / all.length, 3);
    expect(o.cache_hit_rate).toBeNull();

    for (let i = 0; i < 2; i++) {
      const r = await s.api('/api/v1/snippets/search', {
        method: 'POST',
        key,
        body: { query: 'storm and flood in the valley', k: 3 },
      });
      expect(r.status).toBe(200);
    }
    const after = (await get('/analytics/overview')).body;
    expect(after.cache_hit_rate).toBeGreaterThan(0);
    expect(after.cache_hit_rate).toBeLessThanOrEqual(1);
  });

  it('shows job_created, job_completed, job_failed and the login in the recent activity', async () => {
    const r = await get('/analytics/activity/recent?limit=100');
    expect(r.status).toBe(200);
    const kinds = r.body.items.map((i: { kind: string }) => i.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(['job_created', 'job_completed', 'job_failed', 'login']),
    );
    const done = r.body.items.find(
      (i: { kind: string; job_id: number }) => i.kind === 'job_completed' && i.job_id === jobIds[0],
    );
    expect(done).toMatchObject({
      level: 'success',
      message: expect.stringMatching(/^Job \d+ completed: \d+ segments?$/),
    });
    const ids = r.body.items.map((i: { id: number }) => i.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    const two = await get('/analytics/activity/recent?limit=2');
    expect(two.body.items).toEqual(r.body.items.slice(0, 2));
    expect((await get('/analytics/activity/recent')).body.items).toHaveLength(10);
  });

  it('counts snippets and jobs per minute, hour or day in the activity timeline', async () => {
    const all = rows();
    const jobs = s.adam.db
      .prepare('SELECT created_at, completed_at, failed_at FROM jobs')
      .all() as { created_at: string; completed_at: string | null; failed_at: string | null }[];
    const expected = { hour: 'minute', day: 'hour', week: 'day', month: 'day', all: 'day' };
    const len = { minute: 16, hour: 13, day: 10 };
    for (const [period, unit] of Object.entries(expected)) {
      const t = (await get(`/analytics/activity/timeline?period=${period}`)).body;
      expect(t.bucket).toBe(unit);
      expect(t.buckets).toHaveLength(12);
      const n = len[unit as keyof typeof len];
      const inBucket = (at: string | null, start: string) =>
        !!at && at.slice(0, n) === start.slice(0, n);
      for (const b of t.buckets) {
        expect(b.snippets, `${period} ${b.start}`).toBe(
          all.filter((x) => inBucket(x.created_at, b.start)).length,
        );
        expect(b.jobs_created).toBe(jobs.filter((j) => inBucket(j.created_at, b.start)).length);
        expect(b.jobs_completed).toBe(jobs.filter((j) => inBucket(j.completed_at, b.start)).length);
        expect(b.jobs_failed).toBe(jobs.filter((j) => inBucket(j.failed_at, b.start)).length);
      }
      expect(sum(t.buckets.map((b: { jobs_created: number }) => b.jobs_created))).toBe(
        jobIds.length,
      );
    }
    const week = (await get('/analytics/activity/timeline?period=week')).body;
    expect(sum(week.buckets.map((b: { snippets: number }) => b.snippets))).toBe(all.length - 1);
  });

  it('measures job throughput over the last 24 hours from the job records', async () => {
    const r = await get('/sources/jobs/throughput');
    expect(r.status).toBe(200);
    const t = r.body;
    const jobs = s.adam.db
      .prepare('SELECT status, created_at, started_at, completed_at, failed_at FROM jobs')
      .all() as {
      status: string;
      created_at: string;
      started_at: string;
      completed_at: string | null;
      failed_at: string | null;
    }[];
    const secs = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 1000;
    expect(t.window_hours).toBe(24);
    expect(t.jobs_created).toBe(jobIds.length);
    expect(t.jobs_finished).toBe(jobIds.length);
    expect(t.failure_rate).toBeCloseTo(1 / jobIds.length, 4);
    expect(t.jobs_per_hour).toBeCloseTo(jobIds.length / 24, 3);
    expect(t.wait_p50_s).toBeCloseTo(
      percentile(
        jobs.map((j) => secs(j.created_at, j.started_at)),
        50,
      )!,
      2,
    );
    expect(t.run_p95_s).toBeCloseTo(
      percentile(
        jobs.map((j) => secs(j.started_at, (j.completed_at ?? j.failed_at)!)),
        95,
      )!,
      2,
    );
    expect(t.hourly).toHaveLength(24);
    expect(sum(t.hourly.map((h: { created: number }) => h.created))).toBe(jobIds.length);
    expect(t.hourly.at(-1)).toMatchObject({ created: jobIds.length, finished: jobIds.length });
    expect(Date.parse(t.hourly.at(-1).hour)).toBeLessThanOrEqual(Date.now());
  });

  it('finds a job by id or by a fragment of one of its URLs, and not /sources/jobs/:id', async () => {
    const byId = await get(`/sources/jobs/find?q=${jobIds[1]}`);
    expect(byId.status).toBe(200);
    expect(byId.body.total).toBe(1);
    expect(byId.body.jobs[0].id).toBe(jobIds[1]);
    expect((await get('/sources/jobs/find?q=999999')).body).toEqual({ jobs: [], total: 0 });

    const byUrl = await get('/sources/jobs/find?q=articles%2Fcomt');
    expect(byUrl.body.total).toBe(1);
    expect(byUrl.body.jobs[0].urls).toContain(`${site.url}/articles/comte`);
    const host = await get(`/sources/jobs/find?q=${encodeURIComponent(`127.0.0.1:${site.port}`)}`);
    expect(host.body.total).toBe(2);
    expect(host.body.jobs.map((j: { id: number }) => j.id)).toEqual(jobIds.slice(-2).reverse());
    expect((await get('/sources/jobs/find?q=%25')).body.total).toBe(0); // a literal %, not LIKE's
    expect((await get('/sources/jobs/find?q=127.0.0.1&limit=1')).body).toMatchObject({ total: 2 });
    expect((await get('/sources/jobs/find?q=127.0.0.1&limit=1')).body.jobs).toHaveLength(1);
  });

  it('answers 422 naming the field for bad query values', async () => {
    const cases: [string, string][] = [
      ['/analytics/emotions/timeline?hours=0', 'hours'],
      ['/analytics/emotions/timeline?hours=721', 'hours'],
      ['/analytics/emotions/timeline?hours=abc', 'hours'],
      ['/analytics/emotions?period=year', 'period'],
      ['/analytics/emotions/distribution?period=year', 'period'],
      ['/analytics/activity/timeline?period=year', 'period'],
      ['/analytics/activity/recent?limit=1000', 'limit'],
      ['/analytics/activity/recent?limit=0', 'limit'],
      ['/analytics/snippets?days=0', 'days'],
      ['/sources/jobs/find', 'q'],
      ['/sources/jobs/find?q=%20', 'q'],
    ];
    for (const [p, field] of cases) {
      const r = await get(p);
      expect(r.status, p).toBe(422);
      expect(r.body.detail, p).toMatch(new RegExp(`^Invalid query: ${field}: `));
      expect(
        r.body.errors.map((e: { field: string }) => e.field),
        p,
      ).toEqual([field]);
    }
    expect((await s.api('/api/v1/analytics/overview')).status).toBe(401);
  });

  it('keeps every figure right when snippets are deleted', async () => {
    const before = (await get('/analytics/overview')).body;
    const victim = rows().find((x) => dominantOf(x) !== null)!;
    const d = await s.api(`/api/v1/snippets/${victim.id}`, { method: 'DELETE', key });
    expect(d.status).toBe(200);
    const after = (await get('/analytics/overview')).body;
    expect(after.total_snippets).toBe(before.total_snippets - 1);
    expect(after.themes[victim.theme]).toBe(before.themes[victim.theme] - 1);
    expect(after.total_segments).toBe(before.total_segments); // segments ever created
    await checkEmotionFigures();
    await checkSnippetFigures();
    const recent = (await get('/analytics/activity/recent?limit=1')).body.items[0];
    expect(recent).toMatchObject({ kind: 'snippets_deleted', message: '1 snippet deleted' });
  });

  it('keeps every figure right through a backup restore, and the feed keeps its history', async () => {
    const backup = await s.api('/api/v1/admin/maintenance/backup', { method: 'POST', key });
    expect(backup.status).toBe(200);
    const atBackup = (await get('/analytics/overview')).body;
    await saveText(s, key, ARTICLES.volcanoes, 'volcanoes');
    const gone = rows()[0]!;
    await s.api(`/api/v1/snippets/${gone.id}`, { method: 'DELETE', key });

    const r = await s.api(`/api/v1/admin/maintenance/restore/${backup.body.id}`, {
      method: 'POST',
      key,
    });
    expect(r.status).toBe(200);
    const o = (await get('/analytics/overview')).body;
    expect(o.total_snippets).toBe(atBackup.total_snippets);
    expect(o.themes).toEqual(atBackup.themes);
    expect(o.total_segments).toBe(atBackup.total_segments);
    await checkEmotionFigures();
    await checkSnippetFigures();

    const kinds = (await get('/analytics/activity/recent?limit=100')).body.items.map(
      (i: { kind: string }) => i.kind,
    );
    expect(kinds[0]).toBe('restore');
    expect(kinds).toEqual(
      expect.arrayContaining(['backup', 'snippets_deleted', 'login', 'job_completed']),
    );
  });
});
