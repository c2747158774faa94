/**
 * Uploading documents (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/upload.bench.ts [files]
 *
 * A real server (buildApp, embedded queue) on loopback. N generated documents (default 100,
 * half PDF of 3 pages with headings, half DOCX with headings, from the fixture pages' text) are
 * POSTed in one multipart request to /sources/upload; the job then parses, analyses and stores
 * them. Figures: MB/s of the upload (bytes to disk), files/s and MB/s of the processing, and the
 * event loop's worst delay in each phase next to the idle loop's over the same time, measured in
 * the same run. The client runs in this process too, so its own work is in the upload's delay.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { makeDocx, makePdf } from '../src/documents/__fixtures__/make-documents.js';
import {
  fixed,
  footer,
  header,
  measure,
  mib,
  pageDocument,
  removeDir,
  seconds,
  sharedModel,
  table,
  tempDataDir,
} from './common.js';

const FILES = Number(process.argv[2] ?? 100);

async function document(n: number): Promise<{ name: string; data: Buffer }> {
  const { title, text } = pageDocument(n);
  const paragraphs = text.split('\n\n').slice(1);
  if (n % 2 === 0) {
    const third = Math.ceil(paragraphs.length / 3);
    const pages = [0, 1, 2].map((p) => ({
      heading: `${title}, part ${p + 1}`,
      paragraphs: paragraphs.slice(p * third, (p + 1) * third),
    }));
    return { name: `doc-${n}.pdf`, data: await makePdf(pages, { title }) };
  }
  const blocks = [
    { heading: 1 as const, text: title },
    ...paragraphs
      .map((p, i) =>
        i % 4 === 0
          ? [{ heading: 2 as const, text: `Part ${i / 4 + 1}` }, { text: p }]
          : [{ text: p }],
      )
      .flat(),
  ];
  return { name: `doc-${n}.docx`, data: await makeDocx(blocks, { title }) };
}

/** The loop's worst delay (ms) while `fn` runs. */
async function worstDelay<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; maxMs: number; ms: number }> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  h.disable();
  return { value, maxMs: h.max / 1e6, ms };
}

const started = performance.now();
header(`upload: ${FILES} generated PDF and DOCX files in one request`);
await sharedModel();
const dataDir = tempDataDir('adam-bench-upload-');
const config = { ...loadConfig({ ADAM_DATA_DIR: dataDir, ADAM_WEB_DIST: '' }) };
const adam = await buildApp(config);
await adam.app.listen({ port: 0, host: '127.0.0.1' });
const addr = adam.app.server.address();
if (!addr || typeof addr === 'string') throw new Error('no address');
const url = `http://127.0.0.1:${addr.port}/api/v1`;
try {
  await adam.services.engine.start();
  const login = await fetch(`${url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
  });
  const key = ((await login.json()) as { api_key: string }).api_key;

  const docs = await Promise.all(Array.from({ length: FILES }, (_, i) => document(i)));
  const bytes = docs.reduce((n, d) => n + d.data.length, 0);
  console.log(
    `${FILES} files, ${mib(bytes)} (${docs.filter((d) => d.name.endsWith('.pdf')).length} PDF)`,
  );

  const upload = await worstDelay(async () => {
    const form = new FormData();
    for (const d of docs) form.append('files', new Blob([d.data]), d.name);
    const res = await fetch(`${url}/sources/upload`, {
      method: 'POST',
      headers: { 'x-api-key': key },
      body: form,
    });
    if (res.status !== 200) throw new Error(`upload: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { job_id: number }).job_id;
  });
  let processing = { wallMs: 0, cpuMs: 0 };
  const work = await worstDelay(async () => {
    processing = await measure(async () => {
      const end = await adam.services.jobs.waitForEnd(upload.value, 3_600_000);
      if (end.status !== 'completed')
        throw new Error(`job ${end.status}: ${JSON.stringify(end.errors.slice(0, 3))}`);
    });
  });
  const job = adam.services.jobs.get(upload.value);
  // The reference: the loop with nothing to do, for as long as the processing took (at most 10 s).
  const idle = await worstDelay(
    () => new Promise<void>((r) => setTimeout(r, Math.min(10_000, work.ms))),
  );

  table(
    ['phase', 'time', 'files/s', 'MB/s', 'loop worst (ms)'],
    [
      [
        'upload (stream to disk)',
        seconds(upload.ms),
        fixed(FILES / (upload.ms / 1000)),
        fixed(bytes / 1e6 / (upload.ms / 1000)),
        fixed(upload.maxMs),
      ],
      [
        'parse + analyse + store',
        seconds(work.ms),
        fixed(FILES / (work.ms / 1000)),
        fixed(bytes / 1e6 / (work.ms / 1000)),
        fixed(work.maxMs),
      ],
      ['idle loop (reference)', seconds(idle.ms), '-', '-', fixed(idle.maxMs)],
    ],
  );
  console.log(
    `job ${job.id}: ${job.stats.urls_done} files done, ${job.stats.urls_failed ?? 0} failed, ` +
      `${job.stats.segments_created} snippets; processing CPU ${seconds(processing.cpuMs)} ` +
      `on ${adam.services.engine.threads} engine threads`,
  );
} finally {
  await adam.app.close();
  removeDir(dataDir);
}
footer(started);
