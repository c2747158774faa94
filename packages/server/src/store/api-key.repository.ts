import type { Db } from './db.js';

export interface ApiKeyRow {
  id: number;
  user_id: number;
  key_hash: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export class ApiKeyRepository {
  constructor(private readonly db: Db) {}

  insert(k: { user_id: number; key_hash: string; expires_at: string }): number {
    const r = this.db
      .prepare(
        'INSERT INTO api_keys (user_id, key_hash, created_at, expires_at) VALUES (?, ?, ?, ?)',
      )
      .run(k.user_id, k.key_hash, new Date().toISOString(), k.expires_at);
    return Number(r.lastInsertRowid);
  }

  findByHash(hash: string): ApiKeyRow | undefined {
    return this.db.prepare('SELECT * FROM api_keys WHERE key_hash = ?').get(hash) as
      ApiKeyRow | undefined;
  }

  /** Revokes the key unless it already was: false means someone else revoked it first. */
  revoke(id: number): boolean {
    return (
      this.db
        .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
        .run(new Date().toISOString(), id).changes === 1
    );
  }

  /** Revokes the user's live keys but one; answers the ids it revoked. */
  revokeAllForUser(userId: number, exceptId?: number): number[] {
    return this.db
      .prepare(
        'UPDATE api_keys SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL AND id != ? RETURNING id',
      )
      .pluck()
      .all(new Date().toISOString(), userId, exceptId ?? -1) as number[];
  }

  touch(id: number, at: string): void {
    this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at, id);
  }

  deleteExpiredBefore(iso: string): number {
    return this.db
      .prepare('DELETE FROM api_keys WHERE expires_at < ? OR revoked_at < ?')
      .run(iso, iso).changes;
  }
}
