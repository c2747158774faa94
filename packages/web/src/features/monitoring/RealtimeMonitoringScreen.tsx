import {
  Badge,
  Button,
  Grid,
  Group,
  Paper,
  RingProgress,
  Slider,
  Stack,
  Text,
} from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlayerPause, IconPlayerPlay } from '@tabler/icons-react';
import { PageHeader } from '../../components/PageHeader';
import { useTabParams } from '../../navigation/useTabNavigation';
import { useMonitoring } from '../../layout/MonitoringContext';
import { formatNumber, formatPercent } from '../../lib/format';
import { useRealtime } from '../../lib/realtime/RealtimeProvider';
import { useMetricsRefreshMs } from '../settings/settings.api';
import { AlertsPanel } from './AlertsPanel';
import { ActivityHeatMap, NeuralResonanceCanvas } from './DecorativeAnimations';
import { MONITORING_MESSAGES as M } from './messages';
import {
  monitoringKeys,
  useRealtimeMetrics,
  useSystemMetricsQuery,
  type MetricsPoll,
  type TimedRealtimeMetrics,
} from './monitoring.api';
import { ErrorLine } from './MonitoringCard';
import { MonitoringPanels } from './MonitoringPanels';
import {
  badgeColor,
  globalHealth,
  healthColor,
  loadLevel,
  REFRESH_MAX_S,
  REFRESH_MIN_S,
} from './monitoringRules';
import { useFrozenWhile, useRefreshControl, useRequestUpdateTick } from './useMetricsPoll';

const SLIDER_MARKS = [1, 5, 10, 15, 20, 25, 30].map((value) => ({ value, label: `${value}` }));

function LoadBadge({ label, value }: { label: string; value: number | null | undefined }) {
  return (
    <Badge
      size="lg"
      variant="light"
      color={badgeColor(value)}
      aria-label={`${label} badge`}
      data-level={loadLevel(value)}
      className="tabular-nums"
      tt="none"
    >
      {label} {formatPercent(value)}
    </Badge>
  );
}

/** The live pipeline rates /metrics/realtime carries beside CPU and memory. */
function PipelineRates({ metrics }: { metrics: TimedRealtimeMetrics | undefined }) {
  const rates = [
    { label: 'Segments / s', value: formatNumber(metrics?.segmentsPerSecond, 1) },
    { label: 'Searches / s', value: formatNumber(metrics?.searchesPerSecond, 1) },
    { label: 'Active jobs', value: formatNumber(metrics?.activeJobs) },
    { label: 'Jobs / min', value: formatNumber(metrics?.jobsPerMinute, 1) },
  ];
  return (
    <Group gap="lg" aria-label="Pipeline rates">
      {rates.map((r) => (
        <Text key={r.label} size="sm" c="dimmed">
          {r.label}{' '}
          <Text span fw={700} c="var(--mantine-color-text)" className="tabular-nums">
            {r.value}
          </Text>
        </Text>
      ))}
    </Group>
  );
}

/**
 * Control Centre ('Centre de Contrôle ADAM', spec 001 §2.5). Polls every refresh interval (the
 * slider) unless paused or the header's Monitoring toggle is off; pausing stops every poll of the
 * screen (system, histories, databases, realtime) and freezes its figures.
 */
export function RealtimeMonitoringScreen() {
  const { enabled: monitoring } = useMonitoring();
  const control = useRefreshControl(useMetricsRefreshMs(), useTabParams('monitoring-realtime'));
  const poll: MetricsPoll = {
    intervalMs: control.seconds * 1000,
    polling: monitoring && !control.paused,
  };
  useRequestUpdateTick(poll);
  const { connected, requestUpdate } = useRealtime();
  const realtime = useRealtimeMetrics({ enabled: poll.polling, intervalMs: poll.intervalMs });
  const live = useFrozenWhile(poll.polling, realtime.data);
  const system = useSystemMetricsQuery(poll);
  const queryClient = useQueryClient();

  const cpu = live?.cpuUsage;
  const memory = live?.memoryUsage;
  const health = globalHealth(cpu, memory);
  const refreshNow = () => {
    void queryClient.refetchQueries({ queryKey: monitoringKeys.all, type: 'active' });
    requestUpdate();
  };

  return (
    <Stack gap="xl">
      <PageHeader
        title={M.controlCentreTitle}
        description={M.controlCentreDescription}
        actions={
          <Button
            variant={control.paused ? 'filled' : 'light'}
            color={control.paused ? 'teal' : 'yellow'}
            leftSection={
              control.paused ? <IconPlayerPlay size={16} /> : <IconPlayerPause size={16} />
            }
            onClick={control.togglePaused}
          >
            {control.paused ? 'Resume' : 'Pause'}
          </Button>
        }
      />

      <Paper withBorder radius="md" p="md" component="section" aria-label="Status">
        <Grid align="center" gap="lg">
          <Grid.Col span={{ base: 12, sm: 'content' }}>
            <Group gap="md" wrap="nowrap">
              <RingProgress
                size={96}
                thickness={9}
                roundCaps
                sections={[{ value: health ?? 0, color: healthColor(health) }]}
                label={
                  <Text
                    ta="center"
                    fw={700}
                    size="lg"
                    className="tabular-nums"
                    aria-label="Global health"
                  >
                    {formatPercent(health, 0)}
                  </Text>
                }
              />
              <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
                Global health
              </Text>
            </Group>
          </Grid.Col>
          <Grid.Col span={{ base: 12, sm: 'auto' }}>
            <Stack gap="xs">
              <Group gap="xs">
                <Badge
                  size="lg"
                  variant="dot"
                  color={connected ? 'teal' : 'red'}
                  aria-label="WebSocket"
                  tt="none"
                >
                  WebSocket: {connected ? 'connected' : 'disconnected'}
                </Badge>
                <LoadBadge label="CPU" value={cpu} />
                <LoadBadge label="RAM" value={memory} />
              </Group>
              <PipelineRates metrics={live} />
              {realtime.isError ? <ErrorLine>{M.realtimeError}</ErrorLine> : null}
              {!monitoring ? (
                <Text size="sm" c="dimmed">
                  {M.monitoringOff}
                </Text>
              ) : control.paused ? (
                <Text size="sm" c="dimmed">
                  {M.pausedNote}
                </Text>
              ) : null}
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 4 }}>
            <Stack gap={6}>
              <Group justify="space-between">
                <Text size="sm" fw={600} id="refresh-interval-label">
                  Refresh interval
                </Text>
                <Text size="sm" className="tabular-nums" c={control.paused ? 'dimmed' : undefined}>
                  {control.seconds} s
                </Text>
              </Group>
              <Slider
                min={REFRESH_MIN_S}
                max={REFRESH_MAX_S}
                step={1}
                value={control.seconds}
                onChange={control.setSeconds}
                disabled={control.paused}
                thumbLabel="Refresh interval"
                label={(value) => `${value} s`}
                marks={SLIDER_MARKS}
                // Mantine hides a disabled slider's thumb: keep it, greyed, so the paused
                // interval stays readable on the slider (and the slider stays in the a11y tree).
                styles={
                  control.paused
                    ? { thumb: { display: 'flex', opacity: 0.5, cursor: 'not-allowed' } }
                    : undefined
                }
                mb="md"
              />
            </Stack>
          </Grid.Col>
        </Grid>
      </Paper>

      <Grid gap="md" align="stretch">
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <NeuralResonanceCanvas />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6, lg: 3 }}>
          <ActivityHeatMap />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6, lg: 4 }}>
          <AlertsPanel
            cpu={cpu}
            memory={memory}
            onRefreshNow={refreshNow}
            refreshDisabled={!poll.polling}
          />
        </Grid.Col>
      </Grid>

      <MonitoringPanels poll={poll} system={system} />
    </Stack>
  );
}
