/**
 * Start-up of the built server (dist/boot.cjs, what `npm start` runs): from spawn to the first line it prints, to the
 * first 200 of /health, and to "ready" (no component "starting" any more, the index's checksums
 * compared), on an empty data dir and on one with N snippets and their saved index (the 1M
 * bench data's builder, bench/data-1m.ts; built once and kept in /tmp). Beside it, in the same
 * run, a bare Node http server's spawn to its first answer: the floor any server pays.
 *
 *   npm run bench -w @adam/server -- startup             # empty, and 200,000 snippets
 *   tsx --conditions=adam-source bench/startup.bench.ts 1000000 3   # 1M, 3 rounds
 *   tsx --conditions=adam-source bench/startup.bench.ts 0           # the empty dir only
 *   tsx --conditions=adam-source bench/startup.bench.ts 0 3 --main=/tmp/old/packages/server/dist/main.js
 *   tsx --conditions=adam-source bench/startup.bench.ts 0 3 --data=/tmp/adam-bench-export-1m
 *
 * `--data=<dir>`: a data dir made elsewhere (e.g. the 1M export bench's), copied once into a
 * temporary folder (the server migrates and re-indexes what it opens: the original is left as
 * it is) and timed to its first 200 only: its "ready" may be a whole re-index away.
 *
 * Build the server first (`npm run build -w @adam/server`): this times what `npm start` runs.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ensureMillion } from './data-1m.js';
import { fixed, footer, header, removeDir, sharedModel, table, tempDataDir } from './common.js';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const rows = positional[0] === undefined ? 200_000 : Number(positional[0]);
const rounds = Number(positional[1]) || 3;
/**
 * `--main=<dist/boot.cjs>`: another build timed instead (an earlier commit's dist/main.js, or
 * this build's dist/main.js: the ES module entry, without the code cache).
 */
const MAIN =
  process.argv.find((a) => a.startsWith('--main='))?.slice('--main='.length) ??
  path.resolve(import.meta.dirname, '..', 'dist', 'boot.cjs');
/** `--data=<dir>`: an existing data dir, timed on a copy. */
const DATA_FROM = process.argv.find((a) => a.startsWith('--data='))?.slice('--data='.length);
/** Between two probes of /health while waiting: fine enough against seconds. */
const PROBE_MS = 10;
/** A start that takes longer is reported as such, not waited for forever. */
const GIVE_UP_MS = 120_000;

interface Start {
  firstLineMs: number | null;
  answersMs: number;
  readyMs: number;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function probe(url: string): Promise<{ status: number; body: unknown } | null> {
  try {
    const res = await fetch(url);
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // the bare server answers text
    }
    return { status: res.status, body };
  } catch {
    return null;
  }
}

/** Spawns `args`, waits for a 200 at `url` and then for `ready(body)`; stops the process. */
async function timeStart(
  args: string[],
  env: Record<string, string>,
  url: string,
  ready: (body: unknown) => boolean,
  giveUpMs = GIVE_UP_MS,
): Promise<Start> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let firstLineMs: number | null = null;
  let err = '';
  child.stdout.once('data', () => (firstLineMs = performance.now() - t0));
  child.stdout.resume();
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    let answersMs: number | null = null;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${err.slice(-500)}`);
      if (performance.now() - t0 > giveUpMs) throw new Error(`no answer in ${giveUpMs} ms`);
      const r = await probe(url);
      if (r?.status === 200) {
        answersMs ??= performance.now() - t0;
        if (ready(r.body)) return { firstLineMs, answersMs, readyMs: performance.now() - t0 };
      }
      await new Promise((res) => setTimeout(res, PROBE_MS));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

interface Health {
  status: string;
  components: Record<string, { status: string; details?: { checksums?: string } }>;
}
const serverReady = (body: unknown): boolean => {
  const h = body as Health;
  if (h.status === 'starting') return false;
  // The checksums the load leaves out, compared in the background (only with a key the
  // details are all there; this one is public and keeps `checksums`).
  return h.components.index?.details?.checksums !== 'verifying';
};

async function server(dataDir: string, waitReady = true, giveUpMs = GIVE_UP_MS): Promise<Start> {
  const port = await freePort();
  const r = await timeStart(
    [MAIN],
    { ADAM_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ADAM_WEB_DIST: '' },
    `http://127.0.0.1:${port}/api/v1/health`,
    waitReady ? serverReady : () => true,
    giveUpMs,
  );
  return waitReady ? r : { ...r, readyMs: NaN };
}

/** A copy of `from` (its store, its index folder, its models as links): the server's to change. */
function copyDataDir(from: string): { dir: string; indexDir: string } {
  const dir = tempDataDir('adam-bench-startup-data-');
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(dir, entry.name);
    if (entry.name === 'backups' || entry.name.endsWith('-shm')) continue;
    // tempDataDir links the shared built-in model already.
    if (fs.existsSync(dst)) continue;
    if (entry.name === 'models') fs.cpSync(src, dst, { recursive: true, verbatimSymlinks: true });
    else if (entry.isDirectory()) fs.cpSync(src, dst, { recursive: true });
    else fs.copyFileSync(src, dst, fs.constants.COPYFILE_FICLONE);
  }
  return { dir, indexDir: path.join(dir, 'index') };
}

async function bare(): Promise<Start> {
  const port = await freePort();
  const code = `require('node:http').createServer((q, r) => r.end('ok')).listen(${port}, '127.0.0.1')`;
  return timeStart(['-e', code], {}, `http://127.0.0.1:${port}/`, () => true);
}

const ms = (n: number | null) => (n === null || Number.isNaN(n) ? '-' : fixed(n, 0));
const started = performance.now();
header(
  `start-up of ${MAIN}: empty data dir${DATA_FROM ? ` and a copy of ${DATA_FROM}` : rows ? ` and ${rows.toLocaleString('en')} snippets` : ''}, ${rounds} round(s)`,
);
if (!fs.existsSync(MAIN)) {
  console.error(`${MAIN} is missing: run \`npm run build -w @adam/server\` first`);
  process.exit(1);
}
await sharedModel();
const data = DATA_FROM ? copyDataDir(DATA_FROM) : rows > 0 ? await ensureMillion({ rows }) : null;
if (data) {
  const indexBytes = fs
    .readdirSync(data.indexDir)
    .reduce((n, f) => n + fs.statSync(path.join(data.indexDir, f)).size, 0);
  console.log(`data: ${data.dir} (index files ${(indexBytes / 1024 ** 2).toFixed(0)} MiB)`);
}

// The copy is removed however the run ends.
if (DATA_FROM && data) process.once('exit', () => removeDir(data.dir));
if (DATA_FROM && data) {
  // The copy's first start runs the migrations its store lacks (minutes at 1M): not timed as a
  // start, said apart.
  const first = await server(data.dir, false, 3_600_000);
  console.log(
    `first start of the copy (its migrations): first 200 after ${ms(first.answersMs)} ms`,
  );
}
const results: Record<string, Start[]> = { bare: [], empty: [], ...(data && { data: [] }) };
for (let i = 0; i < rounds; i++) {
  // Side by side in each round: the load of the moment weighs on all of them alike.
  results.bare!.push(await bare());
  const empty = tempDataDir('adam-bench-startup-');
  try {
    results.empty!.push(await server(empty));
  } finally {
    removeDir(empty);
  }
  if (data) results.data!.push(await server(data.dir, !DATA_FROM));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const bareMs = median(results.bare!.map((r) => r.answersMs));
table(
  [
    'start (median of rounds)',
    'first line ms',
    'first 200 ms',
    'ready ms',
    '200 / bare',
    'ready / bare',
  ],
  Object.entries(results).map(([name, rs]) => {
    const label =
      name === 'bare'
        ? 'bare node http server'
        : name === 'empty'
          ? 'ADAM, empty data dir'
          : DATA_FROM
            ? `ADAM, ${path.basename(DATA_FROM)} (to first 200)`
            : `ADAM, ${rows.toLocaleString('en')} snippets`;
    const first = rs.map((r) => r.firstLineMs).filter((x): x is number => x !== null);
    const answers = median(rs.map((r) => r.answersMs));
    const ready = median(rs.map((r) => r.readyMs));
    return [
      label,
      first.length ? ms(median(first)) : '-',
      ms(answers),
      ms(ready),
      fixed(answers / bareMs, 1),
      Number.isNaN(ready) ? '-' : fixed(ready / bareMs, 1),
    ];
  }),
);
if (data && results.empty!.length) {
  const e = median(results.empty!.map((r) => r.answersMs));
  const d = median(results.data!.map((r) => r.answersMs));
  console.log(
    `first 200 with ${DATA_FROM ?? `${rows.toLocaleString('en')} snippets`} / empty: ${fixed(d / e, 2)}`,
  );
}
footer(started);
