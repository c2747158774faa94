import type { Db } from './db.js';

export type LogLevel = 'debug' | 'info' | 'warning' | 'error';

export interface LogRow {
  timestamp: string;
  level: LogLevel;
  component: string;
  message: string;
}

export class LogRepository {
  private readonly insertStmt;

  constructor(private readonly db: Db) {
    this.insertStmt = db.prepare(
      'INSERT INTO logs (timestamp, level, component, message) VALUES (@timestamp, @level, @component, @message)',
    );
  }

  insertMany(rows: LogRow[]): void {
    this.db.transaction((rs: LogRow[]) => {
      for (const r of rs) this.insertStmt.run(r);
    })(rows);
  }

  listRecent(limit: number): LogRow[] {
    return this.db
      .prepare('SELECT timestamp, level, component, message FROM logs ORDER BY id DESC LIMIT ?')
      .all(limit) as LogRow[];
  }

  deleteOlderThan(iso: string): number {
    return this.db.prepare('DELETE FROM logs WHERE timestamp < ?').run(iso).changes;
  }
}
