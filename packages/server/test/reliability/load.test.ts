import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ARTICLES } from '../corpus.js';
import {
  idleSockets,
  mixedLoad,
  openIdleSockets,
  closeSockets,
  percentile,
  startServeChild,
  type ServeChild,
} from './load-harness.js';
import { report } from './report.js';

// The fast part of the load checks (the long one, load.long.ts, runs 50 clients for 60 s and
// 1,000 sockets). The server runs as a child process: the load client has its own event loop.

/** The realtime channel's payload limit (ws-channel.ts): a bigger message closes the socket. */
const MAX_PAYLOAD = 64 * 1024;
const CLOSE_MESSAGE_TOO_BIG = 1009;

let server: ServeChild;

beforeAll(async () => {
  server = await startServeChild();
  // Something to list and search.
  for (const [title, text] of Object.entries(ARTICLES).slice(0, 2)) {
    const r = await fetch(`${server.url}/api/v1/playground/save-segments`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': server.key },
      body: JSON.stringify({ title, language: 'en', text, wait: true }),
    });
    expect(r.status).toBe(200);
  }
});
afterAll(async () => {
  await server?.close();
});

describe('load (fast)', () => {
  it('answers a mixed load of 20 clients for 5 s with no 5xx and no SQLITE_BUSY', async () => {
    const r = await mixedLoad(server, 20, 5000);
    report({
      check: 'load: mixed, 20 clients × 5 s',
      runs: r.server.count,
      failures: r.failures.length,
      figure: r.figure,
    });
    expect(r.failures.slice(0, 5)).toEqual([]);
    // Every kind was exercised.
    expect([...r.server.ms.keys()].sort()).toEqual(['list', 'login', 'save', 'search', 'settings']);
    expect(r.server.countStatus(429)).toBeGreaterThan(0);
  });

  it('keeps /health quick with 200 idle sockets open', async () => {
    const r = await idleSockets(server, 200);
    const p95 = percentile(r.withSockets, 95);
    // The bound, widened only when the same run's reference shows a slow machine.
    const bound = Math.max(50, 3 * percentile(r.reference, 95));
    report({
      check: 'load: /health with 200 idle sockets',
      runs: r.withSockets.length,
      failures:
        r.withSockets.filter((ms) => ms > bound).length > r.withSockets.length * 0.05 ? 1 : 0,
      figure: r.figure,
    });
    expect(r.open).toBe(200);
    expect(p95).toBeLessThan(bound);
  });

  it('closes a socket whose message is over the payload limit with 1009, and only that one', async () => {
    const [bystander, whole, fragmented] = await openIdleSockets(server.url, server.key, 3, 3);
    const closeCode = (ws: WebSocket) =>
      new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    const codes: number[] = [];

    // One frame just over the limit.
    const wholeClosed = closeCode(whole!);
    whole!.send('x'.repeat(MAX_PAYLOAD + 1));
    codes.push(await wholeClosed);

    // The same total in fragments each under the limit: the message as a whole is what counts.
    const fragClosed = closeCode(fragmented!);
    const part = 'y'.repeat(MAX_PAYLOAD / 2);
    fragmented!.send(part, { fin: false });
    fragmented!.send(part, { fin: false });
    fragmented!.send('z', { fin: true });
    codes.push(await fragClosed);

    // The server is up and the other socket still works.
    const pong = new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), 5000);
      bystander!.on('message', (d) => {
        if ((JSON.parse(String(d)) as { type: string }).type === 'pong') {
          clearTimeout(t);
          resolve(true);
        }
      });
    });
    bystander!.send(JSON.stringify({ type: 'ping' }));
    const bystanderOk = await pong;
    const health = await fetch(`${server.url}/api/v1/health`);
    const failures =
      codes.filter((c) => c !== CLOSE_MESSAGE_TOO_BIG).length +
      (bystanderOk ? 0 : 1) +
      (health.status === 200 ? 0 : 1);
    report({
      check: 'load: oversize WebSocket messages',
      runs: 3,
      failures,
      figure: `close codes ${codes.join(', ')} (whole ${MAX_PAYLOAD + 1} B, fragmented ${MAX_PAYLOAD + 1} B); bystander ${bystanderOk ? 'answered' : 'silent'}; /health ${health.status}`,
    });
    expect(codes).toEqual([CLOSE_MESSAGE_TOO_BIG, CLOSE_MESSAGE_TOO_BIG]);
    expect(bystanderOk).toBe(true);
    expect(health.status).toBe(200);
    await closeSockets([bystander!]);
  });
});
