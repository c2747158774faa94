import { Center, Loader, Stack, Text } from '@mantine/core';
import { PageHeader } from '../../components/PageHeader';
import { useMonitoring } from '../../layout/MonitoringContext';
import { useMetricsRefreshMs } from '../settings/settings.api';
import { MONITORING_MESSAGES as M } from './messages';
import { useSystemMetricsQuery, type MetricsPoll } from './monitoring.api';
import { ErrorLine } from './MonitoringCard';
import { MonitoringPanels } from './MonitoringPanels';
import { useRequestUpdateTick } from './useMetricsPoll';

/**
 * Performance Monitoring (spec 001 §2.6): the Control Centre's panels without its controls,
 * polled at the resources setting's interval while the header's Monitoring toggle is on.
 */
export function PerformanceMonitoringScreen() {
  const { enabled: monitoring } = useMonitoring();
  const poll: MetricsPoll = { intervalMs: useMetricsRefreshMs(), polling: monitoring };
  useRequestUpdateTick(poll);
  const system = useSystemMetricsQuery(poll);
  return (
    <Stack gap="xl">
      <PageHeader
        title={M.performanceTitle}
        description={monitoring ? M.performanceDescription : M.monitoringOff}
      />
      {system.data ? (
        <MonitoringPanels poll={poll} system={system} />
      ) : system.isError ? (
        <ErrorLine>{M.systemError}</ErrorLine>
      ) : (
        <Center mih={200} aria-busy="true">
          <Stack align="center" gap="xs">
            <Loader />
            <Text c="dimmed">{M.loading}</Text>
          </Stack>
        </Center>
      )}
    </Stack>
  );
}
