/**
 * /health latency while one socket floods the realtime channel (not a test: prints figures,
 * asserts nothing).
 *
 *   cd packages/server && npx tsx --conditions=adam-source bench/socket-flood.bench.ts
 *
 * `adam serve` as a child process; GET /health timed back to back, first idle (the reference),
 * then while a client in another process sends request_update at 1,000 and 10,000 a second,
 * reconnecting whenever the server closes its socket with 1008.
 */
import prepareSharedModel from '../test/global-setup.js';
import { measureFlood } from '../test/reliability/flood-harness.js';
import { percentile, startServeChild } from '../test/reliability/load-harness.js';
import { fixed, footer, header, table } from './common.js';

const RATES = [1_000, 10_000];

header('socket flood: /health while one socket floods the realtime channel');
const started = performance.now();
await prepareSharedModel();
const server = await startServeChild();
try {
  const rows: string[][] = [];
  for (const rate of RATES) {
    const r = await measureFlood(server, { rate, idleMs: 5_000, floodMs: 15_000 });
    const p = (v: number[], q: number) => fixed(percentile(v, q), 2);
    rows.push([
      String(rate),
      String(r.sent),
      String(r.closes.filter((c) => c.code === 1008).length),
      `${p(r.idle, 50)} / ${p(r.idle, 95)}`,
      `${p(r.flooded, 50)} / ${p(r.flooded, 95)}`,
      fixed(r.ratio, 2),
      `${Math.round(r.cpu.idle * 100)}% / ${Math.round(r.cpu.flooded * 100)}%`,
      String(r.other.length),
    ]);
  }
  table(
    [
      'msg/s',
      'sent',
      'closed 1008',
      'idle p50 / p95 ms',
      'flood p50 / p95 ms',
      'p95 ratio',
      'server CPU idle / flood',
      'non-200',
    ],
    rows,
  );
} finally {
  await server.close();
}
footer(started);
