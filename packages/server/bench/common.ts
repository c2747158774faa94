/**
 * What the benches share: the machine line, temporary data dirs linked to one converted model,
 * percentiles, a plain table printer and the texts they index. Nothing here measures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Theme } from '@adam/contracts';
import type { Adam } from '../src/app.js';
import { prepareBuiltinModel } from '../src/embedding/builtin-embedder.js';
import { generatePage } from '../test/fixtures/fixture-pages.js';
import { rng } from '../test/fixtures/seeded-random.js';

export { rng };

/** One converted built-in model for every bench run; kept between runs like the tests' copy. */
export const BENCH_MODEL_ROOT = path.join(os.tmpdir(), 'adam-bench-model-cache');

/** Cores, CPU model, node version, memory and load: printed at the top of every bench. */
export function machineLine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  const gib = (os.totalmem() / 1024 ** 3).toFixed(0);
  return `machine: ${cpus.length} cores, ${model}, ${gib} GiB, node ${process.version}, load average ${loadAvg()}`;
}

const loadAvg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export function header(title: string): void {
  console.log(`== ${title}`);
  console.log(machineLine());
}

/** The bench's own duration, and the load again: other work on the machine moves the figures. */
export function footer(startedAt: number): void {
  console.log(`took ${seconds(performance.now() - startedAt)}; load average now ${loadAvg()}`);
}

/** Converts the model once (about 4 s the first time), then only checks it. */
export async function sharedModel(): Promise<void> {
  await prepareBuiltinModel(BENCH_MODEL_ROOT);
}

/** A fresh temporary data dir whose built-in model points at the shared converted copy. */
export function tempDataDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const link = path.join(dir, 'models', 'builtin');
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(path.join(BENCH_MODEL_ROOT, 'models', 'builtin'), link, 'dir');
  return dir;
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface LatencySummary {
  n: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / (sorted.length || 1);
  return {
    n: sorted.length,
    mean,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** Prints rows as aligned columns: text left, numbers right. */
export function table(head: readonly string[], rows: ReadonlyArray<readonly (string | number)[]>) {
  const cells = [head, ...rows.map((r) => r.map(String))];
  const widths = head.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  // A column of figures ("12.3", "4 / 60", "-0.5 ms") is right-aligned.
  const numeric = head.map((_, c) => rows.every((r) => /^[-+]?\d/.test(String(r[c]))));
  const line = (r: readonly string[]) =>
    r
      .map((cell, c) => (numeric[c] ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd();
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells.slice(1)) console.log(line(r));
}

/**
 * Wall time and this process's CPU time (every thread, workers included) of `fn`. On a shared
 * machine the wall time moves with the neighbours' load; CPU time much less.
 */
export async function measure(fn: () => Promise<void>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await fn();
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
}

export const fixed = (n: number, d = 1): string => n.toFixed(d);
export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
export const mib = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

/** A fixture page as a document: title, then its paragraphs (subheadings on their own line). */
export function pageDocument(n: number): { title: string; topic: string; text: string } {
  const page = generatePage(n);
  const text = [page.title, ...page.body.map((p) => (p.startsWith('## ') ? p.slice(3) : p))].join(
    '\n\n',
  );
  return { title: page.title, topic: page.topic, text };
}

/** Sentences of a text: split after . ! ? before a capital; fragments under 4 words dropped. */
export const splitSentences = (text: string): string[] =>
  text
    .split(/(?<=[.!?])\s+(?=[A-Z\u00C0-\u024F])/u)
    .map((s) => s.trim())
    .filter((s) => s.split(/\s+/).length >= 4);

/** A fixture page's sentences in reading order (subheadings left out). */
export function pageSentences(n: number): { topic: string; sentences: string[] } {
  const page = generatePage(n);
  const sentences = page.body.filter((p) => !p.startsWith('## ')).flatMap(splitSentences);
  return { topic: page.topic, sentences };
}

export const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** The theme of each fixture topic, for generated snippet rows. */
export const TOPIC_THEME: Record<string, Theme> = {
  'volcano monitoring': 'science',
  'variable stars': 'science',
  'coastal erosion': 'science',
  'river restoration': 'science',
  'energy storage': 'technology',
  'railway history': 'technology',
  'medieval manuscripts': 'philosophy',
  'chess history': 'philosophy',
  'bread baking': 'general',
  'urban beekeeping': 'general',
};

/**
 * Cuts a page's sentences into snippet texts of 40–120 words, one in ten led by a sentence of
 * the evaluation documents (they bring rarer words). Draws from `rand` in a fixed order, so a
 * caller drawing between texts still gets the same rows on every run.
 */
export function* pageTexts(
  sentences: readonly string[],
  rand: () => number,
  evalSentences: readonly string[],
): Generator<{ text: string; words: number }> {
  let i = 0;
  while (i < sentences.length) {
    const target = 40 + Math.floor(rand() * 81);
    const parts: string[] = [];
    let words = 0;
    if (rand() < 0.1) {
      const s = evalSentences[Math.floor(rand() * evalSentences.length)]!;
      parts.push(s);
      words += wordCount(s);
    }
    const before = i;
    while (i < sentences.length && words < target) {
      const w = wordCount(sentences[i]!);
      if (words + w > 120) break;
      parts.push(sentences[i]!);
      words += w;
      i++;
    }
    if (i === before) i++; // nothing fitted: skip that sentence
    if (words >= 40) yield { text: parts.join(' '), words };
  }
}

/** Most requests in flight at once, from their start and end times (an end before a start). */
export function maxInFlight(requests: readonly { start: number; end: number }[]): number {
  const edges = requests.flatMap((r) => [
    [r.start, 1],
    [r.end, -1],
  ]);
  edges.sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let max = 0;
  for (const [, d] of edges) max = Math.max(max, (now += d!));
  return max;
}

export interface StartGaps {
  /** Gaps between consecutive starts. */
  n: number;
  min: number;
  /** Gaps shorter than the delay. */
  under: number;
  /** The shortest time spanned by `window` consecutive starts (≥ (window - 1) × delay when polite). */
  span: number;
}

/**
 * Request starts against a minimum delay between them. A late reading of one arrival makes one
 * gap short and the one before it long; the span of `window` starts is not fooled by that.
 */
export function startGaps(starts: readonly number[], delayMs: number, window = 10): StartGaps {
  const sorted = [...starts].sort((a, b) => a - b);
  let min = Infinity;
  let under = 0;
  for (let i = 1; i < sorted.length; i++) {
    const gap = sorted[i]! - sorted[i - 1]!;
    min = Math.min(min, gap);
    if (gap < delayMs) under++;
  }
  let span = Infinity;
  for (let i = window - 1; i < sorted.length; i++)
    span = Math.min(span, sorted[i]! - sorted[i - window + 1]!);
  return { n: Math.max(0, sorted.length - 1), min, under, span };
}

/** The API base of an app listening on a port, and the default administrator's key for it. */
export async function benchLogin(adam: Adam): Promise<{ base: string; key: string }> {
  const addr = adam.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const base = `http://127.0.0.1:${addr.port}/api/v1`;
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: 'admin' }),
  });
  return { base, key: ((await login.json()) as { api_key: string }).api_key };
}

/**
 * Waits until the server's keyword engine answers and, after a load, the index's thread has read
 * the saved vectors into its columns (a step between searches, ~6 s at 1M; sparse queries are
 * answered by the graph alone until then: a scan answers null). Answers the seconds each took.
 */
export async function serverWarm(adam: Adam): Promise<{ keywordS: number; columnsS: number }> {
  const keyword = adam.services.keyword;
  const t0 = performance.now();
  while (!keyword.ready) {
    if (keyword.health().status === 'degraded') throw new Error('keyword engine failed');
    await new Promise((r) => setTimeout(r, 200));
  }
  const index = adam.services.index;
  const probe = new Float32Array(index.dimension);
  probe[0] = 1;
  const t1 = performance.now();
  while ((await index.scanColumns(probe, 1)) === null) await new Promise((r) => setTimeout(r, 200));
  return { keywordS: (t1 - t0) / 1000, columnsS: (performance.now() - t1) / 1000 };
}
