import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobType } from '@adam/contracts';
import { JOB_REGISTRY } from '../src/jobs/registry.js';
import { installDirName } from '../src/services/model-files-guard.js';
import { ARTICLES } from './corpus.js';
import { startFakeHub, type FakeHub } from './fixtures/fake-hub.js';
import { startFixtureSite, type FixtureSite } from './fixtures/fixture-site.js';
import { writeTinyEmbeddingModel } from './fixtures/tiny-models.js';
import { startServer, tempDir, type TestServer } from './helpers.js';
import { HAS_REDIS, REDIS_SKIP_REASON, startRedis } from './redis-helpers.js';

/**
 * Every registered job type, run by the embedded queue and by the Redis mode (a real redis-server
 * and an `adam worker` process): both must store the same thing. A job type without a scenario
 * here fails typecheck (the record below is keyed by JobType).
 */
interface Scenario {
  /** What the job is created with (through JobService.create, as the routes do). */
  job: (site: FixtureSite) => { urls?: string[]; input: Record<string, unknown> };
  /** Queues the job through its service instead, as its route does; answers the job's id. */
  start?: (s: TestServer) => number;
}
/** process_documents' text: on no other scenario's subject, so no segment of it is a duplicate. */
const GLACIERS = `A glacier is a body of dense ice that moves slowly under its own weight. Glaciers form where more snow falls each winter than melts each summer, and the buried snow is pressed over decades into firn and then into ice.

Valley glaciers carve U-shaped valleys, leave moraines of rock where they stop, and feed rivers with meltwater through the summer. Scientists measure their retreat with stakes drilled into the ice, with satellite images and with the age of the lichens growing on exposed rock.`;

const SCENARIOS: Record<JobType, Scenario> = {
  // A model registered and installed from the fake hub (the tiny model written in beforeAll).
  install_model: {
    job: () => ({ input: {} }),
    start: (s) => {
      const { models } = s.adam.services;
      const model = models.registry.create({
        name: 'tiny-embedder',
        type: 'embedding',
        language: 'en',
        description: '',
        repo: 'tiny/embedder',
        revision: 'main',
      });
      return models.installs.install(model.id).job_id!;
    },
  },
  process_urls: {
    job: (site) => ({
      urls: [
        `${site.url}/articles/honeybees`,
        `${site.url}/articles/tidal-power`,
        `${site.url}/status/404`,
      ],
      input: { language: 'auto' },
    }),
  },
  // Syncs the sources process_urls stored (earlier in the registry): the fixture site has not
  // changed, so the two pages are unchanged and the 404 is counted missing.
  sync_sources: {
    job: () => ({ input: {} }),
    start: (s) => {
      const { sources, sourceSyncs } = s.adam.services;
      const ids = sources.list({ page: 1, per_page: 100 }).sources.map((x) => x.id);
      return sourceSyncs.queueSync(ids, 'manual')!;
    },
  },
  save_segments: {
    job: () => ({
      input: { title: 'Stoicism', language: 'en', text: ARTICLES.stoicism, source_url: null },
    }),
  },
  // Two restored records without vectors (embedded by the active embedder) and one document
  // analysed like pasted text, from a file put where POST /snippets/import puts it.
  import_snippets: {
    job: () => ({ input: {} }),
    start: (s) => {
      const dir = path.join(s.dataDir, 'imports');
      fs.mkdirSync(dir, { recursive: true });
      const file = `${randomUUID()}.jsonl`;
      const records = [
        {
          text: 'Tides rise twice a day as the moon pulls the oceans.',
          theme: 'science',
          quality_score: 0.6,
        },
        {
          text: 'A lighthouse warns ships of rocks near the harbour.',
          theme: 'general',
          quality_score: 0.5,
          title: 'Coasts',
        },
        { text: ARTICLES.volcanoes, title: 'Volcanoes' },
      ];
      fs.writeFileSync(path.join(dir, file), records.map((r) => JSON.stringify(r)).join('\n'));
      return s.adam.services.jobs.create({ type: 'import_snippets', input: { file, records: 3 } })
        .id;
    },
  },
  // A one-page crawl of a page process_urls stored already: a 'web' source again, its segments
  // duplicates (so the counts of the other jobs hold).
  crawl_site: {
    job: (site) => ({
      urls: [`${site.url}/articles/honeybees`],
      input: {
        start_urls: [`${site.url}/articles/honeybees`],
        max_depth: 0,
        use_sitemaps: false,
      },
    }),
  },
  // Syncs the crawl crawl_site ran: its one page unchanged, nothing stored.
  sync_crawl: {
    job: () => ({ input: {} }),
    start: (s) => {
      const crawl = s.adam.db
        .prepare("SELECT id FROM jobs WHERE type = 'crawl_site' ORDER BY id DESC LIMIT 1")
        .pluck()
        .get() as number;
      return s.adam.services.crawlSyncs.syncNow(crawl).job_id;
    },
  },
  // Last, so the counts above hold: an uploaded Markdown file, put where the upload route puts it (the server's data dir: a
  // server job in both modes).
  process_documents: {
    job: () => ({ input: {} }),
    start: (s) => {
      const folder = randomUUID();
      const body = Buffer.from(`# Glaciers\n\n${GLACIERS}`);
      fs.mkdirSync(path.join(s.dataDir, 'uploads', folder), { recursive: true });
      fs.writeFileSync(path.join(s.dataDir, 'uploads', folder, '1'), body);
      const sha256 = createHash('sha256').update(body).digest('hex');
      const source_url = `file:${sha256.slice(0, 16)}/glaciers.md`;
      return s.adam.services.jobs.create({
        type: 'process_documents',
        urls: [source_url],
        input: {
          folder,
          language: 'auto',
          files: [
            {
              name: 'glaciers.md',
              type: 'markdown',
              size: body.length,
              sha256,
              file: '1',
              source_url,
            },
          ],
        },
      }).id;
    },
  },
  // Last: it re-embeds and re-indexes what the other two stored.
  rebuild_index: { job: () => ({ input: { reembed: true } }) },
  // Then compacted from the vectors just stored: the same rows, nothing re-embedded.
  optimize_index: { job: () => ({ input: {} }) },
  // Then everything moves to the tiny ONNX model's space (written in beforeAll).
  switch_embedder: {
    job: () => ({
      input: { space: { id: 'onnx:tiny/embedder@main', dimension: 64, dir: tinyModelDir } },
    }),
  },
  // Last: a two-query set scored in the three modes over what the jobs above stored; the honey
  // bee page is judged by its URL (a source-level judgment).
  evaluation_run: {
    job: () => ({ input: {} }),
    start: (s) => {
      const { evaluations } = s.adam.services;
      const set = evaluations.createSet({
        name: 'drivers',
        description: '',
        queries: [
          {
            text: 'honey bees pollinate flowers',
            judgments: [{ source_url: `${site.url}/articles/honeybees`, grade: 3 }],
          },
          { text: 'glacier ice moraines', judgments: [{ source_title: 'Glaciers', grade: 2 }] },
        ],
      });
      return evaluations.startRun({ set_id: set.id, modes: ['keyword', 'vector', 'hybrid'] })
        .job_id!;
    },
  },
};

let tinyModelDir = '';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex').slice(0, 16);

/** Everything a run of the scenarios stored, in an order that does not depend on timing. */
function stored(s: TestServer, jobIds: number[]) {
  const db = s.adam.db;
  const jobs = jobIds
    .map((id) => s.adam.services.jobs.get(id))
    .map((j) => ({
      type: j.type,
      status: j.status,
      progress: j.progress,
      stats: {
        urls_total: j.stats.urls_total,
        urls_done: j.stats.urls_done,
        urls_failed: j.stats.urls_failed,
        segments_created: j.stats.segments_created,
        duplicates: j.stats.duplicates,
        segmentation_method: j.stats.segmentation_method,
      },
      errors: j.errors.map((e) => ({ type: e.type, url: e.url })),
      result: j.metadata.result ?? null,
    }));
  const snippets = db
    .prepare(
      `SELECT s.text, s.theme, s.quality_score, s.language, s.word_count, s.source_title,
              s.source_url, j.type AS job_type, s.index_pending, e.embedding, e.embedder_id
       FROM snippets s JOIN jobs j ON j.id = s.job_id
       LEFT JOIN snippet_embeddings e ON e.snippet_id = s.id ORDER BY s.text`,
    )
    .all()
    .map((r) => {
      const row = r as {
        embedding: Buffer | null;
        index_pending: number;
        text: string;
        job_type: JobType;
      };
      return { ...row, embedding: row.embedding ? sha(row.embedding) : null };
    });
  const sources = db
    .prepare(
      'SELECT url, domain, title, language, segments_count, last_status, last_error FROM sources ORDER BY url',
    )
    .all();
  const models = db
    .prepare(
      "SELECT name, status, dimension, local_path, disk_bytes, installed_version FROM models WHERE repo = 'tiny/embedder'",
    )
    .all();
  // The last evaluation run: its per-query results (not its latencies, which differ per run).
  const run = s.adam.services.evaluations.listRuns().runs[0];
  const evaluation = run && {
    status: run.status,
    summary: run.summary.map((m) => ({ ...m, latency_p50_ms: 0, latency_p95_ms: 0 })),
    results: s.adam.services.evaluations.results(run.id).results.length,
  };
  return { jobs, snippets, sources, models, vectors: s.adam.services.index.size, evaluation };
}

async function runAll(s: TestServer, site: FixtureSite) {
  const ids: number[] = [];
  for (const type of Object.keys(JOB_REGISTRY) as JobType[]) {
    const { urls, input } = SCENARIOS[type].job(site);
    const jobId =
      SCENARIOS[type].start?.(s) ?? s.adam.services.jobs.create({ type, urls, input }).id;
    ids.push(jobId);
    const end = await s.adam.services.jobs.waitForEnd(jobId, 90_000);
    expect(end.status, `${type}: ${JSON.stringify(end.errors)}`).toBe('completed');
  }
  // A job ends once its rows are saved in the index: nothing is left pending.
  return stored(s, ids);
}

let site: FixtureSite;
let hub: FakeHub;
let embedded: ReturnType<typeof stored>;
/** The fixture site and the fake hub, for both servers. */
const env = () => ({
  ADAM_FETCH_ALLOW: `127.0.0.1:${site.port},127.0.0.1:${hub.port}`,
  ADAM_MODEL_HUB_URL: hub.url,
});
beforeAll(async () => {
  tinyModelDir = path.join(tempDir('adam-tiny-'), 'embedder');
  await writeTinyEmbeddingModel(tinyModelDir, { dimension: 64 });
  site = await startFixtureSite();
  hub = await startFakeHub({ repos: { 'tiny/embedder': { files: { dir: tinyModelDir } } } });
  const s = await startServer({ env: env() });
  try {
    embedded = await runAll(s, site);
  } finally {
    await s.close();
  }
}, 180_000);
afterAll(async () => {
  await site.close();
  await hub.close();
});

it('runs every registered job type on the embedded queue and stores its work', () => {
  expect(embedded.jobs.map((j) => j.type)).toEqual(Object.keys(JOB_REGISTRY));
  const [urls, save, rebuild] = embedded.jobs;
  expect(urls!.stats).toMatchObject({ urls_total: 3, urls_done: 2, urls_failed: 1 });
  expect(urls!.errors).toEqual([{ type: 'fetch_http_status', url: `${site.url}/status/404` }]);
  expect(save!.stats.segments_created).toBeGreaterThan(0);
  // Rows by the job that stored them: the rebuild (third in the registry) saw only those of
  // the two jobs before it; the jobs after it add their own.
  const rowsOf = (type: JobType) => embedded.snippets.filter((r) => r.job_type === type).length;
  const beforeRebuild = rowsOf('process_urls') + rowsOf('save_segments');
  expect(embedded.jobs.find((j) => j.type === 'import_snippets')!.result).toMatchObject({
    records: 3,
    analysed: 1,
    imported: rowsOf('import_snippets'),
  });
  expect(rowsOf('import_snippets')).toBeGreaterThan(2);
  expect(rebuild!.result).toMatchObject({ total: beforeRebuild });
  expect(embedded.jobs.find((j) => j.type === 'optimize_index')!.result).toEqual({
    total: beforeRebuild,
    indexed: beforeRebuild,
    reembedded: 0,
  });
  expect(beforeRebuild).toBe(urls!.stats.segments_created! + save!.stats.segments_created!);
  expect(embedded.vectors).toBe(embedded.snippets.length);
  expect(embedded.snippets.every((r) => r.embedding && r.index_pending === 0)).toBe(true);
  expect(
    embedded.sources.filter((x) => !(x as { url: string }).url.startsWith('file:')),
  ).toHaveLength(3);
  const document = embedded.jobs.find((j) => j.type === 'process_documents')!;
  expect(document.stats).toMatchObject({ urls_total: 1, urls_done: 1 });
  expect(document.stats.segments_created).toBeGreaterThan(0);
  const install = embedded.jobs.find((j) => j.type === 'install_model')!;
  expect(install.result).toMatchObject({ repo: 'tiny/embedder', revision: 'main', files: 5 });
  const evaluation = embedded.jobs.find((j) => j.type === 'evaluation_run')!;
  expect(evaluation.result).toMatchObject({ queries: 2, modes: ['keyword', 'vector', 'hybrid'] });
  expect(embedded.evaluation).toMatchObject({ status: 'completed', results: 6 });
  expect(embedded.models).toEqual([
    expect.objectContaining({
      status: 'installed',
      dimension: 64,
      local_path: installDirName('tiny/embedder', 'main'),
    }),
  ]);
});

describe.skipIf(!HAS_REDIS)(
  `both drivers${HAS_REDIS ? '' : ` (skipped: ${REDIS_SKIP_REASON})`}`,
  () => {
    it('stores the same jobs, snippets, vectors and sources through Redis and an adam worker', async () => {
      const redis = await startRedis();
      const s = await startServer({
        env: {
          REDIS_URL: redis.url,
          ADAM_WORKERS: '1',
          ...env(),
        },
      });
      try {
        await s.adam.queueStarted;
        expect((await s.adam.services.workers.status()).mode).toBe('redis');
        const viaRedis = await runAll(s, site);
        expect(viaRedis).toEqual(embedded);
      } finally {
        await s.close();
        await redis.stop();
      }
    }, 180_000);
  },
);
