import type { ApiKeyScope } from '@adam/contracts';
import { prepared, type Db } from './db.js';

/** A login session ('session') or a program's key ('api'): both are presented the same way. */
export type ApiKeyKind = 'session' | 'api';

export interface ApiKeyRow {
  id: number;
  user_id: number;
  key_hash: string;
  kind: ApiKeyKind;
  /** An API key's name; null for a session. */
  name: string | null;
  /** An API key's scope, capping its user's role; null for a session. */
  scope: ApiKeyScope | null;
  /** The secret's first characters, for lists. */
  prefix: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  last_used_address: string | null;
  /** The browser a session logged in with. */
  user_agent: string | null;
  created_address: string | null;
}

export interface NewApiKey {
  user_id: number;
  key_hash: string;
  expires_at: string;
  kind?: ApiKeyKind;
  name?: string | null;
  scope?: ApiKeyScope | null;
  prefix?: string | null;
  user_agent?: string | null;
  created_address?: string | null;
  /** Defaults to now; a refreshed session keeps its login's. */
  created_at?: string;
}

export class ApiKeyRepository {
  constructor(private readonly db: Db) {}

  insert(k: NewApiKey): number {
    const r = this.db
      .prepare(
        `INSERT INTO api_keys (user_id, key_hash, created_at, expires_at, kind, name, scope, prefix,
           user_agent, created_address)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        k.user_id,
        k.key_hash,
        k.created_at ?? new Date().toISOString(),
        k.expires_at,
        k.kind ?? 'session',
        k.name ?? null,
        k.scope ?? null,
        k.prefix ?? null,
        k.user_agent ?? null,
        k.created_address ?? null,
      );
    return Number(r.lastInsertRowid);
  }

  findByHash(hash: string): ApiKeyRow | undefined {
    // Every authenticated request: the statement is compiled once.
    return prepared(this.db, 'SELECT * FROM api_keys WHERE key_hash = ?').get(hash) as
      ApiKeyRow | undefined;
  }

  findById(id: number): ApiKeyRow | undefined {
    return this.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as ApiKeyRow | undefined;
  }

  /** The user's programs' keys, revoked and expired ones too (until housekeeping drops them). */
  listApiKeys(userId: number): ApiKeyRow[] {
    return this.db
      .prepare("SELECT * FROM api_keys WHERE user_id = ? AND kind = 'api' ORDER BY id DESC")
      .all(userId) as ApiKeyRow[];
  }

  countLiveApiKeys(userId: number, nowIso: string): number {
    return this.db
      .prepare(
        `SELECT COUNT(*) FROM api_keys
         WHERE user_id = ? AND kind = 'api' AND revoked_at IS NULL AND expires_at > ?`,
      )
      .pluck()
      .get(userId, nowIso) as number;
  }

  /** The user's sessions neither revoked nor expired, the last seen first. */
  listLiveSessions(userId: number, nowIso: string): ApiKeyRow[] {
    return this.db
      .prepare(
        `SELECT * FROM api_keys
         WHERE user_id = ? AND kind = 'session' AND revoked_at IS NULL AND expires_at > ?
         ORDER BY COALESCE(last_used_at, created_at) DESC, id DESC`,
      )
      .all(userId, nowIso) as ApiKeyRow[];
  }

  /** Revokes the key unless it already was: false means someone else revoked it first. */
  revoke(id: number): boolean {
    return (
      this.db
        .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL')
        .run(new Date().toISOString(), id).changes === 1
    );
  }

  /** Revokes the user's live keys (of one kind, or all) but one; answers the ids it revoked. */
  revokeAllForUser(userId: number, exceptId?: number, kind?: ApiKeyKind): number[] {
    return this.db
      .prepare(
        `UPDATE api_keys SET revoked_at = ?
         WHERE user_id = ? AND revoked_at IS NULL AND id != ? AND (? IS NULL OR kind = ?)
         RETURNING id`,
      )
      .pluck()
      .all(
        new Date().toISOString(),
        userId,
        exceptId ?? -1,
        kind ?? null,
        kind ?? null,
      ) as number[];
  }

  /** Records a use; an unknown address (a socket's re-check) keeps the last one. */
  touch(id: number, at: string, address?: string): void {
    this.db
      .prepare(
        'UPDATE api_keys SET last_used_at = ?, last_used_address = COALESCE(?, last_used_address) WHERE id = ?',
      )
      .run(at, address ?? null, id);
  }

  deleteExpiredBefore(iso: string): number {
    return this.db
      .prepare('DELETE FROM api_keys WHERE expires_at < ? OR revoked_at < ?')
      .run(iso, iso).changes;
  }
}
