import { prepared, type Db } from './db.js';

export class SettingsRepository {
  constructor(private readonly db: Db) {}

  /** The section's stored JSON text, as saved (read on many requests: compiled once). */
  findSectionText(section: string): string | undefined {
    return prepared(this.db, 'SELECT value FROM settings WHERE section = ?')
      .pluck(true)
      .get(section) as string | undefined;
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
