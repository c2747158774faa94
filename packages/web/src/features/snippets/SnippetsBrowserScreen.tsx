/**
 * Snippets browser (sources-snippets, spec 002 §2): the consistency summary, the server-paged
 * list with its filters, selection, bulk delete and export, and the report's orphan lists. The
 * state lives in useSnippetsBrowser; the panels beside this file show it.
 */
import { useState } from 'react';
import { Badge, Button, Paper, Stack, Tabs } from '@mantine/core';
import { IconRotateClockwise } from '@tabler/icons-react';
import type { Snippet } from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { formatTotal } from '../../lib/format';
import { toast } from '../../layout/toasts';
import { useCan } from '../../session/useCan';
import { ConsistencySummary, ReportPanel, type ReportTab } from './ConsistencyPanels';
import { SnippetDetailsModal } from './SnippetDetailsModal';
import { SnippetsBulkActions } from './SnippetsBulkActions';
import { SnippetsFilterPanel } from './SnippetsFilterPanel';
import { SnippetsPager, SnippetsTable } from './SnippetsTable';
import { useConsistency, useRefreshSnippetState } from './snippets.api';
import { useSnippetsBrowser } from './useSnippetsBrowser';

type BrowserTab = 'all' | ReportTab;

export function SnippetsBrowserScreen() {
  const canWrite = useCan('operator');
  const browser = useSnippetsBrowser();
  const { list } = browser;
  const consistency = useConsistency();
  const refreshState = useRefreshSnippetState();

  const [requestedTab, setTab] = useState<BrowserTab>('all');
  // Without consistency data only the 'all' tab exists (spec 002 §4).
  const tab: BrowserTab = consistency.data ? requestedTab : 'all';
  const [opened, setOpened] = useState<{ id: number; initial?: Snippet } | null>(null);

  const reload = () => {
    void list.refetch();
    void consistency.refetch();
  };

  const summary = consistency.data?.summary;
  const tabCount = (n: number | undefined, exact = true) =>
    n === undefined ? null : (
      <Badge size="sm" variant="light" color="gray" className="tabular-nums">
        {formatTotal(n, exact)}
      </Badge>
    );

  return (
    <Stack gap="lg">
      <PageHeader
        title="Snippets Browser"
        description="Every stored snippet, its index status, and whether the store and the index agree."
        actions={
          <Button
            variant="light"
            display={canWrite ? undefined : 'none'}
            leftSection={<IconRotateClockwise size={16} />}
            loading={refreshState.isPending}
            onClick={() =>
              refreshState.mutate(undefined, {
                onSuccess: (r) =>
                  toast.success(
                    `Snippet state refreshed: ${r.reindexed} re-indexed, ${r.marked_pending} marked pending`,
                  ),
              })
            }
          >
            Refresh snippet state
          </Button>
        }
      />

      <ConsistencySummary
        report={consistency.data}
        loading={consistency.isPending}
        failed={consistency.isError}
        onCheck={() => void consistency.refetch()}
        checking={consistency.isFetching}
      />

      <Tabs value={tab} onChange={(v) => v && setTab(v as BrowserTab)} keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="all" rightSection={tabCount(list.data?.total, browser.totalExact)}>
            All
          </Tabs.Tab>
          <Tabs.Tab
            value="consistent"
            disabled={!consistency.data}
            rightSection={tabCount(summary?.consistent)}
          >
            Consistent
          </Tabs.Tab>
          <Tabs.Tab
            value="index_only"
            disabled={!consistency.data}
            rightSection={tabCount(summary?.index_only)}
          >
            Index only
          </Tabs.Tab>
          <Tabs.Tab
            value="disk_only"
            disabled={!consistency.data}
            rightSection={tabCount(summary?.disk_only)}
          >
            Disk only
          </Tabs.Tab>
        </Tabs.List>

        <Tabs.Panel value="all" pt="md">
          <Paper withBorder radius="md" p="md">
            <Stack gap="md">
              <SnippetsFilterPanel state={browser} />
              <SnippetsBulkActions
                selected={browser.selected}
                onReload={reload}
                reloading={list.isFetching && !list.isPending}
              />
              <SnippetsTable state={browser} onOpen={(s) => setOpened({ id: s.id, initial: s })} />
              <SnippetsPager state={browser} />
            </Stack>
          </Paper>
        </Tabs.Panel>

        {consistency.data
          ? (['consistent', 'index_only', 'disk_only'] as const).map((t) => (
              <Tabs.Panel key={t} value={t} pt="md">
                <Paper withBorder radius="md" p="md">
                  <ReportPanel
                    tab={t}
                    report={consistency.data}
                    onOpen={(id) => setOpened({ id })}
                  />
                </Paper>
              </Tabs.Panel>
            ))
          : null}
      </Tabs>

      <SnippetDetailsModal
        snippetId={opened?.id ?? null}
        initial={opened?.initial}
        onClose={() => setOpened(null)}
      />
    </Stack>
  );
}
