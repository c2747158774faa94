import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeFetcher } from './safe-fetcher.js';

// What happened, in order: the fetcher's send hook and the server's arrivals share one list.
const events: string[] = [];
let server: http.Server;
let origin: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    events.push(`arrived ${req.url}`);
    if (req.url === '/a') res.writeHead(302, { location: '/b' }).end();
    else res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('SafeFetcher onSend', () => {
  it('reports each hop as its request goes out, after its guard and before it arrives', async () => {
    events.length = 0;
    const fetcher = new SafeFetcher({ allow: [new URL(origin).host] });
    try {
      const res = await fetcher.fetch(`${origin}/a`, {
        guard: (url) => void events.push(`guard ${url.pathname}`),
        onSend: (url) => void events.push(`sent ${url.pathname}`),
      });
      expect(res.body.toString()).toBe('ok');
      expect(events).toEqual([
        'guard /a',
        'sent /a',
        'arrived /a',
        'guard /b',
        'sent /b',
        'arrived /b',
      ]);
    } finally {
      await fetcher.close();
    }
  });

  it('reports a request once undici has written its headers, not before', async () => {
    // undici starts the handler just before it writes the headers; a report there came before
    // the write, and a pause in between let two requests go out closer than a crawler's delay.
    const order: string[] = [];
    const written = (m: unknown) => {
      const { request } = m as { request: { path: string } };
      order.push(`written ${request.path}`);
    };
    diagnostics.subscribe('undici:client:sendHeaders', written);
    const fetcher = new SafeFetcher({ allow: [new URL(origin).host] });
    try {
      const onSend = (url: URL) => void order.push(`sent ${url.pathname}`);
      await fetcher.fetch(`${origin}/b`, { onSend });
      const streamed = await fetcher.fetchStream(`${origin}/b`, { onSend });
      for await (const chunk of streamed.body) expect(chunk.length).toBeGreaterThan(0);
      expect(order).toEqual(['written /b', 'sent /b', 'written /b', 'sent /b']);
    } finally {
      diagnostics.unsubscribe('undici:client:sendHeaders', written);
      await fetcher.close();
    }
  });

  it('does not report a request its guard refused', async () => {
    events.length = 0;
    const fetcher = new SafeFetcher({ allow: [new URL(origin).host] });
    try {
      const refused = fetcher.fetch(`${origin}/b`, {
        guard: () => {
          throw new Error('denied');
        },
        onSend: (url) => void events.push(`sent ${url.pathname}`),
      });
      await expect(refused).rejects.toThrow('denied');
      expect(events).toEqual([]);
    } finally {
      await fetcher.close();
    }
  });

  it("calls each fetch's own hook on a site's shared connection, and none for a fetch without one", async () => {
    const fetcher = new SafeFetcher({ allow: [new URL(origin).host] });
    const sent: string[] = [];
    try {
      // Same site: one agent, and its hook dispatcher, for all of them.
      await Promise.all(
        ['x', 'y', 'z'].map((name) =>
          fetcher.fetch(`${origin}/${name}`, {
            onSend: (url) => void sent.push(`${name} ${url.pathname}`),
          }),
        ),
      );
      await fetcher.fetch(`${origin}/b`);
      await fetcher.fetch(`${origin}/a`, { onSend: (url) => void sent.push(`a ${url.pathname}`) });
      expect(sent.sort()).toEqual(['a /a', 'a /b', 'x /x', 'y /y', 'z /z']);
    } finally {
      await fetcher.close();
    }
  });
});
