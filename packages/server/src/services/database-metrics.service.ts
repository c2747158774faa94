import fs from 'node:fs';
import path from 'node:path';
import type { Redis } from 'ioredis';
import type { Piscina } from 'piscina';
import type {
  DatabaseMetrics,
  RedisMetrics,
  StoreMetrics,
  VectorIndexMetrics,
} from '@adam/contracts';
import type { Logger } from '../logging.js';
import { prepared, type Db } from '../store/db.js';
import type { SnippetStorage, SnippetStorageTask } from '../store/snippet-storage.worker.js';
import { startPool } from '../vector/recall.js';
import type { IndexMeasures } from './index.service.js';
import { freeBytes } from '../lib/free-bytes.js';
import { round } from '../lib/round.js';

const MB = 1024 * 1024;
/** The panel is polled every few seconds: an unreachable Redis must not hold it longer. */
const REDIS_TIMEOUT_MS = 1000;
/** Timed reads and writes per answer; the median is shown (one slow outlier does not count). */
const READ_PROBES = 5;
const WRITE_PROBES = 3;
/**
 * The compression figure reads the whole snippets table (on a thread): done again only when the
 * row count moved by a tenth, or moved at all and the last one is this old.
 */
const STORAGE_MAX_AGE_MS = 10 * 60_000;

/**
 * GET /admin/database/metrics: the spec's three panels for our real stores, every figure
 * measured or read, none invented (null when it cannot be had). Answers in a few ms at any
 * store size: what reads a whole table (recall, compression) is measured on another thread and
 * shown from the last measure.
 */
export class DatabaseMetricsService {
  private readonly redis: RedisPanel | null;
  private readonly sqliteVersion: string;
  /** total_changes() at start and the probe's own writes, which `transactions` leaves out. */
  private readonly changesAtStart: number;
  private probeWrites = 0;
  private storage: { value: SnippetStorage; at: number } | null = null;
  private measuringStorage: Promise<void> | null = null;
  private storagePool: Piscina | null = null;
  private closed = false;

  constructor(
    private readonly deps: {
      db: Db;
      index: Pick<
        IndexMeasures,
        | 'diskBytes'
        | 'size'
        | 'dimension'
        | 'indexType'
        | 'searchesPerSecond'
        | 'lastBuildSeconds'
        | 'lastAccuracy'
        | 'measureAccuracy'
      >;
      indexDir: string;
      /** The job queue's Redis; null: the server runs without one. */
      redisUrl: string | null;
      log: Pick<Logger, 'error'>;
    },
  ) {
    this.redis = deps.redisUrl ? new RedisPanel(deps.redisUrl) : null;
    this.sqliteVersion = deps.db.prepare('SELECT sqlite_version()').pluck().get() as string;
    this.changesAtStart = this.totalChanges();
  }

  async metrics(): Promise<DatabaseMetrics> {
    const redis = this.redis ? await this.redis.read() : null;
    return {
      timestamp: new Date().toISOString(),
      redis,
      faiss: this.vectorIndex(),
      lmdb: this.store(),
    };
  }

  /**
   * The vector index: its saved file, the disk it can grow on, searches counted where they are
   * answered, the build time of the last rebuild (kept in the index's state.json), and recall@10
   * measured against an exact scan (IndexService.measureAccuracy: again in the background when
   * the index changed size and the last measure is 5 minutes old; null until the first).
   */
  private vectorIndex(): VectorIndexMetrics {
    const { index } = this.deps;
    const measuring = index.measureAccuracy();
    measuring.catch((e: unknown) =>
      this.deps.log.error({ component: 'index', err: e }, 'Vector index accuracy measure failed'),
    );
    const bytes = index.diskBytes();
    const free = freeBytes(this.deps.indexDir);
    return {
      engine: index.indexType,
      index_size_mb: round(bytes / MB, 3),
      max_size_mb: free === null ? null : round((bytes + free) / MB, 3),
      total_vectors: index.size,
      searches_per_sec: round(index.searchesPerSecond(), 3),
      build_time: index.lastBuildSeconds,
      dimensions: index.dimension,
      accuracy: index.lastAccuracy === null ? null : round(index.lastAccuracy, 4),
    };
  }

  /**
   * The SQLite store: the database and WAL files, the disk they can grow on, the snippets (from
   * the trigger-kept snippet_stats: no count of the table), a timed primary-key read and a timed
   * one-row write (each its own transaction) as medians, the rows written since start, and the
   * snippets table's pages over their text bytes (measured on a thread, from the last measure).
   */
  private store(): StoreMetrics {
    const { db } = this.deps;
    const size = fileBytes(db.name) + fileBytes(`${db.name}-wal`);
    const free = freeBytes(path.dirname(db.name));
    const entries = prepared(db, 'SELECT COALESCE(SUM(n), 0) AS n FROM snippet_stats').get() as {
      n: number;
    };
    this.refreshStorage(entries.n);
    const s = this.storage?.value;
    return {
      engine: `SQLite ${this.sqliteVersion} (WAL)`,
      size_mb: round(size / MB, 3),
      max_size_mb: free === null ? null : round((size + free) / MB, 3),
      entries: entries.n,
      read_latency: round(this.readLatency(), 4),
      write_latency: round(this.writeLatency(), 4),
      transactions: this.totalChanges() - this.changesAtStart - this.probeWrites,
      compression: s && s.textBytes > 0 ? round(s.storedBytes / s.textBytes, 3) : null,
    };
  }

  /**
   * SQLite has no commit counter that better-sqlite3 exposes (no commit hook), so this counts
   * rows: total_changes(), every row inserted, updated or deleted on the server's connection
   * (trigger writes included).
   */
  private totalChanges(): number {
    return this.deps.db.prepare('SELECT total_changes()').pluck().get() as number;
  }

  /** A snippet read by primary key, ids spread over the table (a miss walks the same b-tree). */
  private readLatency(): number {
    const { db } = this.deps;
    const maxId = (
      prepared(db, 'SELECT MAX(id) AS id FROM snippets').get() as { id: number | null }
    ).id;
    const read = prepared(db, 'SELECT id, text FROM snippets WHERE id = ?');
    const times: number[] = [];
    for (let i = 0; i < READ_PROBES; i++) {
      const id = 1 + Math.floor(Math.random() * (maxId ?? 1));
      const t = performance.now();
      read.get(id);
      times.push(performance.now() - t);
    }
    return median(times);
  }

  /** One row rewritten in its own (autocommit) transaction, as the store is set up (WAL, NORMAL). */
  private writeLatency(): number {
    const write = prepared(
      this.deps.db,
      'INSERT INTO store_probe (id, at) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET at = excluded.at',
    );
    const times: number[] = [];
    for (let i = 0; i < WRITE_PROBES; i++) {
      const at = new Date().toISOString();
      const t = performance.now();
      this.probeWrites += write.run(at).changes;
      times.push(performance.now() - t);
    }
    return median(times);
  }

  private refreshStorage(rows: number): void {
    if (this.measuringStorage || this.closed) return;
    const last = this.storage;
    if (last) {
      const moved = Math.abs(rows - last.value.rows);
      const old = Date.now() - last.at >= STORAGE_MAX_AGE_MS;
      if (moved === 0 || (moved < last.value.rows / 10 && !old)) return;
    }
    this.measuringStorage = this.measureStorage()
      .catch((e: unknown) => {
        if (!this.closed)
          this.deps.log.error(
            { component: 'store', err: e },
            'Measuring the snippets storage failed',
          );
      })
      .finally(() => {
        this.measuringStorage = null;
      });
  }

  private async measureStorage(): Promise<void> {
    const pool = startPool('../store/snippet-storage.worker');
    this.storagePool = pool;
    try {
      const task: SnippetStorageTask = { dbFile: this.deps.db.name };
      this.storage = { value: (await pool.run(task)) as SnippetStorage, at: Date.now() };
    } finally {
      this.storagePool = null;
      if (!this.closed) await pool.close();
    }
  }

  /** The Redis client closes; a storage measure in flight is stopped, not waited for. */
  async close(): Promise<void> {
    this.closed = true;
    await this.storagePool?.destroy().catch(() => undefined);
    await this.measuringStorage;
    this.redis?.close();
  }
}

/**
 * Redis through its INFO: one client made at the first request, with short timeouts. While it
 * is not connected (it reconnects in the background) the panel says so at once, never waiting.
 */
/** ioredis, imported at the first read (~0.2 s of CPU a server without Redis never pays). */
const importIoredis = () => import('ioredis');
let ioredis: ReturnType<typeof importIoredis> | null = null;

class RedisPanel {
  private client: Redis | null = null;
  private closed = false;
  private connecting: Promise<void> | null = null;
  private lastError: string | null = null;

  constructor(private readonly url: string) {}

  async read(): Promise<RedisMetrics> {
    try {
      const { Redis } = await (ioredis ??= importIoredis());
      if (this.closed) throw new Error('closed');
      const c = this.open(Redis);
      if (this.connecting) await this.connecting;
      if (c.status !== 'ready') throw new Error(this.lastError ?? `connection ${c.status}`);
      return parseRedisInfo(await c.info());
    } catch (e) {
      const reason = this.lastError ?? (e as Error).message;
      return {
        engine: `redis (unreachable: ${reason})`,
        memory_usage_mb: null,
        max_memory_mb: null,
        connections: null,
        ops_per_sec: null,
        hit_rate: null,
        evicted_keys: null,
        expired_keys: null,
      };
    }
  }

  private open(Redis: Awaited<ReturnType<typeof importIoredis>>['Redis']): Redis {
    if (this.client) return this.client;
    const c = new Redis(this.url, {
      lazyConnect: true,
      connectTimeout: REDIS_TIMEOUT_MS,
      commandTimeout: REDIS_TIMEOUT_MS,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(attempt * 1000, 10_000),
      connectionName: 'adam-database-metrics',
    });
    // Remembered for the panel; without a listener ioredis prints every failed reconnect.
    c.on('error', (e: Error) => (this.lastError = e.message));
    c.on('ready', () => (this.lastError = null));
    this.client = c;
    this.connecting = c
      .connect()
      .catch(() => undefined) // the status and lastError tell
      .finally(() => (this.connecting = null));
    return c;
  }

  close(): void {
    this.closed = true;
    this.client?.disconnect();
    this.client = null;
  }
}

/**
 * The panel from INFO's default sections. maxmemory 0 means no limit of Redis' own: the machine's
 * memory (total_system_memory) is then the bound it would reach, and is shown as its maximum.
 */
export function parseRedisInfo(info: string): RedisMetrics {
  const fields = new Map<string, string>();
  for (const line of info.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && !line.startsWith('#')) fields.set(line.slice(0, i), line.slice(i + 1).trim());
  }
  const num = (name: string): number | null => {
    const v = fields.get(name);
    if (v === undefined || v === '') return null;
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  };
  const mb = (bytes: number | null) => (bytes === null ? null : round(bytes / MB, 2));
  const maxmemory = num('maxmemory');
  const hits = num('keyspace_hits');
  const misses = num('keyspace_misses');
  const lookups = (hits ?? 0) + (misses ?? 0);
  const version = fields.get('redis_version');
  return {
    engine: version ? `redis ${version}` : 'redis',
    memory_usage_mb: mb(num('used_memory')),
    max_memory_mb: mb(maxmemory === 0 ? num('total_system_memory') : maxmemory),
    connections: num('connected_clients'),
    ops_per_sec: num('instantaneous_ops_per_sec'),
    hit_rate: hits === null || lookups === 0 ? null : round(hits / lookups, 4),
    evicted_keys: num('evicted_keys'),
    expired_keys: num('expired_keys'),
  };
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
