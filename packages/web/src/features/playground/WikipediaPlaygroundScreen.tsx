import { useCallback, useState, type FormEvent } from 'react';
import {
  Alert,
  Anchor,
  Button,
  Code,
  Grid,
  Group,
  Paper,
  ScrollArea,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
  UnstyledButton,
} from '@mantine/core';
import {
  IconAlertTriangle,
  IconChevronDown,
  IconChevronRight,
  IconDownload,
  IconEraser,
  IconSearch,
} from '@tabler/icons-react';
import type { AnalyzeResponse, FetchWikipediaResponse } from '@adam/contracts';
import { isApiError } from '../../api/client';
import { PageHeader } from '../../components/PageHeader';
import { StepList, type Step } from '../../components/StepList';
import { toast } from '../../layout/toasts';
import { WIKI_MESSAGES, withDetail } from './messages';
import { useAnalyzeText, useFetchWikipedia, usePlaygroundLanguages } from './playground.api';
import { saveSteps } from './saveFlow';
import { SaveSegmentsPanel } from './SaveSegmentsPanel';
import { useSaveFlow } from './useSaveFlow';
import { WikiStatusPanel } from './WikiStatusPanel';
import { EntityBadges, TopSentencesTable } from './AnalyzePanel';
import {
  ANALYSIS_STEPS,
  FETCH_STEPS,
  analysisToasts,
  canAnalyze,
  canFetch,
  checkAnalysis,
  cleanArticleText,
  pendingSteps,
  sanitizeTitle,
  setStep,
  type AnalysisCheck,
} from './wikiSteps';

/** Offered before GET /playground/languages answers, and if it fails. */
const FALLBACK_LANGUAGES = [
  { value: 'en', label: 'English (en)' },
  { value: 'fr', label: 'French (fr)' },
];
const ANALYSIS_LANGUAGES = [
  { value: 'auto', label: 'Auto' },
  { value: 'en', label: 'English (en)' },
  { value: 'fr', label: 'French (fr)' },
];

interface LastResponse {
  call: string;
  ok: boolean;
  body: unknown;
  at: string;
}

/** The JSON of an answer, long strings (the article) cut so the panel stays light. */
function debugJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_key, v: unknown) =>
      typeof v === 'string' && v.length > 600
        ? `${v.slice(0, 600)}… (${v.length.toLocaleString('en-US')} characters)`
        : v,
    2,
  );
}

/** The server's detail of a failed call, if it gave one. */
function serverDetail(error: unknown): string | null {
  if (!isApiError(error)) return null;
  const body = error.details as { detail?: unknown } | null;
  return typeof body?.detail === 'string' && body.detail ? body.detail : null;
}

function DebugPanel({
  fetchSteps,
  analysisSteps,
  saveStepList,
  lastResponse,
  jobId,
}: {
  fetchSteps: Step[];
  analysisSteps: Step[];
  saveStepList: Step[];
  lastResponse: LastResponse | null;
  jobId: number | null;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Paper withBorder radius="md" p="md">
      <UnstyledButton
        onClick={() => setOpen((o) => !o)}
        aria-expanded={open}
        aria-controls="wiki-debug"
        w="100%"
      >
        <Group gap="xs">
          {open ? <IconChevronDown size={16} /> : <IconChevronRight size={16} />}
          <Title order={5}>Debug</Title>
          <Text size="sm" c="dimmed">
            step lists, last API response, job ID
          </Text>
        </Group>
      </UnstyledButton>
      {open ? (
        <Stack gap="md" mt="md" id="wiki-debug" aria-label="Debug panel">
          <SimpleGrid cols={{ base: 1, md: 3 }} spacing="lg">
            {(
              [
                ['Fetch', fetchSteps],
                ['Analysis', analysisSteps],
                ['Save', saveStepList],
              ] as const
            ).map(([name, steps]) => (
              <Stack gap="xs" key={name}>
                <Text size="sm" fw={600}>
                  {name}
                </Text>
                <StepList steps={steps} label={`${name} steps (debug)`} />
              </Stack>
            ))}
          </SimpleGrid>
          <Text size="sm">
            <Text span c="dimmed">
              Job ID:{' '}
            </Text>
            <Text span fw={600} className="tabular-nums" data-testid="debug-job-id">
              {jobId ?? 'none'}
            </Text>
          </Text>
          <Stack gap={4}>
            <Text size="sm" c="dimmed">
              Last API response
              {lastResponse
                ? ` · ${lastResponse.call} · ${lastResponse.ok ? 'ok' : 'failed'} · ${lastResponse.at}`
                : ''}
            </Text>
            <ScrollArea.Autosize mah={320}>
              <Code block aria-label="Last API response">
                {lastResponse ? debugJson(lastResponse.body) : 'No call yet.'}
              </Code>
            </ScrollArea.Autosize>
          </Stack>
        </Stack>
      ) : null}
    </Paper>
  );
}

function AnalysisResults({ result }: { result: AnalyzeResponse }) {
  return (
    <Stack gap="sm" aria-label="Analysis results">
      <Text size="sm" fw={600}>
        Top Sentences{' '}
        <Text span size="xs" c="dimmed">
          (language {result.language})
        </Text>
      </Text>
      {result.answers.length === 0 ? (
        <Text size="sm" c="dimmed">
          No sentence matches the question.
        </Text>
      ) : (
        <TopSentencesTable answers={result.answers} scoreDigits={4} />
      )}
      <Text size="sm" fw={600}>
        Named Entities
      </Text>
      {result.entities.length === 0 ? (
        <Text size="sm" c="dimmed">
          No entity found.
        </Text>
      ) : (
        <EntityBadges entities={result.entities} />
      )}
    </Stack>
  );
}

/**
 * Encyclopedia playground (spec 002 §2, §4, §8; spec 001 §2.10, §5): fetch an article,
 * analyse it against a question, save it as segments and follow the job.
 */
export function WikipediaPlaygroundScreen() {
  const languages = usePlaygroundLanguages();
  const fetchArticle = useFetchWikipedia();
  const analyze = useAnalyzeText();

  const [title, setTitle] = useState('');
  const [language, setLanguage] = useState('en');
  const [text, setText] = useState('');
  const [article, setArticle] = useState<FetchWikipediaResponse | null>(null);
  const [titleError, setTitleError] = useState<string | null>(null);
  const [fetchSteps, setFetchSteps] = useState(() => pendingSteps(FETCH_STEPS));

  const [question, setQuestion] = useState('');
  const [analysisLanguage, setAnalysisLanguage] = useState('auto');
  const [analysisCheck, setAnalysisCheck] = useState<AnalysisCheck>({});
  const [analysisSteps, setAnalysisSteps] = useState(() => pendingSteps(ANALYSIS_STEPS));
  const [result, setResult] = useState<AnalyzeResponse | null>(null);
  const [analysisError, setAnalysisError] = useState<string | null>(null);

  const [lastResponse, setLastResponse] = useState<LastResponse | null>(null);
  const record = useCallback((call: string, ok: boolean, body: unknown) => {
    setLastResponse({ call, ok, body, at: new Date().toLocaleTimeString() });
  }, []);
  const flow = useSaveFlow(record);

  const languageOptions = languages.data
    ? languages.data.map((l) => ({ value: l.code, label: `${l.name} (${l.code})` }))
    : FALLBACK_LANGUAGES;

  const runFetch = async (event?: FormEvent) => {
    event?.preventDefault();
    let steps = setStep(pendingSteps(FETCH_STEPS), 'validate', 'running');
    setFetchSteps(steps);
    const clean = sanitizeTitle(title);
    if (!clean) {
      setTitleError(WIKI_MESSAGES.titleEmpty);
      setFetchSteps(setStep(steps, 'validate', 'error', WIKI_MESSAGES.titleEmpty));
      toast.error(WIKI_MESSAGES.titleRequired);
      return;
    }
    setTitleError(null);
    if (clean !== title) setTitle(clean);
    steps = setStep(setStep(steps, 'validate', 'success', clean), 'api', 'running');
    setFetchSteps(steps);

    let answer: FetchWikipediaResponse;
    try {
      answer = await fetchArticle.mutateAsync({ title: clean, language });
      record('POST /playground/fetch-wikipedia', true, answer);
    } catch (error) {
      const detail = error instanceof Error ? error.message : null;
      record('POST /playground/fetch-wikipedia', false, isApiError(error) ? error.details : detail);
      setFetchSteps(setStep(steps, 'api', 'error', detail ?? WIKI_MESSAGES.fetchFailed));
      toast.error(withDetail(WIKI_MESSAGES.fetchFailed, detail));
      return;
    }
    steps = setStep(setStep(steps, 'api', 'success', answer.title), 'clean', 'running');
    setFetchSteps(steps);
    const cleaned = cleanArticleText(answer.text);
    steps = setStep(
      setStep(steps, 'clean', 'success', `${cleaned.length.toLocaleString('en-US')} characters`),
      'ui',
      'running',
    );
    setFetchSteps(steps);
    setText(cleaned);
    setArticle(answer);
    setResult(null);
    setAnalysisError(null);
    setAnalysisCheck((c) => ({ ...c, context: undefined }));
    setFetchSteps(setStep(steps, 'ui', 'success'));
  };

  const runAnalysis = async (event?: FormEvent) => {
    event?.preventDefault();
    let steps = setStep(pendingSteps(ANALYSIS_STEPS), 'validate', 'running');
    setAnalysisSteps(steps);
    const check = checkAnalysis(text, question);
    setAnalysisCheck(check);
    if (check.context || check.question) {
      setAnalysisSteps(
        setStep(
          steps,
          'validate',
          'error',
          [check.context, check.question].filter(Boolean).join(' · '),
        ),
      );
      for (const message of analysisToasts(check)) toast.error(message);
      return;
    }
    steps = setStep(setStep(steps, 'validate', 'success'), 'payload', 'running');
    setAnalysisSteps(steps);
    const payload = { context: text, question: question.trim(), language: analysisLanguage };
    steps = setStep(
      setStep(steps, 'payload', 'success', `top_k 3 · language ${analysisLanguage}`),
      'api',
      'running',
    );
    setAnalysisSteps(steps);
    setAnalysisError(null);

    let answer: AnalyzeResponse;
    try {
      answer = await analyze.mutateAsync(payload);
      record('POST /playground/analyze', true, answer);
    } catch (error) {
      record('POST /playground/analyze', false, isApiError(error) ? error.details : String(error));
      setAnalysisSteps(setStep(steps, 'api', 'error', WIKI_MESSAGES.analysisFailedStep));
      setAnalysisError(error instanceof Error ? error.message : null);
      setResult(null);
      toast.error(serverDetail(error) ?? WIKI_MESSAGES.analysisFailed);
      return;
    }
    steps = setStep(setStep(steps, 'api', 'success'), 'result', 'running');
    setAnalysisSteps(steps);
    setResult(answer);
    setAnalysisSteps(
      setStep(
        steps,
        'result',
        'success',
        `${answer.answers.length} sentences · ${answer.entities.length} entities`,
      ),
    );
  };

  const runSave = () =>
    void flow.save({
      title: article?.title ?? sanitizeTitle(title),
      language: article?.language ?? language,
      text,
    });

  const reset = () => {
    setTitle('');
    setLanguage('en');
    setText('');
    setArticle(null);
    setTitleError(null);
    setFetchSteps(pendingSteps(FETCH_STEPS));
    setQuestion('');
    setAnalysisLanguage('auto');
    setAnalysisCheck({});
    setAnalysisSteps(pendingSteps(ANALYSIS_STEPS));
    setResult(null);
    setAnalysisError(null);
    setLastResponse(null);
    fetchArticle.reset();
    analyze.reset();
    flow.reset();
  };

  const apiStep = fetchSteps.find((s) => s.id === 'api');

  return (
    <Stack gap="lg">
      <PageHeader
        title="Wikipedia Playground"
        description="Fetch an encyclopedia article, analyse it against a question, save it as segments and follow the job."
        actions={
          <Button variant="default" leftSection={<IconEraser size={16} />} onClick={reset}>
            Reset
          </Button>
        }
      />

      <WikiStatusPanel />

      <Paper withBorder radius="md" p="md">
        <form onSubmit={(e) => void runFetch(e)} noValidate aria-label="Fetch article">
          <Grid gap="lg">
            <Grid.Col span={{ base: 12, md: 8 }}>
              <Stack gap="sm">
                <Title order={4}>1. Fetch article</Title>
                <Group align="flex-start" gap="sm" wrap="wrap">
                  <TextInput
                    label="Title"
                    placeholder="Honey bee"
                    value={title}
                    onChange={(e) => {
                      setTitle(e.currentTarget.value);
                      setTitleError(null);
                    }}
                    error={titleError}
                    style={{ flex: 1 }}
                    miw={240}
                  />
                  <Select
                    label="Language"
                    data={languageOptions}
                    value={language}
                    onChange={(v) => setLanguage(v ?? 'en')}
                    allowDeselect={false}
                    w={200}
                  />
                  <Button
                    type="submit"
                    mt={25}
                    leftSection={<IconDownload size={16} />}
                    disabled={!canFetch(title)}
                    loading={fetchArticle.isPending}
                  >
                    Fetch
                  </Button>
                </Group>
                {apiStep?.status === 'error' ? (
                  <Alert color="red" variant="light" icon={<IconAlertTriangle size={18} />} py="xs">
                    {withDetail(WIKI_MESSAGES.fetchFailed, apiStep.detail)}
                  </Alert>
                ) : null}
                <Textarea
                  label="Article text"
                  description={
                    article ? (
                      <>
                        {article.title} ·{' '}
                        <Anchor href={article.url} target="_blank" rel="noreferrer" size="xs">
                          {article.url}
                        </Anchor>
                      </>
                    ) : (
                      'Fetched text appears here; it can be edited or pasted.'
                    )
                  }
                  rows={12}
                  resize="vertical"
                  value={text}
                  onChange={(e) => {
                    setText(e.currentTarget.value);
                    setAnalysisCheck((c) => ({ ...c, context: undefined }));
                  }}
                  error={analysisCheck.context}
                  styles={{ input: { fontSize: 'var(--mantine-font-size-sm)' } }}
                />
              </Stack>
            </Grid.Col>
            <Grid.Col span={{ base: 12, md: 4 }}>
              <Stack gap="xs">
                <Text size="sm" fw={600}>
                  Fetch steps
                </Text>
                <StepList steps={fetchSteps} label="Fetch steps" />
              </Stack>
            </Grid.Col>
          </Grid>
        </form>
      </Paper>

      <Grid gap="lg" align="stretch">
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <Paper withBorder radius="md" p="md" h="100%">
            <form onSubmit={(e) => void runAnalysis(e)} noValidate aria-label="Analyse article">
              <Stack gap="sm">
                <Title order={4}>2. Analyse</Title>
                <TextInput
                  label="Question"
                  placeholder="What do honey bees produce?"
                  value={question}
                  onChange={(e) => {
                    setQuestion(e.currentTarget.value);
                    setAnalysisCheck((c) => ({ ...c, question: undefined }));
                  }}
                  error={analysisCheck.question}
                />
                <Group align="flex-end" gap="sm">
                  <Select
                    label="Language"
                    data={ANALYSIS_LANGUAGES}
                    value={analysisLanguage}
                    onChange={(v) => setAnalysisLanguage(v ?? 'auto')}
                    allowDeselect={false}
                    w={160}
                  />
                  <Button
                    type="submit"
                    leftSection={<IconSearch size={16} />}
                    disabled={!canAnalyze(text, question)}
                    loading={analyze.isPending}
                  >
                    Analyze
                  </Button>
                </Group>
                <StepList steps={analysisSteps} label="Analysis steps" />
                {analysisSteps.find((s) => s.id === 'api')?.status === 'error' ? (
                  <Alert
                    color="red"
                    variant="light"
                    icon={<IconAlertTriangle size={18} />}
                    title={WIKI_MESSAGES.analysisFailedStep}
                  >
                    {analysisError}
                  </Alert>
                ) : null}
                {result ? (
                  <AnalysisResults result={result} />
                ) : (
                  <Text size="sm" c="dimmed">
                    The three sentences closest to the question, with their scores, and the
                    article's named entities.
                  </Text>
                )}
              </Stack>
            </form>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, lg: 6 }}>
          <SaveSegmentsPanel
            state={flow.state}
            text={text}
            savedText={flow.savedText}
            onSave={runSave}
            onRetryJob={() => void flow.retryJob()}
            relaunching={flow.relaunching}
          />
        </Grid.Col>
      </Grid>

      <DebugPanel
        fetchSteps={fetchSteps}
        analysisSteps={analysisSteps}
        saveStepList={saveSteps(flow.state)}
        lastResponse={lastResponse}
        jobId={flow.state.jobId}
      />
    </Stack>
  );
}
