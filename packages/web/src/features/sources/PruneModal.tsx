import { Button, Group, Modal, Table, Text } from '@mantine/core';
import { QueryTable } from '../../components/QueryTable';
import { UrlLink } from '../../components/UrlLink';
import { toast } from '../../layout/toasts';
import { formatNumber } from '../../lib/format';
import { usePrunePreview, usePruneSources } from './sources.api';

const plural = (n: number, word: string) => `${formatNumber(n)} ${word}${n === 1 ? '' : 's'}`;

/**
 * "Prune missing pages": the dry run first (GET /sources/prune/preview), then, only once the
 * operator confirms, POST /sources/prune with exactly the sources the preview listed.
 */
export function PruneModal({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={<Text fw={600}>Prune missing pages</Text>}
      size="lg"
      centered
    >
      {/* Mounted only while open: the preview is asked afresh each time, never an old one. */}
      {opened ? <PruneConfirmation onClose={onClose} /> : null}
    </Modal>
  );
}

function PruneConfirmation({ onClose }: { onClose: () => void }) {
  const preview = usePrunePreview(true);
  const prune = usePruneSources();
  const { data } = preview;
  const listed = data?.candidates ?? [];
  // The preview lists at most 1,000 sources while its counts cover them all.
  const truncated = !!data && data.sources > listed.length;

  const onConfirm = () =>
    prune.mutate(
      listed.map((c) => c.id),
      {
        onSuccess: (r) => {
          toast.success(
            `Pruned ${plural(r.sources_deleted, 'source')} with ${plural(r.snippets_deleted, 'snippet')}`,
          );
          onClose();
        },
      },
    );

  return (
    <QueryTable
      query={preview}
      count={(d) => d.candidates.length}
      loading={{ rows: 3, label: 'Counting what a prune would remove' }}
      errorTitle="Could not count what a prune would remove"
      empty={{
        title: 'Nothing to prune',
        description: 'No sync has found a page gone (404 or 410).',
      }}
      emptyFooter={
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Close
          </Button>
        </Group>
      }
    >
      {(d) => (
        <>
          <Text size="sm" data-testid="prune-summary">
            {plural(d.sources, 'source')} and their {plural(d.snippets, 'snippet')} will be deleted,
            with their vectors. Their pages answered 404 or 410 at their last syncs; a sync prunes a
            page by itself after {plural(d.threshold, 'sync')} in a row. This cannot be undone.
          </Text>
          <Table.ScrollContainer minWidth={520} maxHeight="45vh">
            <Table striped stickyHeader verticalSpacing={4} aria-label="Pages to prune">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>URL</Table.Th>
                  <Table.Th ta="right">Missing</Table.Th>
                  <Table.Th ta="right">Snippets</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {listed.map((c) => (
                  <Table.Tr key={c.id}>
                    <Table.Td maw={360}>
                      <UrlLink url={c.url} />
                    </Table.Td>
                    <Table.Td ta="right" className="tabular-nums">
                      ×{c.missing_count}
                    </Table.Td>
                    <Table.Td ta="right" className="tabular-nums">
                      {formatNumber(c.snippets)}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
          {truncated ? (
            <Text size="xs" c="dimmed">
              Only the {formatNumber(listed.length)} listed are pruned now; prune again for the
              rest.
            </Text>
          ) : null}
          <Group justify="flex-end" gap="sm">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button color="red" onClick={onConfirm} loading={prune.isPending} data-autofocus>
              Prune {plural(listed.length, 'source')}
            </Button>
          </Group>
        </>
      )}
    </QueryTable>
  );
}
