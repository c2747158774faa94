/**
 * The snippet details modal (spec 002 §2, §3, §9), opened from the browser, the consistency
 * tabs and the search results: the snippet, its quality parts, its first 5 diagnostics and what
 * the index holds for it.
 */
import type { ReactNode } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Button,
  Divider,
  Group,
  Modal,
  Paper,
  Progress,
  ScrollArea,
  SimpleGrid,
  Skeleton,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { IconAlertTriangle, IconExternalLink, IconTrash } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { Snippet, SnippetIndexInfo } from '@adam/contracts';
import { tabHref } from '../../navigation/tabRegistry';
import { confirmAction } from '../../components/ConfirmDialog';
import { QualityBadge } from '../../components/QualityBadge';
import { ErrorState } from '../../components/QueryState';
import { formatBytes, formatNumber } from '../../lib/format';
import { qualityColor } from '../../lib/quality';
import { toast } from '../../layout/toasts';
import { INDEX_STATUS_LABELS, SNIPPET_MESSAGES } from './messages';
import {
  DIAGNOSTICS_SHOWN,
  INDEX_STATUS_COLORS,
  diagnosticColor,
  diagnosticsOf,
  indexStatus,
} from './snippetRules';
import {
  isNotIndexedError,
  useDeleteSnippets,
  useSnippet,
  useSnippetIndexInfo,
} from './snippets.api';
import { DateTime } from '../../components/DateTime';

export function IndexStatusBadge({ snippet }: { snippet: Parameters<typeof indexStatus>[0] }) {
  const status = indexStatus(snippet);
  return (
    <Badge
      variant="light"
      color={INDEX_STATUS_COLORS[status]}
      radius="sm"
      tt="none"
      miw="max-content"
    >
      {INDEX_STATUS_LABELS[status]}
    </Badge>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text size="sm" component="div" style={{ overflowWrap: 'anywhere' }}>
        {children}
      </Text>
    </Stack>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap="xs">
      <Title order={5}>{title}</Title>
      {children}
    </Stack>
  );
}

/** A named 0–1 figure with a bar coloured by the quality thresholds. */
function ScoreRow({ name, value, color }: { name: string; value: number; color?: string }) {
  return (
    <Group gap="sm" wrap="nowrap">
      <Text size="sm" w={170} truncate="end">
        {name.replace(/_/g, ' ')}
      </Text>
      <Progress
        value={Math.max(0, Math.min(1, value)) * 100}
        color={color ?? qualityColor(value)}
        size="sm"
        radius="xl"
        style={{ flex: 1 }}
        aria-label={name}
      />
      <Text size="sm" w={48} ta="right" className="tabular-nums">
        {formatNumber(value, 2)}
      </Text>
    </Group>
  );
}

function Diagnostics({ snippet }: { snippet: Snippet }) {
  const all = diagnosticsOf(snippet.metadata);
  if (all.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No diagnostics recorded.
      </Text>
    );
  const shown = all.slice(0, DIAGNOSTICS_SHOWN);
  return (
    <Stack gap={4}>
      <Table striped withTableBorder verticalSpacing={6} data-testid="snippet-diagnostics">
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Segment</Table.Th>
            <Table.Th w={80} ta="right">
              Score
            </Table.Th>
            <Table.Th w={110}>Status</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {shown.map((d, i) => (
            <Table.Tr key={i} data-testid="snippet-diagnostic">
              <Table.Td>
                <Text size="sm" lineClamp={2}>
                  {d.snippet}
                </Text>
                {d.reason && d.reason !== d.status ? (
                  <Text size="xs" c="dimmed">
                    {d.reason}
                  </Text>
                ) : null}
              </Table.Td>
              <Table.Td ta="right" className="tabular-nums">
                {formatNumber(d.score, 3)}
              </Table.Td>
              <Table.Td>
                <Badge variant="light" color={diagnosticColor(d.status)} radius="sm">
                  {d.status}
                </Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {all.length > shown.length ? (
        <Text size="xs" c="dimmed">
          Showing the first {shown.length} of {all.length} diagnostics.
        </Text>
      ) : null}
    </Stack>
  );
}

function IndexInfoPanel({ id }: { id: number }) {
  const info = useSnippetIndexInfo(id);
  if (info.isPending) return <Skeleton height={72} radius="sm" />;
  if (info.isError) {
    const notIndexed = isNotIndexedError(info.error);
    return (
      <Alert
        variant="light"
        color={notIndexed ? 'gray' : 'red'}
        icon={<IconAlertTriangle size={16} />}
        p="sm"
      >
        {notIndexed ? SNIPPET_MESSAGES.notIndexed : SNIPPET_MESSAGES.indexInfoFailed}
      </Alert>
    );
  }
  return <IndexInfoFacts info={info.data} />;
}

function IndexInfoFacts({ info }: { info: SnippetIndexInfo }) {
  return (
    <Stack gap="sm">
      <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
        <Fact label="Vector id">{info.faiss_id}</Fact>
        <Fact label="In index">{info.in_index ? 'yes' : 'no'}</Fact>
        <Fact label="Dimension">{info.dimension}</Fact>
        <Fact label="Vector norm">{formatNumber(info.vector_norm, 4)}</Fact>
        <Fact label="Embedder">{info.embedder ?? '-'}</Fact>
        <Fact label="Indexed at">
          <DateTime value={info.indexed_at} />
        </Fact>
      </SimpleGrid>
      {info.vector_preview.length ? (
        <Text size="xs" c="dimmed" ff="monospace" className="tabular-nums">
          [{info.vector_preview.map((x) => x.toFixed(4)).join(', ')}, …]
        </Text>
      ) : null}
      {info.nearest.length ? (
        <Group gap={6}>
          <Text size="xs" c="dimmed">
            Nearest:
          </Text>
          {info.nearest.map((n) => (
            <Badge key={n.snippet_id} variant="outline" color="gray" radius="sm">
              #{n.snippet_id} · {n.similarity.toFixed(3)}
            </Badge>
          ))}
        </Group>
      ) : null}
    </Stack>
  );
}

function SnippetBody({ snippet, onClose }: { snippet: Snippet; onClose: () => void }) {
  const { metadata } = snippet;
  const parts = Object.entries(metadata.quality_score_detailed ?? {});
  const emotions = Object.entries(metadata.emotions ?? {})
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1]);
  const entities = metadata.entities ?? [];
  const source = snippet.source_info;

  return (
    <Stack gap="lg">
      <Group gap="xs">
        <Badge variant="light" color="indigo" radius="sm" tt="none">
          {snippet.theme}
        </Badge>
        <QualityBadge score={snippet.quality_score} />
        <IndexStatusBadge snippet={snippet} />
        {snippet.language ? (
          <Badge variant="outline" color="gray" radius="sm">
            {snippet.language}
          </Badge>
        ) : null}
      </Group>

      <Paper withBorder radius="md" p="md">
        <ScrollArea.Autosize mah={220}>
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }} data-testid="snippet-text">
            {snippet.text}
          </Text>
        </ScrollArea.Autosize>
      </Paper>

      <SimpleGrid cols={{ base: 2, sm: 3 }} spacing="md">
        <Fact label="Words">{formatNumber(snippet.word_count)}</Fact>
        <Fact label="Size">{formatBytes(snippet.size_bytes)}</Fact>
        <Fact label="Language">{snippet.language ?? '-'}</Fact>
        <Fact label="Source">
          {source.url ? (
            <Anchor href={source.url} target="_blank" rel="noopener noreferrer" size="sm">
              {source.title || source.url}{' '}
              <IconExternalLink size={12} style={{ verticalAlign: 'middle' }} />
            </Anchor>
          ) : (
            (source.title ?? '-')
          )}
        </Fact>
        <Fact label="Section">{snippet.section ?? '-'}</Fact>
        <Fact label="Job">
          {snippet.job_id !== null ? (
            <Anchor
              component={Link}
              to={tabHref('sources-snippets', { job_id: snippet.job_id })}
              onClick={onClose}
              size="sm"
            >
              Job #{snippet.job_id}
            </Anchor>
          ) : (
            '-'
          )}
        </Fact>
        <Fact label="Segmentation">
          {metadata.segmentation_method ?? '-'}
          {metadata.segmentation_fallback_reason ? (
            <Text size="xs" c="dimmed">
              Fallback: {metadata.segmentation_fallback_reason}
            </Text>
          ) : null}
        </Fact>
        <Fact label="Created">
          <DateTime value={snippet.created_at} />
        </Fact>
        <Fact label="Updated">
          <DateTime value={snippet.updated_at} />
        </Fact>
        <Fact label="Indexed">
          <DateTime value={snippet.indexed_at} />
        </Fact>
      </SimpleGrid>

      {parts.length ? (
        <Section title="Quality parts">
          <Stack gap={6}>
            {parts.map(([name, value]) => (
              <ScoreRow key={name} name={name} value={value} />
            ))}
          </Stack>
        </Section>
      ) : null}

      <Section title="Segmentation diagnostics">
        <Diagnostics snippet={snippet} />
      </Section>

      {emotions.length ? (
        <Section title="Emotions">
          <Stack gap={6}>
            {emotions.map(([name, value]) => (
              <ScoreRow key={name} name={name} value={value} color="grape" />
            ))}
          </Stack>
        </Section>
      ) : null}

      {entities.length ? (
        <Section title="Entities">
          <Group gap={6}>
            {entities.map((e, i) => (
              <Badge key={`${e.text}-${i}`} variant="light" color="cyan" radius="sm" tt="none">
                {e.text} · {e.label}
              </Badge>
            ))}
          </Group>
        </Section>
      ) : null}

      <Divider />
      <Section title="Index">
        <Group gap="xs">
          <Text size="sm" c="dimmed">
            Status:
          </Text>
          <IndexStatusBadge snippet={snippet} />
        </Group>
        <IndexInfoPanel id={snippet.id} />
      </Section>
    </Stack>
  );
}

export function SnippetDetailsModal({
  snippetId,
  initial,
  onClose,
  onDeleted,
}: {
  /** The snippet shown; null keeps the modal closed. */
  snippetId: number | null;
  /** The row it was opened from, shown while the fresh copy loads. */
  initial?: Snippet;
  onClose: () => void;
  /** Called once the snippet shown was deleted (the modal closes itself). */
  onDeleted?: (id: number) => void;
}) {
  const snippet = useSnippet(snippetId, initial);
  const remove = useDeleteSnippets();

  const askDelete = (id: number) =>
    confirmAction({
      title: 'Delete snippet',
      message: `Delete snippet ${id}? It is removed from the store and from the index.`,
      confirmLabel: 'Delete',
      danger: true,
      onConfirm: () =>
        remove.mutate([id], {
          onSuccess: ({ deleted }) => {
            if (!deleted.includes(id)) return;
            toast.success(`Snippet ${id} deleted`);
            onDeleted?.(id);
            onClose();
          },
        }),
    });

  return (
    <Modal
      opened={snippetId !== null}
      onClose={onClose}
      size="xl"
      title={<Text fw={700}>Snippet {snippetId !== null ? `#${snippetId}` : ''}</Text>}
      scrollAreaComponent={ScrollArea.Autosize}
    >
      {snippet.data ? (
        <Stack gap="lg">
          <SnippetBody snippet={snippet.data} onClose={onClose} />
          <Group justify="flex-end">
            <Button
              color="red"
              variant="light"
              leftSection={<IconTrash size={16} />}
              loading={remove.isPending}
              onClick={() => askDelete(snippet.data.id)}
            >
              Delete snippet
            </Button>
          </Group>
        </Stack>
      ) : snippet.isError ? (
        <ErrorState title="Could not load this snippet" message={snippet.error.message} />
      ) : (
        <Stack gap="sm" aria-busy="true">
          <Skeleton height={24} width="40%" />
          <Skeleton height={120} />
          <Skeleton height={80} />
        </Stack>
      )}
    </Modal>
  );
}
