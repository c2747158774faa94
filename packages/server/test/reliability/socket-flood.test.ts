import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import WebSocket from 'ws';
import { closeSockets, openIdleSockets, startServeChild, type ServeChild } from './load-harness.js';
import { probeHealth, startFlooder } from './flood-harness.js';
import { report } from './report.js';

// The fast part of the socket-flood check: one socket sending 10,000 request_update a second is
// closed with 1008 while /health and the other sockets keep answering, and the server reads
// little of its flood (it stops reading the socket while it is over its rate). The latency ratio against
// idle is measured by socket-flood.long.ts (and bench/socket-flood.bench.ts), not here: on a busy
// machine a ratio of small latencies is noise.

const RATE = 10_000;
const CLOSE_POLICY_VIOLATION = 1008;

interface HealthBody {
  components: { realtime: { details: { client_messages_refused: number } } };
}

let server: ServeChild;

beforeAll(async () => {
  server = await startServeChild();
});
afterAll(async () => {
  await server?.close();
});

describe('socket flood (fast)', () => {
  it('closes a socket flooding 10,000 messages a second with 1008 while /health keeps answering', async () => {
    const [bystander] = await openIdleSockets(server.url, server.key, 1);
    // The limits close a flood after 5 s; 30 s leaves a slow machine room and still ends.
    const flooder = startFlooder(server, { rate: RATE, durationMs: 30_000, reconnect: false });
    const health = await probeHealth(server.url, flooder.firstClose, 20);
    const closed = await flooder.firstClose;
    await flooder.stop();
    // Messages the server read and dropped: a socket over its rate is paused, not read, so the
    // flood waits in the kernel's buffers and most of it is never read at all.
    const res = await request(`${server.url}/api/v1/health`, {
      headers: { 'x-api-key': server.key },
    });
    const refused = ((await res.body.json()) as HealthBody).components.realtime.details
      .client_messages_refused;

    const pong = new Promise<boolean>((resolve) => {
      const t = setTimeout(() => resolve(false), 10_000);
      bystander!.on('message', (d) => {
        if ((JSON.parse(String(d)) as { type: string }).type === 'pong') {
          clearTimeout(t);
          resolve(true);
        }
      });
    });
    bystander!.send(JSON.stringify({ type: 'ping' }));
    const bystanderOk = await pong;
    const open = bystander!.readyState === WebSocket.OPEN;
    await closeSockets([bystander!]);

    report({
      check: 'socket flood: 10,000 msg/s from one socket',
      runs: closed?.sent ?? 0,
      failures:
        (closed?.code === CLOSE_POLICY_VIOLATION ? 0 : 1) +
        (closed && refused < closed.sent / 4 ? 0 : 1) +
        health.other.length +
        (bystanderOk && open ? 0 : 1),
      figure:
        `flooding socket closed with ${closed ? `${closed.code} "${closed.reason}" after ${closed.sent} messages` : 'nothing'}; ` +
        `server read and dropped ${refused} of them; ` +
        `/health answered ${health.ms.length} times meanwhile (${health.other.length} other answers); ` +
        `bystander ${bystanderOk ? 'answered' : 'silent'}`,
    });
    expect(closed).toMatchObject({
      code: CLOSE_POLICY_VIOLATION,
      reason: expect.stringMatching(/^Too many messages/),
    });
    // A real flood happened: well past the limits' 40-message burst and 5 s at 20 a second.
    expect(closed!.sent).toBeGreaterThan(1000);
    expect(refused).toBeLessThan(closed!.sent / 4);
    expect(health.other).toEqual([]);
    expect(health.ms.length).toBeGreaterThanOrEqual(20);
    expect(bystanderOk).toBe(true);
    expect(open).toBe(true);
  });
});
