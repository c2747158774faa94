/**
 * The system checklist's rows (spec 002 §2: health of components, workers, websocket and
 * environment): each answer mapped to a status and readable details, without React.
 */
import type {
  ComponentStatus,
  HealthResponse,
  MaintenanceHealth,
  PublicConfig,
  WorkersStatus,
} from '@adam/contracts';
import { formatDate, formatNumber } from '../../lib/format';
import { WS_AUTH_FAILURE_MESSAGE, type RealtimeStatus } from '../../lib/realtime/realtimeClient';

/** 'unknown': the answer that would tell is missing (loading or failed). */
export type CheckStatus = ComponentStatus | 'unknown';

export type ChecklistSection = 'components' | 'workers' | 'websocket' | 'environment';

export interface ChecklistRow {
  id: string;
  label: string;
  section: ChecklistSection;
  status: CheckStatus;
  /** Short "name: value" facts. */
  details: string[];
  error?: string;
}

export const SECTION_TITLES: Record<ChecklistSection, string> = {
  components: 'Components',
  workers: 'Workers',
  websocket: 'WebSocket',
  environment: 'Environment',
};

/** Server checks shown in a section of their own rather than among the components. */
const CHECK_SECTION: Record<string, ChecklistSection> = {
  workers: 'workers',
  queue: 'workers',
  realtime: 'websocket',
};

const CHECK_LABELS: Record<string, string> = {
  database: 'Database',
  redis: 'Redis',
  index: 'Vector index',
  backups: 'Backups',
  queue: 'Job queue',
  workers: 'Worker pool',
  realtime: 'Realtime hub (server)',
};

const LABEL_WORDS: Record<string, string> = { mb: 'MB', ms: 'ms', id: 'ID', at: 'at' };
const humanKey = (key: string) =>
  key
    .split(/[_.]/)
    .map((w) => LABEL_WORDS[w] ?? w)
    .join(' ');

function humanValue(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string') {
    // ISO timestamps read as the console's dates.
    return /^\d{4}-\d{2}-\d{2}T/.test(value) ? formatDate(value) : value;
  }
  return JSON.stringify(value);
}

/** `details` as "name: value" lines; nested objects are flattened one level ("engine threads: 2"). */
function detailLines(details: Record<string, unknown> | undefined): string[] {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(details ?? {})) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [sub, v] of Object.entries(value as Record<string, unknown>)) {
        lines.push(`${humanKey(key)} ${humanKey(sub)}: ${humanValue(v)}`);
      }
    } else {
      lines.push(`${humanKey(key)}: ${humanValue(value)}`);
    }
  }
  return lines;
}

/** GET /admin/maintenance/health: one row per check, in the section it belongs to. */
export function checkRows(health: MaintenanceHealth): ChecklistRow[] {
  return health.checks.map((check) => ({
    id: `check:${check.component}`,
    label: CHECK_LABELS[check.component] ?? check.component,
    section: CHECK_SECTION[check.component] ?? 'components',
    status: check.status,
    details: detailLines(check.details),
    error: check.error,
  }));
}

/** The workers list: healthy with a worker running; without one, degraded, or unhealthy when jobs wait. */
export function workersRow(
  workers: WorkersStatus | undefined,
  error?: string | null,
): ChecklistRow {
  const row = { id: 'workers', label: 'Workers', section: 'workers' as const };
  if (!workers) return { ...row, status: 'unknown', details: [], error: error ?? undefined };
  const busy = workers.workers.filter((w) => w.status === 'busy').length;
  const status: CheckStatus =
    workers.running > 0 ? 'healthy' : workers.queue.pending > 0 ? 'unhealthy' : 'degraded';
  return {
    ...row,
    status,
    details: [
      `mode: ${workers.mode}`,
      `running: ${formatNumber(workers.running)}`,
      `busy: ${formatNumber(busy)}`,
      `pending jobs: ${formatNumber(workers.queue.pending)}`,
      `processing jobs: ${formatNumber(workers.queue.processing)}`,
    ],
    error:
      workers.running === 0
        ? workers.queue.pending > 0
          ? `No worker running: ${workers.queue.pending} queued job(s) will not be processed.`
          : 'No worker running: new jobs will not be processed.'
        : undefined,
  };
}

const WEBSOCKET: Record<RealtimeStatus, { status: CheckStatus; detail: string }> = {
  open: { status: 'healthy', detail: 'Connected' },
  connecting: { status: 'degraded', detail: 'Connecting…' },
  reconnecting: { status: 'degraded', detail: 'Connection lost, reconnecting…' },
  closed: { status: 'unhealthy', detail: 'Disconnected: gave up reconnecting' },
  auth_failed: { status: 'unhealthy', detail: WS_AUTH_FAILURE_MESSAGE },
  idle: { status: 'unhealthy', detail: 'Not connected' },
};

/** This browser's realtime connection (useRealtime().status). */
export function websocketRow(status: RealtimeStatus): ChecklistRow {
  const view = WEBSOCKET[status];
  return {
    id: 'websocket',
    label: 'WebSocket (this console)',
    section: 'websocket',
    status: view.status,
    details: [`status: ${status}`],
    error: view.status === 'healthy' ? undefined : view.detail,
  };
}

function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d) return `${d} d ${h} h`;
  if (h) return `${h} h ${m} min`;
  if (m) return `${m} min`;
  return `${Math.floor(seconds)} s`;
}

/** Version, uptime, queue mode and the default-credentials warning. */
export function environmentRows(
  health: HealthResponse | undefined,
  workers: WorkersStatus | undefined,
  config: PublicConfig | undefined,
): ChecklistRow[] {
  const env = { section: 'environment' as const };
  return [
    {
      ...env,
      id: 'env:server',
      label: 'Server',
      status: health ? 'healthy' : 'unknown',
      details: health
        ? [`version: ${health.version}`, `uptime: ${formatUptime(health.uptime_s)}`]
        : [],
    },
    {
      ...env,
      id: 'env:mode',
      label: 'Queue mode',
      status: workers ? 'healthy' : 'unknown',
      details: workers
        ? [
            `mode: ${workers.mode}`,
            workers.mode === 'redis'
              ? 'jobs run in worker processes through Redis'
              : 'jobs run inside the server process',
          ]
        : [],
    },
    {
      ...env,
      id: 'env:credentials',
      label: 'Administrator credentials',
      status: config ? (config.default_credentials_in_use ? 'degraded' : 'healthy') : 'unknown',
      details: config
        ? [
            config.default_credentials_in_use
              ? 'default password in use'
              : 'default password changed',
          ]
        : [],
      error: config?.default_credentials_in_use
        ? 'The default administrator can still log in: change its password in Settings → Security.'
        : undefined,
    },
  ];
}

/** The worst status of a set of rows (unknown counts as degraded; starting, as the server says, below it). */
export function overallStatus(rows: ChecklistRow[]): CheckStatus {
  if (rows.some((r) => r.status === 'unhealthy')) return 'unhealthy';
  if (rows.some((r) => r.status === 'degraded' || r.status === 'unknown')) return 'degraded';
  if (rows.some((r) => r.status === 'starting')) return 'starting';
  return 'healthy';
}
