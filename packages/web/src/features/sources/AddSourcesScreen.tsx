import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { Grid, Paper, Stack, Tabs, Text, Textarea } from '@mantine/core';
import { IconFileImport, IconLink, IconSend, IconSpider, IconUpload } from '@tabler/icons-react';
import { isApiError } from '../../api/client';
import { EmptyState } from '../../components/QueryState';
import { PageHeader } from '../../components/PageHeader';
import { toast } from '../../layout/toasts';
import { CrawlSiteForm } from './CrawlSiteForm';
import { FollowedJobCard } from './FollowedJobCard';
import { FormProblem } from './FormProblem';
import { JobForm, useQueueJob, type JobFormProps } from './JobForm';
import { ImportSnippetsForm } from './ImportSnippetsForm';
import { MESSAGES } from './messages';
import {
  readLines,
  sourceOptionsBody,
  SourceOptionsFields,
  useSourceOptions,
} from './SourceOptionsFields';
import { useProcessSources } from './sources.api';
import { UploadFilesForm } from './UploadFilesForm';

/** The ways in, each a tab opened by `?tab=` (the URL list when absent or unknown). */
const ADD_TABS = [
  { value: 'urls', label: 'URL list', icon: IconLink },
  { value: 'crawl', label: 'Crawl a site', icon: IconSpider },
  { value: 'upload', label: 'Upload files', icon: IconUpload },
  { value: 'import', label: 'Import', icon: IconFileImport },
] as const;
type AddTab = (typeof ADD_TABS)[number]['value'];
const isAddTab = (v: string | null): v is AddTab => ADD_TABS.some((t) => t.value === v);

/** Jobs kept on screen; older ones are still in the queue. */
const FOLLOWED_MAX = 5;

/** The URLs to send, one per non-blank line, trimmed, with the form line (1-based) each came from. */
export function readUrlLines(text: string): { urls: string[]; lines: number[] } {
  const { values, lines } = readLines(text);
  return { urls: values, lines };
}

/** `urls[3]` → the index 3, or null for another field. */
function urlIndex(field: string): number | null {
  const match = /^urls\[(\d+)\]$/.exec(field);
  return match ? Number(match[1]) : null;
}

/** The URL list (spec 002 §2, §5): URLs one per line, queued as one job. */
function UrlListForm({ onQueued }: JobFormProps) {
  const [text, setText] = useState('');
  const [options, setOptions] = useSourceOptions();
  const [urlsError, setUrlsError] = useState<string | null>(null);
  const [lineErrors, setLineErrors] = useState<{ line: number | null; message: string }[]>([]);
  const process = useQueueJob(useProcessSources(), onQueued, {
    queued: (r) =>
      `Job ${r.job_id} queued with ${r.urls.length} URL${r.urls.length === 1 ? '' : 's'}`,
    failed: MESSAGES.queueFailed,
  });

  const { urls, lines } = readUrlLines(text);

  const submit = () => {
    setLineErrors([]);
    if (urls.length === 0) {
      setUrlsError(MESSAGES.noUrls);
      toast.error(MESSAGES.noUrls);
      return;
    }
    setUrlsError(null);
    process.queue(
      { urls, ...sourceOptionsBody(options) },
      {
        onQueued: () => setText(''),
        onError: (error) => {
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
    <JobForm
      onSubmit={submit}
      summary={`${urls.length} URL${urls.length === 1 ? '' : 's'}`}
      submitLabel="Process Sources"
      submitIcon={<IconSend size={16} />}
      pending={process.pending}
    >
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
        <FormProblem
          title="Invalid URLs"
          items={lineErrors.map((e) => `${e.line !== null ? `Line ${e.line}: ` : ''}${e.message}`)}
        />
      ) : null}
      <SourceOptionsFields value={options} onChange={setOptions} />
    </JobForm>
  );
}

/** Add Sources (spec 002 §2, §4, §5; issue 24): four ways in, each job followed live. */
export function AddSourcesScreen() {
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab');
  const tab: AddTab = isAddTab(requested) ? requested : 'urls';
  const [followed, setFollowed] = useState<number[]>([]);
  const follow = (jobId: number) =>
    setFollowed((prev) => [jobId, ...prev.filter((id) => id !== jobId)].slice(0, FOLLOWED_MAX));

  const selectTab = (next: string | null) => {
    if (!isAddTab(next)) return;
    setParams(
      (prev) => {
        const nextParams = new URLSearchParams(prev);
        if (next === 'urls') nextParams.delete('tab');
        else nextParams.set('tab', next);
        return nextParams;
      },
      { replace: true },
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
            <Tabs value={tab} onChange={selectTab}>
              <Tabs.List mb="md">
                {ADD_TABS.map((t) => (
                  <Tabs.Tab key={t.value} value={t.value} leftSection={<t.icon size={16} />}>
                    {t.label}
                  </Tabs.Tab>
                ))}
              </Tabs.List>
              <Tabs.Panel value="urls">
                <UrlListForm onQueued={follow} />
              </Tabs.Panel>
              <Tabs.Panel value="crawl">
                <CrawlSiteForm onQueued={follow} />
              </Tabs.Panel>
              <Tabs.Panel value="upload">
                <UploadFilesForm onQueued={follow} />
              </Tabs.Panel>
              <Tabs.Panel value="import">
                <ImportSnippetsForm onQueued={follow} />
              </Tabs.Panel>
            </Tabs>
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
