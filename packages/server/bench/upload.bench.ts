/**
 * Uploading documents (not a test: prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/upload.bench.ts [files]
 *   UPLOAD_BENCH_KB=50 …    # every file padded to about 50 KB (0: text only, no figure)
 *
 * A real server (buildApp, embedded queue) on loopback. N generated documents (default 100, half
 * PDF, half DOCX) are POSTed in one multipart request to /sources/upload; the job then parses,
 * analyses and stores them. Each document is a report of 10 to 30 sections of about 300 words
 * (from the fixture pages' text, distinct per document) under their headings: in a PDF, a
 * section a page (a 20 pt heading over 11 pt paragraphs; pdfkit adds a page where one
 * overflows); in a DOCX, Heading 1 for the title, Heading 2 per section, Heading 3 every third
 * paragraph. Real documents' bytes are mostly pictures: each gets one figure (a PNG of noise,
 * which no compression shrinks) sized so that the file is about its target size, by default
 * spread from 100 to 500 KB across the files (UPLOAD_BENCH_KB: the same size for all).
 *
 * Figures: MB/s of the upload (bytes to disk), files/s and MB/s of the processing, and the event
 * loop's worst delay in each phase next to the idle loop's over the same time, measured in the
 * same run. The client runs in this process too, so its own work is in the upload's delay.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { buildApp } from '../src/app.js';
import {
  makeDocx,
  makePdf,
  rgbPng,
  type DocxBlock,
} from '../src/documents/__fixtures__/make-documents.js';
import { loadConfig } from '../src/config.js';
import {
  fixed,
  footer,
  header,
  measure,
  mib,
  pageDocument,
  removeDir,
  rng,
  seconds,
  sharedModel,
  table,
  tempDataDir,
} from './common.js';

const FILES = Number(process.argv[2] ?? 100);
const FIXED_KB =
  process.env.UPLOAD_BENCH_KB === undefined ? null : Number(process.env.UPLOAD_BENCH_KB);
const WORDS_PER_SECTION = 300;

/** The file's target size in bytes: UPLOAD_BENCH_KB, or 100–500 KB spread over the files. */
const targetBytes = (n: number) => 1000 * (FIXED_KB ?? 100 + ((n * 37) % 401));

interface Section {
  heading: string;
  paragraphs: string[];
}

/** 10–30 sections of about 300 words, from fixture pages no other document uses. */
function sections(n: number): { title: string; sections: Section[] } {
  const count = 10 + ((n * 7) % 21);
  const out: Section[] = [];
  let title = '';
  let page = 0;
  let paragraphs: string[] = [];
  const next = () => {
    if (!paragraphs.length) {
      const doc = pageDocument(n * 1000 + page++);
      title ||= doc.title;
      paragraphs = doc.text.split('\n\n').slice(1);
    }
    return paragraphs.shift()!;
  };
  for (let s = 0; s < count; s++) {
    const section: Section = { heading: `${s + 1}. ${next()}`.slice(0, 80), paragraphs: [] };
    let words = 0;
    while (words < WORDS_PER_SECTION) {
      const p = next();
      section.paragraphs.push(p);
      words += p.split(/\s+/).length;
    }
    out.push(section);
  }
  return { title, sections: out };
}

/** A PNG of `bytes` bytes or so of noise (RGB, 256 wide): a figure no compression shrinks. */
function noisePng(bytes: number, seed: number): Buffer {
  const width = 256;
  const row = 1 + 3 * width;
  const height = Math.max(1, Math.ceil(bytes / row));
  const rand = rng(seed);
  const raw = Buffer.alloc(row * height);
  for (let i = 0; i < raw.length; i++) raw[i] = i % row === 0 ? 0 : Math.floor(rand() * 256);
  return rgbPng(width, height, raw, 1);
}

/** A section a page, the figure under the first heading. */
function pdf(title: string, body: Section[], figure: Buffer | null): Promise<Buffer> {
  return makePdf(
    body.map((s, i) => ({ ...s, ...(i === 0 && figure && { figure }) })),
    { title },
  );
}

/** Heading 1 for the title, Heading 2 per section, Heading 3 every third paragraph. */
function docx(title: string, body: Section[], figure: Buffer | null): Promise<Buffer> {
  const blocks: DocxBlock[] = [{ heading: 1, text: title }];
  body.forEach((s, i) => {
    blocks.push({ heading: 2, text: s.heading });
    if (i === 0 && figure) blocks.push({ text: '', image: figure });
    s.paragraphs.forEach((p, j) => {
      if (j > 0 && j % 3 === 0)
        blocks.push({ heading: 3, text: `${s.heading}, part ${j / 3 + 1}` });
      blocks.push({ text: p });
    });
  });
  return makeDocx(blocks, { title });
}

/** Document n: a PDF when even, a DOCX when odd; its figure fills it up to its target size. */
async function document(
  n: number,
): Promise<{ name: string; data: Buffer; sections: number; figure: number }> {
  const { title, sections: body } = sections(n);
  const make = n % 2 === 0 ? pdf : docx;
  const textOnly = await make(title, body, null);
  const missing = targetBytes(n) - textOnly.length;
  const figure = FIXED_KB !== 0 && missing > 2000 ? noisePng(missing - 1000, n) : null;
  const data = figure ? await make(title, body, figure) : textOnly;
  const name = `report-${n}.${n % 2 === 0 ? 'pdf' : 'docx'}`;
  return { name, data, sections: body.length, figure: figure?.length ?? 0 };
}

/** This thread's time on a CPU and waiting for one so far, in ms (Linux schedstat; 0 elsewhere). */
function schedstat(): { cpu: number; runnable: number } {
  try {
    const [cpu, wait] = fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
    return { cpu: Number(cpu) / 1e6, runnable: Number(wait) / 1e6 };
  } catch {
    return { cpu: 0, runnable: 0 };
  }
}

const TICK_MS = 10;

/**
 * The loop's worst delay (ms) while `fn` runs: from monitorEventLoopDelay, and from a 10 ms
 * timer whose lateness is also given less the time this thread waited for a CPU meanwhile
 * (on a loaded machine a runnable thread waits its turn: the machine's load, not our work).
 */
async function worstDelay<T>(fn: () => Promise<T>): Promise<{
  value: T;
  maxMs: number;
  p99Ms: number;
  ms: number;
  tickMs: number;
  tickOwnMs: number;
  /** The worst tick less CPU wait: of it, on a CPU (the rest: blocked, on I/O or a lock). */
  tickOwnCpuMs: number;
}> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  let tickMs = 0;
  let tickOwnMs = 0;
  let tickOwnCpuMs = 0;
  let due = performance.now() + TICK_MS;
  let last = schedstat();
  const tick = () => {
    const now = performance.now();
    const st = schedstat();
    const late = Math.max(0, now - due);
    tickMs = Math.max(tickMs, late);
    const own = Math.max(0, late - (st.runnable - last.runnable));
    if (own > tickOwnMs) {
      tickOwnMs = own;
      tickOwnCpuMs = Math.min(own, st.cpu - last.cpu);
    }
    last = st;
    due = now + TICK_MS;
  };
  const timer = setInterval(tick, TICK_MS);
  const t0 = performance.now();
  try {
    const value = await fn();
    const ms = performance.now() - t0;
    tick();
    return {
      value,
      maxMs: h.max / 1e6,
      p99Ms: h.percentile(99) / 1e6,
      ms,
      tickMs,
      tickOwnMs,
      tickOwnCpuMs,
    };
  } finally {
    clearInterval(timer);
    h.disable();
  }
}

const started = performance.now();
header(
  `upload: ${FILES} generated PDF and DOCX files in one request, ${FIXED_KB === null ? '100–500' : FIXED_KB} KB a file`,
);
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

  const docs: Awaited<ReturnType<typeof document>>[] = [];
  for (let i = 0; i < FILES; i++) docs.push(await document(i));
  const bytes = docs.reduce((n, d) => n + d.data.length, 0);
  const kb = docs.map((d) => d.data.length / 1000).sort((a, b) => a - b);
  const figures = docs.reduce((n, d) => n + d.figure, 0);
  const words = docs.length
    ? Math.round(docs.reduce((n, d) => n + d.sections, 0) / docs.length) * WORDS_PER_SECTION
    : 0;
  console.log(
    `${FILES} files (${docs.filter((d) => d.name.endsWith('.pdf')).length} PDF), ${mib(bytes)}: ` +
      `${fixed(kb[0] ?? 0, 0)}–${fixed(kb[kb.length - 1] ?? 0, 0)} KB a file (median ` +
      `${fixed(kb[Math.floor(kb.length / 2)] ?? 0, 0)}), ${mib(figures)} of it figures; ` +
      `10–30 sections a file, about ${words} words on average`,
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
    [
      'phase',
      'time',
      'files/s',
      'MB/s',
      'loop worst (ms)',
      'loop p99 (ms)',
      '10 ms timer worst',
      'less CPU wait',
      'of it on CPU',
    ],
    [
      [
        'upload (stream to disk)',
        seconds(upload.ms),
        fixed(FILES / (upload.ms / 1000)),
        fixed(bytes / 1e6 / (upload.ms / 1000)),
        fixed(upload.maxMs),
        fixed(upload.p99Ms),
        fixed(upload.tickMs),
        fixed(upload.tickOwnMs),
        fixed(upload.tickOwnCpuMs),
      ],
      [
        'parse + analyse + store',
        seconds(work.ms),
        fixed(FILES / (work.ms / 1000)),
        fixed(bytes / 1e6 / (work.ms / 1000)),
        fixed(work.maxMs),
        fixed(work.p99Ms),
        fixed(work.tickMs),
        fixed(work.tickOwnMs),
        fixed(work.tickOwnCpuMs),
      ],
      [
        'idle loop (reference)',
        seconds(idle.ms),
        '-',
        '-',
        fixed(idle.maxMs),
        fixed(idle.p99Ms),
        fixed(idle.tickMs),
        fixed(idle.tickOwnMs),
        fixed(idle.tickOwnCpuMs),
      ],
    ],
  );
  console.log(
    `processing worst vs idle worst, same run: loop ${fixed(work.maxMs / idle.maxMs)}×, ` +
      `10 ms timer ${fixed(work.tickMs / Math.max(idle.tickMs, 0.1))}×, ` +
      `less CPU wait ${fixed(work.tickOwnMs / Math.max(idle.tickOwnMs, 0.1))}× (target ≤ 2×)`,
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
