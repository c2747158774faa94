import { useState } from 'react';
import {
  Alert,
  Button,
  Grid,
  Group,
  List,
  NumberInput,
  Paper,
  Select,
  Stack,
  Text,
  Textarea,
} from '@mantine/core';
import { IconAlertTriangle, IconSend } from '@tabler/icons-react';
import { SCORE_BOUNDS, SOURCE_LANGUAGES, type JobPriority } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { EmptyState } from '../../components/QueryState';
import { PageHeader } from '../../components/PageHeader';
import { toast } from '../../layout/toasts';
import { FollowedJobCard } from './FollowedJobCard';
import { MESSAGES } from './messages';
import { useProcessSources } from './sources.api';

type SourceLanguage = (typeof SOURCE_LANGUAGES)[number];

const LANGUAGE_LABELS: Record<SourceLanguage, string> = {
  auto: 'Auto-detect',
  en: 'English',
  fr: 'French',
  es: 'Spanish',
};
/** The spec's order (spec 002 §9): normal, high, low. */
const PRIORITIES: readonly JobPriority[] = ['normal', 'high', 'low'];

/** Jobs kept on screen; older ones are still in the queue. */
const FOLLOWED_MAX = 5;

/** The URLs to send, one per non-blank line, trimmed, with the form line (1-based) each came from. */
export function readUrlLines(text: string): { urls: string[]; lines: number[] } {
  const urls: string[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const url = raw.trim();
    if (!url) return;
    urls.push(url);
    lines.push(i + 1);
  });
  return { urls, lines };
}

/** `urls[3]` → the index 3, or null for another field. */
function urlIndex(field: string): number | null {
  const match = /^urls\[(\d+)\]$/.exec(field);
  return match ? Number(match[1]) : null;
}

/** Add Sources (spec 002 §2, §4, §5): URLs one per line, queued as one job followed live. */
export function AddSourcesScreen() {
  const [text, setText] = useState('');
  const [minQuality, setMinQuality] = useState<number | string>('');
  const [language, setLanguage] = useState<SourceLanguage>('auto');
  const [priority, setPriority] = useState<JobPriority>('normal');
  const [urlsError, setUrlsError] = useState<string | null>(null);
  const [lineErrors, setLineErrors] = useState<{ line: number | null; message: string }[]>([]);
  const [followed, setFollowed] = useState<number[]>([]);
  const process = useProcessSources();

  const { urls, lines } = readUrlLines(text);

  const submit = () => {
    setLineErrors([]);
    if (urls.length === 0) {
      setUrlsError(MESSAGES.noUrls);
      toast.error(MESSAGES.noUrls);
      return;
    }
    setUrlsError(null);
    process.mutate(
      {
        urls,
        language,
        min_quality: typeof minQuality === 'number' ? minQuality : undefined,
        priority,
      },
      {
        onSuccess: (r) => {
          setFollowed((prev) =>
            [r.job_id, ...prev.filter((id) => id !== r.job_id)].slice(0, FOLLOWED_MAX),
          );
          setText('');
          toast.success(
            `Job ${r.job_id} queued with ${r.urls.length} URL${r.urls.length === 1 ? '' : 's'}`,
          );
        },
        onError: (error) => {
          toast.error(`${MESSAGES.queueFailed}: ${error.message}`);
          if (!isApiError(error)) return;
          const perLine = error.fieldErrors
            .filter((e) => e.field === 'urls' || urlIndex(e.field) !== null)
            .map((e) => {
              const index = urlIndex(e.field);
              return { line: index === null ? null : (lines[index] ?? null), message: e.message };
            });
          setLineErrors(perLine);
          if (perLine.length > 0) {
            setUrlsError(
              perLine.length === 1 && perLine[0]!.line === null
                ? perLine[0]!.message
                : `${perLine.length} line${perLine.length === 1 ? '' : 's'} to fix`,
            );
          }
        },
      },
    );
  };

  return (
    <Stack gap="lg">
      <PageHeader
        title="Add Sources"
        description="Queue web pages to be scraped, segmented into scored snippets and indexed."
      />
      <Grid gap="lg" align="flex-start">
        <Grid.Col span={{ base: 12, lg: 7 }}>
          <Paper withBorder radius="md" p="md">
            <form
              onSubmit={(e) => {
                e.preventDefault();
                submit();
              }}
              noValidate
            >
              <Stack gap="md">
                <Textarea
                  label="URLs"
                  description="One URL per line; blank lines are ignored."
                  placeholder={'https://example.org/article\nhttps://example.org/another'}
                  rows={10}
                  resize="vertical"
                  value={text}
                  onChange={(e) => {
                    setText(e.currentTarget.value);
                    if (urlsError) setUrlsError(null);
                  }}
                  error={urlsError}
                  styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
                />
                {lineErrors.some((e) => e.line !== null) ? (
                  <Alert
                    color="red"
                    variant="light"
                    icon={<IconAlertTriangle size={16} />}
                    title="Invalid URLs"
                    aria-label="Invalid URLs"
                  >
                    <List size="sm" spacing={2}>
                      {lineErrors.map((e, i) => (
                        <List.Item key={i}>
                          {e.line !== null ? `Line ${e.line}: ` : ''}
                          {e.message}
                        </List.Item>
                      ))}
                    </List>
                  </Alert>
                ) : null}
                <Group grow align="flex-end">
                  <NumberInput
                    label="Min quality"
                    description="0 to 1, optional"
                    min={SCORE_BOUNDS.min}
                    max={SCORE_BOUNDS.max}
                    step={0.1}
                    decimalScale={2}
                    allowNegative={false}
                    clampBehavior="strict"
                    value={minQuality}
                    onChange={setMinQuality}
                    placeholder="Default"
                  />
                  <Select
                    label="Language"
                    description="auto keeps every language"
                    data={SOURCE_LANGUAGES.map((l) => ({ value: l, label: LANGUAGE_LABELS[l] }))}
                    value={language}
                    onChange={(v) => v && setLanguage(v as SourceLanguage)}
                    allowDeselect={false}
                  />
                  <Select
                    label="Priority"
                    description="High runs first"
                    data={PRIORITIES.map((p) => ({ value: p, label: p }))}
                    value={priority}
                    onChange={(v) => v && setPriority(v as JobPriority)}
                    allowDeselect={false}
                  />
                </Group>
                <Group justify="space-between">
                  <Text size="sm" c="dimmed" className="tabular-nums">
                    {urls.length} URL{urls.length === 1 ? '' : 's'}
                  </Text>
                  <Button
                    type="submit"
                    leftSection={<IconSend size={16} />}
                    loading={process.isPending}
                  >
                    Process Sources
                  </Button>
                </Group>
              </Stack>
            </form>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 5 }}>
          <Stack gap="md">
            <Text fw={600}>Followed jobs</Text>
            {followed.length === 0 ? (
              <EmptyState
                title="No job yet"
                description="The job created from this form appears here and is followed live until it completes or fails."
              />
            ) : (
              followed.map((id) => (
                <FollowedJobCard
                  key={id}
                  jobId={id}
                  onDismiss={() => setFollowed((prev) => prev.filter((x) => x !== id))}
                />
              ))
            )}
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
