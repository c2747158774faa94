import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers.js';
import { report } from './report.js';

/**
 * The No-backtracking promise: text from outside never makes a regular expression backtrack on
 * the server's thread. An encyclopedia answer whose heading line holds thousands of spaces used
 * to hold the event loop for tens of seconds (the old heading expression was cubic); now it is
 * read as fast as an article of the same size without the trap, and /health answers meanwhile.
 */

// ~15 s of backtracking for the old expression on this machine; linear work now.
const SPACES = 1500;
const EXTRACTS: Record<string, string> = {
  // An unclosed heading: '==' then the spaces, never the closing '=='.
  Hostile: `A paragraph of introduction.\n==${' '.repeat(SPACES)}x\n\n== Body ==\nBody text under a heading.`,
  // The same bytes, the spaces inside a plain line.
  Benign: `A paragraph of introduction.\nab${' '.repeat(SPACES)}x\n\n== Body ==\nBody text under a heading.`,
};

let wiki: http.Server;
let s: TestServer;
let key: string;

beforeAll(async () => {
  // A fake MediaWiki action API answering the two articles above.
  wiki = http.createServer((req, res) => {
    const title = new URL(req.url ?? '/', 'http://wiki.test').searchParams.get('titles') ?? '';
    const extract = EXTRACTS[title];
    const page = extract === undefined ? { title, missing: true } : { pageid: 1, title, extract };
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ batchcomplete: true, query: { pages: [page] } }));
  });
  await new Promise<void>((r) => wiki.listen(0, '127.0.0.1', r));
  const port = (wiki.address() as AddressInfo).port;
  s = await startServer({
    env: {
      ADAM_FETCH_ALLOW: `127.0.0.1:${port}`,
      ADAM_WIKIPEDIA_URL: `http://127.0.0.1:${port}`,
      ADAM_WORKERS: '0',
    },
  });
  key = await s.login();
});
afterAll(async () => {
  await s?.close();
  await new Promise((r) => wiki?.close(r));
});

/** Fetches an article through the playground, timing it; /health is asked at the same moment. */
async function fetchWithHealth(title: string) {
  const start = performance.now();
  const article = s
    .api('/api/v1/playground/fetch-wikipedia', { method: 'POST', key, body: { title } })
    .then((r) => ({ ...r, ms: performance.now() - start }));
  const health = s.api('/api/v1/health').then((r) => ({ ...r, ms: performance.now() - start }));
  return { article: await article, health: await health };
}

describe('no backtracking on input', () => {
  it('reads an encyclopedia heading of thousands of spaces as fast as a plain line', async () => {
    // Warm-up: the first request compiles the route and opens connections.
    await fetchWithHealth('Benign');
    const hostile: number[] = [];
    const benign: number[] = [];
    const healthStatuses: number[] = [];
    const healthMs: number[] = [];
    let text = '';
    // Alternated and the fastest of each kept: a busy machine slows both alike.
    for (let i = 0; i < 5; i++) {
      const b = await fetchWithHealth('Benign');
      expect(b.article.status).toBe(200);
      benign.push(b.article.ms);
      const h = await fetchWithHealth('Hostile');
      expect(h.article.status).toBe(200);
      hostile.push(h.article.ms);
      healthStatuses.push(h.health.status);
      healthMs.push(h.health.ms);
      text = (h.article.body as { text: string }).text;
    }
    const ratio = Math.min(...hostile) / Math.min(...benign);
    const figure =
      `hostile ${Math.min(...hostile).toFixed(0)} ms vs same-size plain ` +
      `${Math.min(...benign).toFixed(0)} ms (×${ratio.toFixed(1)}); /health meanwhile ` +
      `${healthStatuses.join(', ')} in ${Math.min(...healthMs).toFixed(0)} ms`;
    report({
      check: `regex: encyclopedia heading of ${SPACES} spaces`,
      runs: hostile.length,
      failures: ratio < 10 ? 0 : 1,
      figure,
    });

    // The article reads as before: the unclosed heading is a plain line, the real one a section
    // line (pipeline/sections.ts: the mark U+001D, then the heading).
    expect(text).toBe(
      'A paragraph of introduction.\n== x\n\n\u001DBody\n\nBody text under a heading.',
    );
    expect(healthStatuses.every((st) => st > 0 && st < 600)).toBe(true);
    // Same bytes, same work: the old cubic expression made this ratio several hundred.
    expect(ratio, figure).toBeLessThan(10);
  });
});
