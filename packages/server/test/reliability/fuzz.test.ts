import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzAll, fuzzFigure, fuzzServer, type FuzzServer } from './openapi-fuzz.js';
import { report } from './report.js';

// Fixed: the fast suite sends the same requests every run; fuzz.long.ts draws a new seed.
const SEED = 1313;
const RUNS = 15;

let f: FuzzServer;
beforeAll(async () => {
  f = await fuzzServer();
});
afterAll(async () => {
  await f?.close();
});

describe('schema fuzzing from the OpenAPI document', () => {
  it('answers every generated request below 500, with a documented status and schema', async () => {
    const r = await fuzzAll(f, { seed: SEED, runs: RUNS });
    report({
      check: 'input: OpenAPI schema fuzzing',
      runs: r.requests,
      failures: r.failures.length,
      figure: fuzzFigure(r, SEED),
    });
    expect(r.failures).toEqual([]);
    // Valid requests reached past validation, not only the 4xx of broken ones.
    expect(r.byStatus['200']).toBeGreaterThan(r.requests / 5);
    // The server is still there after all of it.
    expect((await f.s.api('/api/v1/health')).status).toBe(200);
  }, 120_000);
});
