import {
  ActionIcon,
  Alert,
  Anchor,
  Badge,
  Button,
  Code,
  Collapse,
  Group,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  Tooltip,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconChevronDown,
  IconChevronUp,
  IconDownload,
  IconFileText,
  IconFlask,
  IconPencil,
  IconRefresh,
  IconTrash,
} from '@tabler/icons-react';
import type { Model } from '@adam/contracts';
import { formatBytes, formatNumber } from '../../lib/format';
import { VIRTUAL_LIST } from './constants';
import { useCancelJob } from '../jobs/jobs.api';
import { useModelProgress } from './models.api';
import { activatingLabel } from './messages';
import {
  STATUS_COLOR,
  canInstall,
  canRetryInstall,
  canTest,
  canToggle,
  canUninstall,
  languageFlag,
  languageName,
  statusLabel,
} from './modelRules';
import type { ModelOperation } from './useModelOperations';
import { useCan } from '../../session/useCan';
import { DateTime } from '../../components/DateTime';

export interface ModelCardHandlers {
  onInstall: (model: Model) => void;
  onUninstall: (model: Model) => void;
  onToggleActive: (model: Model, active: boolean) => void;
  onTest: (model: Model) => void;
  onEdit: (model: Model) => void;
  onLogs: (model: Model) => void;
  onExpandedChange: (model: Model, expanded: boolean) => void;
}

/** A size before install is the download's expected size, 0 when the hub did not say. */
const sizeText = (size: number) => (size > 0 ? formatBytes(size) : '-');

function Detail({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <Stack gap={2}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text size="sm" component="div" style={{ wordBreak: 'break-all' }}>
        {children}
      </Text>
    </Stack>
  );
}

/** Live progress of an install (bar, percent, message) or an uninstall (running bar, message). */
function OperationProgress({ model, operation }: { model: Model; operation?: ModelOperation }) {
  const progress = useModelProgress(model.id);
  const uninstalling = operation?.kind === 'uninstall';
  const cancel = useCancelJob();
  const jobId = uninstalling ? null : (progress?.job_id ?? null);
  const value = Math.min(100, Math.max(0, progress?.progress ?? 0));
  const message =
    progress?.message || (uninstalling ? 'Removing the model files…' : 'Starting the download…');
  return (
    <Stack
      gap={4}
      aria-label={`${uninstalling ? 'Uninstall' : 'Install'} progress of ${model.name}`}
    >
      <Group justify="space-between" gap="xs" wrap="nowrap">
        <Text size="xs" c="dimmed" lineClamp={1}>
          {message}
        </Text>
        {uninstalling ? null : (
          <Group gap={6} wrap="nowrap">
            <Text
              size="xs"
              fw={600}
              className="tabular-nums"
              data-testid={`model-progress-${model.id}`}
            >
              {Math.round(value)}%
            </Text>
            {jobId !== null ? (
              // Stops the install job; its partial files stay, so a new install resumes.
              <Button
                size="compact-xs"
                variant="subtle"
                color="red"
                loading={cancel.isPending}
                onClick={() => cancel.mutate(jobId)}
                aria-label={`Cancel the install of ${model.name}`}
              >
                Cancel
              </Button>
            ) : null}
          </Group>
        )}
      </Group>
      <Progress
        value={uninstalling ? 100 : value}
        striped
        animated
        size="sm"
        radius="xl"
        color={uninstalling ? 'orange' : 'indigo'}
        aria-hidden
      />
    </Stack>
  );
}

export function ModelCard({
  model,
  operation,
  expanded,
  toggling,
  handlers,
}: {
  model: Model;
  operation?: ModelOperation;
  expanded: boolean;
  /** Its toggle call is in flight. */
  toggling: boolean;
  handlers: ModelCardHandlers;
}) {
  // Nothing else may start while the model installs or uninstalls (§4).
  const busy = operation !== undefined || model.status === 'downloading';
  const perf = model.performance;
  const canWrite = useCan('operator');

  return (
    <Paper
      component="article"
      withBorder
      radius="md"
      p="md"
      // Every card fills the list's minimum item height (spec 001 §9), plain or virtualised,
      // with its actions at the bottom.
      mih={VIRTUAL_LIST.minItemHeight}
      style={{ display: 'flex', flexDirection: 'column' }}
      aria-label={model.name}
      data-model-id={model.id}
      aria-busy={busy}
    >
      <Stack gap="sm" style={{ flex: 1 }}>
        <Group justify="space-between" align="flex-start" wrap="nowrap">
          <Stack gap={6} style={{ minWidth: 0 }}>
            <Group gap="xs" wrap="wrap">
              <Text fw={700} size="lg" style={{ wordBreak: 'break-all' }}>
                {model.name}
              </Text>
              <Badge variant="light" color={STATUS_COLOR[model.status]} data-testid="model-status">
                {statusLabel(model.status)}
              </Badge>
              {model.active ? (
                <Badge variant="filled" color="teal">
                  active
                </Badge>
              ) : null}
              {model.activation_job_id !== null ? (
                <Badge variant="light" color="blue" tt="none">
                  {activatingLabel(model.activation_job_id)}
                </Badge>
              ) : null}
              {model.builtin ? (
                <Badge variant="outline" color="gray">
                  built-in
                </Badge>
              ) : null}
            </Group>
            <Group gap="xs">
              <Badge variant="default" tt="none">
                {model.type}
              </Badge>
              <Badge variant="default" tt="none">
                {languageFlag(model.language)} {languageName(model.language)}
              </Badge>
              <Text size="xs" c="dimmed" className="tabular-nums">
                v{model.version || '-'} · {sizeText(model.size)}
                {model.dimension ? ` · ${model.dimension} dimensions` : ''}
              </Text>
            </Group>
          </Stack>
          {canWrite && canToggle(model) ? (
            <Switch
              label="Active"
              // Being activated: on, and held until its re-embedding job completes.
              checked={model.active || model.activation_job_id !== null}
              disabled={busy || toggling || model.activation_job_id !== null}
              onChange={(e) => handlers.onToggleActive(model, e.currentTarget.checked)}
              aria-label={`Active: ${model.name}`}
            />
          ) : null}
        </Group>

        {model.description ? (
          <Text size="sm" c="dimmed" lineClamp={expanded ? undefined : 2}>
            {model.description}
          </Text>
        ) : null}

        {busy ? <OperationProgress model={model} operation={operation} /> : null}

        {model.status === 'error' && model.error ? (
          <Alert color="red" variant="light" icon={<IconAlertTriangle size={16} />} p="xs">
            <Text size="sm">{model.error}</Text>
          </Alert>
        ) : null}

        <Group justify="space-between" gap="xs" mt="auto">
          <Group gap="xs">
            {canWrite && canInstall(model) ? (
              <Button
                size="xs"
                leftSection={<IconDownload size={14} />}
                onClick={() => handlers.onInstall(model)}
                disabled={busy}
              >
                Install
              </Button>
            ) : null}
            {canWrite && canRetryInstall(model) ? (
              <Button
                size="xs"
                color="orange"
                leftSection={<IconRefresh size={14} />}
                onClick={() => handlers.onInstall(model)}
                disabled={busy}
              >
                Retry install
              </Button>
            ) : null}
            {canTest(model) ? (
              <Button
                size="xs"
                variant="light"
                leftSection={<IconFlask size={14} />}
                onClick={() => handlers.onTest(model)}
                disabled={busy}
              >
                Test
              </Button>
            ) : null}
            {canWrite && canUninstall(model) ? (
              <Button
                size="xs"
                variant="light"
                color="red"
                leftSection={<IconTrash size={14} />}
                onClick={() => handlers.onUninstall(model)}
                disabled={busy}
              >
                Uninstall
              </Button>
            ) : null}
          </Group>
          <Group gap={4}>
            <Tooltip label={model.builtin ? "Built-in models can't be edited" : 'Edit'}>
              <ActionIcon
                variant="subtle"
                aria-label={`Edit ${model.name}`}
                onClick={() => handlers.onEdit(model)}
                disabled={busy || model.builtin}
              >
                <IconPencil size={16} />
              </ActionIcon>
            </Tooltip>
            <Tooltip label="Installation logs">
              <ActionIcon
                variant="subtle"
                aria-label={`Installation logs of ${model.name}`}
                onClick={() => handlers.onLogs(model)}
              >
                <IconFileText size={16} />
              </ActionIcon>
            </Tooltip>
            <ActionIcon
              variant="subtle"
              aria-label={`${expanded ? 'Hide' : 'Show'} details of ${model.name}`}
              aria-expanded={expanded}
              onClick={() => handlers.onExpandedChange(model, !expanded)}
            >
              {expanded ? <IconChevronUp size={16} /> : <IconChevronDown size={16} />}
            </ActionIcon>
          </Group>
        </Group>

        <Collapse expanded={expanded}>
          {expanded ? (
            <SimpleGrid
              cols={{ base: 1, sm: 2, lg: 3 }}
              spacing="sm"
              pt="xs"
              aria-label="Model details"
            >
              <Detail label="Version">{model.version || '-'}</Detail>
              <Detail label="Size">{sizeText(model.size)}</Detail>
              <Detail label="Dimension">{model.dimension ?? '-'}</Detail>
              <Detail label="Load time">
                {perf.load_time_ms === null ? '-' : `${formatNumber(perf.load_time_ms, 0)} ms`}
              </Detail>
              <Detail label="Memory">
                {perf.memory_mb === null ? '-' : `${formatNumber(perf.memory_mb, 1)} MB`}
              </Detail>
              <Detail label="Inference speed">
                {perf.inference_speed === null
                  ? '-'
                  : `${formatNumber(perf.inference_speed, 1)} texts/s`}
              </Detail>
              <Detail label="Source">
                {model.source_url ? (
                  <Anchor href={model.source_url} target="_blank" rel="noreferrer" size="sm">
                    {model.source_url}
                  </Anchor>
                ) : (
                  'Ships with ADAM'
                )}
              </Detail>
              <Detail label="Repository">
                {model.repo ? <Code>{`${model.repo}@${model.revision}`}</Code> : '-'}
              </Detail>
              <Detail label="Local path">
                {model.local_path ? <Code>{model.local_path}</Code> : '-'}
              </Detail>
              <Detail label="Updated">
                <DateTime value={model.updated_at} />
              </Detail>
              {model.error ? <Detail label="Error">{model.error}</Detail> : null}
            </SimpleGrid>
          ) : null}
        </Collapse>
      </Stack>
    </Paper>
  );
}
