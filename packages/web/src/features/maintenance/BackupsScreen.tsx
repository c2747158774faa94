import { useEffect, useState } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  FileButton,
  Group,
  List,
  Paper,
  Progress,
  Stack,
  Table,
  Text,
  ThemeIcon,
  Title,
  Tooltip,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconArchive,
  IconCheck,
  IconDownload,
  IconRestore,
  IconShieldCheck,
  IconTrash,
  IconUpload,
  IconX,
} from '@tabler/icons-react';
import {
  BACKUP_ARCHIVE_TYPE,
  type Backup,
  type BackupReason,
  type BackupVerification,
  type RestoreResult,
} from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatNumber } from '../../lib/format';
import { CountBadges } from './ActionResult';
import { BackupRetentionCard } from './BackupRetentionCard';
import {
  backupDownloadHref,
  useBackups,
  useCreateBackup,
  useDeleteBackup,
  useRestoreBackup,
  useUploadBackup,
  useVerifyBackup,
} from './maintenance.api';
import { MAINTENANCE_MESSAGES } from './messages';
import { useCan } from '../../session/useCan';
import { DateTime } from '../../components/DateTime';

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
        <Text size="sm">
          Restored at <DateTime value={result.restored_at} />. The store now holds:
        </Text>
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

/** The kinds of backup as the operator reads them. */
const KIND: Record<BackupReason, { label: string; color: string; hint: string }> = {
  manual: { label: 'Manual', color: 'indigo', hint: 'Taken by an operator' },
  auto: { label: 'Automatic', color: 'gray', hint: 'Taken on the general settings’ schedule' },
  safety: {
    label: 'Safety',
    color: 'orange',
    hint: 'Taken by a restore just before it replaced the data: restore it to undo that restore',
  },
};

function VerificationReport({
  result,
  onClose,
}: {
  result: BackupVerification;
  onClose: () => void;
}) {
  return (
    <Alert
      color={result.ok ? 'teal' : 'red'}
      variant="light"
      icon={result.ok ? <IconShieldCheck size={18} /> : <IconAlertTriangle size={18} />}
      title={
        result.ok
          ? `Backup ${result.id} passed every check`
          : `Backup ${result.id} failed verification`
      }
      withCloseButton
      onClose={onClose}
    >
      <List spacing={4} size="sm" aria-label={`Checks of backup ${result.id}`}>
        {result.checks.map((c) => (
          <List.Item
            key={c.name}
            icon={
              <ThemeIcon size={18} radius="xl" color={c.ok ? 'teal' : 'red'} variant="light">
                {c.ok ? <IconCheck size={12} /> : <IconX size={12} />}
              </ThemeIcon>
            }
          >
            <Text span size="sm" fw={600} tt="capitalize">
              {c.name}
            </Text>
            <Text span size="sm" c={c.ok ? 'dimmed' : undefined}>
              {' '}
              {c.detail}
            </Text>
          </List.Item>
        ))}
      </List>
      {!result.ok && result.checks.length < 5 ? (
        <Text size="xs" c="dimmed" mt={6}>
          The checks after a failed one were not run.
        </Text>
      ) : null}
    </Alert>
  );
}

function BackupRow({
  backup,
  restoring,
  verifying,
  busy,
  onRestore,
  onVerify,
  onDelete,
}: {
  backup: Backup;
  restoring: boolean;
  verifying: boolean;
  busy: boolean;
  onRestore: (backup: Backup) => void;
  onVerify: (backup: Backup) => void;
  onDelete: (backup: Backup) => void;
}) {
  // A restore brings back an older users table, a download carries it out, a delete cannot be
  // undone: administrators only, as on the server. Verifying changes nothing: operators.
  const isAdmin = useCan('administrator');
  const canVerify = useCan('operator');
  const kind = KIND[backup.reason];
  return (
    <Table.Tr data-backup-id={backup.id}>
      <Table.Td ff="monospace" fz="xs">
        {backup.id}
      </Table.Td>
      <Table.Td className="tabular-nums">
        <DateTime value={backup.created_at} />
      </Table.Td>
      <Table.Td>
        <Tooltip label={kind.hint} withArrow multiline maw={260}>
          <Badge variant="light" color={kind.color} radius="sm" style={{ minWidth: 'max-content' }}>
            {kind.label}
          </Badge>
        </Tooltip>
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
      <Table.Td>
        <Group gap={6} justify="flex-end" wrap="nowrap">
          {canVerify ? (
            <Tooltip label="Verify: run a restore's checks" withArrow>
              <ActionIcon
                variant="subtle"
                size="md"
                onClick={() => onVerify(backup)}
                loading={verifying}
                aria-label={`Verify backup ${backup.id}`}
              >
                <IconShieldCheck size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
          {isAdmin ? (
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
          {isAdmin ? (
            <Tooltip label="Download (.tar)" withArrow>
              <ActionIcon
                component="a"
                href={backupDownloadHref(backup.id)}
                download={`adam-backup-${backup.id}.tar`}
                variant="subtle"
                size="md"
                aria-label={`Download backup ${backup.id}`}
              >
                <IconDownload size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
          {isAdmin ? (
            <Tooltip label="Delete" withArrow>
              <ActionIcon
                variant="subtle"
                color="red"
                size="md"
                onClick={() => onDelete(backup)}
                disabled={restoring}
                aria-label={`Delete backup ${backup.id}`}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Tooltip>
          ) : null}
        </Group>
      </Table.Td>
    </Table.Tr>
  );
}

function Uploading({ name, fraction }: { name: string; fraction: number }) {
  const sent = fraction >= 1;
  return (
    <Paper withBorder radius="md" p="md" aria-label={`Uploading ${name}`} aria-busy="true">
      <Stack gap={6}>
        <Group justify="space-between">
          <Text size="sm" fw={600}>
            {sent ? `Verifying ${name}…` : `Uploading ${name}…`}
          </Text>
          <Text size="xs" c="dimmed" className="tabular-nums">
            {Math.floor(fraction * 100)}%
          </Text>
        </Group>
        <Progress
          value={sent ? 100 : fraction * 100}
          striped={sent}
          animated={sent}
          size="md"
          radius="xl"
          aria-label="Upload progress"
        />
        <Text size="xs" c="dimmed">
          The backup is listed only once its manifest, checksums, store and index pass the checks a
          restore runs.
        </Text>
      </Stack>
    </Paper>
  );
}

/**
 * Backups (spec 002 §2, §7): the list with kind, size and date, a new backup (the call answers
 * when it is written: a running indicator meanwhile), restore and delete with confirmation,
 * verify (each check's outcome shown), download (a tar the browser saves), upload (progress,
 * then the server's verdict), and the automatic backups' retention. A restore replaces the
 * store, so every cached figure is refetched after it.
 */
export function BackupsScreen() {
  const canCreate = useCan('operator');
  const isAdmin = useCan('administrator');
  const backups = useBackups();
  const create = useCreateBackup();
  const restore = useRestoreBackup();
  const remove = useDeleteBackup();
  const verify = useVerifyBackup();
  const [uploadFraction, setUploadFraction] = useState(0);
  const upload = useUploadBackup(setUploadFraction);
  const creatingFor = useElapsed(create.isPending);
  const restoringFor = useElapsed(restore.isPending);
  const [notice, setNotice] = useState<
    | { kind: 'created'; backup: Backup }
    | { kind: 'restored'; result: RestoreResult }
    | { kind: 'uploaded'; backup: Backup }
    | { kind: 'deleted'; id: string }
    | { kind: 'verified'; result: BackupVerification }
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

  const startUpload = (file: File | null) => {
    if (!file) return;
    setNotice(null);
    setUploadFraction(0);
    upload.mutate(file, {
      onSuccess: (backup) => setNotice({ kind: 'uploaded', backup }),
      onError: (e) =>
        setNotice({ kind: 'error', title: `Upload of ${file.name} refused`, detail: e.message }),
    });
  };

  const runVerify = (backup: Backup) => {
    setNotice(null);
    verify.mutate(backup.id, {
      onSuccess: (result) => setNotice({ kind: 'verified', result }),
      onError: (e) =>
        setNotice({
          kind: 'error',
          title: `Backup ${backup.id} could not be verified`,
          detail: e.message,
        }),
    });
  };

  const askDelete = (backup: Backup) =>
    confirmAction({
      title: `Delete backup ${backup.id}?`,
      message: (
        <Stack gap="xs">
          <Text size="sm">
            This {KIND[backup.reason].label.toLowerCase()} backup of{' '}
            <DateTime value={backup.created_at} /> ({formatNumber(backup.size_mb, 2)} MB) is removed
            from the server.
          </Text>
          <Text size="sm" c="dimmed">
            {backup.reason === 'safety'
              ? 'It is the undo of a restore: once deleted, that restore cannot be undone.'
              : 'Download it first to keep a copy elsewhere.'}
          </Text>
        </Stack>
      ),
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () => {
        setNotice(null);
        remove.mutate(backup.id, {
          onSuccess: () => setNotice({ kind: 'deleted', id: backup.id }),
          onError: (e) =>
            setNotice({
              kind: 'error',
              title: `Backup ${backup.id} was not deleted`,
              detail: e.message,
            }),
        });
      },
    });

  const askRestore = (backup: Backup) =>
    confirmAction({
      title: `Restore backup ${backup.id}?`,
      message: (
        <Stack gap="xs">
          <Text size="sm">
            The current snippets, index, jobs, sources, rules, settings and users are replaced by
            this backup of <DateTime value={backup.created_at} /> (
            {formatNumber(backup.counts.snippets)} snippets, {formatNumber(backup.counts.vectors)}{' '}
            vectors).
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
            <Group gap="sm">
              {isAdmin ? (
                <FileButton onChange={startUpload} accept={`${BACKUP_ARCHIVE_TYPE},.tar`}>
                  {(props) => (
                    <Button
                      {...props}
                      variant="default"
                      leftSection={<IconUpload size={16} />}
                      loading={upload.isPending}
                    >
                      Upload backup
                    </Button>
                  )}
                </FileButton>
              ) : null}
              <Button
                leftSection={<IconArchive size={16} />}
                onClick={startBackup}
                loading={create.isPending}
                disabled={restore.isPending}
              >
                Create backup
              </Button>
            </Group>
          ) : undefined
        }
      />

      {upload.isPending ? (
        <Uploading name={upload.variables.name} fraction={uploadFraction} />
      ) : null}

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
      {notice?.kind === 'uploaded' ? (
        <Alert
          color="teal"
          variant="light"
          icon={<IconCheck size={18} />}
          title={`Backup ${notice.backup.id} uploaded and verified`}
          withCloseButton
          onClose={() => setNotice(null)}
        >
          <Stack gap={6}>
            <Text size="sm" className="tabular-nums">
              {KIND[notice.backup.reason].label} backup of{' '}
              <DateTime value={notice.backup.created_at} />,{' '}
              {formatNumber(notice.backup.size_mb, 2)} MB: it can be restored now.
            </Text>
            <CountBadges counts={notice.backup.counts} />
          </Stack>
        </Alert>
      ) : null}
      {notice?.kind === 'deleted' ? (
        <Alert
          color="gray"
          variant="light"
          icon={<IconTrash size={18} />}
          title={`Backup ${notice.id} deleted`}
          withCloseButton
          onClose={() => setNotice(null)}
        />
      ) : null}
      {notice?.kind === 'verified' ? (
        <VerificationReport result={notice.result} onClose={() => setNotice(null)} />
      ) : null}
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
              horizontalSpacing="xs"
              aria-label="Backups"
              style={{ whiteSpace: 'nowrap' }}
            >
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>ID</Table.Th>
                  <Table.Th>Created</Table.Th>
                  <Table.Th>Kind</Table.Th>
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
                    verifying={verify.isPending && verify.variables === b.id}
                    busy={busy}
                    onRestore={askRestore}
                    onVerify={runVerify}
                    onDelete={askDelete}
                  />
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Paper>

      <BackupRetentionCard />
    </Stack>
  );
}
