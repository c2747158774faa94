import { createHash } from 'node:crypto';
import type { AuditEntry, AuditFilters, AuditOutcome } from '@adam/contracts';
import type { Db } from './db.js';

/** The prev_hash of the first entry ever written. */
const GENESIS_HASH = '0'.repeat(64);

/** What a caller records; id, time and hashes are the repository's. */
export interface AuditRecord {
  user_id: number | null;
  user_email: string | null;
  key_id: number | null;
  key_kind: string | null;
  action: string;
  target: string | null;
  address: string;
  status: number | null;
  outcome: AuditOutcome;
  detail: Record<string, unknown> | null;
}

interface AuditRow extends Omit<AuditEntry, 'detail'> {
  detail: string | null;
}

interface ChainState {
  head_id: number;
  head_hash: string;
  anchor_id: number;
  anchor_hash: string;
}

/** The hashed fields of a row, in a fixed key order: the same bytes on every machine. */
function canonical(r: Omit<AuditRow, 'prev_hash' | 'hash'>): string {
  return JSON.stringify([
    r.id,
    r.at,
    r.user_id,
    r.user_email,
    r.key_id,
    r.key_kind,
    r.action,
    r.target,
    r.address,
    r.status,
    r.outcome,
    r.detail,
  ]);
}

export function entryHash(prevHash: string, r: Omit<AuditRow, 'prev_hash' | 'hash'>): string {
  return createHash('sha256')
    .update(prevHash + canonical(r))
    .digest('hex');
}

const toEntry = (r: AuditRow): AuditEntry => ({
  ...r,
  detail: r.detail === null ? null : (JSON.parse(r.detail) as Record<string, unknown>),
});

/**
 * The audit trail: append-only rows chained by hash. The server and the CLI are two processes on
 * one file, so reading the chain's head and appending after it is one IMMEDIATE transaction.
 */
export class AuditRepository {
  constructor(private readonly db: Db) {}

  private chain(): ChainState {
    const row = this.db
      .prepare('SELECT head_id, head_hash, anchor_id, anchor_hash FROM audit_chain WHERE id = 1')
      .get() as ChainState | undefined;
    return row ?? { head_id: 0, head_hash: GENESIS_HASH, anchor_id: 0, anchor_hash: GENESIS_HASH };
  }

  /** Appends one entry after the chain's head; returns its id. */
  insert(rec: AuditRecord, at: string): number {
    return this.db
      .transaction(() => {
        const { head_id, head_hash, anchor_id, anchor_hash } = this.chain();
        const row = {
          id: head_id + 1,
          at,
          ...rec,
          detail: rec.detail === null ? null : JSON.stringify(rec.detail),
        };
        const hash = entryHash(head_hash, row);
        this.db
          .prepare(
            `INSERT INTO audit_log (id, at, user_id, user_email, key_id, key_kind, action, target,
               address, status, outcome, detail, prev_hash, hash)
             VALUES (@id, @at, @user_id, @user_email, @key_id, @key_kind, @action, @target,
               @address, @status, @outcome, @detail, @prev_hash, @hash)`,
          )
          .run({ ...row, prev_hash: head_hash, hash });
        this.db
          .prepare(
            `INSERT INTO audit_chain (id, head_id, head_hash, anchor_id, anchor_hash)
             VALUES (1, @id, @hash, @anchor_id, @anchor_hash)
             ON CONFLICT(id) DO UPDATE SET head_id = excluded.head_id, head_hash = excluded.head_hash`,
          )
          .run({ id: row.id, hash, anchor_id, anchor_hash });
        return row.id;
      })
      .immediate();
  }

  /** Newest first, entries older than `beforeId` (keyset paging on the id). */
  listPage(filters: AuditFilters, beforeId: number | null, limit: number): AuditEntry[] {
    const { where, params } = whereOf(filters, beforeId);
    return (
      this.db
        .prepare(`SELECT * FROM audit_log ${where} ORDER BY id DESC LIMIT @limit`)
        .all({ ...params, limit }) as AuditRow[]
    ).map(toEntry);
  }

  /** Oldest first from `afterId`, raw: what verification hashes again. */
  rowsAfter(afterId: number, limit: number): AuditRow[] {
    return this.db
      .prepare('SELECT * FROM audit_log WHERE id > ? ORDER BY id LIMIT ?')
      .all(afterId, limit) as AuditRow[];
  }

  chainState(): ChainState {
    return this.chain();
  }

  /**
   * Deletes the entries written before `cutoff` and makes the last of them the anchor, in one
   * transaction: verification then starts from the anchor's hash. Returns the entries deleted.
   */
  deleteOlderThan(cutoff: string): number {
    return this.db
      .transaction(() => {
        const last = this.db
          .prepare('SELECT id, hash FROM audit_log WHERE at < ? ORDER BY id DESC LIMIT 1')
          .get(cutoff) as { id: number; hash: string } | undefined;
        if (!last) return 0;
        const deleted = this.db.prepare('DELETE FROM audit_log WHERE id <= ?').run(last.id).changes;
        this.db
          .prepare('UPDATE audit_chain SET anchor_id = ?, anchor_hash = ? WHERE id = 1')
          .run(last.id, last.hash);
        return deleted;
      })
      .immediate();
  }
}

function whereOf(
  f: AuditFilters,
  beforeId: number | null,
): { where: string; params: Record<string, unknown> } {
  const clauses: string[] = [];
  const params: Record<string, unknown> = {};
  if (beforeId !== null) {
    clauses.push('id < @beforeId');
    params.beforeId = beforeId;
  }
  if (f.user !== undefined) {
    if (/^\d+$/.test(f.user)) {
      clauses.push('user_id = @userId');
      params.userId = Number(f.user);
    } else {
      clauses.push('user_email = @userEmail COLLATE NOCASE');
      params.userEmail = f.user;
    }
  }
  for (const field of ['action', 'target', 'outcome'] as const) {
    if (f[field] === undefined) continue;
    clauses.push(`${field} = @${field}`);
    params[field] = f[field];
  }
  // Stored times are ISO strings in UTC: they compare as text.
  if (f.from !== undefined) {
    clauses.push('at >= @from');
    params.from = new Date(f.from).toISOString();
  }
  if (f.to !== undefined) {
    clauses.push('at <= @to');
    params.to = new Date(f.to).toISOString();
  }
  return { where: clauses.length ? `WHERE ${clauses.join(' AND ')}` : '', params };
}
