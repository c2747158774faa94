/**
 * Index → Quality (issue 27): evaluation sets, each a list of queries with the results judged
 * relevant, and the runs that score the search against them. Opened with ?set=N (that set),
 * ?run=N (that run, in its set) or ?add_query=text&mode=m (the add-query flow, from the search
 * history).
 */
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import {
  Button,
  Grid,
  Group,
  Paper,
  Stack,
  Switch,
  Text,
  Tooltip,
  UnstyledButton,
} from '@mantine/core';
import { IconFileImport, IconPlus } from '@tabler/icons-react';
import { SearchMode, type EvaluationQuery } from '@adam/contracts';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, LoadingState } from '../../components/QueryState';
import { formatNumber } from '../../lib/format';
import { formatRelative } from '../../lib/relativeTime';
import { toast } from '../../layout/toasts';
import { useCan } from '../../session/useCan';
import { useEvaluationSets, useRunSetId, useUpdateSet, type QualitySet } from './quality.api';
import { QualityBeirImportModal } from './QualityBeirImport';
import { QualityQueryModal, type QueryEditorTarget } from './QualityQueryModal';
import { QualitySetDetail, type DetailTab } from './QualitySetDetail';
import { QualitySetFormModal } from './QualitySetForm';

const WATCHED_HELP =
  'Watched sets are run on their own after a rebuild, a model switch, a change of search settings and on the schedule; a drop raises an alert.';

function positiveInt(value: string | null): number | null {
  const n = Number(value);
  return value !== null && Number.isSafeInteger(n) && n > 0 ? n : null;
}

function SetRow({
  set,
  selected,
  canWrite,
  onSelect,
}: {
  set: QualitySet;
  selected: boolean;
  canWrite: boolean;
  onSelect: () => void;
}) {
  const update = useUpdateSet();
  return (
    <Paper
      withBorder
      radius="sm"
      p="sm"
      bg={selected ? 'var(--mantine-color-blue-light)' : undefined}
      data-testid="set-row"
      aria-current={selected ? 'true' : undefined}
    >
      <Stack gap={6}>
        <UnstyledButton onClick={onSelect} style={{ minWidth: 0 }} aria-label={set.name}>
          <Text fw={600} size="sm" truncate="end">
            {set.name}
          </Text>
          <Text size="xs" c="dimmed">
            {formatNumber(set.latest.query_count)} queries · v{set.latest.number} · updated{' '}
            <span title={set.updated_at}>{formatRelative(set.updated_at)}</span>
          </Text>
        </UnstyledButton>
        {typeof set.watched === 'boolean' ? (
          <Tooltip label={WATCHED_HELP} multiline maw={300} withArrow>
            <Switch
              size="xs"
              label="Watched"
              checked={set.watched}
              disabled={!canWrite || update.isPending}
              aria-label={`Watch ${set.name}`}
              onChange={(e) =>
                update.mutate(
                  { id: set.id, change: { watched: e.currentTarget.checked } },
                  { onError: (err) => toast.error(`Could not change the set: ${err.message}`) },
                )
              }
            />
          </Tooltip>
        ) : null}
      </Stack>
    </Paper>
  );
}

export function QualityScreen() {
  const canWrite = useCan('operator');
  const canDelete = useCan('administrator');
  const [params, setParams] = useSearchParams();
  const sets = useEvaluationSets();
  const [formOpen, setFormOpen] = useState<{ editing: QualitySet | null } | null>(null);
  const [importOpen, setImportOpen] = useState(false);

  const runParam = positiveInt(params.get('run'));
  const setParam = positiveInt(params.get('set'));
  // A link naming only a run (a quality alert) opens the run's set.
  const runSet = useRunSetId(setParam === null ? runParam : null);
  const list = sets.data?.sets ?? [];
  const selectedId = setParam ?? runSet.data ?? list[0]?.id ?? null;
  const selected = list.find((s) => s.id === selectedId) ?? null;
  const [tab, setTab] = useState<DetailTab>(runParam !== null ? 'runs' : 'queries');

  // ?add_query=text&mode=m (a search-history entry): the add flow opens with that text searched.
  const addText = params.get('add_query');
  const modeParam = SearchMode.safeParse(params.get('mode'));
  const [editor, setEditor] = useState<QueryEditorTarget | null>(null);
  const linkedEditor: QueryEditorTarget | null =
    addText !== null && addText.trim() !== '' && canWrite
      ? {
          kind: 'add',
          setId: selectedId,
          text: addText.slice(0, 2000),
          mode: modeParam.success ? modeParam.data : 'hybrid',
          search: true,
        }
      : null;
  const openEditor = editor ?? (sets.isSuccess ? linkedEditor : null);

  // One address change per action: two updates in a row would each start from the same params.
  const updateParams = (change: Record<string, string | null>) =>
    setParams((p) => {
      const next = new URLSearchParams(p);
      for (const [name, value] of Object.entries(change)) {
        if (value === null) next.delete(name);
        else next.set(name, value);
      }
      return next;
    });
  // A run belongs to the set it was opened with.
  const selectSet = (id: number | null) =>
    updateParams(
      id === selectedId
        ? { set: id === null ? null : String(id) }
        : { set: id === null ? null : String(id), run: null },
    );

  // Closing the add flow opened by a link drops the link's parameters, so it does not reopen.
  const closeEditor = (savedTo?: number) => {
    setEditor(null);
    const change: Record<string, string | null> = {};
    if (addText !== null) Object.assign(change, { add_query: null, mode: null });
    if (savedTo !== undefined) {
      change.set = String(savedTo);
      if (savedTo !== selectedId) change.run = null;
      setTab('queries');
    }
    if (Object.keys(change).length > 0) updateParams(change);
  };

  const actions = canWrite ? (
    <Group gap="sm" wrap="nowrap">
      <Button
        variant="default"
        leftSection={<IconFileImport size={16} />}
        onClick={() => setImportOpen(true)}
      >
        Import BEIR
      </Button>
      <Button leftSection={<IconPlus size={16} />} onClick={() => setFormOpen({ editing: null })}>
        New set
      </Button>
    </Group>
  ) : null;

  let body;
  if (sets.isPending) {
    body = <LoadingState rows={4} label="Loading the evaluation sets" />;
  } else if (sets.isError) {
    body = (
      <ErrorState
        title="Could not load the evaluation sets"
        message={sets.error.message}
        onRetry={() => void sets.refetch()}
      />
    );
  } else if (list.length === 0) {
    body = (
      <EmptyState
        title="No evaluation sets yet"
        description="An evaluation set is a list of real questions, each with the snippets or sources judged relevant to it (graded 0 to 3). A run scores the search against it in each mode, so you can tell whether a rebuild, a model switch or a settings change made search better or worse. Build one by searching and grading results, or import BEIR files."
        action={
          canWrite ? (
            <Group gap="sm" mt="sm">
              <Button
                leftSection={<IconPlus size={16} />}
                onClick={() => setFormOpen({ editing: null })}
              >
                Create a set
              </Button>
              <Button
                variant="default"
                leftSection={<IconFileImport size={16} />}
                onClick={() => setImportOpen(true)}
              >
                Import BEIR files
              </Button>
            </Group>
          ) : undefined
        }
      />
    );
  } else {
    body = (
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 4, xl: 3 }}>
          <Stack gap="xs" aria-label="Evaluation sets">
            {list.map((s) => (
              <SetRow
                key={s.id}
                set={s}
                selected={s.id === selectedId}
                canWrite={canWrite}
                onSelect={() => selectSet(s.id)}
              />
            ))}
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8, xl: 9 }}>
          {selectedId !== null && (selected || setParam !== null) ? (
            <QualitySetDetail
              key={selectedId}
              setId={selectedId}
              tab={tab}
              onTab={setTab}
              canWrite={canWrite}
              canDelete={canDelete}
              onAddQuery={() =>
                setEditor({
                  kind: 'add',
                  setId: selectedId,
                  text: '',
                  mode: 'hybrid',
                  search: false,
                })
              }
              onEditQuery={(query: EvaluationQuery) =>
                setEditor({ kind: 'edit', setId: selectedId, query, mode: 'hybrid' })
              }
              onEditSet={(set) => setFormOpen({ editing: set })}
              onDeleted={() => selectSet(null)}
            />
          ) : null}
        </Grid.Col>
      </Grid>
    );
  }

  return (
    <Stack gap="lg">
      <PageHeader
        title="Search Quality"
        description="Evaluation sets: real queries with the results that should come back. Runs score every search mode against them and compare over time."
        actions={actions}
      />
      {body}
      <QualitySetFormModal
        opened={formOpen !== null}
        editing={formOpen?.editing ?? null}
        onClose={() => setFormOpen(null)}
        onSaved={selectSet}
      />
      <QualityBeirImportModal
        opened={importOpen}
        onClose={() => setImportOpen(false)}
        onImported={selectSet}
      />
      <QualityQueryModal
        target={openEditor}
        sets={list}
        onClose={() => closeEditor()}
        onSaved={(id) => closeEditor(id)}
      />
    </Stack>
  );
}
