/**
 * Event-loop responsiveness while a 100 kB article is analysed, embedded and stored (not a test:
 * prints figures, asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/responsiveness.bench.ts
 *
 * A real server (buildApp + listen on a temporary data dir). GET /health is timed in a loop,
 * 20 ms apart, first with the server idle (the reference), then while POST
 * /playground/save-segments {wait: true} runs on a ~95 kB text made of the test corpus. The
 * analysis runs on the engine's threads, so /health should stay near its idle latency.
 */
import { buildApp, type Adam } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { ARTICLES } from '../test/corpus.js';
import {
  benchLogin,
  fixed,
  footer,
  header,
  percentile,
  removeDir,
  sharedModel,
  summarize,
  table,
  tempDataDir,
  type LatencySummary,
} from './common.js';

const TARGET_BYTES = 95_000;
const PAUSE_MS = 20;
const IDLE_SAMPLES = 200;
const RUNS = 3;

header('responsiveness: /health latency while a 100 kB article is analysed and embedded');
const started = performance.now();
await sharedModel();
const dataDir = tempDataDir('adam-bench-responsiveness-');
let adam: Adam | null = null;
try {
  adam = await buildApp(loadConfig({ ADAM_DATA_DIR: dataDir, ADAM_WEB_DIST: '' }));
  await adam.app.listen({ port: 0, host: '127.0.0.1' });
  await adam.engineStarted;
  const { base, key } = await benchLogin(adam);
  const save = (title: string, text: string) =>
    fetch(`${base}/playground/save-segments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ title, text, wait: true }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));
  const health = async () => {
    const t = performance.now();
    const r = await fetch(`${base}/health`);
    await r.arrayBuffer();
    return performance.now() - t;
  };
  const pause = () => new Promise((r) => setTimeout(r, PAUSE_MS));

  // Warm the engine's threads and the HTTP path before measuring anything.
  await save('warm-up', ARTICLES.volcanoes!);
  for (let i = 0; i < 20; i++) await health();

  const idle: number[] = [];
  for (let i = 0; i < IDLE_SAMPLES; i++) {
    idle.push(await health());
    await pause();
  }

  const paragraphs = Object.values(ARTICLES);
  const rows: (string | number)[][] = [];
  const row = (label: string, s: LatencySummary, extra: string) => [
    label,
    s.n,
    fixed(s.p50, 1),
    fixed(s.p95, 1),
    fixed(s.max, 1),
    extra,
  ];
  rows.push(row('idle (reference)', summarize(idle), '-'));
  for (let run = 0; run < RUNS; run++) {
    let text = '';
    for (let i = 0; Buffer.byteLength(text) < TARGET_BYTES; i++) {
      // A run marker in every sentence: each run's segments are new, not duplicates.
      text += `${paragraphs[i % paragraphs.length]!.replace(/\./g, ` (${run}-${i}).`)}\n\n`;
    }
    let finished = false;
    const t = performance.now();
    const saving = save(`big ${run}`, text).finally(() => (finished = true));
    const busy: number[] = [];
    while (!finished) {
      busy.push(await health());
      await pause();
    }
    const saved = await saving;
    const wall = performance.now() - t;
    const s = summarize(busy);
    const p90 = percentile(
      [...busy].sort((a, b) => a - b),
      90,
    );
    rows.push(
      row(
        `during save ${run + 1} (p90 ${fixed(p90, 1)} ms)`,
        s,
        `${saved.status}, ${String(saved.body.segments_created)} segments in ${fixed(wall / 1000, 1)} s`,
      ),
    );
  }
  table(['GET /health', 'n', 'p50 ms', 'p95 ms', 'max ms', 'save'], rows);
} finally {
  await adam?.app.close();
  removeDir(dataDir);
}
footer(started);
