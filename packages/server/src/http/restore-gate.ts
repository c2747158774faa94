import type { FastifyInstance } from 'fastify';
import { RestoreRunning, type BackupService } from '../services/backup.service.js';

const API = '/api/v1';
const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Calls that are not reads yet run while a restore does. Login, logout, refresh and the socket's
 * ticket write only API keys and in-memory tickets, which a restore keeps: an operator can still
 * sign in and follow the restore. Backup and restore serialize themselves in their service (409
 * with Retry-After). The others only read: searches, an export, the playground's analyses and a
 * model's test. Any route not named here is refused during a restore, new ones included.
 */
const OPEN_DURING_RESTORE: ReadonlySet<string> = new Set(
  [
    'POST /auth/login',
    'POST /auth/logout',
    'POST /auth/refresh',
    'POST /auth/ws-ticket',
    'POST /admin/maintenance/backup',
    'POST /admin/maintenance/restore/:id',
    'POST /snippets/search',
    'POST /snippets/export',
    'POST /admin/index/search',
    'POST /playground/analyze',
    'POST /playground/fetch-url',
    'POST /playground/fetch-wikipedia',
    'POST /admin/models/:id/test',
  ].map((r) => r.replace(' ', ` ${API}`)),
);

/** Whether a restore refuses this call (`url` the route's pattern, as Fastify names it). */
export function closedDuringRestore(method: string, url: string | undefined): boolean {
  if (!url?.startsWith(`${API}/`)) return false;
  return !READS.has(method) && !OPEN_DURING_RESTORE.has(`${method} ${url}`);
}

/**
 * While a restore runs, every API call that writes answers 409 with Retry-After (RestoreRunning)
 * before its body is read: it would land in the data being replaced, under ids the restore hands
 * out again. A write already under way when the restore starts is waited for (`drain`) before
 * the data is replaced. Registered after the auth guard: a caller without a key learns nothing.
 */
export function registerRestoreGate(
  app: FastifyInstance,
  backups: Pick<BackupService, 'running' | 'holdDuringRestore'>,
): void {
  let writing = 0;
  const idle: (() => void)[] = [];
  const done = () => {
    if (--writing === 0) for (const wake of idle.splice(0)) wake();
  };
  backups.holdDuringRestore({
    pause: () => (writing === 0 ? undefined : new Promise<void>((r) => idle.push(r))),
    resume: () => undefined,
    what: 'requests that write',
  });
  app.addHook('onRequest', async (req, reply) => {
    if (!closedDuringRestore(req.method, req.routeOptions.url)) return;
    if (backups.running === 'restore') throw new RestoreRunning();
    writing++;
    // Once per request, however it ends (answered, failed, or the client gone).
    let counted = true;
    const end = () => {
      if (!counted) return;
      counted = false;
      done();
    };
    reply.raw.once('finish', end);
    reply.raw.once('close', end);
  });
}
