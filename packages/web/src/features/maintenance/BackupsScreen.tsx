import { useEffect, useState } from 'react';
import { Alert, Button, Group, Paper, Progress, Stack, Table, Text, Title } from '@mantine/core';
import { IconAlertTriangle, IconArchive, IconCheck, IconRestore } from '@tabler/icons-react';
import type { Backup, RestoreResult } from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatDate, formatNumber } from '../../lib/format';
import { CountBadges } from './ActionResult';
import { useBackups, useCreateBackup, useRestoreBackup } from './maintenance.api';
import { MAINTENANCE_MESSAGES } from './messages';
import { useCan } from '../../session/useCan';

/** Seconds since `running` became true (0 when not running): the long calls show they are alive. */
function useElapsed(running: boolean): number {
  const [elapsed, setElapsed] = useState(0);
  useEffect(() => {
    if (!running) return;
    setElapsed(0);
    const started = Date.now();
    const timer = setInterval(() => setElapsed(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return running ? elapsed : 0;
}

function Running({ label, elapsed }: { label: string; elapsed: number }) {
  return (
    <Paper withBorder radius="md" p="md" aria-label={label} aria-busy="true">
      <Stack gap={6}>
        <Group justify="space-between">
          <Text size="sm" fw={600}>
            {label}
          </Text>
          <Text size="xs" c="dimmed" className="tabular-nums">
            {elapsed} s
          </Text>
        </Group>
        <Progress value={100} striped animated size="md" radius="xl" aria-hidden />
        <Text size="xs" c="dimmed">
          The store and the index are copied and checksummed; this screen updates when it is done.
        </Text>
      </Stack>
    </Paper>
  );
}

function RestoredReport({ result }: { result: RestoreResult }) {
  return (
    <Alert
      color="teal"
      variant="light"
      icon={<IconCheck size={18} />}
      title={`Backup ${result.id} restored`}
    >
      <Stack gap={6}>
        <Text size="sm">Restored at {formatDate(result.restored_at)}. The store now holds:</Text>
        <CountBadges counts={result.counts} />
        <Text size="xs" c="dimmed">
          Index check: {formatNumber(result.reconcile.total_disk)} snippets,{' '}
          {formatNumber(result.reconcile.total_index)} vectors,{' '}
          {formatNumber(result.reconcile.reindexed)} re-indexed,{' '}
          {formatNumber(result.reconcile.index_only)} index-only removed.
        </Text>
        <Text size="xs" c="dimmed">
          The data as it was before is kept as safety backup {result.safety_backup}: restore it to
          undo this.
        </Text>
      </Stack>
    </Alert>
  );
}

function BackupRow({
  backup,
  restoring,
  busy,
  onRestore,
}: {
  backup: Backup;
  restoring: boolean;
  busy: boolean;
  onRestore: (backup: Backup) => void;
}) {
  // A restore brings back an older users table: administrators only, as on the server.
  const canRestore = useCan('administrator');
  return (
    <Table.Tr data-backup-id={backup.id}>
      <Table.Td ff="monospace" fz="xs">
        {backup.id}
      </Table.Td>
      <Table.Td className="tabular-nums">{formatDate(backup.created_at)}</Table.Td>
      <Table.Td>
        <Text size="sm" fw={600} c={backup.reason === 'manual' ? 'indigo.4' : 'dimmed'}>
          {backup.reason}
        </Text>
      </Table.Td>
      <Table.Td ta="right" className="tabular-nums">
        {formatNumber(backup.size_mb, 2)} MB
      </Table.Td>
      <Table.Td ta="right" className="tabular-nums">
        {formatNumber(backup.counts.snippets)}
      </Table.Td>
      <Table.Td ta="right" className="tabular-nums">
        {formatNumber(backup.counts.vectors)}
      </Table.Td>
      <Table.Td ta="right" className="tabular-nums">
        {formatNumber(backup.counts.sources)}
      </Table.Td>
      <Table.Td ta="right" className="tabular-nums">
        {formatNumber(backup.counts.jobs)}
      </Table.Td>
      <Table.Td ta="right">
        {canRestore ? (
          <Button
            size="xs"
            variant="light"
            color="orange"
            leftSection={<IconRestore size={14} />}
            onClick={() => onRestore(backup)}
            loading={restoring}
            disabled={busy && !restoring}
            aria-label={`Restore backup ${backup.id}`}
          >
            Restore
          </Button>
        ) : null}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * Backups (spec 002 §2, §7): the list with size and date, a new backup (the call answers when it
 * is written: a running indicator meanwhile), restore with confirmation. A restore replaces the
 * store, so every cached figure is refetched after it.
 */
export function BackupsScreen() {
  const canCreate = useCan('operator');
  const backups = useBackups();
  const create = useCreateBackup();
  const restore = useRestoreBackup();
  const creatingFor = useElapsed(create.isPending);
  const restoringFor = useElapsed(restore.isPending);
  const [notice, setNotice] = useState<
    | { kind: 'created'; backup: Backup }
    | { kind: 'restored'; result: RestoreResult }
    | { kind: 'error'; title: string; detail: string }
    | null
  >(null);
  const busy = create.isPending || restore.isPending;

  const startBackup = () => {
    setNotice(null);
    create.mutate(undefined, {
      onSuccess: (backup) => setNotice({ kind: 'created', backup }),
      onError: (e) =>
        setNotice({ kind: 'error', title: MAINTENANCE_MESSAGES.backupFailed, detail: e.message }),
    });
  };

  const askRestore = (backup: Backup) =>
    confirmAction({
      title: `Restore backup ${backup.id}?`,
      message: (
        <Stack gap="xs">
          <Text size="sm">
            The current snippets, index, jobs, sources, rules, settings and users are replaced by
            this backup of {formatDate(backup.created_at)} ({formatNumber(backup.counts.snippets)}{' '}
            snippets, {formatNumber(backup.counts.vectors)} vectors).
          </Text>
          <Text size="sm" c="dimmed">
            Anything created since then is lost unless you back it up first.
          </Text>
        </Stack>
      ),
      confirmLabel: 'Restore',
      danger: true,
      onConfirm: () => {
        setNotice(null);
        restore.mutate(backup.id, {
          onSuccess: (result) => setNotice({ kind: 'restored', result }),
          onError: (e) =>
            setNotice({
              kind: 'error',
              title: MAINTENANCE_MESSAGES.restoreFailed,
              detail: e.message,
            }),
        });
      },
    });

  const list = backups.data;

  return (
    <Stack gap="lg">
      <PageHeader
        title="Backups"
        description="Snapshots of the store and the index, checksummed, restorable in one step."
        actions={
          canCreate ? (
            <Button
              leftSection={<IconArchive size={16} />}
              onClick={startBackup}
              loading={create.isPending}
              disabled={restore.isPending}
            >
              Create backup
            </Button>
          ) : undefined
        }
      />

      {create.isPending ? <Running label="Creating backup…" elapsed={creatingFor} /> : null}
      {restore.isPending ? (
        <Running label={`Restoring backup ${restore.variables}…`} elapsed={restoringFor} />
      ) : null}

      {notice?.kind === 'created' ? (
        <Alert
          color="teal"
          variant="light"
          icon={<IconCheck size={18} />}
          title={`Backup ${notice.backup.id} created`}
          withCloseButton
          onClose={() => setNotice(null)}
        >
          <Stack gap={6}>
            <Text size="sm" className="tabular-nums">
              {formatNumber(notice.backup.size_mb, 2)} MB
            </Text>
            <CountBadges counts={notice.backup.counts} />
          </Stack>
        </Alert>
      ) : null}
      {notice?.kind === 'restored' ? <RestoredReport result={notice.result} /> : null}
      {notice?.kind === 'error' ? (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title={notice.title}
          withCloseButton
          onClose={() => setNotice(null)}
        >
          {notice.detail}
        </Alert>
      ) : null}

      <Paper withBorder radius="md" p="md">
        <Group justify="space-between" mb="sm">
          <Title order={4}>Available backups</Title>
          {list ? (
            <Text size="sm" c="dimmed" className="tabular-nums">
              {formatNumber(list.length)} backup{list.length === 1 ? '' : 's'}
            </Text>
          ) : null}
        </Group>
        {backups.isError && !list ? (
          <ErrorState
            title={MAINTENANCE_MESSAGES.backupsLoadFailed}
            message={backups.error.message}
            onRetry={() => void backups.refetch()}
          />
        ) : !list ? (
          <LoadingState rows={4} label="Loading backups" />
        ) : list.length === 0 ? (
          <EmptyState
            title="No backup yet"
            description="Create one before a cleanup or a rebuild; automatic backups also appear here when enabled in the general settings."
          />
        ) : (
          <Table.ScrollContainer minWidth={900} maxHeight="calc(100vh - 320px)">
            <Table
              striped
              highlightOnHover
              stickyHeader
              verticalSpacing="xs"
              horizontalSpacing="sm"
              aria-label="Backups"
              style={{ whiteSpace: 'nowrap' }}
            >
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>ID</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Reason</Table.Th>
                  <Table.Th ta="right">Size</Table.Th>
                  <Table.Th ta="right">Snippets</Table.Th>
                  <Table.Th ta="right">Vectors</Table.Th>
                  <Table.Th ta="right">Sources</Table.Th>
                  <Table.Th ta="right">Jobs</Table.Th>
                  <Table.Th />
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((b) => (
                  <BackupRow
                    key={b.id}
                    backup={b}
                    restoring={restore.isPending && restore.variables === b.id}
                    busy={busy}
                    onRestore={askRestore}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>
    </Stack>
  );
}
