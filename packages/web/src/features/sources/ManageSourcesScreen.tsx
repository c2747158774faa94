import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import {
  ActionIcon,
  Anchor,
  Autocomplete,
  Badge,
  Button,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  Tooltip,
} from '@mantine/core';
import {
  IconCalendarTime,
  IconFileText,
  IconCategory,
  IconFilter,
  IconHistory,
  IconRefresh,
  IconScissors,
  IconTrash,
  IconWorldCog,
} from '@tabler/icons-react';
import type { Source, SourceKind } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { QueryTable, pageCount } from '../../components/QueryTable';
import { ResetFiltersButton, SelectFilter, TextFilter } from '../../components/FilterBar';
import { useFilterState } from '../../components/useFilterState';
import { UrlLink } from '../../components/UrlLink';
import { toast } from '../../layout/toasts';
import { formatNumber } from '../../lib/format';
import { PruneModal } from './PruneModal';
import { ScheduleModal } from './ScheduleModal';
import { KindBadge, SourceSyncTds } from './SourceSyncCells';
import { SourceSyncsModal } from './SourceSyncsModal';
import { SOURCES_PER_PAGE, useDeleteSource, useSources, useSyncSourceNow } from './sources.api';
import { useCan } from '../../session/useCan';
import { DateTime } from '../../components/DateTime';

function StatusCell({ source }: { source: Source }) {
  if (!source.last_status) {
    return (
      <Text size="xs" c="dimmed">
        -
      </Text>
    );
  }
  const ok = source.last_status === 'ok';
  const badge = (
    <Badge size="sm" variant="light" color={ok ? 'teal' : 'red'}>
      {source.last_status}
    </Badge>
  );
  return (
    <Stack gap={2}>
      {source.last_error ? (
        <Tooltip label={source.last_error} multiline maw={360}>
          {badge}
        </Tooltip>
      ) : (
        badge
      )}
      {source.last_error ? (
        <Text size="xs" c="red.4" lineClamp={1} maw={180} title={source.last_error}>
          {source.last_error}
        </Text>
      ) : null}
    </Stack>
  );
}

/** The kind filter's choices: '' lists every kind. */
const KIND_OPTIONS: { value: SourceKind | ''; label: string }[] = [
  { value: '', label: 'All kinds' },
  { value: 'web', label: 'Web pages' },
  { value: 'file', label: 'Uploaded files' },
  { value: 'import', label: 'Imports' },
];

/** Only web pages are fetched again: files and imports have nothing to sync from. */
const syncable = (source: Source) => source.kind === 'web';

/**
 * Manage Sources (spec 002 §2, §7): search, domain filter, segments per source, delete with
 * snippets; issue 24: kind (and its filter), schedule, last and next sync, Sync now, history, prune.
 */
export function ManageSourcesScreen() {
  const canWrite = useCan('operator');
  const [page, setPage] = useState(1);
  const form = useFilterState(
    { search: '', domain: '', kind: '' as SourceKind | '' },
    { text: ['search', 'domain'], onChange: () => setPage(1) },
  );
  const { values, set } = form;
  const sources = useSources({ ...form.applied, page });
  const { data, isPlaceholderData } = sources;
  const remove = useDeleteSource();
  const syncNow = useSyncSourceNow();
  const [scheduleOf, setScheduleOf] = useState<Source | null>(null);
  const [historyOf, setHistoryOf] = useState<Source | null>(null);
  const [pruning, setPruning] = useState(false);

  // Domains seen so far, to pick from (the filter still takes any text).
  const [seenDomains, setSeenDomains] = useState<string[]>([]);
  useEffect(() => {
    const domains = data?.sources.map((s) => s.domain) ?? [];
    setSeenDomains((prev) =>
      domains.every((d) => prev.includes(d)) ? prev : [...new Set([...prev, ...domains])].sort(),
    );
  }, [data]);

  const pages = data ? pageCount(data.total, SOURCES_PER_PAGE) : 1;
  // A deletion may empty the last page: step back to the new last one.
  useEffect(() => {
    if (data && !isPlaceholderData && page > pages) setPage(pages);
  }, [data, isPlaceholderData, page, pages]);

  const onDelete = (source: Source) =>
    confirmAction({
      title: 'Delete source',
      message: (
        <Stack gap="xs">
          <Text size="sm">
            Delete this source and its {formatNumber(source.segments_count)} snippets? Their vectors
            leave the index too. This cannot be undone.
          </Text>
          <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }}>
            {source.url}
          </Text>
        </Stack>
      ),
      confirmLabel: 'Delete source and snippets',
      danger: true,
      onConfirm: () =>
        remove.mutate(source.id, {
          onSuccess: (r) =>
            toast.success(
              `Source deleted with ${formatNumber(r.snippets_deleted)} snippet${r.snippets_deleted === 1 ? '' : 's'}`,
            ),
        }),
    });

  // A 409 (a sync already waiting or running) is toasted with its detail by the client.
  const onSyncNow = (source: Source) =>
    syncNow.mutate(source.id, {
      onSuccess: (r) => toast.success(`Sync of ${source.url} queued as job ${r.job_id}`),
    });

  return (
    <Stack gap="lg">
      <PageHeader
        title="Manage Sources"
        description="Every page the pipeline has worked, with the snippets it produced."
      />
      <Paper withBorder radius="md" p="md">
        <QueryTable
          query={sources}
          count={(d) => d.sources.length}
          gap="md"
          filters={
            <>
              <TextFilter
                label="Search"
                placeholder="URL or title"
                search
                value={values.search}
                onChange={(v) => set('search', v)}
                w={300}
              />
              <Autocomplete
                label="Domain"
                placeholder="Any domain"
                leftSection={<IconFilter size={16} />}
                data={seenDomains}
                value={values.domain}
                onChange={(v) => set('domain', v)}
                clearable
                w={220}
              />
              <SelectFilter
                label="Kind"
                leftSection={<IconCategory size={16} />}
                options={KIND_OPTIONS}
                value={values.kind}
                onChange={(v) => set('kind', v)}
                w={170}
              />
              <ResetFiltersButton active={form.active} onReset={form.reset} />
              <Text size="sm" c="dimmed" ml="auto" className="tabular-nums">
                {data ? `${formatNumber(data.total)} source${data.total === 1 ? '' : 's'}` : ''}
              </Text>
              {canWrite ? (
                <Button
                  variant="light"
                  color="red"
                  leftSection={<IconScissors size={16} />}
                  onClick={() => setPruning(true)}
                >
                  Prune missing pages
                </Button>
              ) : null}
            </>
          }
          loading={{ rows: 8, label: 'Loading sources' }}
          errorTitle="Could not load the sources"
          empty={{
            title: 'No sources yet',
            description: (
              <>
                Pages appear here once a job has worked them.{' '}
                <Anchor component={Link} to={tabHref('sources-add')}>
                  Add sources
                </Anchor>
              </>
            ),
          }}
          filtered={form.applied.search !== '' || form.applied.domain !== '' || values.kind !== ''}
          noMatch={{
            title: 'No source matches',
            description: 'Try another search, domain or kind.',
          }}
          pager={{ page, perPage: SOURCES_PER_PAGE, total: data?.total ?? 0, onChange: setPage }}
        >
          {({ sources: rows }) => (
            <Table.ScrollContainer minWidth={1320} maxHeight={680}>
              <Table
                striped
                highlightOnHover
                stickyHeader
                verticalSpacing="xs"
                aria-label="Sources"
              >
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Source</Table.Th>
                    <Table.Th>Kind</Table.Th>
                    <Table.Th>Domain</Table.Th>
                    <Table.Th>Language</Table.Th>
                    <Table.Th ta="right">Segments</Table.Th>
                    <Table.Th>Last status</Table.Th>
                    <Table.Th>Schedule</Table.Th>
                    <Table.Th>Last sync</Table.Th>
                    <Table.Th>Next sync</Table.Th>
                    <Table.Th>Updated</Table.Th>
                    <Table.Th ta="right">Actions</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {rows.map((source) => (
                    <Table.Tr key={source.id} data-testid={`source-row-${source.id}`}>
                      <Table.Td maw={320}>
                        <Stack gap={0}>
                          <Text size="sm" fw={500} lineClamp={1} title={source.title ?? undefined}>
                            {source.title ?? 'Untitled'}
                          </Text>
                          <UrlLink url={source.url} />
                        </Stack>
                      </Table.Td>
                      <Table.Td>
                        <KindBadge kind={source.kind} />
                      </Table.Td>
                      <Table.Td>
                        <Anchor
                          component="button"
                          type="button"
                          size="sm"
                          onClick={() => set('domain', source.domain)}
                          title={`Only ${source.domain}`}
                        >
                          {source.domain}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm" tt="uppercase" c={source.language ? undefined : 'dimmed'}>
                          {source.language ?? '-'}
                        </Text>
                      </Table.Td>
                      <Table.Td ta="right" className="tabular-nums" data-testid="segments-count">
                        {formatNumber(source.segments_count)}
                      </Table.Td>
                      <Table.Td>
                        <StatusCell source={source} />
                      </Table.Td>
                      <SourceSyncTds source={source} />
                      <Table.Td>
                        <Text size="xs" className="tabular-nums" style={{ whiteSpace: 'nowrap' }}>
                          <DateTime value={source.updated_at} />
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Group gap={4} justify="flex-end" wrap="nowrap">
                          <Tooltip
                            label={syncable(source) ? 'Sync now' : 'Only web pages are synced'}
                          >
                            <ActionIcon
                              variant="subtle"
                              color="blue"
                              aria-label={`Sync now ${source.url}`}
                              display={canWrite ? undefined : 'none'}
                              disabled={!syncable(source)}
                              loading={syncNow.isPending && syncNow.variables === source.id}
                              onClick={() => onSyncNow(source)}
                            >
                              <IconRefresh size={16} />
                            </ActionIcon>
                          </Tooltip>
                          <Tooltip
                            label={
                              syncable(source) ? 'Sync schedule' : 'Only web pages have a schedule'
                            }
                          >
                            <ActionIcon
                              variant="subtle"
                              color="gray"
                              aria-label={`Schedule of ${source.url}`}
                              disabled={!syncable(source)}
                              onClick={() => setScheduleOf(source)}
                            >
                              <IconCalendarTime size={16} />
                            </ActionIcon>
                          </Tooltip>
                          <Tooltip label="Sync history">
                            <ActionIcon
                              variant="subtle"
                              color="gray"
                              aria-label={`Sync history of ${source.url}`}
                              onClick={() => setHistoryOf(source)}
                            >
                              <IconHistory size={16} />
                            </ActionIcon>
                          </Tooltip>
                          <Tooltip label="Browse its snippets">
                            <ActionIcon
                              component={Link}
                              to={tabHref('sources-snippets', { source_url: source.url })}
                              variant="subtle"
                              color="gray"
                              aria-label={`Browse snippets of ${source.url}`}
                            >
                              <IconFileText size={16} />
                            </ActionIcon>
                          </Tooltip>
                          <Tooltip label="Scraping rule of this domain">
                            <ActionIcon
                              component={Link}
                              to={tabHref('settings-scraping', { domain: source.domain })}
                              variant="subtle"
                              color="gray"
                              aria-label={`Scraping rule of ${source.domain}`}
                            >
                              <IconWorldCog size={16} />
                            </ActionIcon>
                          </Tooltip>
                          <Tooltip label="Delete with its snippets">
                            <ActionIcon
                              variant="subtle"
                              color="red"
                              aria-label={`Delete ${source.url}`}
                              display={canWrite ? undefined : 'none'}
                              onClick={() => onDelete(source)}
                            >
                              <IconTrash size={16} />
                            </ActionIcon>
                          </Tooltip>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          )}
        </QueryTable>
      </Paper>
      <ScheduleModal source={scheduleOf} onClose={() => setScheduleOf(null)} />
      <SourceSyncsModal source={historyOf} onClose={() => setHistoryOf(null)} />
      <PruneModal opened={pruning} onClose={() => setPruning(false)} />
    </Stack>
  );
}
