/**
 * Re-syncing web sources (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/resync.bench.ts [pages]
 *
 * A real server (buildApp, the embedded queue) and a local fixture site of N generated article
 * pages (default 200) that send ETags. First ingest: every page through POST /sources/process.
 * First sync: no validators yet (the ingest stores none), so each page is read and analysed, but
 * every segment is known and none is embedded. Re-sync unchanged: one conditional request per
 * page, answered 304, and nothing else. Then 1% of the pages get one paragraph replaced and a
 * re-sync embeds only their new segments. CPU is this process's: the server and its engine threads;
 * the fixture site runs in a child process so that its own work is not counted. The target:
 * re-sync unchanged ≤ 5% of the first ingest's CPU.
 */
import { fork } from 'node:child_process';
import type { Job } from '@adam/contracts';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { generatePage } from '../test/fixtures/fixture-pages.js';
import {
  articleHtml,
  startFreshnessSite,
  type FreshPage,
} from '../test/fixtures/freshness-site.js';
import { SYNC_BATCH } from '../src/jobs/sync-sources.job.js';
import {
  fixed,
  footer,
  header,
  measure,
  removeDir,
  seconds,
  sharedModel,
  table,
  tempDataDir,
} from './common.js';

const PAGES = Number(process.argv[2] ?? 200);
const INGEST_JOB_URLS = 50;
const NEW_PARAGRAPH =
  'Lighthouse keepers once trimmed the wicks of their lamps every few hours through the night, ' +
  'climbing the spiral stairs with oil cans and cloths. The Fresnel lens, made of concentric ' +
  'rings of glass prisms, bent the weak flame into a beam that sailors could see from twenty ' +
  'miles away.';

type SiteMessage =
  | { type: 'set'; path: string; page: FreshPage }
  | { type: 'count'; paths: string[] }
  | { type: 'close' };

// The child: the fixture site alone, driven by messages.
if (process.argv.includes('--site-child')) {
  const child = await startFreshnessSite();
  process.on('message', (m: SiteMessage) => {
    if (m.type === 'set') child.set(m.path, m.page);
    else if (m.type === 'count') {
      process.send!({ notModified: m.paths.reduce((n, p) => n + child.notModified(p), 0) });
    } else void child.close().then(() => process.exit(0));
  });
  process.send!({ port: child.port });
  await new Promise(() => undefined);
}

const proc = fork(import.meta.filename, ['--site-child'], { execArgv: process.execArgv });
const reply = <T>() => new Promise<T>((resolve) => proc.once('message', (m) => resolve(m as T)));
const { port } = await reply<{ port: number }>();
const site = {
  url: `http://127.0.0.1:${port}`,
  port,
  set: (path: string, page: FreshPage) => proc.send({ type: 'set', path, page } as SiteMessage),
  notModified: async (paths: string[]) => {
    proc.send({ type: 'count', paths } as SiteMessage);
    return (await reply<{ notModified: number }>()).notModified;
  },
  close: () => proc.send({ type: 'close' } as SiteMessage),
};

header(`resync: ${PAGES} web pages, ingest vs re-sync unchanged vs 1% changed`);
const benchStarted = performance.now();
await sharedModel();
const paragraphs = (n: number) => generatePage(n).body.filter((p) => !p.startsWith('## '));
for (let n = 1; n <= PAGES; n++) {
  site.set(`/p/${n}`, { html: articleHtml(`Page ${n}`, paragraphs(n)), etag: true });
}
const dataDir = tempDataDir('adam-bench-resync-');
const adam = await buildApp(
  loadConfig({
    ADAM_DATA_DIR: dataDir,
    ADAM_WEB_DIST: '',
    ADAM_FETCH_ALLOW: `127.0.0.1:${site.port}`,
    ADAM_LOG_LEVEL: 'warn',
  }),
  { stdoutLogs: false },
);
await adam.engineStarted;
await adam.queueStarted;
const { jobs, sources, sourceSyncs } = adam.services;
const urls = Array.from({ length: PAGES }, (_, i) => `${site.url}/p/${i + 1}`);
const waitAll = (ids: number[]) =>
  Promise.all(ids.map((id) => jobs.waitForEnd(id, 600_000))) as Promise<Job[]>;

const ingest = await measure(async () => {
  const ids: number[] = [];
  for (let i = 0; i < urls.length; i += INGEST_JOB_URLS) {
    ids.push(
      sources.process({
        urls: urls.slice(i, i + INGEST_JOB_URLS),
        language: 'auto',
        priority: 'normal',
      }).job_id,
    );
  }
  await waitAll(ids);
});
const sourceIds = sources.list({ page: 1, per_page: 500 }).sources.map((s) => s.id);
const segments = () =>
  adam.db
    .prepare("SELECT COUNT(*) FROM snippets WHERE source_url LIKE 'http://127.0.0.1:%'")
    .pluck()
    .get() as number;
const totalSegments = segments();

async function syncAll(): Promise<Record<string, number>> {
  const ids: number[] = [];
  for (let i = 0; i < sourceIds.length; i += SYNC_BATCH) {
    const id = sourceSyncs.queueSync(sourceIds.slice(i, i + SYNC_BATCH), 'manual');
    if (id !== null) ids.push(id);
  }
  const done = await waitAll(ids);
  const sum: Record<string, number> = {};
  for (const j of done) {
    for (const [k, v] of Object.entries((j.metadata.result ?? {}) as Record<string, number>)) {
      sum[k] = (sum[k] ?? 0) + v;
    }
  }
  return sum;
}

let first: Record<string, number> = {};
const firstSync = await measure(async () => {
  first = await syncAll();
});
let unchanged: Record<string, number> = {};
const resync = await measure(async () => {
  unchanged = await syncAll();
});
const changedPages = Math.max(1, Math.round(PAGES / 100));
for (let n = 1; n <= changedPages; n++) {
  const p = paragraphs(n);
  p[1] = NEW_PARAGRAPH;
  site.set(`/p/${n}`, { html: articleHtml(`Page ${n}`, p), etag: true });
}
let changed: Record<string, number> = {};
const resyncChanged = await measure(async () => {
  changed = await syncAll();
});

const pct = (a: number) => `${fixed((100 * a) / ingest.cpuMs)} %`;
table(
  ['phase', 'wall', 'CPU', 'CPU vs ingest', 'pages unchanged', 'pages changed', 'embedded'],
  [
    [
      'first ingest',
      seconds(ingest.wallMs),
      seconds(ingest.cpuMs),
      '100 %',
      '-',
      '-',
      String(totalSegments),
    ],
    [
      'first sync (no validators yet)',
      seconds(firstSync.wallMs),
      seconds(firstSync.cpuMs),
      pct(firstSync.cpuMs),
      String(first.pages_unchanged ?? 0),
      String(first.pages_changed ?? 0),
      String(first.reembedded ?? 0),
    ],
    [
      're-sync unchanged (304)',
      seconds(resync.wallMs),
      seconds(resync.cpuMs),
      pct(resync.cpuMs),
      String(unchanged.pages_unchanged ?? 0),
      String(unchanged.pages_changed ?? 0),
      String(unchanged.reembedded ?? 0),
    ],
    [
      `re-sync, ${changedPages} pages changed`,
      seconds(resyncChanged.wallMs),
      seconds(resyncChanged.cpuMs),
      pct(resyncChanged.cpuMs),
      String(changed.pages_unchanged ?? 0),
      String(changed.pages_changed ?? 0),
      String(changed.reembedded ?? 0),
    ],
  ],
);
console.log(
  `\n${totalSegments} segments stored; the 1% change re-embedded ${changed.reembedded ?? 0} ` +
    `(${changed.segments_added ?? 0} added, ${changed.segments_removed ?? 0} removed, ${changed.segments_kept ?? 0} kept); ` +
    `304 answers: ${await site.notModified(urls.map((u) => new URL(u).pathname))}`,
);

await adam.app.close();
site.close();
removeDir(dataDir);
footer(benchStarted);
