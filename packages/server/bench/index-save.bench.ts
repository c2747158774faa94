/**
 * Event-loop lateness while the vector index is saved (not a test: prints figures, asserts
 * nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/index-save.bench.ts [rows]
 *   ROWS=1000000 npm run bench -w @adam/server -- index-save
 *
 * A data dir with `rows` snippets (default 200,000), every one pending with its vector added to
 * a real IndexService. Then a 10 ms interval timer runs and its lateness (how much later than due
 * a tick fired) is measured twice in the same run: idle for about as long as the save will take
 * (the reference), and
 * during one flush(): the server's save of every vector on the index's thread and the marking of
 * every row indexed on the marking thread, as after a batch of ingestion. Target: the save's worst lateness within 2×
 * the idle one.
 *
 * Built cheaply so that 1M fits: random unit vectors in batches of 50,000 (usearch adds a batch
 * on all cores), and a graph of the server's layout (same connectivity, so the same file size)
 * built with a small expansion (GRAPH_EF, default 16; the server's is 200), which only changes
 * how well neighbours are chosen, not what a save writes. The service's own save timer is off:
 * with it, a slow build let the timer save first and the measured save was empty.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { EventBus } from '../src/lib/event-bus.js';
import { createLogger, LogSink } from '../src/logging.js';
import { IndexService } from '../src/services/index.service.js';
import { openDatabase } from '../src/store/db.js';
import type { MarkResult } from '../src/store/mark-indexed.js';
import { SnippetRepository, type NewSnippet } from '../src/store/snippet.repository.js';
import { startPool } from '../src/vector/recall.js';
import {
  fixed,
  footer,
  header,
  mib,
  percentile,
  removeDir,
  rng,
  seconds,
  table,
  tempDataDir,
} from './common.js';

const ROWS = Number(process.argv[2] ?? process.env.ROWS ?? 200_000);
const GRAPH_EF = Number(process.env.GRAPH_EF ?? 16);
const DIMENSION = 384;
const ROW_CHUNK = 50_000;
const VECTOR_CHUNK = 50_000;
const TICK_MS = 10;
/**
 * The idle reference lasts about as long as the save and marking will (~40 s at 1M on a quiet
 * machine): a worst case over 5 s set against one over 40 s flattered the idle side, since a
 * shared machine's rare hiccups (steal, kernel threads) show up in the longer window only.
 */
const IDLE_MS = Math.max(5_000, ROWS / 25);

interface Lateness {
  worst: number;
  p99: number;
  /** Worst lateness less the time this thread waited for a CPU since the tick before. */
  worstOwn: number;
  /** The same, less also the time the virtual machine's CPUs were taken by its host. */
  worstOwnSteal: number;
  /**
   * The worst own tick's split: on a CPU (of which GC pauses), and neither (blocked), with this
   * thread's major page faults in it (a page read from disk: a blocked tick with some was paging).
   */
  worstOwnSplit: { ran: number; gc: number; blocked: number; majorFaults: number };
  ticks: number;
  ms: number;
}

/**
 * This thread's time on a CPU and waiting for one, in ms (Linux schedstat; null elsewhere): what
 * a slow call spent neither running nor runnable, it spent blocked (I/O, a lock).
 */
function schedstat(): { cpu: number; runnable: number } | null {
  try {
    const [cpu, wait] = fs.readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ');
    return { cpu: Number(cpu) / 1e6, runnable: Number(wait) / 1e6 };
  } catch {
    return null;
  }
}

/**
 * This thread's major page faults so far (Linux /proc/thread-self/stat, field 12; 0 elsewhere):
 * touching a page that had to be read from disk, such as code or a mapped file the kernel evicted.
 */
function majorFaults(): number {
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is 3.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[12 - 3] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Each CPU's steal so far, in ms (Linux /proc/stat, in 10 ms ticks; empty elsewhere): time a
 * virtual machine's CPU was running someone else's work on its host. A thread then neither runs
 * nor waits in this machine's run queue, so schedstat does not see it.
 */
function stealPerCpu(): number[] {
  try {
    return fs
      .readFileSync('/proc/stat', 'utf8')
      .split('\n')
      .filter((line) => /^cpu\d/.test(line))
      .map((line) => Number(line.split(' ')[8] ?? 0) * 10);
  } catch {
    return [];
  }
}

interface Tick {
  at: number;
  ms: number;
  /** Of which (at most) waiting for a CPU: the machine's load, not this thread's work. */
  waited: number;
  /** Of which (at most) the host's steal on the busiest of this machine's CPUs. */
  stolen: number;
  /** This thread's time on a CPU since the tick before (JS, GC, native calls). */
  ran: number;
  /** Of which this isolate's garbage-collection pauses. */
  gc: number;
  /** This thread's major page faults since the tick before. */
  majorFaults: number;
}

/** This isolate's GC pauses as they end: start time and duration (perf_hooks 'gc' entries). */
const gcPauses: { start: number; ms: number }[] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push({ start: e.startTime, ms: e.duration });
}).observe({ entryTypes: ['gc'] });
const gcBetween = (from: number, to: number) =>
  gcPauses.reduce((n, g) => (g.start >= from && g.start < to ? n + g.ms : n), 0);

/** Worst and p99 of some ticks' lateness. */
function summary(late: Tick[], ms: number): Lateness {
  const sorted = late.map((t) => t.ms).sort((a, b) => a - b);
  const own = (t: Tick) => t.ms - Math.min(t.ms, t.waited);
  const worst = late.reduce<Tick | null>((w, t) => (!w || own(t) > own(w) ? t : w), null);
  return {
    worstOwnSplit: worst
      ? {
          ran: Math.min(own(worst), worst.ran),
          gc: worst.gc,
          blocked: Math.max(0, own(worst) - worst.ran),
          majorFaults: worst.majorFaults,
        }
      : { ran: 0, gc: 0, blocked: 0, majorFaults: 0 },
    worst: sorted[sorted.length - 1] ?? 0,
    p99: percentile(sorted, 99) || 0,
    worstOwn: late.reduce((w, t) => Math.max(w, t.ms - Math.min(t.ms, t.waited)), 0),
    worstOwnSteal: late.reduce(
      (w, t) => Math.max(w, t.ms - Math.min(t.ms, t.waited + t.stolen)),
      0,
    ),
    ticks: sorted.length,
    ms,
  };
}

/**
 * Runs a 10 ms interval while `during` runs; answers its lateness per tick, worst and p99, and
 * the same split at `split()` (a time, or null: not split).
 */
async function lateness(
  during: () => Promise<unknown>,
  split: () => number | null = () => null,
): Promise<{ all: Lateness; before: Lateness; after: Lateness }> {
  const late: Tick[] = [];
  let due = performance.now() + TICK_MS;
  let runnable = schedstat()?.runnable ?? 0;
  let cpu = schedstat()?.cpu ?? 0;
  let steal = stealPerCpu();
  let faults = majorFaults();
  let last = performance.now();
  const tick = (now: number) => {
    const sched = schedstat();
    const r = sched?.runnable ?? 0;
    const c = sched?.cpu ?? 0;
    const st = stealPerCpu();
    const f = majorFaults();
    const stolen = st.reduce((m, v, i) => Math.max(m, v - (steal[i] ?? v)), 0);
    late.push({
      at: now,
      ms: Math.max(0, now - due),
      waited: r - runnable,
      stolen,
      ran: c - cpu,
      gc: gcBetween(last, now),
      majorFaults: f - faults,
    });
    faults = f;
    runnable = r;
    cpu = c;
    steal = st;
    last = now;
  };
  const timer = setInterval(() => {
    const now = performance.now();
    tick(now);
    due = now + TICK_MS;
  }, TICK_MS);
  const started = performance.now();
  try {
    await during();
  } finally {
    clearInterval(timer);
  }
  const ended = performance.now();
  // The last gap, if the work ended in the middle of one.
  tick(ended);
  const at = split() ?? ended;
  // A tick is late because of what ran before it: the first tick after the split is "before".
  const firstAfter = late.findIndex((t) => t.at > at);
  const cut = firstAfter < 0 ? late.length : firstAfter + 1;
  return {
    all: summary(late, ended - started),
    before: summary(late.slice(0, cut), at - started),
    after: summary(late.slice(cut), ended - at),
  };
}

/** `n` random unit vectors, one flat array. */
function unitVectors(n: number, rand: () => number): Float32Array {
  const flat = new Float32Array(n * DIMENSION);
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let d = 0; d < DIMENSION; d++) {
      const x = rand() - 0.5;
      flat[i * DIMENSION + d] = x;
      norm += x * x;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let d = 0; d < DIMENSION; d++) flat[i * DIMENSION + d]! *= scale;
  }
  return flat;
}

header(`index save: event-loop lateness during a save of ${ROWS.toLocaleString('en')} vectors`);
const started = performance.now();
const dir = tempDataDir('adam-bench-index-save-');
// As the server opens its store (core.ts): checkpoints on their own thread, not in commits.
const db = openDatabase(dir, undefined, { checkpointOffThread: true });
try {
  const snippets = new SnippetRepository(db);
  let t = performance.now();
  for (let done = 0; done < ROWS; done += ROW_CHUNK) {
    const rows: NewSnippet[] = [];
    for (let i = done; i < Math.min(ROWS, done + ROW_CHUNK); i++) {
      const text = `bench snippet ${i}`;
      rows.push({
        text,
        text_hash: `h${i}`,
        theme: 'technology',
        quality_score: 0.5,
        language: 'en',
        word_count: 3,
        size_bytes: text.length,
        source_title: 'bench',
        source_url: 'https://example.com/bench',
        job_id: null,
        metadata: '{}',
        embedding: null,
        embedder_id: null,
      } as NewSnippet);
    }
    snippets.insertMany(rows);
  }
  console.log(`  rows stored: ${seconds(performance.now() - t)}`);

  let marking: number | null = null;
  const batches: MarkResult[] = [];
  const markPool = startPool('../store/mark-indexed.worker');
  const sink = new LogSink();
  const log = createLogger({ level: 'warn', sink, stdout: true });
  const indexDir = path.join(dir, 'index');
  const index = new IndexService({
    dir: indexDir,
    snippets,
    embedder: {
      id: 'bench',
      dimension: DIMENSION,
      embed: () => Promise.reject(new Error('the bench adds its vectors itself')),
    },
    log,
    bus: new EventBus(),
    // Only the measured flush saves; no watch (it would see the store ahead of the index).
    saveIntervalMs: 0,
    // The server's own marking thread, watched: when the marking starts (the save on the
    // index's thread is done) and what each batch's transactions took there.
    markIndexed: (task) => {
      marking ??= performance.now();
      return markPool.run(task).then((r: MarkResult) => {
        batches.push(r);
        return r;
      });
    },
    watchIntervalMs: 0,
    graph: { expansionAdd: GRAPH_EF },
  });
  await index.ready;
  t = performance.now();
  const rand = rng(11);
  const ids = snippets.pendingIdsAfter(0, ROWS);
  for (let i = 0; i < ids.length; i += VECTOR_CHUNK) {
    const keys = ids.slice(i, i + VECTOR_CHUNK);
    const flat = unitVectors(keys.length, rand);
    const entries = keys.map((key, j) => ({
      key,
      vector: flat.subarray(j * DIMENSION, (j + 1) * DIMENSION),
    }));
    index.addDeferred(entries);
    // One batch at a time: the adds queue on the index's thread, the vectors with them.
    await index.search(entries[0]!.vector, 1, `probe-${i}`);
    process.stdout.write(`\r  graph: ${(i + keys.length).toLocaleString('en')} vectors`);
  }
  console.log(`\n  graph built: ${seconds(performance.now() - t)} (expansion_add ${GRAPH_EF})`);
  // The marking thread started before the measures, as it is after a server's first flush. Its
  // start inside the measured flush was the worst tick: under tsx a new thread's loader forks
  // esbuild, and fork() holds the process's memory map lock while it copies its page tables
  // (31 ms at 1M), so the main thread's next page fault waited that long (perf, mmap_lock and
  // sched_switch traces). The built server forks nothing there.
  await markPool.run({ dbFile: snippets.file, keys: new Float64Array(0), at: '', skip: null });

  const idle = (await lateness(() => new Promise((r) => setTimeout(r, IDLE_MS)))).all;
  const phases = await lateness(
    () => index.flush(),
    () => marking,
  );
  const save = phases.all;
  const after = snippets.indexCounts();
  const size = index.diskBytes();
  table(
    [
      'phase',
      'duration',
      'ticks',
      'max lateness ms',
      'p99 lateness ms',
      'max less CPU waits',
      'and less steal',
    ],
    [
      [
        'idle (reference)',
        seconds(idle.ms),
        idle.ticks,
        fixed(idle.worst, 1),
        fixed(idle.p99, 1),
        fixed(idle.worstOwn, 1),
        fixed(idle.worstOwnSteal, 1),
      ],
      ...(
        [
          ['save + mark indexed', save],
          ['  save (index thread)', phases.before],
          ['  mark indexed', phases.after],
        ] as const
      ).map(([name, l]) => [
        name,
        seconds(l.ms),
        l.ticks,
        fixed(l.worst, 1),
        fixed(l.p99, 1),
        fixed(l.worstOwn, 1),
        fixed(l.worstOwnSteal, 1),
      ]),
    ],
  );
  const transactions = batches.reduce((n, b) => n + b.transactions, 0);
  console.log(
    `  marking (its own thread): ${batches.reduce((n, b) => n + b.marked, 0).toLocaleString('en')} rows in ` +
      `${batches.length} batches, ${transactions.toLocaleString('en')} transactions, longest ` +
      `${fixed(Math.max(0, ...batches.map((b) => b.maxMs)), 1)} ms (the server's writes wait at most that)`,
  );
  console.log(
    `  ${ROWS.toLocaleString('en')} vectors, index on disk ${mib(size)}; save took ${seconds(save.ms)}`,
  );
  console.log(
    `  max lateness during the save: ${fixed(save.worst / Math.max(idle.worst, 0.1), 2)}× the idle one` +
      ` (target ≤ 2×); p99 ${fixed(save.p99 / Math.max(idle.p99, 0.1), 2)}×;` +
      ` rows still pending after it: ${after.pending}`,
  );
  console.log(
    `  less the waits for a CPU (the machine's load): max ${fixed(save.worstOwn, 1)} ms vs idle ` +
      `${fixed(idle.worstOwn, 1)} ms; less the host's steal too: max ${fixed(save.worstOwnSteal, 1)} ms ` +
      `vs idle ${fixed(idle.worstOwnSteal, 1)} ms; load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  const split = (name: string, l: Lateness) =>
    `${name} ${fixed(l.worstOwnSplit.ran, 1)} ms on a CPU (GC pauses ${fixed(l.worstOwnSplit.gc, 1)} ms), ` +
    `${fixed(l.worstOwnSplit.blocked, 1)} ms blocked (${l.worstOwnSplit.majorFaults} major page faults)`;
  console.log(
    `  the worst tick less its CPU wait: ${split('idle', idle)}; ${split('save', phases.before)}; ` +
      split('marking', phases.after),
  );
  await index.close();
  await markPool.destroy();
} finally {
  db.close();
  removeDir(dir);
}
footer(started);
