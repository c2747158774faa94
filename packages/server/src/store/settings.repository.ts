import type { Db } from './db.js';

export class SettingsRepository {
  constructor(private readonly db: Db) {}

  findSection(section: string): Record<string, unknown> | undefined {
    const v = this.db
      .prepare('SELECT value FROM settings WHERE section = ?')
      .pluck()
      .get(section) as string | undefined;
    return v === undefined ? undefined : (JSON.parse(v) as Record<string, unknown>);
  }

  upsertSection(section: string, value: unknown): void {
    this.db
      .prepare(
        `INSERT INTO settings (section, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT(section) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      )
      .run(section, JSON.stringify(value), new Date().toISOString());
  }
}
