/**
 * The setup the sync tests share (test/freshness.test.ts, test/crawl-sync.test.ts): a test
 * server allowed to fetch a local fixture site, logged in, with the engine's work counted.
 */
import { expect } from 'vitest';
import type { Job } from '@adam/contracts';
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
export async function startFreshnessSetup(opts: Parameters<typeof startServer>[0] = {}) {
  const site = await startFreshnessSite();
  try {
    const server = await startSyncServer(`127.0.0.1:${site.port}`, opts);
    return { ...server, site, ...freshnessSteps(server, site) };
  } catch (e) {
    await site.close();
    throw e;
  }
}

/** What the freshness tests do to a page of the site: ingest it, sync it, read its snippets. */
function freshnessSteps({ s, api }: SyncServer, site: FreshnessSite) {
  return {
    close: async () => {
      await s.close();
      await site.close();
    },
    snippetsOf: (url: string) =>
      s.adam.db
        .prepare('SELECT id, text FROM snippets WHERE source_url = ? ORDER BY id')
        .all(url) as { id: number; text: string }[],
    /** Processes the site's page at `path`; its source's id. */
    async ingest(path: string): Promise<number> {
      const url = `${site.url}${path}`;
      const r = await api('/sources/process', 'POST', { urls: [url] });
      expect(r.status).toBe(200);
      const job = await s.adam.services.jobs.waitForEnd(r.body.job_id, 60_000);
      expect(job.status).toBe('completed');
      const list = await api(`/sources/list?search=${encodeURIComponent(path)}`);
      return list.body.sources.find((x: { url: string }) => x.url === url).id as number;
    },
    /** Syncs one source to its end: the job and the sync's record (the newest). */
    async sync(id: number): Promise<{ job: Job; last: Record<string, unknown> }> {
      const r = await api(`/sources/${id}/sync`, 'POST');
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const job = await s.adam.services.jobs.waitForEnd(r.body.job_id, 60_000);
      const h = await api(`/sources/${id}/syncs`);
      return { job, last: h.status === 200 ? h.body.syncs[0] : {} };
    },
  };
}
