import { afterEach } from 'vitest';
import type { BackupService } from '../src/services/backup.service.js';
import type { TestServer } from './helpers.js';

/**
 * The servers and stand-alone backup services a test file starts, closed after each test
 * (backup services first: they write into their server's data directory).
 */
export function closedAfterEach(): { servers: TestServer[]; extra: BackupService[] } {
  const servers: TestServer[] = [];
  const extra: BackupService[] = [];
  afterEach(async () => {
    for (const b of extra.splice(0)) await b.close();
    for (const s of servers.splice(0)) await s.close();
  });
  return { servers, extra };
}
