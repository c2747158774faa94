import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeChild, type ServeChild } from './load-harness.js';
import { measureFlood } from './flood-harness.js';
import { report } from './report.js';

// The figure: under a flood of 10,000 messages a second from one socket, /health p95
// stays within 2× its idle value in the same run. The flooder reconnects whenever the server
// closes its socket with 1008, so the flood lasts the whole 20 s. `npm run test:reliability`.

const RATE = 10_000;

let server: ServeChild;

beforeAll(async () => {
  server = await startServeChild();
});
afterAll(async () => {
  await server?.close();
});

describe('socket flood (long)', () => {
  it('keeps /health p95 within 2× its idle value under 10,000 messages a second', async () => {
    const r = await measureFlood(server, { rate: RATE, idleMs: 10_000, floodMs: 20_000 });
    const refused = r.closes.filter((c) => c.code !== 1008).length;
    report({
      check: 'socket flood: /health p95 under 10,000 msg/s vs idle',
      runs: r.flooded.length,
      failures: (r.ratio <= 2 ? 0 : 1) + r.other.length + refused,
      figure: r.figure,
    });
    expect(r.other).toEqual([]);
    // The flood was real and the server closed each flooding socket with 1008.
    expect(r.sent).toBeGreaterThan(RATE * 5);
    expect(r.closes.length).toBeGreaterThan(0);
    expect(refused).toBe(0);
    expect(r.ratio).toBeLessThanOrEqual(2);
  });
});
