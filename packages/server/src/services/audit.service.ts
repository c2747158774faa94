import {
  REDACTED,
  type AuditChange,
  type AuditExportQuery,
  type AuditFilters,
  type AuditPage,
  type AuditSearchQuery,
  type AuditVerification,
} from '@adam/contracts';
import type { Logger } from '../logging.js';
import { csvField } from './export-file.js';
import { entryHash, type AuditRecord, type AuditRepository } from '../store/audit.repository.js';

/**
 * Refused calls are cheap to make: past these counts a minute, refused calls are no longer
 * written one by one but as one summary entry per address (and one for all addresses past the
 * global count) when the minute is over, so a flood of 401/403 adds at most
 * REFUSED_PER_ADDRESS + 1 entries a minute per address, and GLOBAL + 1 in all. The summary is
 * written by the next refused call of a later minute, or by a timer at the minute's end when no
 * such call comes (a flood that stops), or at close: the last minute's count is never lost.
 */
export const REFUSED_PER_ADDRESS_PER_MINUTE = 30;
export const REFUSED_PER_MINUTE = 600;
const ALL_ADDRESSES = '*';

/** A settings field whose value is a secret by its name. */
const SECRET_FIELD = /password|secret|token|key/i;

/** Rows read a time while exporting or verifying: memory stays flat whatever the table's size. */
const BATCH = 500;

const EXPORT_COLUMNS = [
  'id',
  'at',
  'user_id',
  'user_email',
  'key_id',
  'key_kind',
  'action',
  'target',
  'address',
  'status',
  'outcome',
  'detail',
  'prev_hash',
  'hash',
] as const;

/** Before/after of the fields a save changed; secret-like fields show REDACTED. */
export function changedFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const b = before[field];
    const a = after[field];
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    changes[field] = SECRET_FIELD.test(field)
      ? { before: REDACTED, after: REDACTED }
      : { before: b ?? null, after: a ?? null };
  }
  return changes;
}

export const outcomeOf = (status: number) =>
  status < 400 ? 'ok' : status === 401 || status === 403 ? 'refused' : 'failed';

/** Records who changed what, searches, exports and verifies the chain, prunes past retention. */
export class AuditService {
  private minute = -1;
  private refusedByAddress = new Map<string, number>();
  private refusedInMinute = 0;
  private refusedPastGlobal = 0;
  /** Set while a minute holds suppressed calls: writes their summary when the minute ends. */
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      audit: AuditRepository;
      log: Pick<Logger, 'error'>;
      now?: () => number;
    },
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Writes one entry; a failure (a full disk) is logged, never turned into the caller's error. */
  record(rec: AuditRecord): void {
    try {
      if (rec.outcome === 'refused' && !this.admitRefused(rec.address)) return;
      this.deps.audit.insert(rec, new Date(this.now()).toISOString());
    } catch (e) {
      this.deps.log.error({ component: 'audit', err: e }, 'Writing an audit entry failed');
    }
  }

  /** Counts a refused call; at a new minute, the last minute's unwritten ones become summaries. */
  private admitRefused(address: string): boolean {
    const minute = Math.floor(this.now() / 60_000);
    if (minute !== this.minute) {
      if (this.flushTimer) clearTimeout(this.flushTimer);
      this.flushTimer = null;
      this.summariseSuppressed();
      this.minute = minute;
      this.refusedByAddress = new Map();
      this.refusedInMinute = 0;
      this.refusedPastGlobal = 0;
    }
    // Past the global count nothing is written nor added to the map (it holds at most
    // REFUSED_PER_MINUTE addresses), only counted.
    if (this.refusedInMinute >= REFUSED_PER_MINUTE) {
      this.refusedPastGlobal++;
      this.flushAtMinuteEnd();
      return false;
    }
    const n = (this.refusedByAddress.get(address) ?? 0) + 1;
    this.refusedByAddress.set(address, n);
    if (n > REFUSED_PER_ADDRESS_PER_MINUTE) {
      this.flushAtMinuteEnd();
      return false;
    }
    this.refusedInMinute++;
    return true;
  }

  /**
   * A timer that keeps no process alive, armed once per minute that suppresses a call. Past
   * the minute it writes the summary, unless a refused call of a later minute did first.
   */
  private flushAtMinuteEnd(): void {
    if (this.flushTimer) return;
    const wait = Math.max(0, (this.minute + 1) * 60_000 - this.now());
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      if (Math.floor(this.now() / 60_000) === this.minute) {
        // The clock has not reached the minute's end yet: look again then.
        this.flushAtMinuteEnd();
        return;
      }
      this.writeSuppressed();
    }, wait);
    this.flushTimer.unref();
  }

  /** Writes the summaries held and starts counting afresh; a failure is logged, as in record. */
  private writeSuppressed(): void {
    try {
      this.summariseSuppressed();
    } catch (e) {
      this.deps.log.error({ component: 'audit', err: e }, 'Writing an audit entry failed');
    }
    this.refusedByAddress = new Map();
    this.refusedInMinute = 0;
    this.refusedPastGlobal = 0;
  }

  /**
   * At shutdown, before the database closes: the current minute's suppressed calls are written
   * now (a summary of the minute so far) rather than lost with the process.
   */
  close(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.minute >= 0) this.writeSuppressed();
  }

  private summariseSuppressed(): void {
    // The minute's end, or now when closing within it.
    const at = new Date(Math.min(this.minute * 60_000 + 59_999, this.now())).toISOString();
    const summaries: [string, number][] = [...this.refusedByAddress]
      .map(([address, n]): [string, number] => [address, n - REFUSED_PER_ADDRESS_PER_MINUTE])
      .filter(([, suppressed]) => suppressed > 0);
    if (this.refusedPastGlobal > 0) summaries.push([ALL_ADDRESSES, this.refusedPastGlobal]);
    for (const [address, suppressed] of summaries) {
      this.deps.audit.insert(
        {
          user_id: null,
          user_email: null,
          key_id: null,
          key_kind: null,
          action: 'refused calls (summarised)',
          target: null,
          address,
          status: null,
          outcome: 'refused',
          detail: { suppressed, minute_of: new Date(this.minute * 60_000).toISOString() },
        },
        at,
      );
    }
  }

  search(q: AuditSearchQuery): AuditPage {
    const before = q.cursor === undefined ? null : Number(q.cursor);
    // One more than the page: whether there is a next page, without a count.
    const rows = this.deps.audit.listPage(q, before, q.limit + 1);
    const entries = rows.slice(0, q.limit);
    const more = rows.length > q.limit;
    return { entries, next_cursor: more ? String(entries[entries.length - 1]!.id) : null };
  }

  /** The file's lines, a batch of rows read at a time (the route streams them). */
  async *exportLines(q: AuditExportQuery): AsyncGenerator<string> {
    const filters: AuditFilters = { ...q };
    if (q.format === 'csv') yield EXPORT_COLUMNS.join(',') + '\r\n';
    let before: number | null = null;
    for (;;) {
      const rows = this.deps.audit.listPage(filters, before, BATCH);
      if (rows.length === 0) return;
      let chunk = '';
      for (const r of rows) {
        chunk +=
          q.format === 'csv'
            ? EXPORT_COLUMNS.map((c) =>
                csvField(c === 'detail' && r.detail !== null ? JSON.stringify(r.detail) : r[c]),
              ).join(',') + '\r\n'
            : JSON.stringify(r) + '\n';
      }
      yield chunk;
      before = rows[rows.length - 1]!.id;
    }
  }

  /**
   * Walks the chain from the anchor (the last pruned entry, or the start): an id that skips,
   * or a prev_hash that is not the previous hash, is a deletion; a hash that is not the hash of
   * the row's fields is an edit. The head kept beside the chain shows a deleted last entry.
   */
  async verify(): Promise<AuditVerification> {
    const chain = this.deps.audit.chainState();
    let prevId = chain.anchor_id;
    let prevHash = chain.anchor_hash;
    let checked = 0;
    const broken = (id: number, problem: 'edited' | 'deleted', detail: string) => ({
      ok: false,
      checked,
      anchor_id: chain.anchor_id,
      broken_id: id,
      problem,
      detail,
    });
    for (;;) {
      const rows = this.deps.audit.rowsAfter(prevId, BATCH);
      for (const r of rows) {
        if (r.id !== prevId + 1) {
          return broken(r.id, 'deleted', `Entries ${prevId + 1} to ${r.id - 1} are missing`);
        }
        if (r.prev_hash !== prevHash) {
          return broken(r.id, 'deleted', `Entry ${r.id} does not follow entry ${prevId}'s hash`);
        }
        if (entryHash(r.prev_hash, r) !== r.hash) {
          return broken(r.id, 'edited', `Entry ${r.id} was changed after it was written`);
        }
        prevId = r.id;
        prevHash = r.hash;
        checked++;
      }
      if (rows.length < BATCH) break;
      // Between batches the event loop answers other requests.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (prevId !== chain.head_id || prevHash !== chain.head_hash) {
      return broken(
        prevId + 1,
        'deleted',
        `The trail ends at entry ${prevId}, but entry ${chain.head_id} was written`,
      );
    }
    return {
      ok: true,
      checked,
      anchor_id: chain.anchor_id,
      broken_id: null,
      problem: null,
      detail: null,
    };
  }

  /** Deletes entries past the retention; the last one deleted becomes the chain's anchor. */
  prune(retentionDays: number): number {
    return this.deps.audit.deleteOlderThan(
      new Date(this.now() - retentionDays * 86400_000).toISOString(),
    );
  }
}
