import { useEffect, useRef } from 'react';
import { Link } from 'react-router';
import { Button, Grid, Group, SimpleGrid, Stack, Text } from '@mantine/core';
import {
  IconActivity,
  IconBolt,
  IconDatabase,
  IconGauge,
  IconListDetails,
  IconNotes,
  IconPlayerPlay,
  IconPuzzle,
  IconRefresh,
  IconStars,
  IconWorldWww,
} from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { tabHref } from '../../navigation/tabRegistry';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState } from '../../components/QueryState';
import { formatNumber, formatPercent } from '../../lib/format';
import { qualityColor } from '../../lib/quality';
import { useRealtime, useRealtimeEvent } from '../../lib/realtime/RealtimeProvider';
import { ActivityTimelinePanel } from './ActivityTimelinePanel';
import { LiveCountsPanel } from './LiveCountsPanel';
import { overviewCounts } from './liveCounts';
import { MetricCard } from './MetricCard';
import { OVERVIEW_MESSAGES as M } from './messages';
import { overviewKeys, useLiveStats, useOverviewStats } from './overview.api';
import { QualityAlertsPanel } from './QualityAlertsPanel';
import { RecentActivityPanel } from './RecentActivityPanel';
import { SimulatedMetricsPanel } from './SimulatedMetricsPanel';
import { ThemesPanel } from './ThemesPanel';

function Unit({ children }: { children: string }) {
  return (
    <Text span size="sm" c="dimmed" fw={500} ml={6}>
      {children}
    </Text>
  );
}

/**
 * The live counts (jobs by status, pending indexing) are pushed only after snippet changes; a
 * job event or opening the screen asks the channel for fresh ones.
 */
function useFreshLiveStats() {
  const { connected, requestUpdate } = useRealtime();
  const asked = useRef(false);
  useEffect(() => {
    if (connected && !asked.current) {
      asked.current = true;
      requestUpdate();
    }
  }, [connected, requestUpdate]);
  useRealtimeEvent(
    ['job_created', 'job_completed', 'job_failed', 'job_cancelled', 'job_deleted'],
    () => requestUpdate(),
  );
  return useLiveStats();
}

/** Agent 1 overview (spec 000 §9, spec 002 §2 and §9): real figures, charts and demo metrics. */
export function OverviewScreen() {
  const queryClient = useQueryClient();
  const stats = useOverviewStats();
  const live = useFreshLiveStats();
  const counts = overviewCounts(stats.data, live);
  const loading = stats.isPending && !live;
  const s = stats.data;
  const fresh = stats.isSuccess && counts.totalSnippets === 0;

  return (
    <Stack gap="lg">
      <PageHeader
        title={M.title}
        description={M.description}
        actions={
          <Button
            variant="default"
            size="xs"
            leftSection={<IconRefresh size={14} />}
            onClick={() => void queryClient.invalidateQueries({ queryKey: overviewKeys.all })}
          >
            Refresh
          </Button>
        }
      />

      {stats.isError ? (
        <ErrorState
          title={M.loadFailed}
          message={stats.error.message}
          onRetry={() => void stats.refetch()}
        />
      ) : null}

      {fresh ? (
        <EmptyState
          title={M.emptyTitle}
          description={M.emptyDescription}
          action={
            <Group gap="sm" mt="xs">
              <Button
                component={Link}
                to={tabHref('sources-add')}
                leftSection={<IconWorldWww size={16} />}
              >
                {M.emptyAddSources}
              </Button>
              <Button
                component={Link}
                to={tabHref('model-playground-wikipedia')}
                variant="light"
                leftSection={<IconPlayerPlay size={16} />}
              >
                {M.emptyPlayground}
              </Button>
            </Group>
          }
        />
      ) : null}

      <QualityAlertsPanel />

      <SimpleGrid cols={{ base: 1, xs: 2, md: 3 }} spacing="md">
        <MetricCard
          title="Total snippets"
          icon={<IconNotes size={20} />}
          loading={loading}
          value={formatNumber(counts.totalSnippets)}
          caption={
            counts.pendingIndex !== null
              ? `${formatNumber(counts.pendingIndex)} pending indexing`
              : 'Stored snippets'
          }
        />
        <MetricCard
          title="Total segments"
          icon={<IconPuzzle size={20} />}
          color="grape"
          loading={stats.isPending}
          value={formatNumber(s?.total_segments)}
          caption="Created by jobs, duplicates included"
        />
        <MetricCard
          title="Sources"
          icon={<IconWorldWww size={20} />}
          color="cyan"
          loading={stats.isPending}
          value={formatNumber(s?.total_sources)}
          caption={
            // A URL that failed (a DNS error, a 404) is a source too: said apart from content.
            s
              ? `Distinct source URLs · ${formatNumber(s.sources_with_content)} with content · ${formatNumber(s.sources_failed)} failed`
              : 'Distinct source URLs'
          }
        />
        <MetricCard
          title="Index size"
          icon={<IconDatabase size={20} />}
          color="violet"
          loading={loading}
          value={
            <>
              {formatNumber(counts.totalVectors)}
              <Unit>vectors</Unit>
            </>
          }
          caption={s ? `${formatNumber(s.index_size_mb, 2)} MB` : '-'}
        />
        <MetricCard
          title="Active jobs"
          icon={<IconListDetails size={20} />}
          color="blue"
          loading={loading}
          value={formatNumber(counts.activeJobs)}
          caption={`${formatNumber(counts.pendingJobs)} pending`}
        />
        <MetricCard
          title="Throughput"
          icon={<IconActivity size={20} />}
          color="teal"
          loading={stats.isPending}
          value={
            <>
              {formatNumber(s?.throughput_last_hour)}
              <Unit>jobs / h</Unit>
            </>
          }
          caption="Jobs created in the last hour"
        />
        <MetricCard
          title="Cache hit rate"
          icon={<IconGauge size={20} />}
          color="orange"
          loading={stats.isPending}
          value={
            s?.cache_hit_rate === null || s?.cache_hit_rate === undefined
              ? '-'
              : formatPercent(s.cache_hit_rate * 100)
          }
          caption={s && s.cache_hit_rate === null ? 'No index search yet' : 'Index query cache'}
        />
        <MetricCard
          title="Average quality"
          icon={<IconStars size={20} />}
          color={qualityColor(s?.average_quality)}
          loading={stats.isPending}
          value={
            <Text span inherit c={`${qualityColor(s?.average_quality)}.4`}>
              {formatNumber(s?.average_quality, 2)}
            </Text>
          }
          caption="Mean score of stored snippets, 0–1"
        />
        <MetricCard
          title="Segments / s"
          icon={<IconBolt size={20} />}
          color="yellow"
          loading={loading}
          value={formatNumber(counts.segmentsPerSecond, 1)}
          caption="Stored per second over the last minute"
        />
      </SimpleGrid>

      <Grid gap="md" align="stretch">
        <Grid.Col span={{ base: 12, lg: 8 }}>
          <ActivityTimelinePanel />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 4 }}>
          <ThemesPanel themes={s?.themes} loading={stats.isPending} />
        </Grid.Col>
      </Grid>

      <Grid gap="md" align="stretch">
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <RecentActivityPanel />
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <LiveCountsPanel counts={counts} />
        </Grid.Col>
      </Grid>

      <SimulatedMetricsPanel />
    </Stack>
  );
}
