import { isIP } from 'node:net';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_ADMIN_EMAIL, DEFAULT_ADMIN_PASSWORD, MAX_WORKERS } from '@adam/contracts';
import { normaliseOrigin } from './lib/origin.js';
import {
  DEFAULT_PASSWORD_HASH_COST,
  MAX_PASSWORD_HASH_COST,
  MIN_PASSWORD_HASH_COST,
} from './lib/password.js';

/** The one place that reads process.env: every setting, validated once at start. */
const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  ADAM_DATA_DIR: z.string().optional(),
  ADAM_ADMIN_EMAIL: z.string().email().default(DEFAULT_ADMIN_EMAIL),
  ADAM_ADMIN_PASSWORD: z.string().min(1).default(DEFAULT_ADMIN_PASSWORD),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  ADAM_WORKERS: z.coerce.number().int().min(0).max(MAX_WORKERS).default(1),
  ADAM_WIKIPEDIA_URL: z.string().url().default('https://{lang}.wikipedia.org'),
  ADAM_MODEL_HUB_URL: z.string().url().default('https://huggingface.co'),
  ADAM_FETCH_ALLOW: z.string().default(''),
  ADAM_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  ADAM_API_KEY_TTL_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(24),
  ADAM_WEB_DIST: z.string().optional(),
  ADAM_WORKER_LOCK_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  ADAM_PASSWORD_HASH_COST: z.coerce
    .number()
    .int()
    .min(MIN_PASSWORD_HASH_COST)
    .max(MAX_PASSWORD_HASH_COST)
    .default(DEFAULT_PASSWORD_HASH_COST),
  ADAM_SYNC_PRUNE_AFTER: z.coerce.number().int().min(1).max(100).default(2),
  ADAM_ALLOWED_ORIGINS: z
    .string()
    .default('')
    .refine(
      (v) => splitList(v).every((o) => normaliseOrigin(o) !== null),
      'must be a comma-separated list of http(s) origins, e.g. https://console.example.com',
    ),
  ADAM_TRUST_PROXY: z
    .string()
    .default('')
    .refine(
      (v) => splitList(v).every(isProxyAddress),
      'must be a comma-separated list of proxy addresses or ranges (127.0.0.1, 10.0.0.0/8, loopback)',
    ),
});

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  adminEmail: string;
  adminPassword: string;
  redisUrl: string | undefined;
  workers: number;
  wikipediaUrl: string;
  modelHubUrl: string;
  fetchAllow: string[];
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Lifetime of an API key after login or refresh. */
  apiKeyTtlSeconds: number;
  /** How long after expiry a key may still be exchanged by POST /auth/refresh. */
  refreshGraceSeconds: number;
  /** Built console to serve at /, or null to serve the API only. */
  webDist: string | null;
  /** Redis mode: how long a worker's hold on a job lasts without renewal (a dead worker's job moves on after it). */
  workerLockMs: number;
  /**
   * log2 of scrypt's N for the passwords hashed from now on: each step doubles the time and
   * memory of a login's check and of a guess at a stolen hash. Stored hashes keep their own.
   */
  passwordHashCost: number;
  /** Syncs in a row that must find a web page gone (404/410) before a sync prunes it by itself. */
  syncPruneAfter: number;
  /**
   * Origins besides the server's own whose pages may make changes and open the realtime socket
   * (a console served from another address); see http/cross-site.ts.
   */
  allowedOrigins: string[];
  /**
   * The reverse proxies (addresses, CIDR ranges or loopback/linklocal/uniquelocal) whose
   * X-Forwarded-For/-Proto/-Host are believed: then the client address the login throttle counts
   * and the https that makes the login cookie Secure are the proxy's client's. Empty: none.
   */
  trustProxy: string[];
  /**
   * Login throttling, see AuthService.login: failures allowed per window per (e-mail, address)
   * and per address, refused with 429; past `accountDelayAfter` failures of one e-mail from any
   * address, every attempt on it waits, doubling from `accountDelayBaseMs` up to `accountDelayMaxMs`.
   */
  loginThrottle: {
    windowSeconds: number;
    perAccountAndAddress: number;
    perAddress: number;
    accountDelayAfter: number;
    accountDelayBaseMs: number;
    accountDelayMaxMs: number;
  };
}

export class ConfigError extends Error {}

/** The configuration, or its error on stderr and exit 2: an entry point's first step. */
export function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(e.message);
      process.exit(2);
    }
    throw e;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (i) => `  ${i.path.join('.')}=${JSON.stringify(env[String(i.path[0])] ?? '')}: ${i.message}`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    // An explicit directory is read from where the command runs, as a shell user expects.
    dataDir: e.ADAM_DATA_DIR ? path.resolve(e.ADAM_DATA_DIR) : DEFAULT_DATA_DIR,
    adminEmail: e.ADAM_ADMIN_EMAIL,
    adminPassword: e.ADAM_ADMIN_PASSWORD,
    redisUrl: e.REDIS_URL,
    workers: e.ADAM_WORKERS,
    wikipediaUrl: e.ADAM_WIKIPEDIA_URL,
    modelHubUrl: e.ADAM_MODEL_HUB_URL,
    fetchAllow: splitList(e.ADAM_FETCH_ALLOW),
    allowedOrigins: splitList(e.ADAM_ALLOWED_ORIGINS),
    trustProxy: splitList(e.ADAM_TRUST_PROXY),
    logLevel: e.ADAM_LOG_LEVEL,
    apiKeyTtlSeconds: Math.round(e.ADAM_API_KEY_TTL_HOURS * 3600),
    refreshGraceSeconds: 7 * 24 * 3600,
    webDist: e.ADAM_WEB_DIST === undefined ? defaultWebDist() : e.ADAM_WEB_DIST || null,
    loginThrottle: {
      windowSeconds: 15 * 60,
      perAccountAndAddress: 5,
      perAddress: 20,
      accountDelayAfter: 5,
      accountDelayBaseMs: 500,
      accountDelayMaxMs: 8000,
    },
    workerLockMs: e.ADAM_WORKER_LOCK_MS,
    syncPruneAfter: e.ADAM_SYNC_PRUNE_AFTER,
    passwordHashCost: e.ADAM_PASSWORD_HASH_COST,
  };
}

const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** What Fastify's trustProxy (proxy-addr) takes: an address, a CIDR range or a range's name. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const family = isIP(address);
  if (!family || rest.length) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return /^\d+$/.test(bits) && n <= (family === 4 ? 32 : 128);
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The repository's data/ folder, found from this file (src/config.ts under tsx, dist/config.js
 * built): `npm start` at the root and `npm run dev` in packages/server see the same store.
 */
export const DEFAULT_DATA_DIR = path.resolve(import.meta.dirname, '..', '..', '..', 'data');

/**
 * The repository's `.env`, read as `npm start` (scripts/start.mjs) reads it: a variable already
 * set in the environment wins. ADAM_ENV_FILE names another file (a test's own). Answers the file
 * read (null: none) and where ADAM_DATA_DIR comes from, for the CLI to say.
 */
export function readDotEnv(): {
  file: string | null;
  dataDirFrom: 'environment' | 'file' | 'default';
} {
  const setOutside = process.env.ADAM_DATA_DIR !== undefined;
  const file =
    process.env.ADAM_ENV_FILE || path.resolve(import.meta.dirname, '..', '..', '..', '.env');
  if (!fs.existsSync(file))
    return { file: null, dataDirFrom: setOutside ? 'environment' : 'default' };
  process.loadEnvFile(file);
  const dataDirFrom = setOutside
    ? 'environment'
    : process.env.ADAM_DATA_DIR !== undefined
      ? 'file'
      : 'default';
  return { file, dataDirFrom };
}

function defaultWebDist(): string {
  // dist/config.js or src/config.ts → packages/server → packages/web/dist
  return path.resolve(import.meta.dirname, '..', '..', 'web', 'dist');
}

/** The environment for an `adam worker` child process that the server starts with this configuration. */
export function workerChildEnv(config: Config): NodeJS.ProcessEnv {
  return {
    ...process.env,
    REDIS_URL: config.redisUrl,
    ADAM_DATA_DIR: config.dataDir,
    ADAM_FETCH_ALLOW: config.fetchAllow.join(','),
    ADAM_WORKERS: '1',
    ADAM_WORKER_LOCK_MS: String(config.workerLockMs),
    ADAM_LOG_LEVEL: config.logLevel,
  };
}
