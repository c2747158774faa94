import { useState } from 'react';
import { ActionIcon, Button, Group, Select, Text, Tooltip } from '@mantine/core';
import { IconDownload, IconRefresh, IconTrash } from '@tabler/icons-react';
import { EXPORT_FORMATS, type ExportFormat } from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { toast } from '../../layout/toasts';
import { useCan } from '../../session/useCan';
import { saveFile } from './download';
import { useDeleteSnippets, useExportSnippets } from './snippets.api';

/** The selection's count, its export and its deletion, and the reload of the list. */
export function SnippetsBulkActions({
  selected,
  onReload,
  reloading,
}: {
  selected: ReadonlySet<number>;
  onReload: () => void;
  reloading: boolean;
}) {
  const canWrite = useCan('operator');
  const remove = useDeleteSnippets();
  const exporter = useExportSnippets();
  const [exportFormat, setExportFormat] = useState<ExportFormat>('json');

  const askBulkDelete = () => {
    const ids = [...selected];
    confirmAction({
      title: 'Delete snippets',
      message: `Delete ${ids.length} selected snippet(s)? They are removed from the store and from the index.`,
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () =>
        remove.mutate(ids, {
          onSuccess: ({ deleted }) => {
            if (deleted.length) toast.success(`Deleted ${deleted.length} snippet(s)`);
          },
        }),
    });
  };

  const exportSelection = () => {
    const ids = [...selected];
    exporter.mutate(
      { ids, format: exportFormat },
      {
        onSuccess: (file) => {
          saveFile(file, `snippets.${exportFormat}`);
          toast.success(`Exported ${ids.length} snippet(s) as ${exportFormat}`);
        },
      },
    );
  };

  return (
    <Group justify="space-between" gap="sm">
      <Group gap="sm">
        <Text size="sm" c="dimmed" className="tabular-nums" miw={90}>
          {selected.size} selected
        </Text>
        <Select
          aria-label="Export format"
          data={EXPORT_FORMATS.map((f) => ({ value: f, label: f }))}
          value={exportFormat}
          onChange={(v) => v && setExportFormat(v as ExportFormat)}
          allowDeselect={false}
          size="xs"
          w={90}
        />
        <Button
          size="xs"
          variant="default"
          leftSection={<IconDownload size={14} />}
          disabled={selected.size === 0}
          loading={exporter.isPending}
          onClick={exportSelection}
        >
          Export
        </Button>
        <Button
          size="xs"
          color="red"
          variant="light"
          leftSection={<IconTrash size={14} />}
          display={canWrite ? undefined : 'none'}
          disabled={selected.size === 0}
          loading={remove.isPending}
          onClick={askBulkDelete}
        >
          Delete selected
        </Button>
      </Group>
      <Tooltip label="Reload the list and the consistency check">
        <ActionIcon variant="default" aria-label="Reload" onClick={onReload} loading={reloading}>
          <IconRefresh size={16} />
        </ActionIcon>
      </Tooltip>
    </Group>
  );
}
