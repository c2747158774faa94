import { json } from './fetchMock';
import { saveSession } from '../session/storage';

export const adminUser = {
  email: 'admin@example.com',
  name: 'Ada Admin',
  totp_enabled: false,
  role: 'administrator' as const,
  must_change_password: false,
};

/** A stored session and the calls a logged-in dashboard makes. */
export function loggedIn() {
  saveSession('key-1');
  return {
    'GET /auth/me': json(adminUser),
    // The realtime channel asks for a ticket before each connect.
    'POST /auth/ws-ticket': json({ ticket: 'ticket-1', expires_in: 30 }),
    'GET /admin/settings/resources': json({ metrics_refresh_ms: 5000 }),
    'GET /metrics/realtime': json({
      cpuUsage: 37.5,
      memoryUsage: 61.2,
      segmentsPerSecond: 2.5,
      activeJobs: 0,
      jobsPerMinute: 0,
      searchesPerSecond: 0,
      timestamp: 'now',
    }),
  };
}
