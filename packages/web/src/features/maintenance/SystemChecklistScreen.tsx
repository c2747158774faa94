import {
  Badge,
  Button,
  Group,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Text,
  ThemeIcon,
  Title,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconCheck,
  IconHourglass,
  IconMinus,
  IconQuestionMark,
  IconRefresh,
  IconX,
} from '@tabler/icons-react';
import { PageHeader } from '../../components/PageHeader';
import { ErrorState } from '../../components/QueryState';
import { formatDate } from '../../lib/format';
import { useRealtime } from '../../lib/realtime/RealtimeProvider';
import { usePublicConfig } from '../../session/config.api';
import { useHealth } from '../monitoring/monitoring.api';
import {
  SECTION_TITLES,
  checkRows,
  environmentRows,
  overallStatus,
  websocketRow,
  workersRow,
  type CheckStatus,
  type ChecklistRow,
  type ChecklistSection,
} from './checklist';
import { useMaintenanceHealth, useWorkersStatus } from './maintenance.api';

/** The console's date with seconds: a refresh within the same minute still shows it moved. */
function checkedAt(iso: string): string {
  const seconds = new Date(iso).getSeconds();
  return Number.isNaN(seconds)
    ? formatDate(iso)
    : `${formatDate(iso)}:${String(seconds).padStart(2, '0')}`;
}

export const STATUS_VIEW: Record<
  CheckStatus,
  { color: string; label: string; icon: typeof IconCheck }
> = {
  healthy: { color: 'teal', label: 'healthy', icon: IconCheck },
  degraded: { color: 'yellow', label: 'degraded', icon: IconAlertTriangle },
  unhealthy: { color: 'red', label: 'unhealthy', icon: IconX },
  disabled: { color: 'gray', label: 'disabled', icon: IconMinus },
  // Loading after the server began answering (engine threads, the index): passes by itself.
  starting: { color: 'blue', label: 'starting', icon: IconHourglass },
  unknown: { color: 'gray', label: 'unknown', icon: IconQuestionMark },
};

function Row({ row }: { row: ChecklistRow }) {
  const view = STATUS_VIEW[row.status];
  const Icon = view.icon;
  return (
    <Group
      wrap="nowrap"
      align="flex-start"
      gap="sm"
      py="xs"
      data-check={row.id}
      data-status={row.status}
      style={{ borderTop: '1px solid var(--mantine-color-default-border)' }}
    >
      <ThemeIcon size={26} radius="xl" color={view.color} variant="light" aria-hidden>
        <Icon size={16} />
      </ThemeIcon>
      <Stack gap={2} style={{ flex: 1, minWidth: 0 }}>
        <Group justify="space-between" gap="xs" wrap="nowrap">
          <Text fw={600} size="sm">
            {row.label}
          </Text>
          <Badge
            color={view.color}
            variant="light"
            radius="sm"
            aria-label={`${row.label}: ${view.label}`}
          >
            {view.label}
          </Badge>
        </Group>
        {row.details.length ? (
          <Text size="xs" c="dimmed" className="tabular-nums" style={{ wordBreak: 'break-word' }}>
            {row.details.join(' · ')}
          </Text>
        ) : null}
        {row.error ? (
          <Text size="xs" c={row.status === 'degraded' ? 'yellow' : 'red'}>
            {row.error}
          </Text>
        ) : null}
      </Stack>
    </Group>
  );
}

/** "3/3 healthy · 1 disabled": a component switched off on purpose is not a failing one. */
function summary(rows: ChecklistRow[]): string {
  const disabled = rows.filter((r) => r.status === 'disabled').length;
  const healthy = rows.filter((r) => r.status === 'healthy').length;
  const starting = rows.filter((r) => r.status === 'starting').length;
  const text = `${healthy}/${rows.length - disabled} healthy`;
  return [text, starting && `${starting} starting`, disabled && `${disabled} disabled`]
    .filter(Boolean)
    .join(' · ');
}

function Section({
  section,
  rows,
  loading,
}: {
  section: ChecklistSection;
  rows: ChecklistRow[];
  loading: boolean;
}) {
  return (
    <Paper withBorder radius="md" p="md" aria-label={SECTION_TITLES[section]}>
      <Group justify="space-between" mb="xs">
        <Title order={4}>{SECTION_TITLES[section]}</Title>
        {rows.length ? (
          <Badge variant="dot" color={STATUS_VIEW[overallStatus(rows)].color}>
            {summary(rows)}
          </Badge>
        ) : null}
      </Group>
      {loading && rows.length === 0 ? (
        <Stack gap="xs">
          {Array.from({ length: 3 }, (_, i) => (
            <Skeleton key={i} height={44} radius="sm" />
          ))}
        </Stack>
      ) : (
        rows.map((row) => <Row key={row.id} row={row} />)
      )}
    </Paper>
  );
}

/**
 * System Checklist (spec 002 §2): the server's health checks (GET /admin/maintenance/health and
 * GET /health), the workers, this console's WebSocket and the environment, each with a status
 * and details.
 */
export function SystemChecklistScreen() {
  const checks = useMaintenanceHealth();
  const health = useHealth();
  const workers = useWorkersStatus();
  const config = usePublicConfig();
  const realtime = useRealtime();

  const serverRows = checks.data ? checkRows(checks.data) : [];
  const rows: ChecklistRow[] = [
    ...serverRows,
    workersRow(workers.data, workers.error?.message),
    websocketRow(realtime.status),
    ...environmentRows(health.data, workers.data, config.data),
  ];
  const bySection = (section: ChecklistSection) => rows.filter((r) => r.section === section);
  const overall = overallStatus(rows);
  const fetching = checks.isFetching || health.isFetching || workers.isFetching;

  const refresh = () => {
    void checks.refetch();
    void health.refetch();
    void workers.refetch();
    void config.refetch();
    // A channel that gave up is tried again; an open one is asked for fresh figures.
    if (realtime.status === 'closed') realtime.reconnect();
    else realtime.requestUpdate();
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title="System Checklist"
        description={
          checks.data ? `Checked at ${checkedAt(checks.data.checked_at)}` : 'Checking the system…'
        }
        actions={
          <>
            <Badge
              size="lg"
              variant="light"
              color={STATUS_VIEW[overall].color}
              aria-label="Overall status"
            >
              {STATUS_VIEW[overall].label}
            </Badge>
            <Button
              variant="default"
              leftSection={<IconRefresh size={16} />}
              onClick={refresh}
              loading={fetching}
            >
              Refresh
            </Button>
          </>
        }
      />
      {checks.isError ? (
        <ErrorState
          title="Could not load the health checks"
          message={checks.error.message}
          onRetry={() => void checks.refetch()}
        />
      ) : null}
      <SimpleGrid cols={{ base: 1, lg: 2 }}>
        <Section section="components" rows={bySection('components')} loading={checks.isLoading} />
        <Stack gap="md">
          <Section section="workers" rows={bySection('workers')} loading={checks.isLoading} />
          <Section section="websocket" rows={bySection('websocket')} loading={checks.isLoading} />
        </Stack>
      </SimpleGrid>
      <Section section="environment" rows={bySection('environment')} loading={false} />
    </Stack>
  );
}
