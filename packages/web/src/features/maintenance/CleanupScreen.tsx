import { useMemo, useState } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Checkbox,
  Code,
  Group,
  Paper,
  Select,
  Stack,
  Table,
  Text,
  Title,
  Tooltip,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconCheck,
  IconSortAscending,
  IconSortDescending,
  IconTrash,
  IconTrashX,
} from '@tabler/icons-react';
import type { UnusedModelFile } from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { toast } from '../../layout/toasts';
import { formatBytes, formatNumber } from '../../lib/format';
import {
  CLEANUP_TYPE_FILTERS,
  FILE_GROUP_LABELS,
  groupFiles,
  type FileGroup,
} from '../models/cleanupRules';
import { MODEL_MESSAGES } from '../models/messages';
import { languageFilterOptions, languageName } from '../models/modelRules';
import {
  reasonOf,
  useClearModelCache,
  useDeleteModelFiles,
  useUnusedFiles,
} from '../models/models.api';

const TYPE_OPTIONS = CLEANUP_TYPE_FILTERS.map((t) => ({
  value: t,
  label: t === 'all' ? 'All types' : t,
}));

type Notice = { kind: 'refused'; detail: string } | { kind: 'cleared'; text: string } | null;

function GroupTable({
  group,
  selected,
  busy,
  onSelect,
  onDelete,
}: {
  group: FileGroup;
  selected: ReadonlySet<string>;
  busy: boolean;
  onSelect: (paths: string[], on: boolean) => void;
  onDelete: (file: UnusedModelFile) => void;
}) {
  const label = FILE_GROUP_LABELS[group.type];
  const paths = group.files.map((f) => f.path);
  const chosen = paths.filter((p) => selected.has(p)).length;
  return (
    <Paper withBorder radius="md" p="md" aria-label={`${label} files`} component="section">
      <Group justify="space-between" mb="xs">
        <Group gap="xs">
          <Title order={4}>{label}</Title>
          <Badge variant="light" color="gray" className="tabular-nums">
            {formatNumber(group.files.length)}
          </Badge>
        </Group>
        <Text size="sm" c="dimmed" className="tabular-nums">
          {formatBytes(group.totalSize)}
        </Text>
      </Group>
      <Table.ScrollContainer minWidth={640}>
        <Table striped highlightOnHover verticalSpacing="xs" aria-label={`${label} unused files`}>
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40}>
                <Checkbox
                  aria-label={`Select all ${label} files`}
                  checked={chosen === paths.length}
                  indeterminate={chosen > 0 && chosen < paths.length}
                  onChange={(e) => onSelect(paths, e.currentTarget.checked)}
                />
              </Table.Th>
              <Table.Th>File</Table.Th>
              {/* Fixed widths: the groups' tables line up under one another. */}
              <Table.Th w={160}>Language</Table.Th>
              <Table.Th w={120} ta="right">
                Size
              </Table.Th>
              <Table.Th w={60} />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {group.files.map((file) => (
              <Table.Tr key={file.path} data-path={file.path}>
                <Table.Td>
                  <Checkbox
                    aria-label={`Select ${file.path}`}
                    checked={selected.has(file.path)}
                    onChange={(e) => onSelect([file.path], e.currentTarget.checked)}
                  />
                </Table.Td>
                <Table.Td>
                  <Code style={{ wordBreak: 'break-all' }}>{file.path}</Code>
                </Table.Td>
                <Table.Td>{file.language ? languageName(file.language) : '-'}</Table.Td>
                <Table.Td ta="right" className="tabular-nums">
                  {formatBytes(file.size)}
                </Table.Td>
                <Table.Td ta="right">
                  <Tooltip label="Delete">
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={`Delete ${file.path}`}
                      onClick={() => onDelete(file)}
                      disabled={busy}
                    >
                      <IconTrash size={16} />
                    </ActionIcon>
                  </Tooltip>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Paper>
  );
}

/**
 * Model Cleanup (spec 001 §2.3): files under the models directory that no registered model
 * uses, grouped by type, filtered by type and language, sorted by size; deleted one by one or
 * as a selection (the server refuses anything else, and then deletes nothing). Clear Cache
 * unloads the models and removes download leftovers.
 */
export function CleanupScreen() {
  const files = useUnusedFiles();
  const remove = useDeleteModelFiles();
  const clearCache = useClearModelCache();
  const [type, setType] = useState<string>('all');
  const [language, setLanguage] = useState<string>('all');
  const [sizeDescending, setSizeDescending] = useState(true);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [notice, setNotice] = useState<Notice>(null);

  const list = files.data;
  const groups = useMemo(
    () => groupFiles(list ?? [], { type, language, sizeDescending }),
    [list, type, language, sizeDescending],
  );
  const languageOptions = useMemo(
    () => languageFilterOptions((list ?? []).map((f) => f.language).filter(Boolean)),
    [list],
  );
  // Only what is on screen can be deleted as a selection.
  const selection = groups
    .flatMap((g) => g.files.map((f) => f.path))
    .filter((p) => selected.has(p));

  const select = (paths: string[], on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      for (const p of paths) {
        if (on) next.add(p);
        else next.delete(p);
      }
      return next;
    });

  const runDelete = (paths: string[], success: string) => {
    setNotice(null);
    remove.mutate(paths, {
      onSuccess: (result) => {
        toast.success(success);
        select(result.deleted, false);
      },
      onError: (error) => {
        toast.error(MODEL_MESSAGES.deleteFailed);
        setNotice({ kind: 'refused', detail: reasonOf(error) });
      },
    });
  };

  const askDeleteSelected = () =>
    confirmAction({
      title: `Delete ${selection.length} file${selection.length === 1 ? '' : 's'}?`,
      message: 'The selected files are removed from the models directory. This cannot be undone.',
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () => runDelete(selection, MODEL_MESSAGES.selectedDeleted),
    });

  const askDeleteOne = (file: UnusedModelFile) =>
    confirmAction({
      title: 'Delete this file?',
      message: (
        <Text size="sm">
          <Code>{file.path}</Code> ({formatBytes(file.size)}) is removed from the models directory.
          This cannot be undone.
        </Text>
      ),
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () => runDelete([file.path], MODEL_MESSAGES.fileDeleted),
    });

  const runClearCache = () => {
    setNotice(null);
    clearCache.mutate(undefined, {
      onSuccess: (result) => {
        toast.success(MODEL_MESSAGES.cacheCleared);
        setNotice({
          kind: 'cleared',
          text: `${result.message} (${formatNumber(result.unloaded_models)} model${result.unloaded_models === 1 ? '' : 's'} unloaded, ${formatBytes(result.freed_bytes)} freed)`,
        });
      },
      onError: () => toast.error(MODEL_MESSAGES.clearCacheFailed),
    });
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title="Model Cleanup"
        description="Files in the models directory that no registered model uses."
        actions={
          <>
            <Button variant="default" onClick={runClearCache} loading={clearCache.isPending}>
              Clear Cache
            </Button>
            <Button
              color="red"
              leftSection={<IconTrashX size={16} />}
              onClick={askDeleteSelected}
              disabled={selection.length === 0 || remove.isPending}
            >
              Delete Selected{selection.length > 0 ? ` (${selection.length})` : ''}
            </Button>
          </>
        }
      />

      <Paper withBorder radius="md" p="sm">
        <Group gap="sm" align="flex-end">
          <Select
            label="Type"
            data={TYPE_OPTIONS}
            value={type}
            onChange={(v) => setType(v ?? 'all')}
            allowDeselect={false}
            w={180}
          />
          <Select
            label="Language"
            data={languageOptions}
            value={language}
            onChange={(v) => setLanguage(v ?? 'all')}
            allowDeselect={false}
            w={180}
          />
          <Button
            variant="default"
            leftSection={
              sizeDescending ? <IconSortDescending size={16} /> : <IconSortAscending size={16} />
            }
            onClick={() => setSizeDescending((d) => !d)}
            aria-pressed={sizeDescending}
          >
            {sizeDescending ? 'Size: largest first' : 'Size: smallest first'}
          </Button>
        </Group>
      </Paper>

      {notice?.kind === 'refused' ? (
        <Alert
          color="red"
          variant="light"
          icon={<IconAlertTriangle size={18} />}
          title={MODEL_MESSAGES.deleteFailed}
          withCloseButton
          onClose={() => setNotice(null)}
        >
          {notice.detail}
        </Alert>
      ) : null}
      {notice?.kind === 'cleared' ? (
        <Alert
          color="teal"
          variant="light"
          icon={<IconCheck size={18} />}
          withCloseButton
          onClose={() => setNotice(null)}
        >
          {notice.text}
        </Alert>
      ) : null}

      {files.isError && !list ? (
        <ErrorState
          title={MODEL_MESSAGES.filesLoadFailed}
          message={files.error.message}
          onRetry={() => void files.refetch()}
        />
      ) : !list ? (
        <LoadingState rows={5} label="Loading unused files" />
      ) : list.length === 0 ? (
        <EmptyState
          title="No unused model files"
          description="Every file in the models directory belongs to a registered model."
        />
      ) : groups.length === 0 ? (
        <EmptyState title="No file matches these filters" />
      ) : (
        groups.map((group) => (
          <GroupTable
            key={group.type}
            group={group}
            selected={selected}
            busy={remove.isPending}
            onSelect={select}
            onDelete={askDeleteOne}
          />
        ))
      )}
    </Stack>
  );
}
