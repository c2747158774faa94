/** Manage Sources' freshness cells (issue 24): kind, schedule, last and next sync. */
import { Badge, Group, Stack, Table, Text, Tooltip, type MantineColor } from '@mantine/core';
import {
  SYNC_PRESETS,
  type LastSync,
  type Source,
  type SourceKind,
  type SyncCounts,
  type SyncOutcome,
} from '@adam/contracts';
import { formatDate, formatNumber } from '../../lib/format';
import { formatRelative } from '../../lib/relativeTime';

const KIND_COLORS: Record<SourceKind, MantineColor> = {
  web: 'blue',
  file: 'grape',
  import: 'cyan',
};

export const OUTCOME_COLORS: Record<SyncOutcome, MantineColor> = {
  running: 'blue',
  unchanged: 'gray',
  changed: 'teal',
  missing: 'orange',
  pruned: 'red',
  failed: 'red',
  skipped: 'gray',
};

export function KindBadge({ kind }: { kind: SourceKind }) {
  return (
    // max-content: in the table's auto layout a badge (its label ellipsised) shrank to "W..".
    <Badge
      size="sm"
      variant="outline"
      color={KIND_COLORS[kind]}
      miw="max-content"
      data-testid="source-kind"
    >
      {kind}
    </Badge>
  );
}

export const isPreset = (schedule: string) =>
  (SYNC_PRESETS as readonly string[]).includes(schedule);

function ScheduleCell({ source }: { source: Source }) {
  if (source.kind !== 'web') {
    return (
      <Text size="xs" c="dimmed">
        -
      </Text>
    );
  }
  const off = source.schedule === 'off';
  return (
    <Text
      size="xs"
      ff={isPreset(source.schedule) ? undefined : 'monospace'}
      c={off ? 'dimmed' : undefined}
      data-testid="source-schedule"
      style={{ whiteSpace: 'nowrap' }}
    >
      {source.schedule}
    </Text>
  );
}

/** One sync's counts in pages and segments, as the tooltip and the history show them. */
function syncCountLines(c: SyncCounts): string[] {
  return [
    `Pages: ${formatNumber(c.pages_added)} added, ${formatNumber(c.pages_changed)} changed, ` +
      `${formatNumber(c.pages_unchanged)} unchanged, ${formatNumber(c.pages_removed)} removed, ` +
      `${formatNumber(c.pages_failed)} failed`,
    `Segments: ${formatNumber(c.segments_added)} added, ${formatNumber(c.segments_kept)} kept, ` +
      `${formatNumber(c.segments_removed)} removed, ${formatNumber(c.reembedded)} re-embedded`,
  ];
}

function lastSyncTooltip(sync: LastSync) {
  return (
    <Stack gap={2}>
      {syncCountLines(sync).map((line) => (
        <Text key={line} size="xs">
          {line}
        </Text>
      ))}
      {sync.error ? (
        <Text size="xs" c="red.3">
          {sync.error}
        </Text>
      ) : null}
    </Stack>
  );
}

function LastSyncCell({ source, now }: { source: Source; now?: number }) {
  const sync = source.last_sync;
  if (!sync && !source.last_sync_at) {
    return (
      <Text size="xs" c="dimmed">
        Never
      </Text>
    );
  }
  const at = sync?.ended_at ?? source.last_sync_at;
  return (
    <Stack gap={2} data-testid="source-last-sync">
      <Group gap={6} wrap="nowrap">
        {sync ? (
          <Tooltip label={lastSyncTooltip(sync)} multiline maw={380} withinPortal>
            <Badge
              size="sm"
              variant="light"
              color={OUTCOME_COLORS[sync.outcome]}
              aria-label={`Last sync ${sync.outcome}: ${syncCountLines(sync).join('; ')}`}
            >
              {sync.outcome}
            </Badge>
          </Tooltip>
        ) : null}
        {source.missing_count > 0 ? (
          <Tooltip label={`Found gone by ${source.missing_count} sync(s) in a row`}>
            <Badge size="sm" variant="outline" color="orange" className="tabular-nums">
              missing ×{source.missing_count}
            </Badge>
          </Tooltip>
        ) : null}
      </Group>
      <Text
        size="xs"
        c="dimmed"
        className="tabular-nums"
        title={formatDate(at)}
        style={{ whiteSpace: 'nowrap' }}
      >
        {formatRelative(at, now)}
      </Text>
    </Stack>
  );
}

function NextSyncCell({ source, now = Date.now() }: { source: Source; now?: number }) {
  if (!source.next_sync_at) {
    return (
      <Text size="xs" c="dimmed">
        -
      </Text>
    );
  }
  // A time already past: the scheduler picks it up within a minute.
  const due = new Date(source.next_sync_at).getTime() <= now;
  return (
    <Text
      size="xs"
      className="tabular-nums"
      title={formatDate(source.next_sync_at)}
      data-testid="source-next-sync"
      style={{ whiteSpace: 'nowrap' }}
    >
      {due ? 'due now' : formatRelative(source.next_sync_at, now)}
    </Text>
  );
}

/** The freshness cells in the table's order, for the row. */
export function SourceSyncTds({ source }: { source: Source }) {
  return (
    <>
      <Table.Td>
        <ScheduleCell source={source} />
      </Table.Td>
      <Table.Td>
        <LastSyncCell source={source} />
      </Table.Td>
      <Table.Td>
        <NextSyncCell source={source} />
      </Table.Td>
    </>
  );
}
