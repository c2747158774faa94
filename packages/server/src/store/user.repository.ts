import type { Db } from './db.js';

export interface UserRow {
  id: number;
  email: string;
  name: string;
  password_hash: string;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_enabled: number;
  totp_last_step: number;
  created_at: string;
  updated_at: string;
}

export class UserRepository {
  constructor(private readonly db: Db) {}

  count(): number {
    return this.db.prepare('SELECT COUNT(*) FROM users').pluck().get() as number;
  }

  findByEmail(email: string): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
  }

  findById(id: number): UserRow | undefined {
    return this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
  }

  insert(u: { email: string; name: string; password_hash: string }): number {
    const now = new Date().toISOString();
    const r = this.db
      .prepare(
        'INSERT INTO users (email, name, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(u.email, u.name, u.password_hash, now, now);
    return Number(r.lastInsertRowid);
  }

  update(
    id: number,
    fields: Partial<
      Pick<
        UserRow,
        'password_hash' | 'totp_secret' | 'totp_pending_secret' | 'totp_enabled' | 'totp_last_step'
      >
    >,
  ): void {
    const keys = Object.keys(fields) as (keyof typeof fields)[];
    if (keys.length === 0) return;
    const sets = keys.map((k) => `${k} = @${k}`).join(', ');
    this.db
      .prepare(`UPDATE users SET ${sets}, updated_at = @updated_at WHERE id = @id`)
      .run({ ...fields, id, updated_at: new Date().toISOString() });
  }

  /** Records a used TOTP step only if it is newer than the last one: false means a replay. */
  claimTotpStep(id: number, step: number): boolean {
    const r = this.db
      .prepare('UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?')
      .run(step, id, step);
    return r.changes === 1;
  }
}
