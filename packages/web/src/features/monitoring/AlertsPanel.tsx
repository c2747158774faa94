import { Alert, Button, Group, Stack } from '@mantine/core';
import { IconAlertTriangle, IconCircleCheck, IconFileText, IconRefresh } from '@tabler/icons-react';
import { formatPercent } from '../../lib/format';
import { useOpenTab } from '../../navigation/useTabNavigation';
import { MonitoringCard } from './MonitoringCard';
import { MONITORING_MESSAGES as M } from './messages';
import { monitoringAlerts } from './monitoringRules';

const ALERT_TEXT = {
  cpu: { title: M.cpuCritical, color: 'red', name: 'CPU' },
  memory: { title: M.memoryHigh, color: 'orange', name: 'Memory' },
} as const;

/**
 * The command-and-notification panel: the spec's alerts (CPU above 80 % critical, memory above
 * 75 % high) from the figures the badges show, or an all-clear line; and a few commands.
 */
export function AlertsPanel({
  cpu,
  memory,
  onRefreshNow,
  refreshDisabled,
}: {
  cpu: number | null | undefined;
  memory: number | null | undefined;
  onRefreshNow: () => void;
  refreshDisabled: boolean;
}) {
  const openTab = useOpenTab();
  const alerts = monitoringAlerts(cpu, memory);
  return (
    <MonitoringCard title="Notifications">
      <Stack gap="xs" aria-label="Alerts">
        {alerts.length === 0 ? (
          <Alert
            color="teal"
            variant="light"
            icon={<IconCircleCheck size={18} />}
            p="xs"
            role="status"
          >
            {M.allClear}
          </Alert>
        ) : (
          alerts.map((a) => (
            <Alert
              key={a.metric}
              color={ALERT_TEXT[a.metric].color}
              variant="light"
              icon={<IconAlertTriangle size={18} />}
              title={ALERT_TEXT[a.metric].title}
              p="xs"
              data-severity={a.severity}
            >
              {ALERT_TEXT[a.metric].name} at {formatPercent(a.value)} (above {a.threshold}%)
            </Alert>
          ))
        )}
      </Stack>
      <Group gap="xs" mt="auto">
        <Button
          size="xs"
          variant="light"
          leftSection={<IconRefresh size={14} />}
          onClick={onRefreshNow}
          disabled={refreshDisabled}
        >
          Refresh now
        </Button>
        <Button
          size="xs"
          variant="default"
          leftSection={<IconFileText size={14} />}
          onClick={() => openTab('monitoring-logs')}
        >
          Open logs
        </Button>
      </Group>
    </MonitoringCard>
  );
}
