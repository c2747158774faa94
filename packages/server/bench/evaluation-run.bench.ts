/**
 * An evaluation run of 300 queries at 10,000 snippets (not a test: prints figures, asserts
 * nothing). Issue 27's goal: the run costs at most 2× the searches it makes.
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/evaluation-run.bench.ts
 *
 * Data, generated here (never a public dataset): 10k rows of consecutive fixture-page sentences
 * (bench/snippet-data.ts), each page a source (`https://bench.example/pages/<n>`), embedded by
 * the built-in embedder through a rebuild_index job. Queries: for 300 pages, 6–10 words of one of
 * the page's sentences, judged with the page as a source-level judgment (grade 2), plus a
 * snippet-level judgment (grade 3) of the page's first row.
 *
 * Timed in the same process, one after the other: the same 300 × 3 searches called bare on the
 * snippet service (k 100, as the run asks), the run (evaluation_run job through the queue,
 * started → ended as the run records it, and the wall time from the POST's service call to the
 * job's end), then the bare searches again (the machine may have changed meanwhile).
 */
import type { SearchMode } from '@adam/contracts';
import {
  fixed,
  footer,
  header,
  pageSentences,
  removeDir,
  rng,
  seconds,
  sharedModel,
  splitSentences,
  table,
} from './common.js';
import { indexedBenchApp } from './snippet-data.js';

const SNIPPETS = 10_000;
const QUERIES = 300;
const MODES: SearchMode[] = ['keyword', 'vector', 'hybrid'];

header(`evaluation run: ${QUERIES} queries × ${MODES.length} modes at ${SNIPPETS} snippets`);
const benchStarted = performance.now();
await sharedModel();
const { adam, dir } = await indexedBenchApp('adam-bench-eval-', 27, SNIPPETS);
try {
  const { jobs, evaluations, snippets } = adam.services;

  // The pages that have rows, and one sentence of each as a query.
  const pages = adam.db
    .prepare(
      'SELECT source_url, MIN(id) AS first FROM snippets GROUP BY source_url ORDER BY MIN(id)',
    )
    .all() as { source_url: string; first: number }[];
  const rand = rng(2027);
  const queries = pages.slice(0, QUERIES).map((p) => {
    const n = Number(p.source_url.slice(p.source_url.lastIndexOf('/') + 1));
    const sentences = pageSentences(n).sentences.flatMap((s) => splitSentences(s));
    const words = sentences[Math.floor(rand() * sentences.length)]!.split(' ').filter(Boolean);
    const length = 6 + Math.floor(rand() * 5);
    const start = Math.floor(rand() * Math.max(1, words.length - length));
    return {
      text: words.slice(start, start + length).join(' '),
      judgments: [
        { source_url: p.source_url, grade: 2 },
        { snippet_id: p.first, grade: 3 },
      ],
    };
  });
  console.log(`queries: ${queries.length} (of ${pages.length} pages with rows)`);
  const set = evaluations.createSet({ name: 'bench', description: '', queries });

  const bare = async () => {
    const started = performance.now();
    for (const mode of MODES)
      for (const q of queries) await snippets.search({ query: q.text, k: 100, mode });
    return performance.now() - started;
  };
  // A first pass warms the caches both sides use (keyword engine, index pages, SQLite).
  await bare();
  const bareBefore = await bare();

  const t = performance.now();
  const run = evaluations.startRun({ set_id: set.id, modes: MODES });
  const ended = await jobs.waitForEnd(run.job_id!, 600_000);
  const wall = performance.now() - t;
  const done = evaluations.getRun(run.id);
  const runMs = Date.parse(done.ended_at!) - Date.parse(done.started_at!);
  const bareAfter = await bare();
  const bareMean = (bareBefore + bareAfter) / 2;

  console.log(`run ${run.id}: job ${ended.status}, run ${done.status}`);
  table(
    ['what', 'total', 'per search (ms)', '× bare'],
    [
      ['bare searches, before', seconds(bareBefore), fixed(bareBefore / (QUERIES * 3), 2), '1.00'],
      ['bare searches, after', seconds(bareAfter), fixed(bareAfter / (QUERIES * 3), 2), '1.00'],
      [
        'run (started → ended)',
        seconds(runMs),
        fixed(runMs / (QUERIES * 3), 2),
        fixed(runMs / bareMean, 2),
      ],
      [
        'run (queued → job ended)',
        seconds(wall),
        fixed(wall / (QUERIES * 3), 2),
        fixed(wall / bareMean, 2),
      ],
    ],
  );
  table(
    ['mode', 'nDCG@10', 'recall@10', 'recall@100', 'MRR', 'p50 ms', 'p95 ms'],
    done.summary.map((m) => [
      m.mode,
      fixed(m.ndcg_10, 3),
      fixed(m.recall_10, 3),
      fixed(m.recall_100, 3),
      fixed(m.mrr, 3),
      fixed(m.latency_p50_ms, 2),
      fixed(m.latency_p95_ms, 2),
    ]),
  );
  console.log(`goal: run ≤ 2× the searches; here ${fixed(runMs / bareMean, 2)}×`);
} finally {
  await adam.app.close();
  removeDir(dir);
  footer(benchStarted);
}
