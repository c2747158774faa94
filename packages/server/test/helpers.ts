import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, fetch } from 'undici';
import { buildApp, type Adam, type BuildOptions } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { SHARED_MODEL_ROOT, TEST_PASSWORD_HASH_COST } from './global-setup.js';

export interface TestClock {
  now: () => number;
  advance: (ms: number) => void;
}

export function testClock(start = Date.UTC(2026, 10, 22, 12, 0, 0)): TestClock {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

export interface TestServer {
  adam: Adam;
  url: string;
  config: Config;
  clock: TestClock;
  dataDir: string;
  api: (p: string, init?: ApiInit) => Promise<ApiResult>;
  login: (email?: string, password?: string) => Promise<string>;
  close: () => Promise<void>;
}

export interface ApiInit {
  method?: string;
  body?: unknown;
  key?: string;
  headers?: Record<string, string>;
  rawBody?: string;
}

export interface ApiResult {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

/** Points the data dir's built-in model at the run's converted copy (no 4 s conversion per server). */
export function linkSharedModel(dataDir: string): void {
  const link = path.join(dataDir, 'models', 'builtin');
  if (fs.existsSync(link)) return;
  fs.mkdirSync(path.dirname(link), { recursive: true });
  fs.symlinkSync(path.join(SHARED_MODEL_ROOT, 'models', 'builtin'), link, 'dir');
}

export function tempDir(prefix = 'adam-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Starts a real server on a free loopback port with its own temporary data directory. */
export async function startServer(
  opts: {
    env?: Record<string, string>;
    dataDir?: string;
    clock?: TestClock;
    config?: Partial<Config>;
    build?: Omit<BuildOptions, 'now'>;
    /**
     * The engine starts with the server, as `npm start` does; otherwise at its first task (a held
     * `startGates.engine` also starts it with the server, once released).
     */
    engineWithServer?: boolean;
  } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  linkSharedModel(dataDir);
  const config: Config = {
    ...loadConfig({
      ADAM_DATA_DIR: dataDir,
      ADAM_WEB_DIST: '',
      ADAM_PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
      ...opts.env,
    }),
    ...opts.config,
  };
  const clock = opts.clock ?? testClock(Date.now());
  const engineOnDemand = !opts.engineWithServer && !opts.build?.startGates?.engine;
  const adam = await buildApp(config, { engineOnDemand, ...opts.build, now: clock.now });
  await adam.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = adam.app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  const url = `http://127.0.0.1:${addr.port}`;
  // This server's own connections, closed with it: files share a worker (isolate: false), so no
  // kept-alive socket of the global pool outlives its server into a later file.
  const connections = new Agent();

  const api = async (p: string, init: ApiInit = {}): Promise<ApiResult> => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.key) headers['x-api-key'] = init.key;
    let body: string | undefined = init.rawBody;
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    const res = await fetch(`${url}${p}`, {
      method: init.method ?? 'GET',
      headers,
      body,
      dispatcher: connections,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  const login = async (email = 'admin@example.com', password = 'admin') => {
    const r = await api('/api/v1/auth/login', { method: 'POST', body: { email, password } });
    if (r.status !== 200 || !r.body.api_key)
      throw new Error(`login failed: ${JSON.stringify(r.body)}`);
    return r.body.api_key as string;
  };

  return {
    adam,
    url,
    config,
    clock,
    dataDir,
    api,
    login,
    close: async () => {
      await adam.app.close();
      await connections.destroy();
    },
  };
}

/** Saves an article through the API and returns the answer. */
export async function saveText(
  s: TestServer,
  key: string,
  text: string,
  title = 'Test article',
  language = 'en',
) {
  const r = await s.api('/api/v1/playground/save-segments', {
    method: 'POST',
    key,
    body: { title, language, text, wait: true },
  });
  if (r.status !== 200 || r.body.status !== 'completed') {
    throw new Error(`save-segments failed: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return r.body as {
    job_id: number;
    status: string;
    segments_created: number;
    duplicates: number;
    snippet_ids: number[];
    diagnostics: { method: string; items: unknown[] };
  };
}
