import { useMemo, useState } from 'react';
import {
  Anchor,
  Badge,
  Chip,
  ColorSwatch,
  Group,
  Pagination,
  Paper,
  SimpleGrid,
  Stack,
  Table,
  Text,
  UnstyledButton,
} from '@mantine/core';
import { EmptyState } from '../../components/QueryState';
import { SnippetDetailsModal } from '../snippets/SnippetDetailsModal';
import { useLab } from './lab/LabProvider';
import { CAPITALIZE_CHANCE, CAPITALIZE_SCORE } from './lab/simulation';
import { FigureTile, InsightPanel } from './insights/InsightPanel';
import { LabInsightsHeader } from './insights/LabInsightsHeader';
import { decimal, share, simClock } from './insights/format';
import {
  filterMemories,
  memoryRows,
  memorySources,
  memoryThemes,
  type MemoryRow,
  type SourceGroup,
} from './insights/insights';
import {
  INSIGHTS_MESSAGES,
  STATUS_LABELS,
  TEST_TYPE_LABELS,
  themeLabel,
} from './insights/messages';

const M = INSIGHTS_MESSAGES.snippets;
export const MEMORIES_PAGE_SIZE = 25;
const NOWRAP = { whiteSpace: 'nowrap' } as const;
/** The theme chips' value for no filter (no theme is named so). */
const ALL_THEMES = '*';

function SourceCell({ row, onOpen }: { row: MemoryRow; onOpen: (id: number) => void }) {
  if (!row.source) {
    return (
      <Text size="xs" c="dimmed" style={NOWRAP}>
        {M.simulatedTheme}
      </Text>
    );
  }
  const { id, text } = row.source;
  return (
    <Stack gap={0} maw={360} miw={120}>
      <Anchor
        component="button"
        type="button"
        size="sm"
        onClick={() => onOpen(id)}
        aria-label={M.openSnippet(id)}
        style={NOWRAP}
        ta="left"
      >
        {M.snippetNumber(id)}
      </Anchor>
      <Text size="xs" c="dimmed" lineClamp={1} title={text}>
        {text}
      </Text>
    </Stack>
  );
}

function MemoriesTable({ rows, onOpen }: { rows: MemoryRow[]; onOpen: (id: number) => void }) {
  return (
    <Table.ScrollContainer minWidth={680} type="native">
      <Table verticalSpacing={6} className="tabular-nums" highlightOnHover>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{M.colBaby}</Table.Th>
            <Table.Th style={NOWRAP}>{M.colExperience}</Table.Th>
            <Table.Th ta="right">{M.colScore}</Table.Th>
            <Table.Th ta="right">{M.colOriginality}</Table.Th>
            <Table.Th ta="right" style={NOWRAP}>
              {M.colTime}
            </Table.Th>
            <Table.Th>{M.colSource}</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={`${row.babyId}/${row.experienceId}`} aria-label={row.experienceId}>
              <Table.Td>
                <Group gap={8} wrap="nowrap">
                  <ColorSwatch color={row.babyColor} size={12} />
                  <Stack gap={0}>
                    <Text size="sm" fw={600} style={NOWRAP}>
                      {row.babyId}
                    </Text>
                    <Text size="xs" c="dimmed" style={NOWRAP}>
                      {M.generationShort(row.babyGeneration)}
                      {row.babyStatus === 'archived' ? ` · ${STATUS_LABELS.archived}` : ''}
                    </Text>
                  </Stack>
                </Group>
              </Table.Td>
              <Table.Td>
                <Stack gap={2} align="flex-start">
                  <Badge variant="light" color="violet" radius="sm" miw="max-content">
                    {themeLabel(row.theme)}
                  </Badge>
                  <Text size="xs" c="dimmed">
                    {TEST_TYPE_LABELS[row.testType]}
                  </Text>
                </Stack>
              </Table.Td>
              <Table.Td ta="right">{decimal(row.score, 3)}</Table.Td>
              <Table.Td ta="right">{decimal(row.originality, 3)}</Table.Td>
              <Table.Td ta="right">{simClock(row.at)}</Table.Td>
              <Table.Td>
                <SourceCell row={row} onOpen={onOpen} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function SourcesPanel({ groups, onOpen }: { groups: SourceGroup[]; onOpen: (id: number) => void }) {
  return (
    <InsightPanel title={M.sourcesTitle} subtitle={M.sourcesSubtitle}>
      {groups.length === 0 ? (
        <Text size="sm" c="dimmed">
          {M.sourcesEmpty}
        </Text>
      ) : (
        <SimpleGrid
          cols={{ base: 1, sm: 2, xl: 3 }}
          spacing="xs"
          component="ul"
          style={{ listStyle: 'none', margin: 0, padding: 0 }}
        >
          {groups.map(({ source, memories }) => (
            <li key={source.id}>
              <UnstyledButton
                onClick={() => onOpen(source.id)}
                aria-label={M.openSnippet(source.id)}
                w="100%"
              >
                <Paper withBorder radius="sm" p="xs" h="100%">
                  <Group justify="space-between" gap="xs" wrap="nowrap" mb={4}>
                    <Group gap={6} wrap="nowrap">
                      <Text size="sm" fw={600} c="blue" style={NOWRAP}>
                        {M.snippetNumber(source.id)}
                      </Text>
                      <Badge size="xs" variant="light" color="violet" radius="sm">
                        {themeLabel(source.theme)}
                      </Badge>
                    </Group>
                    <Text size="xs" c="dimmed" style={NOWRAP}>
                      {M.sourceMemories(memories)}
                    </Text>
                  </Group>
                  <Text size="xs" c="dimmed" lineClamp={2}>
                    {source.text}
                  </Text>
                </Paper>
              </UnstyledButton>
            </li>
          ))}
        </SimpleGrid>
      )}
    </InsightPanel>
  );
}

/**
 * Enriched Snippets (issue 12): the memories the babies capitalised, newest first, and the real
 * snippets whose themes their experiences drew on; a snippet opens in Agent 1's details modal.
 */
export function Agent2SnippetsScreen() {
  const lab = useLab();
  const { babies } = lab.state;
  const memories = useMemo(() => memoryRows(babies), [babies]);
  const themes = useMemo(() => memoryThemes(memories), [memories]);
  const sources = useMemo(() => memorySources(memories), [memories]);
  const [theme, setTheme] = useState<string | null>(null);
  const [page, setPage] = useState({ theme: null as string | null, page: 1 });
  const [opened, setOpened] = useState<number | null>(null);

  const shown = useMemo(() => filterMemories(memories, theme), [memories, theme]);
  // The page belongs to the theme it was chosen under: another theme is page 1 again.
  const currentPage = page.theme === theme ? page.page : 1;
  const pages = Math.max(1, Math.ceil(shown.length / MEMORIES_PAGE_SIZE));
  const pageRows = shown.slice(
    (Math.min(currentPage, pages) - 1) * MEMORIES_PAGE_SIZE,
    Math.min(currentPage, pages) * MEMORIES_PAGE_SIZE,
  );

  const withSource = memories.filter((m) => m.source).length;
  const babiesWithMemories = new Set(memories.map((m) => m.babyId)).size;
  const meanScore = memories.length
    ? memories.reduce((sum, m) => sum + m.score, 0) / memories.length
    : null;
  const newest = memories[0];

  return (
    <Stack gap="lg">
      <LabInsightsHeader title={M.title} description={M.description} lab={lab} />

      <SimpleGrid cols={{ base: 1, xs: 2, md: 4 }} spacing="md">
        <FigureTile
          title={M.memories}
          value={decimal(memories.length, 0)}
          caption={M.memoriesCaption(babiesWithMemories)}
        />
        <FigureTile
          title={M.fromSnippets}
          value={`${decimal(withSource, 0)} (${share(memories.length ? withSource / memories.length : null, 0)})`}
          caption={M.fromSnippetsCaption(sources.length)}
        />
        <FigureTile
          title={M.meanScore}
          value={decimal(meanScore, 3)}
          caption={M.meanScoreCaption(decimal(CAPITALIZE_SCORE, 2))}
        />
        <FigureTile
          title={M.newest}
          value={newest ? simClock(newest.at) : '-'}
          caption={newest ? M.newestCaption(newest.babyId) : undefined}
        />
      </SimpleGrid>

      {memories.length === 0 ? (
        <EmptyState
          title={M.emptyTitle}
          description={M.emptyDescription(
            decimal(CAPITALIZE_SCORE, 2),
            share(CAPITALIZE_CHANCE, 0),
          )}
        />
      ) : (
        <>
          <InsightPanel title={M.listTitle} subtitle={M.listSubtitle}>
            <Stack gap="sm">
              <Chip.Group
                value={theme ?? ALL_THEMES}
                onChange={(value) => setTheme(value === ALL_THEMES ? null : value)}
              >
                <Group gap="xs" role="radiogroup" aria-label={M.themeFilter}>
                  <Chip value={ALL_THEMES} size="xs" variant="light">
                    {`${M.allThemes} (${memories.length})`}
                  </Chip>
                  {themes.map((t) => (
                    <Chip key={t.theme} value={t.theme} size="xs" variant="light">
                      {`${themeLabel(t.theme)} (${t.count})`}
                    </Chip>
                  ))}
                </Group>
              </Chip.Group>
              {shown.length === 0 ? (
                <Text size="sm" c="dimmed">
                  {M.noMatch}
                </Text>
              ) : (
                <MemoriesTable rows={pageRows} onOpen={setOpened} />
              )}
              <Group justify="space-between">
                <Text size="xs" c="dimmed" className="tabular-nums">
                  {M.shown(pageRows.length, shown.length)}
                </Text>
                {pages > 1 ? (
                  <Pagination
                    size="sm"
                    total={pages}
                    value={Math.min(currentPage, pages)}
                    onChange={(p) => setPage({ theme, page: p })}
                  />
                ) : null}
              </Group>
            </Stack>
          </InsightPanel>
          <SourcesPanel groups={sources} onOpen={setOpened} />
        </>
      )}

      <SnippetDetailsModal snippetId={opened} onClose={() => setOpened(null)} />
    </Stack>
  );
}
