import { useCallback, useMemo, useState } from 'react';
import {
  Center,
  Grid,
  Group,
  Paper,
  SegmentedControl,
  Select,
  Slider,
  Stack,
  Switch,
  Text,
} from '@mantine/core';
import { livingBabies, TICK_MS } from '../lab/simulation';
import type { LabState } from '../lab/types';
import {
  babyPool,
  DEFAULT_FILTERS,
  filterBabies,
  generationsPresent,
  labKpis,
  meanDna,
  type BabyFilters,
} from './babiesView';
import { BabyPanel } from './BabyPanel';
import { ExplanationPanel } from './ExplanationPanel';
import { GridView } from './GridView';
import { KpiTiles } from './KpiTiles';
import { LabHeader, type LabHeaderLabels } from '../lab/LabHeader';
import { BABIES_MESSAGES as M } from './messages';
import { NetworkView } from './NetworkView';
import { TimelineView } from './TimelineView';

const HEADER_LABELS: LabHeaderLabels = M;

export type BabiesView = 'network' | 'grid' | 'timeline';

const VIEWS: { value: BabiesView; label: string }[] = [
  { value: 'network', label: M.viewNetwork },
  { value: 'grid', label: M.viewGrid },
  { value: 'timeline', label: M.viewTimeline },
];

const ALL = 'all';

function FiltersBar({
  filters,
  generations,
  onChange,
}: {
  filters: BabyFilters;
  generations: number[];
  onChange: (next: BabyFilters) => void;
}) {
  const options = useMemo(
    () => [
      { value: ALL, label: M.allGenerations },
      // The chosen generation stays offered after its last baby is archived.
      ...(filters.generation === null || generations.includes(filters.generation)
        ? generations
        : [...generations, filters.generation].sort((a, b) => b - a)
      ).map((g) => ({ value: String(g), label: M.generationOption(g) })),
    ],
    [generations, filters.generation],
  );
  return (
    <Group gap="lg" align="flex-end" wrap="wrap">
      <Select
        label={M.filterGeneration}
        data={options}
        value={filters.generation === null ? ALL : String(filters.generation)}
        onChange={(v) => onChange({ ...filters, generation: !v || v === ALL ? null : Number(v) })}
        allowDeselect={false}
        w={220}
      />
      <div style={{ width: 260 }}>
        <Group justify="space-between" mb={8}>
          <Text size="sm" fw={500} id="babies-min-fitness">
            {M.filterMinFitness}
          </Text>
          <Text size="sm" fw={600} className="tabular-nums">
            {filters.minFitness}&nbsp;%
          </Text>
        </Group>
        <Slider
          min={0}
          max={100}
          step={5}
          value={filters.minFitness}
          onChange={(v) => onChange({ ...filters, minFitness: v })}
          // The value is written beside the title: no bubble over it.
          label={null}
          thumbLabel={M.filterMinFitness}
          color="violet"
          marks={[{ value: 0 }, { value: 50 }, { value: 100 }]}
        />
      </div>
      <Switch
        label={M.showArchived}
        checked={filters.showArchived}
        onChange={(e) => onChange({ ...filters, showArchived: e.currentTarget.checked })}
        mb={6}
      />
    </Group>
  );
}

/**
 * The Digital Babies Laboratory (spec 001 §2.4) over a lab state: header, KPIs, the three views
 * under the filters, the selected baby's panel and the explanatory panel. The screen feeds it
 * from the lab provider; tests feed it known states.
 */
export function BabiesLaboratory({
  state,
  running,
  onRunningChange,
}: {
  state: LabState;
  running: boolean;
  onRunningChange: (running: boolean) => void;
}) {
  const [view, setView] = useState<BabiesView>('network');
  const [filters, setFilters] = useState<BabyFilters>(DEFAULT_FILTERS);
  const [selectedId, setSelectedId] = useState<string | null>(null);

  // Derived once per tick (the state is a new object only when the lab moves).
  const kpis = useMemo(() => labKpis(state), [state]);
  const living = useMemo(() => livingBabies(state), [state]);
  const mean = useMemo(() => meanDna(living), [living]);
  const pool = useMemo(
    () => babyPool(state.babies, filters.showArchived),
    [state.babies, filters.showArchived],
  );
  const generations = useMemo(() => generationsPresent(pool), [pool]);
  const poolSize = pool.length;
  const shown = useMemo(() => filterBabies(state.babies, filters), [state.babies, filters]);
  // Looked up among every baby: the panel stays on a baby archived while it is open.
  const selected = useMemo(
    () => (selectedId ? (state.babies.find((b) => b.id === selectedId) ?? null) : null),
    [state.babies, selectedId],
  );
  const select = useCallback(
    (id: string) => setSelectedId((current) => (current === id ? null : id)),
    [],
  );

  let content;
  if (state.babies.length === 0) {
    content = M.emptyLab;
  } else if (shown.length === 0) {
    content = M.noBabies;
  }

  return (
    <Stack gap="lg">
      <LabHeader
        title={M.title}
        description={M.description}
        labels={HEADER_LABELS}
        generation={state.generation}
        population={kpis.population}
        archived={kpis.archived}
        running={running}
        onRunningChange={onRunningChange}
      />
      <KpiTiles kpis={kpis} running={running} />
      <Grid gap="lg" align="flex-start">
        <Grid.Col span={selected ? { base: 12, lg: 8 } : 12}>
          <Paper withBorder radius="md" p="md">
            <Stack gap="md">
              <Group justify="space-between" wrap="wrap" gap="sm">
                <SegmentedControl
                  aria-label={M.viewsLabel}
                  data={VIEWS}
                  value={view}
                  onChange={(v) => setView(v as BabiesView)}
                />
                <Text size="sm" c="dimmed" className="tabular-nums" data-shown-count>
                  {M.shownCount(shown.length, poolSize)}
                </Text>
              </Group>
              <FiltersBar filters={filters} generations={generations} onChange={setFilters} />
              {content ? (
                <Center mih={160}>
                  <Text c="dimmed" size="sm">
                    {content}
                  </Text>
                </Center>
              ) : view === 'network' ? (
                <NetworkView babies={shown} selectedId={selectedId} onSelect={select} />
              ) : view === 'grid' ? (
                <GridView babies={shown} selectedId={selectedId} onSelect={select} />
              ) : (
                <TimelineView
                  babies={shown}
                  now={state.tick * TICK_MS}
                  selectedId={selectedId}
                  onSelect={select}
                />
              )}
            </Stack>
          </Paper>
        </Grid.Col>
        {selected ? (
          <Grid.Col span={{ base: 12, lg: 4 }}>
            <BabyPanel baby={selected} mean={mean} onClose={() => setSelectedId(null)} />
          </Grid.Col>
        ) : null}
      </Grid>
      <ExplanationPanel />
    </Stack>
  );
}
