import type { Logger } from '../logging.js';
import type { ApiKeyRepository } from '../store/api-key.repository.js';
import type { LogRepository } from '../store/log.repository.js';

export const LOG_RETENTION_DAYS = 30;
/** Nothing here is urgent: an expired key is refused anyway, old logs only take space. */
export const HOUSEKEEPING_EVERY_MS = 6 * 3600_000;

/** Deletes log lines past their retention and API keys past their refresh grace, periodically. */
export class HousekeepingService {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      logs: Pick<LogRepository, 'deleteOlderThan'>;
      keys: Pick<ApiKeyRepository, 'deleteExpiredBefore'>;
      /** How long an expired key may still be refreshed: kept until then. */
      refreshGraceSeconds: number;
      log: Pick<Logger, 'error'>;
      now?: () => number;
      /** The audit trail, pruned past its retention (the security settings). */
      audit?: { prune(retentionDays: number): number };
      auditRetentionDays?: () => number;
      /** The auto backups past the general settings' retention deleted. */
      backups?: { applyRetention(): unknown };
      /** Recorded searches past the quality settings' retention, pruned in batches. */
      searchHistory?: { prune(): Promise<number> };
    },
  ) {}

  /** Runs once now, then every HOUSEKEEPING_EVERY_MS (a timer that keeps no process alive). */
  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), HOUSEKEEPING_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A failed round (a busy or full disk) is logged and tried again next period. */
  private tick(): void {
    try {
      this.run();
    } catch (e) {
      this.deps.log.error({ component: 'housekeeping', err: e }, 'Housekeeping failed');
    }
  }

  run(): void {
    const now = (this.deps.now ?? Date.now)();
    this.deps.logs.deleteOlderThan(new Date(now - LOG_RETENTION_DAYS * 86400_000).toISOString());
    this.deps.keys.deleteExpiredBefore(
      new Date(now - this.deps.refreshGraceSeconds * 1000).toISOString(),
    );
    if (this.deps.audit && this.deps.auditRetentionDays) {
      this.deps.audit.prune(this.deps.auditRetentionDays());
    }
    this.deps.backups?.applyRetention();
    this.deps.searchHistory?.prune().catch((e: unknown) => {
      this.deps.log.error({ component: 'housekeeping', err: e }, 'Pruning search history failed');
    });
  }
}
