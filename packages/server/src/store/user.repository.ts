import type { Role } from '@adam/contracts';
import { prepared, type Db } from './db.js';

const NO_ADMIN_LEFT = new Error('no active administrator left');

export interface UserRow {
  id: number;
  email: string;
  name: string;
  password_hash: string;
  totp_secret: string | null;
  totp_pending_secret: string | null;
  totp_enabled: number;
  totp_last_step: number;
  role: Role;
  /** When an administrator disabled the user: their keys then stop working. */
  disabled_at: string | null;
  must_change_password: number;
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
    // Every authenticated request: the statement is compiled once.
    return prepared(this.db, 'SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
  }

  list(): UserRow[] {
    return this.db.prepare('SELECT * FROM users ORDER BY id').all() as UserRow[];
  }

  /** The first-start administrator unless told otherwise. */
  insert(u: {
    email: string;
    name: string;
    password_hash: string;
    role?: Role;
    must_change_password?: boolean;
  }): number {
    const now = new Date().toISOString();
    const r = this.db
      .prepare(
        'INSERT INTO users (email, name, password_hash, role, must_change_password, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        u.email,
        u.name,
        u.password_hash,
        u.role ?? 'administrator',
        u.must_change_password ? 1 : 0,
        now,
        now,
      );
    return Number(r.lastInsertRowid);
  }

  /**
   * Runs `change` unless it would leave no active administrator: the change and the check are one
   * transaction, so two administrators demoting each other at once cannot both succeed. Answers
   * false (and rolls the change back) when refused.
   */
  keepingAnAdministrator(change: () => void): boolean {
    try {
      this.db
        .transaction(() => {
          change();
          if (this.activeAdministrators() === 0) throw NO_ADMIN_LEFT;
        })
        .immediate();
      return true;
    } catch (e) {
      if (e === NO_ADMIN_LEFT) return false;
      throw e;
    }
  }

  activeAdministrators(): number {
    return this.db
      .prepare("SELECT COUNT(*) FROM users WHERE role = 'administrator' AND disabled_at IS NULL")
      .pluck()
      .get() as number;
  }

  delete(id: number): boolean {
    return this.db.prepare('DELETE FROM users WHERE id = ?').run(id).changes === 1;
  }

  update(
    id: number,
    fields: Partial<
      Pick<
        UserRow,
        | 'password_hash'
        | 'totp_secret'
        | 'totp_pending_secret'
        | 'totp_enabled'
        | 'totp_last_step'
        | 'name'
        | 'role'
        | 'disabled_at'
        | 'must_change_password'
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
