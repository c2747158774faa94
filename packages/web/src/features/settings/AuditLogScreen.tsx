import { Alert, Badge, Button, Code, Paper, Stack, Table, Text } from '@mantine/core';
import { IconDownload, IconLink, IconLinkOff } from '@tabler/icons-react';
import {
  AUDIT_OUTCOMES,
  type AuditEntry,
  type AuditFilters,
  type AuditOutcome,
} from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { QueryTable } from '../../components/QueryTable';
import {
  DateRangeFilter,
  FilterBar,
  SelectFilter,
  TextFilter,
  type FilterOption,
} from '../../components/FilterBar';
import { dateFilterToIso, useFilterState } from '../../components/useFilterState';
import { saveFile } from '../snippets/download';
import {
  useAuditPage,
  useAuditVerification,
  useExportAudit,
  type AuditExportFormat,
} from './audit.api';
import { DateTime } from '../../components/DateTime';
import { CursorPager, useCursorPages } from '../../components/CursorPager';

const OUTCOME_COLORS: Record<AuditOutcome, string> = {
  ok: 'teal',
  refused: 'orange',
  failed: 'red',
};

function ChainStatus() {
  const verify = useAuditVerification();
  if (verify.isPending) return <Badge color="gray">Checking the chain…</Badge>;
  if (verify.isError) return <Badge color="red">Chain check failed</Badge>;
  const v = verify.data;
  return v.ok ? (
    <Badge color="teal" leftSection={<IconLink size={12} />}>
      Chain intact · {v.checked} entries
    </Badge>
  ) : (
    <Alert color="red" variant="light" icon={<IconLinkOff size={18} />} title="Audit chain broken">
      Entry {v.broken_id} {v.problem === 'deleted' ? 'follows a deleted entry' : 'was edited'}
      {v.detail ? `: ${v.detail}` : ''}
    </Alert>
  );
}

function EntryRow({ entry }: { entry: AuditEntry }) {
  return (
    <Table.Tr>
      <Table.Td style={{ whiteSpace: 'nowrap' }}>
        <DateTime value={entry.at} />
      </Table.Td>
      <Table.Td>{entry.user_email ?? '—'}</Table.Td>
      <Table.Td>
        <Code>{entry.action}</Code>
      </Table.Td>
      <Table.Td>{entry.target ?? ''}</Table.Td>
      <Table.Td>{entry.address}</Table.Td>
      <Table.Td>
        <Badge color={OUTCOME_COLORS[entry.outcome]} variant="light">
          {entry.outcome}
          {entry.status ? ` ${entry.status}` : ''}
        </Badge>
      </Table.Td>
      <Table.Td>
        {entry.detail ? (
          <Text size="xs" c="dimmed" lineClamp={2} maw={320}>
            {JSON.stringify(entry.detail)}
          </Text>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

const FIELD_LABELS = { user: 'User', action: 'Action', target: 'Target' } as const;
const OUTCOME_OPTIONS: FilterOption<AuditOutcome | ''>[] = [
  { value: '', label: 'Any' },
  ...AUDIT_OUTCOMES.map((o) => ({ value: o, label: o })),
];

/** Settings → Audit log (administrator only): who changed what, when, from where. */
export function AuditLogScreen() {
  const pages = useCursorPages();
  const form = useFilterState(
    { user: '', action: '', target: '', outcome: '' as AuditOutcome | '', from: '', to: '' },
    { text: ['user', 'action', 'target'], onChange: pages.reset },
  );
  const { values, applied, set } = form;

  const filters: AuditFilters = {
    user: applied.user || undefined,
    action: applied.action || undefined,
    target: applied.target || undefined,
    outcome: applied.outcome || undefined,
    from: dateFilterToIso(applied.from),
    to: dateFilterToIso(applied.to),
  };
  const { cursor } = pages;
  const page = useAuditPage(filters, cursor);
  const exporter = useExportAudit();

  const download = (format: AuditExportFormat) =>
    exporter.mutate(
      { filters, format },
      { onSuccess: (file) => saveFile(file, `audit.${format}`) },
    );

  return (
    <Stack gap="md">
      <PageHeader
        title="Audit log"
        description="Every change through the API or the CLI, refused calls and failed logins, each entry chained to the one before."
        actions={
          <>
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              loading={exporter.isPending && exporter.variables?.format === 'csv'}
              onClick={() => download('csv')}
            >
              Export CSV
            </Button>
            <Button
              variant="default"
              leftSection={<IconDownload size={16} />}
              loading={exporter.isPending && exporter.variables?.format === 'jsonl'}
              onClick={() => download('jsonl')}
            >
              Export JSONL
            </Button>
          </>
        }
      />
      <ChainStatus />
      <FilterBar label="Audit filters" active={form.active} onReset={form.reset}>
        {(['user', 'action', 'target'] as const).map((key) => (
          <TextFilter
            key={key}
            label={FIELD_LABELS[key]}
            value={values[key]}
            onChange={(v) => set(key, v)}
            w={180}
          />
        ))}
        <SelectFilter
          label="Outcome"
          options={OUTCOME_OPTIONS}
          value={values.outcome}
          onChange={(v) => set('outcome', v)}
          w={130}
        />
        <DateRangeFilter
          from={values.from}
          to={values.to}
          onFrom={(v) => set('from', v)}
          onTo={(v) => set('to', v)}
        />
      </FilterBar>
      <QueryTable
        query={page}
        count={(data) => data.entries.length}
        loading={{ rows: 8, label: 'Loading the audit log' }}
        errorTitle="Could not load the audit log"
        empty={{
          title: 'No audit entries',
          description: 'Changes, refused calls and failed logins appear here.',
        }}
        filtered={Object.values(filters).some((value) => value !== undefined)}
        noMatch={{
          title: 'No matching entries',
          description: 'No audit entry matches these filters.',
        }}
      >
        {(data) => (
          <Paper withBorder radius="md">
            <Table.ScrollContainer minWidth={980}>
              <Table verticalSpacing="xs" striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>When</Table.Th>
                    <Table.Th>Who</Table.Th>
                    <Table.Th>Action</Table.Th>
                    <Table.Th>Target</Table.Th>
                    <Table.Th>From</Table.Th>
                    <Table.Th>Outcome</Table.Th>
                    <Table.Th>Detail</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.entries.map((entry) => (
                    <EntryRow key={entry.id} entry={entry} />
                  ))}
                </Table.Tbody>
              </Table>
            </Table.ScrollContainer>
          </Paper>
        )}
      </QueryTable>
      <CursorPager pages={pages} next={page.data?.next_cursor} />
    </Stack>
  );
}
