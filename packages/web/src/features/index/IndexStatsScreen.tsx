import type { ReactNode } from 'react';
import { BarChart } from '@mantine/charts';
import {
  ActionIcon,
  Badge,
  Button,
  Group,
  Modal,
  Paper,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import {
  IconBolt,
  IconDatabase,
  IconGauge,
  IconRefresh,
  IconSearch,
  IconServer,
} from '@tabler/icons-react';
import { INDEX_STORAGE_LABELS, THEMES, type IndexStats } from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { ErrorState } from '../../components/QueryState';
import { RatioBar } from '../../components/RatioBar';
import { StatCard } from '../../components/StatCard';
import { formatDate, formatNumber, formatPercent } from '../../lib/format';
import { INDEX_STATS_POLL_MS, useIndexStats } from './index.api';
import { IndexSearchPanel } from './IndexSearchPanel';
import { INDEX_MESSAGES } from './messages';

function Facts({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <Table verticalSpacing={6} withRowBorders={false}>
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Td w="45%" c="dimmed" fz="sm" pl={0}>
              {label}
            </Table.Td>
            <Table.Td fz="sm" className="tabular-nums" pr={0}>
              {value}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function Panel({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder radius="md" p="md">
      <Title order={4} mb="sm">
        {title}
      </Title>
      {children}
    </Paper>
  );
}

/** The four theme bars in the spec's order, then any other theme the store holds. */
function themeRows(themes: Record<string, number>) {
  const names = [
    ...THEMES,
    ...Object.keys(themes).filter((t) => !(THEMES as readonly string[]).includes(t)),
  ];
  return names.map((theme) => ({ theme, snippets: themes[theme] ?? 0 }));
}

function StatsBody({ stats }: { stats: IndexStats }) {
  const lookups = stats.cache_stats.hits + stats.cache_stats.misses;
  // Before the first search there is no latency or hit rate to speak of, not a zero.
  const measured = stats.query_performance.queries > 0;
  const themed = themeRows(stats.themes);
  const anyTheme = themed.some((t) => t.snippets > 0);
  return (
    <>
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        <StatCard
          title="Total Vectors"
          value={formatNumber(stats.total_vectors)}
          icon={<IconDatabase size={20} />}
        />
        <StatCard
          title="Index Size"
          value={`${formatNumber(stats.index_size_mb, 2)} MB`}
          icon={<IconServer size={20} />}
          color="cyan"
        />
        <StatCard
          title="Avg Query Latency"
          value={measured ? `${formatNumber(stats.query_performance.avg_latency_ms, 2)} ms` : '-'}
          icon={<IconBolt size={20} />}
          color="yellow"
        />
        <StatCard
          title="Cache Hit Rate"
          value={lookups ? formatPercent(stats.cache_stats.hit_rate * 100) : '-'}
          icon={<IconGauge size={20} />}
          color="teal"
        />
      </SimpleGrid>

      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Panel title="Index">
          <Facts
            rows={[
              ['Index type', stats.index_type],
              ['Dimension', formatNumber(stats.dimension)],
              ['Vector storage', INDEX_STORAGE_LABELS[stats.storage]],
              ['Embedder', stats.embedder],
              [
                'Trained',
                <Badge
                  key="t"
                  variant="light"
                  color={stats.is_trained ? 'teal' : 'gray'}
                  radius="sm"
                >
                  {stats.is_trained ? 'Yes' : 'No'}
                </Badge>,
              ],
              ['Training samples', formatNumber(stats.training_samples)],
              ['Last optimized', stats.last_optimized ? formatDate(stats.last_optimized) : 'Never'],
              [
                'Recall@10 vs exact search',
                stats.accuracy === null
                  ? '-'
                  : `${formatPercent(stats.accuracy * 100)} (${formatNumber(stats.accuracy_sample)} sampled queries, ${stats.storage})`,
              ],
            ]}
          />
        </Panel>
        <Panel title="Queries and cache">
          <Stack gap="sm">
            <RatioBar
              label="Cache hit rate"
              value={stats.cache_stats.hits}
              total={lookups}
              caption={lookups ? formatPercent(stats.cache_stats.hit_rate * 100) : '-'}
              color="teal"
            />
            <Facts
              rows={[
                ['Queries measured', formatNumber(stats.query_performance.queries)],
                [
                  'Average latency',
                  measured ? `${formatNumber(stats.query_performance.avg_latency_ms, 3)} ms` : '-',
                ],
                ['Cache hits', formatNumber(stats.cache_stats.hits)],
                ['Cache misses', formatNumber(stats.cache_stats.misses)],
                ['Cached queries', formatNumber(stats.cache_stats.size)],
              ]}
            />
          </Stack>
        </Panel>
      </SimpleGrid>

      <Panel title="Snippets by theme">
        {anyTheme ? (
          <BarChart
            h={240}
            data={themed}
            dataKey="theme"
            series={[{ name: 'snippets', label: 'Snippets', color: 'indigo.5' }]}
            barProps={{ radius: 4 }}
            aria-label="Snippets by theme"
          />
        ) : (
          <Text size="sm" c="dimmed" ta="center" py="xl" mih={240}>
            No snippet in the index yet: themes appear once sources are processed.
          </Text>
        )}
      </Panel>
    </>
  );
}

function StatsSkeleton() {
  return (
    <Stack gap="lg" aria-busy="true" aria-label="Loading index statistics">
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 4 }}>
        {Array.from({ length: 4 }, (_, i) => (
          <Skeleton key={i} height={96} radius="md" />
        ))}
      </SimpleGrid>
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <Skeleton height={300} radius="md" />
        <Skeleton height={300} radius="md" />
      </SimpleGrid>
      <Skeleton height={300} radius="md" />
    </Stack>
  );
}

/**
 * Index Statistics (spec 002 §2, §3): GET /admin/index/stats polled every 30 s, with a
 * test-search modal.
 */
export function IndexStatsScreen() {
  const stats = useIndexStats();
  const [searchOpen, search] = useDisclosure(false);

  return (
    <Stack gap="lg">
      <PageHeader
        title="Index Statistics"
        description={
          <>
            Vector index health and performance. Refreshes every {INDEX_STATS_POLL_MS / 1000} s
            {stats.dataUpdatedAt
              ? ` · updated ${new Date(stats.dataUpdatedAt).toLocaleTimeString()}`
              : ''}
            .
          </>
        }
        actions={
          <>
            <Tooltip label="Refresh now">
              <ActionIcon
                variant="default"
                size="lg"
                aria-label="Refresh statistics"
                onClick={() => void stats.refetch()}
                loading={stats.isFetching}
              >
                <IconRefresh size={18} />
              </ActionIcon>
            </Tooltip>
            <Button leftSection={<IconSearch size={16} />} onClick={search.open}>
              Test search
            </Button>
          </>
        }
      />

      {stats.data ? (
        <>
          {stats.isError ? (
            <Group>
              <Badge color="red" variant="light">
                {INDEX_MESSAGES.statsFailed}: showing the last figures
              </Badge>
            </Group>
          ) : null}
          <StatsBody stats={stats.data} />
        </>
      ) : stats.isError ? (
        <ErrorState
          title={INDEX_MESSAGES.statsFailed}
          message={stats.error.message}
          onRetry={() => void stats.refetch()}
        />
      ) : (
        <StatsSkeleton />
      )}

      <Modal opened={searchOpen} onClose={search.close} title="Test search" size="xl" centered>
        <IndexSearchPanel resultsMaxHeight={420} />
      </Modal>
    </Stack>
  );
}
