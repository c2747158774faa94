import { describe, expect, it } from 'vitest';
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { HealthResponse, MaintenanceHealth, WorkersStatus } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { websocketRow, workersRow } from './checklist';

const checks: MaintenanceHealth = {
  status: 'unhealthy',
  checked_at: '2026-03-01T10:00:05.000Z',
  checks: [
    { component: 'database', status: 'healthy', details: { size_mb: 1.5, journal_mode: 'wal' } },
    { component: 'redis', status: 'disabled', details: { reason: 'REDIS_URL is not set' } },
    { component: 'backups', status: 'degraded', error: 'Last auto backup failed: disk full' },
    { component: 'index', status: 'unhealthy', error: 'index file unreadable' },
    { component: 'workers', status: 'degraded', details: { running: 0, engine: { threads: 2 } } },
    { component: 'realtime', status: 'healthy', details: { clients: 1 } },
  ],
};
const health: HealthResponse = {
  status: 'unhealthy',
  version: '0.1.0',
  uptime_s: 3725,
  components: {},
};
const workers: WorkersStatus = {
  mode: 'embedded',
  running: 0,
  workers: [],
  queue: { pending: 2, processing: 0 },
};

function setup() {
  return mockFetch({
    ...loggedIn(),
    'GET /admin/maintenance/health': json(checks),
    'GET /health': json(health),
    'GET /admin/maintenance/workers/status': json(workers),
    'GET /config/public': json({
      segment_max_tokens: 384,
      segment_max_sentences: 3,
      segmenter_model: 'builtin',
      default_credentials_in_use: true,
      default_credentials: { email: 'admin@example.com', password: 'admin' },
      version: '0.1.0',
    }),
  });
}

describe('System Checklist', () => {
  it('maps every check, the workers, the websocket and the environment to a status', async () => {
    setup();
    renderApp('/dashboard/system/checklist');
    expect(await screen.findByLabelText('Database: healthy')).toBeInTheDocument();
    expect(screen.getByLabelText('Redis: disabled')).toBeInTheDocument();
    expect(screen.getByLabelText('Backups: degraded')).toBeInTheDocument();
    expect(screen.getByText('Last auto backup failed: disk full')).toBeInTheDocument();
    expect(screen.getByLabelText('Vector index: unhealthy')).toBeInTheDocument();
    expect(screen.getByText('size MB: 1.5 · journal mode: wal')).toBeInTheDocument();
    // No worker while jobs wait: unhealthy.
    const workerSection = screen.getByLabelText('Workers');
    expect(within(workerSection).getByLabelText('Workers: unhealthy')).toBeInTheDocument();
    expect(within(workerSection).getByLabelText('Worker pool: degraded')).toBeInTheDocument();
    expect(
      within(workerSection).getByText('No worker running: 2 queued job(s) will not be processed.'),
    ).toBeInTheDocument();

    const ws = screen.getByLabelText('WebSocket');
    expect(within(ws).getByLabelText('WebSocket (this console): degraded')).toBeInTheDocument();
    act(() => FakeWebSocket.latest()?.open());
    expect(
      await within(ws).findByLabelText('WebSocket (this console): healthy'),
    ).toBeInTheDocument();
    expect(within(ws).getByLabelText('Realtime hub (server): healthy')).toBeInTheDocument();

    const env = screen.getByLabelText('Environment');
    expect(within(env).getByText('version: 0.1.0 · uptime: 1 h 2 min')).toBeInTheDocument();
    expect(within(env).getByLabelText('Queue mode: healthy')).toBeInTheDocument();
    expect(within(env).getByLabelText('Administrator credentials: degraded')).toBeInTheDocument();
    expect(screen.getByLabelText('Overall status')).toHaveTextContent('unhealthy');
    expect(screen.getByText(/Checked at .*:05$/)).toBeInTheDocument();
  });

  it('refresh asks every source again', async () => {
    const { callsTo } = setup();
    renderApp('/dashboard/system/checklist');
    await screen.findByLabelText('Database: healthy');
    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Refresh' }));
    for (const path of [
      '/admin/maintenance/health',
      '/health',
      '/admin/maintenance/workers/status',
    ]) {
      expect(callsTo('GET', path).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('shows components still starting as "starting" and asks again until they are up', async () => {
    let calls = 0;
    const starting: MaintenanceHealth = {
      status: 'starting',
      checked_at: '2026-03-01T10:00:05.000Z',
      checks: [
        { component: 'database', status: 'healthy' },
        {
          component: 'index',
          status: 'starting',
          details: { state: 'loading the saved index' },
        },
        { component: 'workers', status: 'starting', details: { running: 1 } },
      ],
    };
    const up: MaintenanceHealth = {
      ...starting,
      status: 'healthy',
      checks: starting.checks.map((c) => ({ ...c, status: 'healthy' as const })),
    };
    mockFetch({
      ...loggedIn(),
      'GET /admin/maintenance/health': () => json(calls++ === 0 ? starting : up),
      'GET /health': json({ ...health, status: 'starting' }),
      'GET /admin/maintenance/workers/status': json({ ...workers, running: 1 }),
    });
    renderApp('/dashboard/system/checklist');
    expect(await screen.findByLabelText('Vector index: starting')).toBeInTheDocument();
    expect(screen.getByText('state: loading the saved index')).toBeInTheDocument();
    expect(screen.getAllByText(/healthy · 1 starting/).length).toBeGreaterThan(0);
    // Asked again on its own (STARTING_REFETCH_MS), without a click on Refresh.
    expect(await screen.findByLabelText('Vector index: healthy')).toBeInTheDocument();
  });

  it('status rules: workers and websocket', () => {
    expect(workersRow({ ...workers, running: 1 }).status).toBe('healthy');
    expect(workersRow({ ...workers, queue: { pending: 0, processing: 0 } }).status).toBe(
      'degraded',
    );
    expect(workersRow(workers).status).toBe('unhealthy');
    expect(workersRow(undefined, 'boom')).toMatchObject({ status: 'unknown', error: 'boom' });
    expect(websocketRow('open').status).toBe('healthy');
    expect(websocketRow('reconnecting').status).toBe('degraded');
    expect(websocketRow('auth_failed')).toMatchObject({
      status: 'unhealthy',
      error: 'WebSocket authentication failed – check login or API key.',
    });
    expect(websocketRow('closed').status).toBe('unhealthy');
  });
});
