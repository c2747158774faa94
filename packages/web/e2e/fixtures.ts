/**
 * Where the end-to-end servers listen. Every spec file is a suite with its own server and store
 * (so each starts from an empty store, whatever ran before); all share one fixture site and one
 * fake encyclopedia. Ports: ADAM_E2E_PORT (8123) + 1, + 2 and + 3 for the fixtures, + 4 for the
 * servers' readiness, + 10 + n for the n-th suite in file-name order.
 */
import fs from 'node:fs';
import path from 'node:path';

export const E2E_BASE_PORT = Number(process.env.ADAM_E2E_PORT ?? 8123);
export const E2E_PORTS = {
  site: E2E_BASE_PORT + 1,
  encyclopedia: E2E_BASE_PORT + 2,
  hub: E2E_BASE_PORT + 3,
};
/** The local fixture site (articles at /articles/..., generated pages at /pages/N). */
export const FIXTURE_SITE_URL = `http://127.0.0.1:${E2E_PORTS.site}`;
export const FAKE_ENCYCLOPEDIA_URL = `http://127.0.0.1:${E2E_PORTS.encyclopedia}`;
/** The fake model hub (tiny generated models; see fixtures-server.ts). */
export const FAKE_HUB_URL = `http://127.0.0.1:${E2E_PORTS.hub}`;
/** What the fake hub serves: a model an operator registers, and the language packs' repos. */
export const E2E_HUB_REPOS = {
  embedder: 'adam-test/tiny-embedder',
  sentiment: 'adam-test/tiny-sentiment',
  languagePacks: ['Xenova/bert-base-multilingual-cased-ner-hrl'],
} as const;

/** The suites: the spec files' names without `.spec.ts`, sorted. */
export const E2E_SUITES: readonly string[] = fs
  .readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.spec.ts'))
  .map((f) => f.replace(/\.spec\.ts$/, ''))
  .sort();

export function suitePort(suite: string): number {
  const index = E2E_SUITES.indexOf(suite);
  if (index < 0) throw new Error(`No e2e suite named ${suite}`);
  return E2E_BASE_PORT + 10 + index;
}

/** The suite's store (removed before its server starts). */
export function suiteDataDir(suite: string): string {
  return path.join(import.meta.dirname, '..', `.e2e-data-${suitePort(suite)}`);
}

/** The suites this run starts and runs: ADAM_E2E_ONLY=snippets,shell names some, else all. */
export function selectedSuites(only = process.env.ADAM_E2E_ONLY): readonly string[] {
  const names = only?.split(',').map((s) => s.trim());
  return E2E_SUITES.filter((suite) => !names || names.includes(suite));
}

/** Answers 200 once every selected suite's server answers its health check (start-servers.ts). */
export const SERVERS_READY_URL = `http://127.0.0.1:${E2E_BASE_PORT + 4}/`;

/**
 * A suite server's environment: its port and store, the fixtures let through, quiet logs, cheap
 * password hashing.
 */
export function suiteEnv(suite: string): Record<string, string> {
  return {
    PORT: String(suitePort(suite)),
    HOST: '127.0.0.1',
    ADAM_DATA_DIR: suiteDataDir(suite),
    ADAM_LOG_LEVEL: 'warn',
    // Every test logs in: scrypt at the default cost is ~0.2 s of CPU a login, which no test
    // measures (the server's own tests check the default).
    ADAM_PASSWORD_HASH_COST: '10',
    ADAM_FETCH_ALLOW: [E2E_PORTS.site, E2E_PORTS.encyclopedia, E2E_PORTS.hub]
      .map((port) => `127.0.0.1:${port}`)
      .join(','),
    ADAM_WIKIPEDIA_URL: `${FAKE_ENCYCLOPEDIA_URL}/{lang}`,
    ADAM_MODEL_HUB_URL: FAKE_HUB_URL,
  };
}
