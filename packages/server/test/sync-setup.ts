/**
 * The setup the sync tests share (test/freshness.test.ts, test/crawl-sync.test.ts): a test
 * server allowed to fetch a local fixture site, logged in, with the engine's work counted.
 */
import { startFreshnessSite, type FreshnessSite } from './fixtures/freshness-site.js';
import { startServer, type TestServer } from './helpers.js';

/** Counts what the engine did on this server: extractions, analyses, and the vectors made. */
export function countEngine(s: TestServer) {
  const engine = s.adam.services.engine;
  const c = { extract: 0, analyze: 0, embedded: 0 };
  const analyze = engine.analyze.bind(engine);
  engine.analyze = async (...args: Parameters<typeof analyze>) => {
    c.analyze++;
    const r = await analyze(...args);
    c.embedded += r.segments.filter((x) => x.vector.length > 0).length;
    return r;
  };
  const extract = engine.extract.bind(engine);
  engine.extract = async (...args: Parameters<typeof extract>) => {
    c.extract++;
    return extract(...args);
  };
  const reset = () => Object.assign(c, { extract: 0, analyze: 0, embedded: 0 });
  return { c, reset };
}
export type EngineCounter = ReturnType<typeof countEngine>;

export interface SyncServer {
  s: TestServer;
  key: string;
  /** The API under /api/v1 with the operator's key. */
  api: (p: string, method?: string, body?: unknown) => ReturnType<TestServer['api']>;
  counter: EngineCounter;
}

/** A test server that may fetch `allow` (ADAM_FETCH_ALLOW), logged in, its engine counted. */
export async function startSyncServer(
  allow: string,
  opts: Parameters<typeof startServer>[0] = {},
): Promise<SyncServer> {
  const s = await startServer({ ...opts, env: { ADAM_FETCH_ALLOW: allow, ...opts.env } });
  const key = await s.login();
  const api: SyncServer['api'] = (p, method = 'GET', body) =>
    s.api(`/api/v1${p}`, { method, key, body });
  return { s, key, api, counter: countEngine(s) };
}

/** A freshness fixture site and a sync server allowed to fetch it; close() stops both. */
export async function startFreshnessSetup(
  opts: Parameters<typeof startServer>[0] = {},
): Promise<SyncServer & { site: FreshnessSite; close: () => Promise<void> }> {
  const site = await startFreshnessSite();
  try {
    const server = await startSyncServer(`127.0.0.1:${site.port}`, opts);
    const close = async () => {
      await server.s.close();
      await site.close();
    };
    return { ...server, site, close };
  } catch (e) {
    await site.close();
    throw e;
  }
}
