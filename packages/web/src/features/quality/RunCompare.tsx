import { Fragment, useState } from 'react';
import {
  Anchor,
  Badge,
  Group,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import type { EvaluationRun, QueryComparison } from '@adam/contracts';
import { ErrorState, LoadingState } from '../../components/QueryState';
import { formatDate } from '../../lib/format';
import { SnippetDetailsModal } from '../snippets/SnippetDetailsModal';
import { useSnippet } from '../snippets/snippets.api';
import { useRunComparison } from './quality-runs.api';
import { deltaColor, defaultPair, formatDelta, formatMetric, modeLabel } from './runRules';

type Outcome = QueryComparison['outcome'];
const OUTCOMES: Outcome[] = ['gained', 'lost', 'unchanged'];

/** A snippet by id with its text (the snippets area's hook); the id opens its details. */
function SnippetRef({
  id,
  note,
  onOpen,
}: {
  id: number;
  note?: string;
  onOpen: (id: number) => void;
}) {
  const snippet = useSnippet(id);
  return (
    <Group gap={6} wrap="nowrap" align="flex-start" data-testid="compared-snippet">
      <Anchor component="button" size="xs" ff="monospace" onClick={() => onOpen(id)}>
        #{id}
      </Anchor>
      {note ? (
        <Text size="xs" c="dimmed" style={{ whiteSpace: 'nowrap' }}>
          {note}
        </Text>
      ) : null}
      <Text size="xs" lineClamp={2} c={snippet.isError ? 'dimmed' : undefined}>
        {snippet.data?.text ?? (snippet.isError ? 'not found (deleted?)' : '…')}
      </Text>
    </Group>
  );
}

function Movement({ q, onOpen }: { q: QueryComparison; onOpen: (id: number) => void }) {
  const column = (title: string, color: string, items: { id: number; note?: string }[]) => (
    <Stack gap={4}>
      <Text size="xs" fw={700} c={color}>
        {title} ({items.length})
      </Text>
      {items.length === 0 ? (
        <Text size="xs" c="dimmed">
          none
        </Text>
      ) : (
        items.map((i) => <SnippetRef key={i.id} id={i.id} note={i.note} onOpen={onOpen} />)
      )}
    </Stack>
  );
  return (
    <SimpleGrid cols={{ base: 1, md: 3 }} spacing="md" aria-label={`Top 10 changes of ${q.text}`}>
      {column(
        'Entered the top 10',
        'teal',
        q.entered.map((id) => ({ id })),
      )}
      {column(
        'Left the top 10',
        'red',
        q.left.map((id) => ({ id })),
      )}
      {column(
        'Moved',
        'blue',
        q.moved.map((m) => ({ id: m.id, note: `${m.from} → ${m.to}` })),
      )}
    </SimpleGrid>
  );
}

function runOption(run: EvaluationRun) {
  return {
    value: String(run.id),
    label: `#${run.id} · v${run.version} · ${formatDate(run.ended_at ?? run.created_at)}`,
  };
}

/** Two completed runs side by side: per mode, then per query with what moved in the top 10. */
export function RunCompare({ runs }: { runs: readonly EvaluationRun[] }) {
  const completed = runs.filter((r) => r.status === 'completed');
  // The operator's picks; until then the last two completed runs (which move as runs end).
  const [picked, setPicked] = useState<{ base?: number; head?: number }>({});
  const pair = defaultPair(runs);
  const base = picked.base ?? pair?.base ?? null;
  const head = picked.head ?? pair?.head ?? null;
  const [outcome, setOutcome] = useState<Outcome | 'all'>('all');
  const [open, setOpen] = useState<string | null>(null);
  const [snippetId, setSnippetId] = useState<number | null>(null);
  const comparison = useRunComparison(base, head);

  if (completed.length < 2) {
    return (
      <Paper withBorder radius="md" p="md">
        <Text fw={700}>Compare</Text>
        <Text size="sm" c="dimmed">
          Two completed runs compare side by side; this set has {completed.length}.
        </Text>
      </Paper>
    );
  }

  const options = completed.map(runOption);
  const queries = comparison.data?.queries ?? [];
  const counts = Object.fromEntries(
    OUTCOMES.map((o) => [o, queries.filter((q) => q.outcome === o).length]),
  ) as Record<Outcome, number>;
  // The largest falls first: what an operator looks at after a change.
  const shown = (
    outcome === 'all' ? queries : queries.filter((q) => q.outcome === outcome)
  ).toSorted((a, b) => a.delta.ndcg_10 - b.delta.ndcg_10);

  return (
    <Paper withBorder radius="md" p="md" aria-label="Compare runs">
      <Group justify="space-between" align="flex-end" mb="sm">
        <Text fw={700}>Compare</Text>
        <Group gap="xs" align="flex-end">
          <Select
            size="xs"
            label="Base"
            data={options}
            value={base === null ? null : String(base)}
            onChange={(v) => v !== null && setPicked((p) => ({ ...p, base: Number(v) }))}
            allowDeselect={false}
            w={240}
          />
          <Select
            size="xs"
            label="Head"
            data={options}
            value={head === null ? null : String(head)}
            onChange={(v) => v !== null && setPicked((p) => ({ ...p, head: Number(v) }))}
            allowDeselect={false}
            w={240}
          />
        </Group>
      </Group>
      {base === head ? (
        <Text size="sm" c="dimmed">
          Pick two different runs.
        </Text>
      ) : comparison.isError ? (
        <ErrorState
          title="Could not compare the runs"
          message={comparison.error.message}
          onRetry={() => void comparison.refetch()}
        />
      ) : comparison.isPending ? (
        <LoadingState rows={4} label="Comparing the runs" />
      ) : (
        <Stack gap="md">
          {comparison.data.base.version !== comparison.data.head.version ? (
            <Text size="sm" c="yellow" role="note">
              The runs scored different versions of the set (v{comparison.data.base.version} → v
              {comparison.data.head.version}): a query can gain or lose by its judgments alone, with
              the same results.
            </Text>
          ) : null}
          <Table fz="sm" aria-label="Deltas per mode">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Mode</Table.Th>
                <Table.Th ta="right">Gained</Table.Th>
                <Table.Th ta="right">Lost</Table.Th>
                <Table.Th ta="right">Unchanged</Table.Th>
                <Table.Th ta="right">Δ nDCG@10</Table.Th>
                <Table.Th ta="right">Δ R@10</Table.Th>
                <Table.Th ta="right">Δ R@100</Table.Th>
                <Table.Th ta="right">Δ MRR</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {comparison.data.summary.map((m) => (
                <Table.Tr key={m.mode}>
                  <Table.Td>{modeLabel(m.mode)}</Table.Td>
                  <Table.Td ta="right" c="teal" className="tabular-nums">
                    {m.gained}
                  </Table.Td>
                  <Table.Td ta="right" c="red" className="tabular-nums">
                    {m.lost}
                  </Table.Td>
                  <Table.Td ta="right" className="tabular-nums">
                    {m.unchanged}
                  </Table.Td>
                  {(['ndcg_10', 'recall_10', 'recall_100', 'mrr'] as const).map((k) => (
                    <Table.Td
                      key={k}
                      ta="right"
                      c={deltaColor(m.delta[k])}
                      className="tabular-nums"
                    >
                      {formatDelta(m.delta[k])}
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {comparison.data.summary.length === 0 ? (
            <Text size="sm" c="dimmed">
              The two runs share no mode: nothing to compare.
            </Text>
          ) : null}

          <Group justify="space-between">
            <Text fw={700}>Per query</Text>
            <SegmentedControl
              size="xs"
              aria-label="Outcome filter"
              value={outcome}
              onChange={(v) => setOutcome(v as Outcome | 'all')}
              data={[
                { value: 'all', label: `All (${queries.length})` },
                ...OUTCOMES.map((o) => ({ value: o, label: `${o} (${counts[o]})` })),
              ]}
            />
          </Group>
          {shown.length === 0 ? (
            <Text size="sm" c="dimmed">
              No query {outcome === 'all' ? 'in both runs' : outcome}.
            </Text>
          ) : (
            <Table highlightOnHover fz="sm" aria-label="Per-query comparison">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={28} />
                  <Table.Th>Query</Table.Th>
                  <Table.Th>Mode</Table.Th>
                  <Table.Th>Outcome</Table.Th>
                  <Table.Th ta="right">nDCG@10 base → head</Table.Th>
                  <Table.Th ta="right">Δ nDCG@10</Table.Th>
                  <Table.Th ta="right">Δ R@10</Table.Th>
                  <Table.Th ta="right">Δ MRR</Table.Th>
                  <Table.Th ta="right">Top 10 in / out / moved</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.map((q) => {
                  const id = `${q.key}-${q.mode}`;
                  const expanded = open === id;
                  return (
                    <Fragment key={id}>
                      <Table.Tr
                        data-testid="compared-query"
                        style={{ cursor: 'pointer' }}
                        onClick={() => setOpen(expanded ? null : id)}
                      >
                        <Table.Td>
                          <UnstyledButton
                            aria-label={`${expanded ? 'Hide' : 'Show'} the results of ${q.text} (${q.mode})`}
                            aria-expanded={expanded}
                          >
                            {expanded ? (
                              <IconChevronDown size={14} />
                            ) : (
                              <IconChevronRight size={14} />
                            )}
                          </UnstyledButton>
                        </Table.Td>
                        <Table.Td maw={300}>
                          <Text size="sm" lineClamp={2} title={q.text}>
                            {q.text}
                          </Text>
                        </Table.Td>
                        <Table.Td>{modeLabel(q.mode)}</Table.Td>
                        <Table.Td>
                          <Badge
                            size="sm"
                            miw="max-content"
                            variant="light"
                            color={
                              q.outcome === 'gained'
                                ? 'teal'
                                : q.outcome === 'lost'
                                  ? 'red'
                                  : 'gray'
                            }
                          >
                            {q.outcome}
                          </Badge>
                        </Table.Td>
                        <Table.Td ta="right" className="tabular-nums">
                          {formatMetric(q.base.ndcg_10)} → {formatMetric(q.head.ndcg_10)}
                        </Table.Td>
                        {(['ndcg_10', 'recall_10', 'mrr'] as const).map((k) => (
                          <Table.Td
                            key={k}
                            ta="right"
                            c={deltaColor(q.delta[k])}
                            className="tabular-nums"
                          >
                            {formatDelta(q.delta[k])}
                          </Table.Td>
                        ))}
                        <Table.Td ta="right" className="tabular-nums">
                          {q.entered.length} / {q.left.length} / {q.moved.length}
                        </Table.Td>
                      </Table.Tr>
                      {expanded ? (
                        <Table.Tr>
                          <Table.Td colSpan={9} bg="var(--mantine-color-default-hover)">
                            <Movement q={q} onOpen={setSnippetId} />
                          </Table.Td>
                        </Table.Tr>
                      ) : null}
                    </Fragment>
                  );
                })}
              </Table.Tbody>
            </Table>
          )}
        </Stack>
      )}
      <SnippetDetailsModal snippetId={snippetId} onClose={() => setSnippetId(null)} />
    </Paper>
  );
}
