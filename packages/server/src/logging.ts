import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import type { LogRepository, LogRow, LogLevel } from './store/log.repository.js';

export type { Logger };

/**
 * Keeps every log line in the `logs` table for the logs screen. Lines are batched (a flush every
 * 250 ms or 200 lines) so logging never waits on a write; lines written before the store opens
 * are held and written once it is attached.
 */
export class LogSink extends Writable {
  private buffer: LogRow[] = [];
  private repo: LogRepository | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly entryListeners = new Set<(row: LogRow) => void>();

  constructor() {
    super({ decodeStrings: false });
  }

  attach(repo: LogRepository | null): void {
    this.repo = repo;
    if (repo) this.flush();
  }

  /** Called for each stored entry (the realtime channel forwards them as log_entry). */
  onEntry(fn: (row: LogRow) => void): () => void {
    this.entryListeners.add(fn);
    return () => this.entryListeners.delete(fn);
  }

  override _write(chunk: string | Buffer, _enc: BufferEncoding, done: (e?: Error) => void): void {
    const row = toLogRow(String(chunk));
    if (row) {
      this.buffer.push(row);
      for (const fn of this.entryListeners) fn(row);
      if (this.buffer.length >= 200) this.flush();
      else if (!this.timer) {
        this.timer = setTimeout(() => this.flush(), 250);
        this.timer.unref();
      }
    }
    done();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.repo || this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    try {
      this.repo.insertMany(rows);
    } catch {
      // The store is closing or gone: the lines are still on stdout.
    }
  }
}

function levelName(n: number): LogLevel {
  if (n <= 20) return 'debug';
  if (n <= 30) return 'info';
  if (n <= 40) return 'warning';
  return 'error';
}

export function toLogRow(line: string): LogRow | null {
  try {
    const o = JSON.parse(line) as {
      level?: number;
      time?: number;
      msg?: string;
      component?: string;
      err?: { message?: string };
    };
    let message = o.msg ?? '';
    if (o.err?.message && !message.includes(o.err.message))
      message = `${message}: ${o.err.message}`;
    return {
      timestamp: new Date(o.time ?? Date.now()).toISOString(),
      level: levelName(o.level ?? 30),
      component: o.component ?? 'server',
      message,
    };
  } catch {
    return null;
  }
}

/** One readable line per entry on stdout: `time LEVEL [component] message`. */
class ConsoleLines extends Writable {
  constructor() {
    super({ decodeStrings: false });
    // A closed pipe (`npm start | head`) must not crash the server.
    process.stdout.on('error', () => undefined);
  }

  override _write(chunk: string | Buffer, _enc: BufferEncoding, done: (e?: Error) => void): void {
    const row = toLogRow(String(chunk));
    if (row) {
      const level = row.level.toUpperCase().padEnd(7);
      process.stdout.write(`${row.timestamp} ${level} [${row.component}] ${row.message}\n`);
    }
    done();
  }
}

export function createLogger(opts: { level: string; sink: LogSink; stdout: boolean }): Logger {
  const streams: pino.StreamEntry[] = [{ stream: opts.sink, level: opts.level as pino.Level }];
  if (opts.stdout) streams.push({ stream: new ConsoleLines(), level: opts.level as pino.Level });
  return pino(
    { level: opts.level, base: undefined, redact: ['api_key', 'ticket', 'password', 'totp_code'] },
    pino.multistream(streams),
  );
}

/** Removes api_key and ticket query parameters from a URL before it reaches a log line. */
export function redactUrl(url: string): string {
  return url.replace(/([?&](?:api_key|ticket)=)[^&#]*/gi, '$1[REDACTED]');
}
