import type { Db } from './db.js';

export interface RuleRow {
  id: number;
  domain: string;
  mode: string;
  target: string | null;
  enabled: number;
  created_at: string;
  updated_at: string;
}

export class RuleRepository {
  constructor(private readonly db: Db) {}

  list(): RuleRow[] {
    return this.db.prepare('SELECT * FROM scraping_rules ORDER BY domain').all() as RuleRow[];
  }

  findById(id: number): RuleRow | undefined {
    return this.db.prepare('SELECT * FROM scraping_rules WHERE id = ?').get(id) as
      RuleRow | undefined;
  }

  findByDomain(domain: string): RuleRow | undefined {
    return this.db.prepare('SELECT * FROM scraping_rules WHERE domain = ?').get(domain) as
      RuleRow | undefined;
  }

  insert(r: { domain: string; mode: string; target: string | null; enabled: boolean }): number {
    const now = new Date().toISOString();
    return Number(
      this.db
        .prepare(
          'INSERT INTO scraping_rules (domain, mode, target, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(r.domain, r.mode, r.target, r.enabled ? 1 : 0, now, now).lastInsertRowid,
    );
  }

  update(
    id: number,
    r: { domain: string; mode: string; target: string | null; enabled: boolean },
  ): void {
    this.db
      .prepare(
        'UPDATE scraping_rules SET domain = ?, mode = ?, target = ?, enabled = ?, updated_at = ? WHERE id = ?',
      )
      .run(r.domain, r.mode, r.target, r.enabled ? 1 : 0, new Date().toISOString(), id);
  }

  deleteById(id: number): boolean {
    return this.db.prepare('DELETE FROM scraping_rules WHERE id = ?').run(id).changes === 1;
  }
}
