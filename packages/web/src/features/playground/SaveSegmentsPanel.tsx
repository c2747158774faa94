import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  List,
  Paper,
  Progress,
  ScrollArea,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconCheck,
  IconDeviceFloppy,
  IconRefresh,
  IconRotateClockwise,
} from '@tabler/icons-react';
import { ARTICLE_MAX_BYTES, type Job, type SaveSegmentsResponse } from '@adam/contracts';
import { StepList } from '../../components/StepList';
import { formatBytes, formatNumber } from '../../lib/format';
import { usePublicConfig } from '../../session/config.api';
import { WIKI_MESSAGES } from './messages';
import {
  articleBytes,
  saveProgress,
  saveSteps,
  saveFailureText,
  type SaveFlowState,
} from './saveFlow';

type Diagnostics = NonNullable<SaveSegmentsResponse['diagnostics']>;

/** The save answer's diagnostics, or those the job stored with its result once it ran. */
function diagnosticsOf(state: SaveFlowState): Diagnostics | null {
  if (state.response?.diagnostics) return state.response.diagnostics;
  const result = state.job?.metadata.result as { diagnostics?: Diagnostics } | undefined;
  return result?.diagnostics ?? null;
}

function SegmentLimits() {
  const { data, isError } = usePublicConfig();
  const value = (v: number | string | undefined) => (data ? String(v) : isError ? '-' : '…');
  return (
    <Group gap="lg" wrap="wrap" aria-label="Segment limits">
      <Text size="sm">
        <Text span c="dimmed">
          Max tokens{' '}
        </Text>
        <Text span fw={600} className="tabular-nums">
          {value(data?.segment_max_tokens)}
        </Text>
      </Text>
      <Text size="sm">
        <Text span c="dimmed">
          Max sentences{' '}
        </Text>
        <Text span fw={600} className="tabular-nums">
          {value(data?.segment_max_sentences)}
        </Text>
      </Text>
      <Text size="sm">
        <Text span c="dimmed">
          Segmenter{' '}
        </Text>
        <Text span fw={600}>
          {value(data?.segmenter_model)}
        </Text>
      </Text>
    </Group>
  );
}

function DiagnosticsBlock({
  diagnostics,
  job,
}: {
  diagnostics: Diagnostics | null;
  job: Job | null;
}) {
  const stats = job?.stats;
  const lines = [
    ['Method', diagnostics?.method ?? stats?.segmentation_method],
    ['Fallback reason', diagnostics?.fallback_reason ?? stats?.last_fallback_reason],
    ['Last warning', stats?.last_warning],
    ['Last rejection', stats?.last_rejection_reason],
    [
      'Segments before / after',
      diagnostics
        ? `${diagnostics.counts.before} / ${diagnostics.counts.after}`
        : stats?.segmentation_stats
          ? `${stats.segmentation_stats.counts.before} / ${stats.segmentation_stats.counts.after}`
          : null,
    ],
  ].filter(([, v]) => v !== null && v !== undefined && v !== '') as [string, string][];
  const items = diagnostics?.items.slice(0, 5) ?? [];
  if (lines.length === 0 && items.length === 0) return null;
  return (
    <Stack gap={6} aria-label="Diagnostics">
      <Text size="sm" fw={600}>
        Diagnostics
      </Text>
      {lines.map(([label, value]) => (
        <Text key={label} size="xs">
          <Text span c="dimmed">
            {label}:{' '}
          </Text>
          {value}
        </Text>
      ))}
      {items.length > 0 ? (
        <Table withTableBorder fz="xs" verticalSpacing={4}>
          <Table.Tbody>
            {items.map((item, i) => (
              <Table.Tr key={i}>
                <Table.Td>
                  <Text size="xs" lineClamp={2}>
                    {item.snippet}
                  </Text>
                </Table.Td>
                <Table.Td className="tabular-nums" w={70}>
                  {item.score.toFixed(3)}
                </Table.Td>
                <Table.Td w={90}>
                  <Badge
                    size="xs"
                    variant="light"
                    color={item.status === 'accepted' ? 'teal' : 'gray'}
                  >
                    {item.status}
                  </Badge>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : null}
    </Stack>
  );
}

export interface SaveSegmentsPanelProps {
  state: SaveFlowState;
  text: string;
  savedText: string | null;
  onSave: () => void;
  onRetryJob: () => void;
  relaunching: boolean;
}

/** Step 3 of the encyclopedia flow (spec 002 §2, §4, §8). */
export function SaveSegmentsPanel({
  state,
  text,
  savedText,
  onSave,
  onRetryJob,
  relaunching,
}: SaveSegmentsPanelProps) {
  const bytes = articleBytes(text);
  const saved = (state.phase === 'tracking' || state.phase === 'saved') && savedText === text;
  const busy = state.phase === 'running';
  const diagnostics = diagnosticsOf(state);

  return (
    <Paper withBorder radius="md" p="md" h="100%">
      <Stack gap="md">
        <Group justify="space-between" align="flex-start">
          <div>
            <Title order={4}>3. Save segments</Title>
            <Text size="sm" c="dimmed">
              Cut the article into scored segments and store them through a job.
            </Text>
          </div>
          <Button
            onClick={onSave}
            disabled={text.length === 0 || saved}
            loading={busy}
            color={saved ? 'teal' : undefined}
            leftSection={saved ? <IconCheck size={16} /> : <IconDeviceFloppy size={16} />}
          >
            {saved ? 'Saved' : 'Save segments'}
          </Button>
        </Group>

        <SegmentLimits />
        <Text size="xs" c={bytes > ARTICLE_MAX_BYTES ? 'red' : 'dimmed'} className="tabular-nums">
          Article size {formatBytes(bytes)} of {formatBytes(ARTICLE_MAX_BYTES)} (
          {formatNumber(bytes)} bytes)
        </Text>

        <Stack gap={6}>
          <Group justify="space-between">
            <Text size="sm">Save progress</Text>
            <Text size="sm" className="tabular-nums">
              {saveProgress(state)}%
            </Text>
          </Group>
          <Progress
            value={saveProgress(state)}
            aria-label="Save progress"
            color={state.phase === 'stopped' ? 'red' : 'blue'}
            transitionDuration={200}
          />
          <Group justify="space-between">
            <Text size="sm">
              Job progress
              {state.jobId !== null ? (
                <Text span c="dimmed" size="sm">
                  {' '}
                  · job #{state.jobId}
                </Text>
              ) : null}
            </Text>
            <Text size="sm" className="tabular-nums" data-testid="job-progress">
              {state.jobProgress}%
            </Text>
          </Group>
          <Progress
            value={state.jobProgress}
            aria-label="Job progress"
            color={state.phase === 'failed' ? 'red' : state.phase === 'saved' ? 'teal' : 'blue'}
            animated={state.phase === 'tracking'}
            striped={state.phase === 'tracking'}
            transitionDuration={200}
          />
        </Stack>

        <StepList steps={saveSteps(state)} label="Save steps" />

        {state.saveFailure ? (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title={saveFailureText(state.saveFailure)}
          >
            <Stack gap="xs" align="flex-start">
              <Text size="xs" c="dimmed">
                Raw details
                {state.saveFailure.status !== null ? ` (HTTP ${state.saveFailure.status})` : ''}
              </Text>
              <ScrollArea.Autosize mah={160} w="100%">
                <Code block aria-label="Raw details">
                  {JSON.stringify(state.saveFailure.details ?? state.saveFailure.message, null, 2)}
                </Code>
              </ScrollArea.Autosize>
              <Button
                size="xs"
                variant="light"
                color="red"
                leftSection={<IconRefresh size={14} />}
                onClick={onSave}
              >
                Retry
              </Button>
            </Stack>
          </Alert>
        ) : null}

        {state.phase === 'failed' ? (
          <Alert
            color="red"
            variant="light"
            icon={<IconAlertTriangle size={18} />}
            title={WIKI_MESSAGES.jobFailed}
          >
            <Stack gap="xs" align="flex-start">
              {state.jobFailure ? <Text size="sm">{state.jobFailure}</Text> : null}
              {state.jobErrors === null ? (
                <Text size="xs" c="dimmed">
                  Reading the job's errors…
                </Text>
              ) : state.jobErrors.length === 0 ? (
                <Text size="xs" c="dimmed">
                  The job recorded no errors.
                </Text>
              ) : (
                <List size="sm" spacing={4} aria-label="Job errors">
                  {state.jobErrors.map((e, i) => (
                    <List.Item key={i}>
                      <Text size="sm">
                        <Text span fw={600}>
                          {e.type}
                        </Text>
                        : {e.message || e.error}
                        {e.url ? (
                          <Text span c="dimmed">
                            {' '}
                            ({e.url})
                          </Text>
                        ) : null}
                      </Text>
                      {e.diagnostic_summary ? (
                        <Text size="xs" c="dimmed">
                          {e.diagnostic_summary.snippet} · score{' '}
                          {e.diagnostic_summary.score.toFixed(3)}
                        </Text>
                      ) : null}
                    </List.Item>
                  ))}
                </List>
              )}
              <Button
                size="xs"
                variant="light"
                color="red"
                leftSection={<IconRotateClockwise size={14} />}
                onClick={onRetryJob}
                loading={relaunching}
              >
                Retry Job
              </Button>
            </Stack>
          </Alert>
        ) : null}

        {state.phase === 'saved' || state.phase === 'failed' ? (
          <DiagnosticsBlock diagnostics={diagnostics} job={state.job} />
        ) : null}
      </Stack>
    </Paper>
  );
}
