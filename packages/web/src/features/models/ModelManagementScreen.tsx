import { useMemo, useState } from 'react';
import {
  Badge,
  Button,
  Group,
  Paper,
  Select,
  SimpleGrid,
  Skeleton,
  Stack,
  Tabs,
  Text,
} from '@mantine/core';
import { IconPlus } from '@tabler/icons-react';
import type { Model, ModelStats } from '@adam/contracts';
import { confirmAction } from '../../components/ConfirmDialog';
import { FilterBar, TextFilter } from '../../components/FilterBar';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState } from '../../components/QueryState';
import { StatCard } from '../../components/StatCard';
import { toast } from '../../layout/toasts';
import { formatNumber } from '../../lib/format';
import { LOADING_SKELETONS, VIRTUAL_LIST } from './constants';
import { InstallLogsDialog } from './InstallLogsDialog';
import { LanguagePacksPanel } from './LanguagePacks';
import { MODEL_MESSAGES, reembedJobNotice } from './messages';
import { ModelCard, type ModelCardHandlers } from './ModelCard';
import { CreateModelDialog, EditModelDialog } from './ModelFormDialogs';
import { ModelList } from './ModelList';
import {
  MODEL_SORTS,
  SORT_OPTIONS,
  STATUS_FILTERS,
  STATUS_FILTER_OPTIONS,
  languageFilterOptions,
  matchesFilters,
  sortModels,
  tabOf,
  type ModelSort,
  type ModelTab,
} from './modelRules';
import { reasonOf, useModels, useToggleModel } from './models.api';
import { TestModelDialog } from './TestModelDialog';
import { useModelOperations } from './useModelOperations';
import { MODEL_FILTER_KEYS, usePersistedState } from './usePersistedState';
import { useCan } from '../../session/useCan';

const TAB_LABELS: Record<ModelTab, string> = {
  embedding: 'Embedding Models',
  spacy: 'SpaCy Models',
};

function StatsStrip({ stats }: { stats: ModelStats }) {
  return (
    <SimpleGrid cols={{ base: 2, sm: 3, lg: 6 }} spacing="sm" aria-label="Model statistics">
      <StatCard title="Total Models" value={formatNumber(stats.total_models)} />
      <StatCard title="Active" value={formatNumber(stats.active_models)} color="teal" />
      <StatCard title="Loaded" value={formatNumber(stats.loaded_models)} />
      <StatCard title="Installed" value={formatNumber(stats.installed_models)} />
      <StatCard
        title="Disk Usage"
        value={`${formatNumber(Math.round(stats.total_disk_usage_mb))} MB`}
      />
      <StatCard title="Languages" value={formatNumber(stats.available_languages)} />
    </SimpleGrid>
  );
}

function SkeletonCards() {
  return (
    <Stack gap={VIRTUAL_LIST.spacing} aria-busy="true" aria-label="Loading models">
      {Array.from({ length: LOADING_SKELETONS }, (_, i) => (
        <Skeleton
          key={i}
          height={VIRTUAL_LIST.minItemHeight}
          radius="md"
          data-testid="model-skeleton"
        />
      ))}
    </Stack>
  );
}

/**
 * Model Management (spec 001 §2.2, §4): stats, the Embedding and SpaCy tabs, filters kept in
 * local storage, expandable cards (virtualised when long), install / uninstall with live
 * progress, activation, test, edit, installation logs, and the language packs on the SpaCy tab.
 */
export function ModelManagementScreen() {
  const canWrite = useCan('operator');
  const { data, isLoading, isError, error, refetch } = useModels();
  const models = data?.models;
  const { operations, install, uninstall } = useModelOperations(models);
  const toggle = useToggleModel();

  const [tab, setTab] = useState<ModelTab>('embedding');
  const [search, setSearch] = usePersistedState(MODEL_FILTER_KEYS.search, '');
  const [status, setStatus] = usePersistedState(MODEL_FILTER_KEYS.status, 'all', (v) =>
    (STATUS_FILTERS as readonly string[]).includes(v),
  );
  const [language, setLanguage] = usePersistedState(MODEL_FILTER_KEYS.language, 'all');
  const [sort, setSort] = useState<ModelSort>('name');
  const [expanded, setExpanded] = useState<ReadonlySet<number>>(new Set());

  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Model | null>(null);
  const [testing, setTesting] = useState<Model | null>(null);
  const [logsOf, setLogsOf] = useState<Model | null>(null);

  const languageOptions = useMemo(() => {
    const present = (models ?? []).map((m) => m.language);
    // A remembered language no model has any more stays selectable, so it can be cleared.
    if (language !== 'all') present.push(language);
    return languageFilterOptions(present);
  }, [models, language]);

  const filtered = useMemo(
    () =>
      sortModels(
        (models ?? []).filter((m) => matchesFilters(m, { search, status, language })),
        sort,
      ),
    [models, search, status, language, sort],
  );
  const byTab: Record<ModelTab, Model[]> = {
    embedding: filtered.filter((m) => tabOf(m) === 'embedding'),
    spacy: filtered.filter((m) => tabOf(m) === 'spacy'),
  };
  const builtinIds = useMemo(
    () => new Set((models ?? []).filter((m) => m.builtin).map((m) => m.id)),
    [models],
  );

  const handlers: ModelCardHandlers = {
    onInstall: (model) => void install(model),
    onUninstall: (model) =>
      confirmAction({
        title: `Uninstall ${model.name}?`,
        message: MODEL_MESSAGES.uninstallConfirm,
        confirmLabel: 'Uninstall',
        danger: true,
        onConfirm: () => void uninstall(model),
      }),
    onToggleActive: (model, active) =>
      toggle.mutate(
        { model, active },
        {
          onSuccess: (result) => {
            // As asked: an embedding model's flag turns once its re-embedding job completes.
            toast.success(
              active
                ? MODEL_MESSAGES.activated(model.name)
                : MODEL_MESSAGES.deactivated(model.name),
            );
            if (result.job_id !== null) toast.info(reembedJobNotice(result.job_id));
          },
          onError: (e) => toast.error(MODEL_MESSAGES.toggleFailed(model.name, reasonOf(e))),
        },
      ),
    onTest: setTesting,
    onEdit: setEditing,
    onLogs: setLogsOf,
    onExpandedChange: (model, open) =>
      setExpanded((current) => {
        const next = new Set(current);
        if (open) next.add(model.id);
        else next.delete(model.id);
        return next;
      }),
  };

  const shown = byTab[tab];
  const renderCard = (model: Model) => (
    <ModelCard
      model={model}
      operation={operations[model.id]}
      expanded={expanded.has(model.id)}
      toggling={toggle.isPending && toggle.variables?.model.id === model.id}
      handlers={handlers}
    />
  );

  return (
    <Stack gap="lg">
      <PageHeader
        title="Model Management"
        description="Embedding and language models: install from the model hub, activate, test."
        actions={
          canWrite ? (
            <Button leftSection={<IconPlus size={16} />} onClick={() => setCreating(true)}>
              New Model
            </Button>
          ) : undefined
        }
      />

      {data ? <StatsStrip stats={data.stats} /> : null}

      <Tabs
        value={tab}
        onChange={(value) => value && setTab(value as ModelTab)}
        keepMounted={false}
      >
        <Tabs.List>
          {(['embedding', 'spacy'] as const).map((t) => (
            <Tabs.Tab key={t} value={t}>
              <Group gap={8} wrap="nowrap">
                <span>{TAB_LABELS[t]}</span>
                <Badge
                  size="sm"
                  variant={tab === t ? 'filled' : 'light'}
                  color={tab === t ? 'indigo' : 'gray'}
                  className="tabular-nums"
                  data-testid={`tab-count-${t}`}
                >
                  {data ? formatNumber(byTab[t].length) : '–'}
                </Badge>
              </Group>
            </Tabs.Tab>
          ))}
        </Tabs.List>
      </Tabs>

      {tab === 'spacy' ? <LanguagePacksPanel builtinModelIds={builtinIds} /> : null}

      <Paper withBorder radius="md" p="sm">
        <FilterBar
          label="Filter the models"
          active={search !== '' || status !== 'all' || language !== 'all'}
          onReset={() => {
            setSearch('');
            setStatus('all');
            setLanguage('all');
          }}
        >
          <TextFilter
            label="Search"
            placeholder="Name or language"
            search
            value={search}
            onChange={setSearch}
            w={260}
          />
          <Select
            label="Status"
            data={STATUS_FILTER_OPTIONS}
            value={status}
            onChange={(v) => setStatus(v ?? 'all')}
            allowDeselect={false}
            w={170}
          />
          <Select
            label="Language"
            data={languageOptions}
            value={language}
            onChange={(v) => setLanguage(v ?? 'all')}
            allowDeselect={false}
            w={180}
          />
          <Select
            label="Sort by"
            data={SORT_OPTIONS}
            value={sort}
            onChange={(v) =>
              setSort(
                v && (MODEL_SORTS as readonly string[]).includes(v) ? (v as ModelSort) : 'name',
              )
            }
            allowDeselect={false}
            w={160}
          />
        </FilterBar>
      </Paper>

      {isError && !data ? (
        <ErrorState
          title={MODEL_MESSAGES.loadFailed(error.message)}
          onRetry={() => void refetch()}
        />
      ) : isLoading || !data ? (
        <SkeletonCards />
      ) : shown.length === 0 ? (
        <EmptyState
          title={MODEL_MESSAGES.noModels}
          description={
            models && models.length > 0
              ? 'No model of this tab matches the filters.'
              : 'Register one with New Model.'
          }
        />
      ) : (
        <ModelList
          models={shown}
          anyExpanded={shown.some((m) => expanded.has(m.id))}
          renderCard={renderCard}
        />
      )}

      {shown.length > 0 ? (
        <Text size="xs" c="dimmed">
          {tab === 'embedding'
            ? 'Embedding, transformer, emotion and sentiment models are listed here; language packs are on the SpaCy tab.'
            : 'SpaCy-family models: one per installed language pack.'}
        </Text>
      ) : null}

      <CreateModelDialog opened={creating} onClose={() => setCreating(false)} />
      <EditModelDialog model={editing} onClose={() => setEditing(null)} />
      <TestModelDialog model={testing} onClose={() => setTesting(null)} />
      <InstallLogsDialog model={logsOf} onClose={() => setLogsOf(null)} />
    </Stack>
  );
}
