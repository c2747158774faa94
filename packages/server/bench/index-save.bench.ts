/**
 * Event-loop lateness while the vector index is saved (not a test: prints figures, asserts
 * nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/index-save.bench.ts [rows]
 *   ROWS=1000000 npm run bench -w @adam/server -- index-save
 *
 * A data dir with `rows` snippets (default 200,000), every one pending with its vector added to
 * a real IndexService (the graph built on the index's thread). Then a 10 ms interval timer runs
 * and its worst lateness (how much later than due a tick fired) is measured twice in the same
 * run: idle for a few seconds (the reference), and during one flush(): the save of every
 * vector on the index's thread and the marking of every row indexed, which is what the server
 * does after a batch of ingestion. Target: the save's worst lateness within 2× the idle one.
 *
 * Vectors are random (the graph's quality does not matter to a save); building the graph is the
 * slow part (about 4 min at 200k on the shared 2-core machine).
 */
import path from 'node:path';
import { EventBus } from '../src/lib/event-bus.js';
import { createLogger, LogSink } from '../src/logging.js';
import { IndexService } from '../src/services/index.service.js';
import { openDatabase } from '../src/store/db.js';
import { SnippetRepository, type NewSnippet } from '../src/store/snippet.repository.js';
import { fixed, footer, header, removeDir, rng, seconds, table, tempDataDir } from './common.js';

const ROWS = Number(process.argv[2] ?? process.env.ROWS ?? 200_000);
const DIMENSION = 384;
const CHUNK = 10_000;
const TICK_MS = 10;
const IDLE_MS = 5_000;

/** Runs a 10 ms interval while `during` runs; answers its worst lateness and its tick count. */
async function lateness(
  during: () => Promise<unknown>,
): Promise<{ worst: number; ticks: number; ms: number }> {
  let worst = 0;
  let ticks = 0;
  let due = performance.now() + TICK_MS;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - due);
    ticks++;
    due = now + TICK_MS;
  }, TICK_MS);
  const started = performance.now();
  try {
    await during();
  } finally {
    clearInterval(timer);
  }
  // The last gap, if the work ended in the middle of one.
  worst = Math.max(worst, performance.now() - due);
  return { worst, ticks, ms: performance.now() - started };
}

header(`index save: event-loop lateness during a save of ${ROWS.toLocaleString('en')} vectors`);
const started = performance.now();
const dir = tempDataDir('adam-bench-index-save-');
const db = openDatabase(dir);
try {
  const snippets = new SnippetRepository(db);
  const rand = rng(11);
  let t = performance.now();
  for (let done = 0; done < ROWS; done += CHUNK) {
    const rows: NewSnippet[] = [];
    for (let i = done; i < Math.min(ROWS, done + CHUNK); i++) {
      const text = `bench snippet ${i} about index saves and event loops`;
      rows.push({
        text,
        text_hash: `h${i}`,
        theme: 'technology',
        quality_score: 0.5,
        language: 'en',
        word_count: 8,
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

  const sink = new LogSink();
  const log = createLogger({ level: 'warn', sink, stdout: true });
  const index = new IndexService({
    dir: path.join(dir, 'index'),
    snippets,
    embedder: {
      id: 'bench',
      dimension: DIMENSION,
      embed: () => Promise.reject(new Error('the bench adds its vectors itself')),
    },
    log,
    bus: new EventBus(),
  });
  await index.ready;
  t = performance.now();
  const ids = snippets.pendingIdsAfter(0, ROWS);
  for (let i = 0; i < ids.length; i += CHUNK) {
    const entries = ids.slice(i, i + CHUNK).map((key) => ({
      key,
      vector: Float32Array.from({ length: DIMENSION }, () => rand() - 0.5),
    }));
    index.addDeferred(entries);
    // One batch at a time: the adds queue on the index's thread, the vectors with them.
    await index.search(entries[0]!.vector, 1, `probe-${i}`);
  }
  console.log(`  graph built: ${seconds(performance.now() - t)}`);

  const idle = await lateness(() => new Promise((r) => setTimeout(r, IDLE_MS)));
  const save = await lateness(() => index.flush());
  const after = snippets.indexCounts();
  table(
    ['phase', 'duration', 'ticks', 'worst lateness ms'],
    [
      ['idle (reference)', seconds(idle.ms), idle.ticks, fixed(idle.worst, 1)],
      ['save + mark indexed', seconds(save.ms), save.ticks, fixed(save.worst, 1)],
    ],
  );
  console.log(
    `  worst lateness during the save: ${fixed(save.worst / Math.max(idle.worst, 0.1), 2)}× the idle one` +
      ` (target ≤ 2×); rows still pending after it: ${after.pending}`,
  );
  await index.close();
} finally {
  db.close();
  removeDir(dir);
}
footer(started);
