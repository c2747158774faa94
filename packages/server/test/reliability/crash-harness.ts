import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { generatePage, isFailingFixturePage } from '../fixtures/fixture-pages.js';
import { groupAlive, killGroup, serverRoot } from '../process-tree.js';
import { ARTICLES } from '../corpus.js';
import { saveText, startServer, tempDir } from '../helpers.js';
import { until } from '../until.js';
import { adamNodeArgs } from '../source-entry.js';

/**
 * The crash check's parts: a server run as its own process group (killed with SIGKILL, worker
 * threads and all), concurrent writers that keep a ledger of what the server acknowledged, and
 * the checks of that ledger against the store read straight from disk after the kill.
 */

export interface ApiAnswer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface ServerProcess {
  pid: number;
  base: string;
  api: (p: string, init?: { method?: string; body?: unknown }) => Promise<ApiAnswer>;
  output: () => string;
  /** SIGKILL to the whole group, resolved once nothing of it is left. */
  kill: () => Promise<void>;
  /** SIGTERM (a clean shutdown), resolved once the process exited. */
  stop: () => Promise<void>;
}

/** `adam serve` from the sources on a free port, in its own process group; logged in. */
export async function startServerProcess(
  dataDir: string,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...adamNodeArgs('cli'), 'serve'], {
    cwd: serverRoot,
    env: {
      ...process.env,
      ADAM_WEB_DIST: '',
      PORT: '0',
      ADAM_DATA_DIR: dataDir,
      ADAM_WORKERS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<void>((r) =>
    child.once('exit', () => {
      // Every run's output, for a failure's post-mortem: beside the data dir, appended.
      fs.appendFileSync(`${dataDir}.log`, out);
      r();
    }),
  );
  const pid = child.pid!;
  const output = () => out;
  let port: string;
  try {
    port = await until(
      () => {
        if (child.exitCode !== null) throw new Error(`the server exited: ${out}`);
        return /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(out)?.[1];
      },
      { timeout: 60_000, interval: 25, what: () => `the server to listen (output: ${out})` },
    );
  } catch (e) {
    killGroup(pid);
    throw e;
  }
  const base = `http://127.0.0.1:${port}/api/v1`;
  let key = '';
  const api = async (
    p: string,
    init: { method?: string; body?: unknown } = {},
  ): Promise<ApiAnswer> => {
    const r = await fetch(`${base}${p}`, {
      method: init.method ?? 'GET',
      headers: {
        ...(key && { 'x-api-key': key }),
        ...(init.body !== undefined && { 'content-type': 'application/json' }),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    });
    const text = await r.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: kept as text
    }
    return { status: r.status, body };
  };
  const login = await api('/auth/login', {
    method: 'POST',
    body: { email: 'admin@example.com', password: 'admin' },
  });
  if (login.status !== 200) throw new Error(`login failed: ${JSON.stringify(login.body)}`);
  key = login.body.api_key;
  return {
    pid,
    base,
    api,
    output,
    kill: async () => {
      killGroup(pid);
      await exited;
      await until(() => !groupAlive(pid), { what: 'the process group to end' });
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `PRAGMA integrity_check` of the store, opened read-only beside (or without) a server. */
export function integrityCheck(dataDir: string): string {
  const db = new Database(path.join(dataDir, 'adam.db'), { readonly: true });
  try {
    return (db.pragma('integrity_check') as { integrity_check: string }[])
      .map((r) => r.integrity_check)
      .join('; ');
  } finally {
    db.close();
  }
}

/** A unique article: a generated page with a serial in each sentence, so no segment repeats. */
export function uniqueArticle(serial: number): { title: string; text: string } {
  const page = generatePage((serial % 499) + 1);
  const text = page.body
    .filter((p) => !p.startsWith('#'))
    .map((p) => p.replace(/\.(\s|$)/g, ` (entry ${serial}).$1`))
    .join('\n\n');
  return { title: `${page.title} ${serial}`, text };
}

/** What the server acknowledged (a 2xx answer) and what it was still answering at the kill. */
export class Ledger {
  /** Snippet ids of acknowledged saves. */
  readonly saved = new Set<number>();
  /** Acknowledged deletions. */
  readonly deleted = new Set<number>();
  /** Deletions sent and not answered: either outcome is right. */
  readonly deleting = new Set<number>();
  /** Job ids answered 2xx (source jobs, saves). */
  readonly jobs = new Set<number>();
  /**
   * The last acknowledged settings value, and those sent since without an answer (one writer;
   * between the kill and the writers' stop it sends more, refused, and any of them may be the
   * one the store got).
   */
  setting: { acked: number | null; inFlight: number[] } = { acked: null, inFlight: [] };
  /** Acknowledged writes, all kinds. */
  acked = 0;
  /** Answers that were not 2xx while the server was up (a broken promise of their own). */
  readonly refused: string[] = [];
  private serial = 0;
  nextSerial(): number {
    return ++this.serial;
  }
}

export interface WriterOptions {
  /** The fixture site's base URL (source jobs fetch its /pages/N). */
  siteUrl: string;
  /** Concurrent save-segments writers. */
  savers?: number;
}

/**
 * Runs the writers until `stop` resolves (the kill): saves (waiting for their job), source
 * jobs, settings PUTs, deletions of acknowledged snippets. A request the kill cut is not
 * acknowledged and not recorded; an answer other than 2xx while up is recorded as refused.
 */
export async function runWriters(
  server: ServerProcess,
  ledger: Ledger,
  stop: Promise<void>,
  { siteUrl, savers = 2 }: WriterOptions,
): Promise<void> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const guard = async (what: string, call: () => Promise<ApiAnswer>): Promise<ApiAnswer | null> => {
    try {
      const r = await call();
      if (r.status >= 300 && !stopped)
        ledger.refused.push(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.status < 300 ? r : null;
    } catch {
      return null; // cut by the kill
    }
  };
  const loop = async (step: () => Promise<void>, pauseMs: number) => {
    while (!stopped) {
      await step();
      if (pauseMs) await Promise.race([stop, new Promise((r) => setTimeout(r, pauseMs))]);
    }
  };

  const save = async () => {
    const serial = ledger.nextSerial();
    const r = await guard('save', () =>
      server.api('/playground/save-segments', {
        method: 'POST',
        body: { ...uniqueArticle(serial), language: 'en', wait: true },
      }),
    );
    if (!r) return;
    if (r.body.job_id) ledger.jobs.add(r.body.job_id);
    if (r.body.status !== 'completed' || r.body.snippet_ids.length === 0) {
      ledger.refused.push(`save ${serial}: ${JSON.stringify(r.body).slice(0, 300)}`);
      return;
    }
    for (const id of r.body.snippet_ids as number[]) {
      // A deleted snippet's id never names another one (else "deleted" would not mean gone).
      if (ledger.deleted.has(id) || ledger.deleting.has(id))
        ledger.refused.push(`save ${serial}: answered snippet ${id}, an id deleted before`);
      ledger.saved.add(id);
    }
    ledger.acked++;
  };

  const sourceJob = async () => {
    let n = (ledger.nextSerial() % 480) + 1;
    if (isFailingFixturePage(n)) n++;
    const r = await guard('source job', () =>
      server.api('/sources/process', {
        method: 'POST',
        body: { urls: [`${siteUrl}/pages/${n}`, `${siteUrl}/pages/${n + 1}`] },
      }),
    );
    if (!r) return;
    ledger.jobs.add(r.body.job_id);
    ledger.acked++;
  };

  const settings = async () => {
    const previous = ledger.setting.acked;
    let value = (ledger.nextSerial() % 128) + 1;
    if (value === previous) value = (value % 128) + 1;
    ledger.setting.inFlight.push(value);
    const r = await guard('settings', () =>
      server.api('/admin/settings/processing', {
        method: 'PUT',
        body: { settings: { embedding_batch_size: value } },
      }),
    );
    if (!r) return; // stays in flight: the kill cut it
    ledger.setting = { acked: value, inFlight: [] };
    ledger.acked++;
  };

  const deletion = async () => {
    const candidates = [...ledger.saved].filter(
      (id) => !ledger.deleted.has(id) && !ledger.deleting.has(id),
    );
    // Keep most of what was saved: deletions are a fifth of the rows at most.
    if (candidates.length < 5 || ledger.deleted.size * 5 > ledger.saved.size) return;
    const id = candidates[Math.floor(Math.random() * candidates.length)]!;
    ledger.deleting.add(id);
    const r = await guard('deletion', () => server.api(`/snippets/${id}`, { method: 'DELETE' }));
    if (!r) return;
    ledger.deleting.delete(id);
    ledger.deleted.add(id);
    ledger.acked++;
  };

  await Promise.all([
    ...Array.from({ length: savers }, () => loop(save, 0)),
    loop(sourceJob, 300),
    loop(settings, 50),
    loop(deletion, 30),
  ]);
}

/** What the store on disk says about the ledger; each broken promise as a line. */
export function checkStore(dataDir: string, ledger: Ledger): string[] {
  const problems: string[] = [];
  const db = new Database(path.join(dataDir, 'adam.db'), { readonly: true });
  try {
    const present = new Set(db.prepare('SELECT id FROM snippets').pluck().all() as number[]);
    for (const id of ledger.saved) {
      if (ledger.deleted.has(id) || ledger.deleting.has(id)) continue;
      if (!present.has(id)) problems.push(`snippet ${id}: saved (acknowledged) and missing`);
    }
    for (const id of ledger.deleted)
      if (present.has(id)) problems.push(`snippet ${id}: deleted (acknowledged) and present`);
    const jobs = new Set(db.prepare('SELECT id FROM jobs').pluck().all() as number[]);
    for (const id of ledger.jobs)
      if (!jobs.has(id)) problems.push(`job ${id}: acknowledged and missing`);
    const raw = db.prepare("SELECT value FROM settings WHERE section = 'processing'").pluck().get();
    const value = raw
      ? (JSON.parse(raw as string) as { embedding_batch_size?: number }).embedding_batch_size
      : undefined;
    const allowed = [ledger.setting.acked, ...ledger.setting.inFlight].filter(
      (v): v is number => v !== null,
    );
    // Never set is possible only while nothing was acknowledged: the kill cut the first save
    // before its commit.
    const possible = value === undefined ? ledger.setting.acked === null : allowed.includes(value);
    if (allowed.length && !possible)
      problems.push(
        `settings: embedding_batch_size ${value}, acknowledged ${ledger.setting.acked}` +
          (ledger.setting.inFlight.length
            ? ` (unanswered ${ledger.setting.inFlight.join(', ')})`
            : ''),
      );
  } finally {
    db.close();
  }
  // Deletions cut by the kill are settled now: whichever way the store went.
  return problems;
}

export const FINAL_JOB_STATUSES = ['completed', 'failed', 'cancelled'];

/** Waits for every acknowledged job to end; answers the count of each final status. */
export async function awaitJobs(
  server: ServerProcess,
  ids: Iterable<number>,
  timeout: number,
): Promise<{ final: Record<string, number>; unfinished: string[] }> {
  const final: Record<string, number> = {};
  const waiting = new Set(ids);
  const deadline = performance.now() + timeout;
  while (waiting.size && performance.now() < deadline) {
    for (const id of [...waiting]) {
      const r = await server.api(`/sources/jobs/${id}`);
      if (r.status === 200 && FINAL_JOB_STATUSES.includes(r.body.status)) {
        final[r.body.status] = (final[r.body.status] ?? 0) + 1;
        waiting.delete(id);
      }
    }
    if (waiting.size) await new Promise((r) => setTimeout(r, 100));
  }
  const unfinished: string[] = [];
  for (const id of waiting) {
    const r = await server.api(`/sources/jobs/${id}`);
    unfinished.push(`job ${id}: ${r.status} ${r.body?.status ?? JSON.stringify(r.body)}`);
  }
  return { final, unfinished };
}

/**
 * The server's own view once jobs ended: no vector without a row, no row without its vector
 * (pending ones are waited for: a save the kill cut runs again after the restart), and the
 * index stats agreeing with the row count, all read at one moment.
 */
export async function checkConsistency(server: ServerProcess): Promise<{
  orphans: number;
  rows: number;
  vectors: number;
  problems: string[];
}> {
  type Summary = { total_disk: number; index_only: number; disk_only: number };
  let last!: { summary: Summary; vectors: number; listed: number[] };
  const probe = async () => {
    const check = (await server.api('/snippets/consistency-check')).body;
    const stats = (await server.api('/admin/index/stats')).body;
    const again = (await server.api('/snippets/consistency-check')).body.summary as Summary;
    last = {
      summary: check.summary,
      vectors: stats.total_vectors,
      listed: [
        ...check.index_only.map((o: { faiss_id: number }) => o.faiss_id),
        ...check.disk_only.map((o: { id: number }) => o.id),
      ],
    };
    const s = last.summary;
    // Nothing moved while stats were read, and everything agrees.
    return (
      again.total_disk === s.total_disk &&
      s.index_only === 0 &&
      s.disk_only === 0 &&
      last.vectors === s.total_disk
    );
  };
  try {
    await until(probe, { timeout: 30_000, interval: 200, what: 'a consistent index' });
  } catch {
    // reported below from the last probe
  }
  const { summary: s, vectors, listed } = last;
  const problems: string[] = [];
  const orphans = s.index_only + s.disk_only;
  if (orphans)
    problems.push(
      `consistency: ${s.index_only} index_only, ${s.disk_only} disk_only (${listed.slice(0, 20).join(', ')})`,
    );
  if (vectors !== s.total_disk)
    problems.push(`index stats: ${vectors} vectors for ${s.total_disk} rows`);
  return { orphans, rows: s.total_disk, vectors, problems };
}

export interface CrashRunResult {
  kills: number;
  acked: number;
  lost: number;
  orphans: number;
  integrity: string[];
  jobs: Record<string, number>;
  problems: string[];
}

/**
 * `kills` rounds of: writers on a running server, SIGKILL after a random delay, the store
 * checked on disk (integrity, every acknowledged write), a restart on the same data dir.
 * Then every acknowledged job must end and the index agree with the store.
 */
export async function crashRun(opts: {
  dataDir: string;
  siteUrl: string;
  env?: Record<string, string>;
  kills: number;
  /** The kill falls at a random moment in [min, max) ms after the writers start. */
  killAfterMs: [number, number];
  savers?: number;
  jobTimeoutMs?: number;
  onRound?: (round: number, ledger: Ledger) => void;
}): Promise<CrashRunResult> {
  const ledger = new Ledger();
  const integrity: string[] = [];
  const problems: string[] = [];
  let server = await startServerProcess(opts.dataDir, opts.env);
  try {
    for (let round = 1; round <= opts.kills; round++) {
      let killNow!: () => void;
      const stop = new Promise<void>((r) => (killNow = r));
      const writing = runWriters(server, ledger, stop, {
        siteUrl: opts.siteUrl,
        savers: opts.savers,
      });
      const [min, max] = opts.killAfterMs;
      await new Promise((r) => setTimeout(r, min + Math.random() * (max - min)));
      await server.kill();
      killNow();
      await writing;
      const check = integrityCheck(opts.dataDir);
      if (check !== 'ok') integrity.push(`after kill ${round}: ${check}`);
      problems.push(...checkStore(opts.dataDir, ledger).map((p) => `after kill ${round}: ${p}`));
      server = await startServerProcess(opts.dataDir, opts.env);
      // A deletion the kill cut went one way or the other; from now on it is settled.
      for (const id of ledger.deleting) {
        const r = await server.api(`/snippets/${id}`);
        if (r.status === 404) ledger.deleted.add(id);
      }
      ledger.deleting.clear();
      ledger.setting.inFlight = [];
      const settings = await server.api('/admin/settings/processing');
      ledger.setting.acked = (settings.body.settings ?? settings.body).embedding_batch_size;
      opts.onRound?.(round, ledger);
    }
    const jobs = await awaitJobs(server, ledger.jobs, opts.jobTimeoutMs ?? 60_000);
    problems.push(...jobs.unfinished.map((u) => `unfinished: ${u}`));
    const consistency = await checkConsistency(server);
    problems.push(...consistency.problems);
    // The API's view of the writes too: every acknowledged snippet there, every deletion gone.
    for (const id of ledger.saved) {
      if (ledger.deleted.has(id)) continue;
      const r = await server.api(`/snippets/${id}`);
      if (r.status !== 200) problems.push(`snippet ${id}: acknowledged, GET answers ${r.status}`);
    }
    for (const id of ledger.deleted) {
      const r = await server.api(`/snippets/${id}`);
      if (r.status !== 404) problems.push(`snippet ${id}: deleted, GET answers ${r.status}`);
    }
    await server.stop();
    const end = integrityCheck(opts.dataDir);
    if (end !== 'ok') integrity.push(`at the end: ${end}`);
    problems.push(...checkStore(opts.dataDir, ledger).map((p) => `at the end: ${p}`));
    problems.push(...ledger.refused.map((r) => `refused: ${r}`));
    const lost = problems.filter((p) => /acknowledged/.test(p)).length;
    return {
      kills: opts.kills,
      acked: ledger.acked,
      lost,
      orphans: consistency.orphans,
      integrity,
      jobs: jobs.final,
      problems,
    };
  } finally {
    killGroup(server.pid);
  }
}

// ---------------------------------------------------------------- index save, step by step

/**
 * What a crash leaves in data/index/ after each step of VectorIndex.save (write the next
 * generation's .usearch, then its .keys through a temp file, then swap manifest.json through a
 * temp file, then remove the old generation), and two damaged files. Each state is built from
 * two real saves: `before` (generation g, the manifest in use) and `after` (generation g' > g).
 */
export interface IndexCrashState {
  name: string;
  build: (before: string, after: string, dest: string) => void;
}

function manifestOf(dir: string): { generation: number } {
  return JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
}

function copyInto(src: string, dest: string, names: string[]): void {
  for (const n of names) fs.copyFileSync(path.join(src, n), path.join(dest, n));
}

function halfOf(file: string): Buffer {
  const b = fs.readFileSync(file);
  return b.subarray(0, Math.floor(b.length / 2));
}

const genFiles = (g: number) => [`index-${g}.usearch`, `index-${g}.keys`];
const tmpName = (name: string) => `${name}.tmp-4242-1700000000000`;

export const INDEX_CRASH_STATES: IndexCrashState[] = [
  {
    name: 'next .usearch half written',
    build: (before, after, dest) => {
      const [g, n] = [manifestOf(before).generation, manifestOf(after).generation];
      copyInto(before, dest, ['manifest.json', 'state.json', ...genFiles(g)]);
      fs.writeFileSync(
        path.join(dest, `index-${n}.usearch`),
        halfOf(path.join(after, `index-${n}.usearch`)),
      );
    },
  },
  {
    name: 'next .usearch written, .keys temp file half written',
    build: (before, after, dest) => {
      const [g, n] = [manifestOf(before).generation, manifestOf(after).generation];
      copyInto(before, dest, ['manifest.json', 'state.json', ...genFiles(g)]);
      copyInto(after, dest, [`index-${n}.usearch`]);
      fs.writeFileSync(
        path.join(dest, tmpName(`index-${n}.keys`)),
        halfOf(path.join(after, `index-${n}.keys`)),
      );
    },
  },
  {
    name: 'next generation written, manifest not swapped',
    build: (before, after, dest) => {
      const [g, n] = [manifestOf(before).generation, manifestOf(after).generation];
      copyInto(before, dest, ['manifest.json', 'state.json', ...genFiles(g)]);
      copyInto(after, dest, genFiles(n));
    },
  },
  {
    name: 'next generation written, manifest temp file half written',
    build: (before, after, dest) => {
      const [g, n] = [manifestOf(before).generation, manifestOf(after).generation];
      copyInto(before, dest, ['manifest.json', 'state.json', ...genFiles(g)]);
      copyInto(after, dest, genFiles(n));
      fs.writeFileSync(
        path.join(dest, tmpName('manifest.json')),
        halfOf(path.join(after, 'manifest.json')),
      );
    },
  },
  {
    name: 'manifest swapped, old generation not removed',
    build: (before, after, dest) => {
      const [g, n] = [manifestOf(before).generation, manifestOf(after).generation];
      copyInto(before, dest, genFiles(g));
      copyInto(after, dest, ['manifest.json', 'state.json', ...genFiles(n)]);
    },
  },
  {
    name: 'manifest swapped, its .usearch truncated (lost writes)',
    build: (_before, after, dest) => {
      const n = manifestOf(after).generation;
      copyInto(after, dest, ['manifest.json', 'state.json', ...genFiles(n)]);
      fs.writeFileSync(
        path.join(dest, `index-${n}.usearch`),
        halfOf(path.join(after, `index-${n}.usearch`)),
      );
    },
  },
  {
    name: 'manifest swapped, its .keys truncated',
    build: (_before, after, dest) => {
      const n = manifestOf(after).generation;
      copyInto(after, dest, ['manifest.json', 'state.json', ...genFiles(n)]);
      fs.writeFileSync(
        path.join(dest, `index-${n}.keys`),
        halfOf(path.join(after, `index-${n}.keys`)),
      );
    },
  },
  {
    name: 'manifest swapped, its .keys missing',
    build: (_before, after, dest) => {
      const n = manifestOf(after).generation;
      copyInto(after, dest, ['manifest.json', 'state.json', `index-${n}.usearch`]);
    },
  },
  {
    name: 'old .usearch under the new manifest (files of two saves mixed)',
    build: (before, after, dest) => {
      const [g, n] = [manifestOf(before).generation, manifestOf(after).generation];
      copyInto(after, dest, ['manifest.json', 'state.json', `index-${n}.keys`]);
      fs.copyFileSync(
        path.join(before, `index-${g}.usearch`),
        path.join(dest, `index-${n}.usearch`),
      );
    },
  },
];

/**
 * Builds each state in a copy of a data dir whose second save the crash cut (its rows still
 * pending), starts a server on it, and checks that every row is indexed and found by a vector
 * search for its own text, and that nothing the crash left stays in index/.
 */
export async function runIndexCrashStates(
  states: IndexCrashState[],
): Promise<{ failures: string[]; figure: string }> {
  const seedDir = tempDir();
  let s = await startServer({ dataDir: seedDir });
  let key = await s.login();
  const first = await saveText(s, key, ARTICLES.photosynthesis, 'photosynthesis');
  await s.close();
  const before = tempDir();
  fs.cpSync(path.join(seedDir, 'index'), before, { recursive: true });
  s = await startServer({ dataDir: seedDir });
  key = await s.login();
  const second = await saveText(s, key, ARTICLES.databases, 'databases');
  await s.close();
  const after = tempDir();
  fs.cpSync(path.join(seedDir, 'index'), after, { recursive: true });
  const ids = [...first.snippet_ids, ...second.snippet_ids];
  const texts = new Map<number, string>();
  const seed = new Database(path.join(seedDir, 'adam.db'), { readonly: true });
  for (const r of seed.prepare('SELECT id, text FROM snippets').all() as {
    id: number;
    text: string;
  }[])
    texts.set(r.id, r.text);
  seed.close();

  const failures: string[] = [];
  for (const state of states) {
    const dataDir = tempDir();
    for (const f of fs.readdirSync(seedDir).filter((f) => f.startsWith('adam.db')))
      fs.copyFileSync(path.join(seedDir, f), path.join(dataDir, f));
    fs.mkdirSync(path.join(dataDir, 'index'));
    state.build(before, after, path.join(dataDir, 'index'));
    // The crash came before the second save's rows were marked indexed.
    const db = new Database(path.join(dataDir, 'adam.db'));
    const mark = db.prepare(
      'UPDATE snippets SET index_pending = 1, faiss_id = NULL, indexed_at = NULL WHERE id = ?',
    );
    for (const id of second.snippet_ids) mark.run(id);
    db.close();

    const srv = await startServer({ dataDir });
    try {
      await srv.adam.reconciled;
      const k = await srv.login();
      const summary = (await srv.api('/api/v1/snippets/consistency-check', { key: k })).body
        .summary;
      if (summary.consistent !== ids.length || summary.index_only || summary.disk_only)
        failures.push(`${state.name}: ${JSON.stringify(summary)}`);
      for (const id of ids) {
        const r = await srv.api('/api/v1/snippets/search', {
          method: 'POST',
          key: k,
          body: { query: texts.get(id)!.slice(0, 2000), k: 1, mode: 'vector' },
        });
        if (r.body.results?.[0]?.id !== id)
          failures.push(
            `${state.name}: a search for snippet ${id} answers ${JSON.stringify(r.body).slice(0, 200)}`,
          );
      }
      // What the crash left is gone: one generation, no temp file (damaged copies aside).
      const left = fs
        .readdirSync(path.join(dataDir, 'index'))
        .filter((f) => !f.startsWith('damaged-') && f !== 'manifest.json' && f !== 'state.json');
      if (left.length !== 2) failures.push(`${state.name}: left in index/: ${left.join(', ')}`);
    } finally {
      await srv.close();
    }
  }
  const broken = new Set(failures.map((f) => f.split(':')[0])).size;
  return {
    failures,
    figure: `${states.length - broken}/${states.length} crash states recovered, ${ids.length} rows found by search in each`,
  };
}
