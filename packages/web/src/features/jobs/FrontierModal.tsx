import { useEffect, useState } from 'react';
import { Badge, Group, Modal, Select, Stack, Table, Text, type MantineColor } from '@mantine/core';
import { CRAWL_SKIP_REASONS, FRONTIER_STATUSES, type FrontierStatus } from '@adam/contracts';
import { QueryTable } from '../../components/QueryTable';
import { UrlLink } from '../../components/UrlLink';
import { formatNumber } from '../../lib/format';
import { CrawlCounts, SKIP_REASON_LABELS, crawlProgressOf } from './CrawlCounts';
import {
  FRONTIER_PER_PAGE,
  JOB_FOLLOW_POLL_MS,
  isFinalStatus,
  useCrawlFrontier,
  useJob,
  type FrontierFilters,
} from './jobs.api';

const STATUS_COLORS: Record<FrontierStatus, MantineColor> = {
  pending: 'gray',
  fetched: 'teal',
  skipped: 'yellow',
  failed: 'red',
};

/** The filters' "no filter" choice (a Select value cannot be null). */
const ANY = 'any';

const STATUS_OPTIONS = [
  { value: ANY, label: 'Any status' },
  ...FRONTIER_STATUSES.map((s) => ({ value: s, label: s })),
];
const REASON_OPTIONS = [
  { value: ANY, label: 'Any reason' },
  ...CRAWL_SKIP_REASONS.map((r) => ({ value: r, label: SKIP_REASON_LABELS[r] })),
];

/** The filters' Selects; each offers "any" first. */
const FILTERS = [
  { key: 'status', label: 'Status', options: STATUS_OPTIONS, width: 160 },
  { key: 'reason', label: 'Reason', options: REASON_OPTIONS, width: 180 },
] as const;

const FIRST_PAGE: FrontierFilters = { status: null, reason: null, page: 1 };

/**
 * A crawl's frontier (GET /sources/crawl/{job_id}/frontier): every URL it learnt of, with its
 * status and why it was skipped. Polled while the crawl runs; its counts move with job_progress.
 */
export function FrontierModal({ jobId, onClose }: { jobId: number | null; onClose: () => void }) {
  const [filters, setFilters] = useState<FrontierFilters>(FIRST_PAGE);
  // Another job: its frontier from the start, unfiltered.
  useEffect(() => setFilters(FIRST_PAGE), [jobId]);
  const { data: job } = useJob(jobId);
  const running = !!job && !isFinalStatus(job.status);
  const frontier = useCrawlFrontier(jobId, filters, running ? JOB_FOLLOW_POLL_MS : false);
  const { data } = frontier;
  const crawl = job ? crawlProgressOf(job) : null;

  return (
    <Modal
      opened={jobId !== null}
      onClose={onClose}
      title={
        <Text fw={600}>
          Frontier of crawl #{jobId}
          {data ? (
            <Text span c="dimmed" size="sm" className="tabular-nums">
              {' '}
              · {formatNumber(data.total)} URL{data.total === 1 ? '' : 's'}
            </Text>
          ) : null}
        </Text>
      }
      size="xl"
      centered
    >
      <Stack gap="sm">
        {crawl ? <CrawlCounts crawl={crawl} /> : null}
        <QueryTable
          query={frontier}
          count={(d) => d.entries.length}
          filters={
            <>
              {FILTERS.map(({ key, label, options, width }) => (
                <Select
                  key={key}
                  label={label}
                  data={options}
                  value={filters[key] ?? ANY}
                  // A filter change shows its first page.
                  onChange={(v) =>
                    setFilters((f) => ({ ...f, [key]: v === ANY ? null : v, page: 1 }))
                  }
                  allowDeselect={false}
                  w={width}
                />
              ))}
              {running ? (
                <Badge variant="dot" color="blue" ml="auto">
                  Crawling: refreshed every {JOB_FOLLOW_POLL_MS / 1000} s
                </Badge>
              ) : null}
            </>
          }
          loading={{ rows: 5, label: 'Loading the frontier' }}
          errorTitle="Could not load the frontier"
          empty={{
            title: 'No URL yet',
            description: 'URLs appear here as the crawl discovers them.',
          }}
          filtered={filters.status !== null || filters.reason !== null}
          noMatch={{ title: 'No URL matches', description: 'Try another status or reason.' }}
          pager={{
            page: filters.page,
            perPage: FRONTIER_PER_PAGE,
            total: data?.total ?? 0,
            onChange: (page) => setFilters((f) => ({ ...f, page })),
          }}
        >
          {({ entries }) => (
            <Table.ScrollContainer minWidth={720} maxHeight="55vh">
              <Table striped stickyHeader verticalSpacing={4} aria-label="Frontier">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>URL</Table.Th>
                    <Table.Th ta="right">Depth</Table.Th>
                    <Table.Th>Status</Table.Th>
                    <Table.Th>Why</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {entries.map((e) => (
                    <Table.Tr key={e.url}>
                      <Table.Td maw={380}>
                        <UrlLink url={e.url} />
                        {e.discovered_from ? (
                          <Text size="xs" c="dimmed" lineClamp={1} title={e.discovered_from}>
                            from {e.discovered_from}
                          </Text>
                        ) : null}
                      </Table.Td>
                      <Table.Td ta="right" className="tabular-nums">
                        {e.depth}
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} wrap="nowrap">
                          <Badge size="sm" variant="light" color={STATUS_COLORS[e.status]}>
                            {e.status}
                          </Badge>
                          {e.http_status !== null ? (
                            <Text size="xs" c="dimmed" className="tabular-nums">
                              {e.http_status}
                            </Text>
                          ) : null}
                        </Group>
                      </Table.Td>
                      <Table.Td maw={260}>
                        {e.reason ? (
                          <Text size="xs" fw={500}>
                            {SKIP_REASON_LABELS[e.reason]}
                          </Text>
                        ) : null}
                        {e.detail ? (
                          <Text size="xs" c="dimmed" lineClamp={2} title={e.detail}>
                            {e.detail}
                          </Text>
                        ) : null}
                        {!e.reason && !e.detail ? (
                          <Text size="xs" c="dimmed">
                            -
                          </Text>
                        ) : null}
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </QueryTable>
      </Stack>
    </Modal>
  );
}
