import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Job, WorkersStatus } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { job as makeJob, saved } from './playground.fixtures';

const PATH = '/dashboard/model/playground/wikipedia';
const now = () => new Date().toISOString();

const ARTICLE =
  'A honey bee is a eusocial flying insect.\r\n\r\n\r\nHoney bees produce and store honey.  ';

const workers = (running: number): WorkersStatus => ({
  mode: 'embedded',
  running,
  workers: Array.from({ length: running }, (_, i) => ({
    id: `w${i}`,
    status: 'idle' as const,
    current_job: null,
    started_at: now(),
    processed: 0,
    failed: 0,
  })),
  queue: { pending: 0, processing: 0 },
});

function routes(extra: Record<string, Route | Response> = {}) {
  return {
    ...loggedIn(),
    'GET /health': json({
      status: 'healthy',
      version: '1',
      uptime_s: 5,
      components: {
        redis: { status: 'disabled', details: { reason: 'REDIS_URL is not set: embedded queue' } },
      },
    }),
    'GET /admin/maintenance/workers/status': json(workers(1)),
    'GET /config/public': json({
      segment_max_tokens: 384,
      segment_max_sentences: 3,
      segmenter_model: 'builtin',
      default_credentials_in_use: false,
      default_credentials: null,
      version: '1',
    }),
    'GET /playground/languages': json([
      { code: 'en', name: 'English' },
      { code: 'fr', name: 'French' },
    ]),
    'POST /playground/fetch-wikipedia': json({
      text: ARTICLE,
      title: 'Honey bee',
      url: 'https://en.wikipedia.org/wiki/Honey_bee',
      language: 'en',
    }),
    ...extra,
  };
}

async function openScreen() {
  renderApp(PATH);
  const u = userEvent.setup();
  // The first lazy load of the screen's chunk is slow on a busy machine.
  await screen.findByRole('form', { name: 'Fetch article' });
  return u;
}

async function connectSocket() {
  await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(0));
  const socket = FakeWebSocket.latest()!;
  act(() => socket.open());
  return socket;
}

/** Types a text into the article area directly (no fetch). */
async function typeArticle(u: ReturnType<typeof userEvent.setup>, text: string) {
  const area = screen.getByLabelText('Article text');
  await u.click(area);
  await u.paste(text);
}

const stepStatus = (list: string, id: string) =>
  within(screen.getByRole('list', { name: list }))
    .getAllByRole('listitem')
    .find((li) => li.getAttribute('data-step') === id)
    ?.getAttribute('data-status');

describe('Encyclopedia playground: status panel', () => {
  it('shows the embedded queue honestly, the running workers and the websocket', async () => {
    mockFetch(routes());
    await openScreen();
    const status = screen.getByRole('region', { name: 'Status' });
    expect(await within(status).findByText('embedded queue')).toBeInTheDocument();
    expect(await within(status).findByText('running (1)')).toBeInTheDocument();
    expect(within(status).queryByText('connected')).toBeNull();
    await connectSocket();
    expect(await within(status).findByText('connected')).toBeInTheDocument();
  });

  it('says Redis connected when healthy and refreshes on demand', async () => {
    let running = 0;
    const { callsTo } = mockFetch(
      routes({
        'GET /health': json({
          status: 'healthy',
          version: '1',
          uptime_s: 5,
          components: { redis: { status: 'healthy', details: { latency_ms: 1 } } },
        }),
        'GET /admin/maintenance/workers/status': () => json(workers(running)),
      }),
    );
    const u = await openScreen();
    const status = screen.getByRole('region', { name: 'Status' });
    expect(await within(status).findByText('connected')).toBeInTheDocument();
    expect(await within(status).findByText('not running')).toBeInTheDocument();
    running = 2;
    const before = callsTo('GET', '/health').length;
    await u.click(within(status).getByRole('button', { name: 'Refresh' }));
    expect(await within(status).findByText('running (2)')).toBeInTheDocument();
    expect(callsTo('GET', '/health').length).toBe(before + 1);
  });
});

describe('Encyclopedia playground: step 1, fetch', () => {
  it('is enabled only with a title; a blank one says Le titre est vide without a call', async () => {
    const { callsTo } = mockFetch(routes());
    const u = await openScreen();
    const fetchButton = screen.getByRole('button', { name: 'Fetch' });
    expect(fetchButton).toBeDisabled();
    await u.type(screen.getByLabelText('Title'), '   ');
    expect(fetchButton).toBeEnabled();
    await u.click(fetchButton);
    expect(await screen.findAllByText('Le titre est vide')).not.toHaveLength(0);
    expect(screen.getByLabelText('Title')).toHaveAttribute('aria-invalid', 'true');
    expect(await screen.findByText('Le titre est requis')).toBeInTheDocument();
    expect(stepStatus('Fetch steps', 'validate')).toBe('error');
    expect(callsTo('POST', '/playground/fetch-wikipedia')).toHaveLength(0);
  });

  it('sends the sanitised title and language, cleans the text into the text area', async () => {
    const { callsTo } = mockFetch(routes());
    const u = await openScreen();
    await u.type(screen.getByLabelText('Title'), '  Honey \t  bee ');
    const form = screen.getByRole('form', { name: 'Fetch article' });
    await u.click(within(form).getByRole('combobox', { name: 'Language' }));
    await u.click(await screen.findByRole('option', { name: 'French (fr)' }));
    await u.click(screen.getByRole('button', { name: 'Fetch' }));
    await waitFor(() =>
      expect(screen.getByLabelText('Article text')).toHaveValue(
        'A honey bee is a eusocial flying insect.\n\nHoney bees produce and store honey.',
      ),
    );
    expect(callsTo('POST', '/playground/fetch-wikipedia')[0]?.body).toEqual({
      title: 'Honey bee',
      language: 'fr',
    });
    for (const id of ['validate', 'api', 'clean', 'ui']) {
      expect(stepStatus('Fetch steps', id)).toBe('success');
    }
    expect(screen.getByLabelText('Title')).toHaveValue('Honey bee');
  });

  it("says 'Failed to fetch article' with the detail of a missing article", async () => {
    mockFetch(
      routes({
        'POST /playground/fetch-wikipedia': json(
          { detail: "Article 'Nope' not found on en.wikipedia" },
          404,
        ),
      }),
    );
    const u = await openScreen();
    await u.type(screen.getByLabelText('Title'), 'Nope');
    await u.click(screen.getByRole('button', { name: 'Fetch' }));
    expect(
      await screen.findAllByText(
        "Failed to fetch article: Article 'Nope' not found on en.wikipedia",
      ),
    ).not.toHaveLength(0);
    expect(stepStatus('Fetch steps', 'api')).toBe('error');
    expect(screen.getByLabelText('Article text')).toHaveValue('');
  });
});

describe('Encyclopedia playground: step 2, analyse', () => {
  it('is enabled only with a text and a question, and names blank ones in French', async () => {
    const { callsTo } = mockFetch(routes());
    const u = await openScreen();
    const analyse = screen.getByRole('button', { name: 'Analyze' });
    expect(analyse).toBeDisabled();
    await typeArticle(u, '   ');
    expect(analyse).toBeDisabled();
    await u.type(screen.getByLabelText('Question'), ' ');
    expect(analyse).toBeEnabled();
    await u.click(analyse);
    expect(await screen.findByText('Le contexte est vide')).toBeInTheDocument();
    expect(screen.getByText('La question est vide')).toBeInTheDocument();
    expect(await screen.findByText('Le contexte est requis')).toBeInTheDocument();
    expect(screen.getByText('La question est requise')).toBeInTheDocument();
    expect(stepStatus('Analysis steps', 'validate')).toBe('error');
    expect(callsTo('POST', '/playground/analyze')).toHaveLength(0);
  });

  it('posts context, question, top_k 3 and language; scores to 4 decimals, entities with label', async () => {
    const { callsTo } = mockFetch(
      routes({
        'POST /playground/analyze': json({
          answers: [
            { sentence: 'Honey bees produce and store honey.', score: 0.812345 },
            { sentence: 'A honey bee is a eusocial flying insect.', score: 0.5 },
          ],
          entities: [{ text: 'Apis', label: 'ORG' }],
          language: 'en',
        }),
      }),
    );
    const u = await openScreen();
    await typeArticle(u, 'Honey bees produce and store honey.');
    await u.type(screen.getByLabelText('Question'), 'What do bees make? ');
    await u.click(screen.getByRole('button', { name: 'Analyze' }));
    expect(await screen.findByText('0.8123')).toBeInTheDocument();
    expect(screen.getByText('0.5000')).toBeInTheDocument();
    expect(screen.getByText('Apis - ORG')).toBeInTheDocument();
    expect(callsTo('POST', '/playground/analyze')[0]?.body).toEqual({
      context: 'Honey bees produce and store honey.',
      question: 'What do bees make?',
      top_k: 3,
      language: 'auto',
    });
    expect(stepStatus('Analysis steps', 'result')).toBe('success');
  });

  it("toasts the server's error (or 'Analysis failed'); the step shows the French text", async () => {
    let body: unknown = { detail: 'Embedding model not loaded' };
    mockFetch(routes({ 'POST /playground/analyze': () => json(body, 503) }));
    const u = await openScreen();
    await typeArticle(u, 'Some text.');
    await u.type(screen.getByLabelText('Question'), 'Why?');
    await u.click(screen.getByRole('button', { name: 'Analyze' }));
    expect(await screen.findAllByText('Embedding model not loaded')).not.toHaveLength(0);
    expect(stepStatus('Analysis steps', 'api')).toBe('error');
    expect(screen.getAllByText("L'analyse a échoué").length).toBeGreaterThan(0);

    body = {};
    await u.click(screen.getByRole('button', { name: 'Analyze' }));
    expect(await screen.findByText('Analysis failed')).toBeInTheDocument();
  });
});

describe('Encyclopedia playground: step 3, save', () => {
  it('shows the segment limits and is enabled only with text', async () => {
    mockFetch(routes());
    const u = await openScreen();
    const limits = screen.getByLabelText('Segment limits');
    expect(await within(limits).findByText('384')).toBeInTheDocument();
    expect(within(limits).getByText('3')).toBeInTheDocument();
    expect(within(limits).getByText('builtin')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save segments' })).toBeDisabled();
    await typeArticle(u, ' ');
    await u.click(screen.getByRole('button', { name: 'Save segments' }));
    expect(await screen.findAllByText('Article text is empty')).not.toHaveLength(0);
    expect(stepStatus('Save steps', 'validate')).toBe('error');
  });

  it('tracks the job to completion: progress from job_progress, 100% and Saved on job_completed', async () => {
    let job: Job = makeJob({ status: 'pending' });
    const { callsTo } = mockFetch(
      routes({
        'POST /playground/save-segments': json(saved),
        'GET /sources/jobs/7': () => json(job),
      }),
    );
    const u = await openScreen();
    const socket = await connectSocket();
    await u.type(screen.getByLabelText('Title'), 'Honey bee');
    await u.click(screen.getByRole('button', { name: 'Fetch' }));
    await waitFor(() => expect(screen.getByLabelText('Article text')).not.toHaveValue(''));
    await u.click(screen.getByRole('button', { name: 'Save segments' }));

    await waitFor(() => expect(stepStatus('Save steps', 'job')).toBe('running'));
    expect(callsTo('POST', '/playground/save-segments')[0]?.body).toEqual({
      title: 'Honey bee',
      language: 'en',
      text: 'A honey bee is a eusocial flying insect.\n\nHoney bees produce and store honey.',
    });
    for (const id of ['validate', 'size', 'save', 'worker']) {
      expect(stepStatus('Save steps', id)).toBe('success');
    }
    expect(screen.getByRole('button', { name: 'Saved' })).toBeDisabled();

    act(() =>
      socket.push({
        type: 'job_progress',
        job_id: 7,
        progress: 0.4,
        stage: 'segmenting',
        stats: {},
        segmentation_method: 'semantic',
        last_fallback_reason: null,
        timestamp: now(),
      }),
    );
    await waitFor(() => expect(screen.getByTestId('job-progress')).toHaveTextContent('40%'));

    job = { ...job, status: 'completed', progress: 1, stats: { segments_created: 2 } };
    act(() =>
      socket.push({ type: 'job_completed', job_id: 7, segments_created: 2, timestamp: now() }),
    );
    await waitFor(() => expect(screen.getByTestId('job-progress')).toHaveTextContent('100%'));
    expect(stepStatus('Save steps', 'job')).toBe('success');
    expect(await screen.findByText('Article saved: 2 segments created')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Saved' })).toBeInTheDocument();
  });

  it('with no worker running: a warning, the worker step in error and the job skipped', async () => {
    mockFetch(
      routes({
        'POST /playground/save-segments': json(saved),
        'GET /admin/maintenance/workers/status': json(workers(0)),
      }),
    );
    const u = await openScreen();
    await typeArticle(u, 'Honey bees make honey.');
    await u.click(screen.getByRole('button', { name: 'Save segments' }));
    expect(
      await screen.findAllByText('No worker running – job will not be processed.'),
    ).not.toHaveLength(0);
    expect(stepStatus('Save steps', 'worker')).toBe('error');
    expect(stepStatus('Save steps', 'job')).toBe('skipped');
  });

  it('with workers but the job absent: No worker available – segments were not saved.', async () => {
    mockFetch(
      routes({
        'POST /playground/save-segments': json(saved),
        'GET /sources/jobs/7': json({ detail: 'Job 7 not found' }, 404),
      }),
    );
    // Job load failures go to the console only (spec 002 §8).
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const u = await openScreen();
    await typeArticle(u, 'Honey bees make honey.');
    await u.click(screen.getByRole('button', { name: 'Save segments' }));
    expect(
      await screen.findAllByText('No worker available – segments were not saved.'),
    ).not.toHaveLength(0);
    expect(stepStatus('Save steps', 'worker')).toBe('error');
    expect(stepStatus('Save steps', 'job')).toBe('skipped');
    // Silent: no generic toast of the 404 detail, only the console line.
    expect(screen.queryByText('Job 7 not found')).toBeNull();
    expect(consoleError).toHaveBeenCalledWith('Job failed', expect.anything());
  });

  it('a failed save toasts the detail with its reason, shows the raw details and retries', async () => {
    let attempt = 0;
    const { callsTo } = mockFetch(
      routes({
        'POST /playground/save-segments': () =>
          ++attempt === 1
            ? json({ detail: 'Store unavailable', reason: 'disk full' }, 503)
            : json(saved),
        'GET /sources/jobs/7': json(makeJob({ status: 'processing' })),
      }),
    );
    const u = await openScreen();
    await typeArticle(u, 'Honey bees make honey.');
    await u.click(screen.getByRole('button', { name: 'Save segments' }));
    expect(await screen.findAllByText('Store unavailable: disk full')).not.toHaveLength(0);
    expect(stepStatus('Save steps', 'save')).toBe('error');
    expect(screen.getByLabelText('Raw details')).toHaveTextContent('"reason": "disk full"');
    await u.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(stepStatus('Save steps', 'job')).toBe('running'));
    expect(callsTo('POST', '/playground/save-segments')).toHaveLength(2);
  });

  it('on job_failed: the French text, the job errors, and Retry Job relaunches', async () => {
    let relaunchOk = false;
    const { callsTo } = mockFetch(
      routes({
        'POST /playground/save-segments': json(saved),
        'GET /sources/jobs/7': json(makeJob({ status: 'processing', progress: 0.3 })),
        'GET /sources/jobs/7/errors': json({
          job_id: 7,
          total: 1,
          errors: [
            {
              type: 'segmentation',
              error: 'SegmenterError',
              message: 'No sentence kept',
              url: null,
              at: now(),
              diagnostic_summary: { snippet: 'Honey bees…', score: 0.12 },
            },
          ],
        }),
        'POST /sources/jobs/7/relaunch': () =>
          relaunchOk
            ? json({ job_id: 8, relaunched_from: 7, job: makeJob({ id: 8 }) })
            : json({ detail: 'Job 7 is still processing' }, 409),
        'GET /sources/jobs/8': json(makeJob({ id: 8 })),
      }),
    );
    const u = await openScreen();
    const socket = await connectSocket();
    await typeArticle(u, 'Honey bees make honey.');
    await u.click(screen.getByRole('button', { name: 'Save segments' }));
    await waitFor(() => expect(stepStatus('Save steps', 'job')).toBe('running'));

    act(() =>
      socket.push({ type: 'job_failed', job_id: 7, error: 'No sentence kept', timestamp: now() }),
    );
    expect(await screen.findAllByText('Le traitement des segments a échoué')).not.toHaveLength(0);
    expect(stepStatus('Save steps', 'job')).toBe('error');
    const errors = await screen.findByRole('list', { name: 'Job errors' });
    expect(within(errors).getByText(/No sentence kept/)).toBeInTheDocument();
    expect(within(errors).getByText(/score 0\.120/)).toBeInTheDocument();
    expect(callsTo('GET', '/sources/jobs/7/errors')).toHaveLength(1);

    await u.click(screen.getByRole('button', { name: 'Retry Job' }));
    expect(
      await screen.findAllByText('Job retry failed: Job 7 is still processing'),
    ).not.toHaveLength(0);

    relaunchOk = true;
    await u.click(screen.getByRole('button', { name: 'Retry Job' }));
    await waitFor(() => expect(stepStatus('Save steps', 'job')).toBe('running'));
    expect(callsTo('POST', '/sources/jobs/7/relaunch')).toHaveLength(2);
    act(() =>
      socket.push({ type: 'job_completed', job_id: 8, segments_created: 1, timestamp: now() }),
    );
    await waitFor(() => expect(screen.getByTestId('job-progress')).toHaveTextContent('100%'));
  });
});

describe('Encyclopedia playground: reset and debug', () => {
  it('the debug panel shows the three step lists, the last API response and the job id; reset clears all', async () => {
    mockFetch(
      routes({
        'POST /playground/save-segments': json(saved),
        'GET /sources/jobs/7': json(makeJob({ status: 'processing' })),
      }),
    );
    const u = await openScreen();
    await u.type(screen.getByLabelText('Title'), 'Honey bee');
    await u.click(screen.getByRole('button', { name: 'Fetch' }));
    await waitFor(() => expect(screen.getByLabelText('Article text')).not.toHaveValue(''));
    await u.click(screen.getByRole('button', { name: 'Save segments' }));
    await waitFor(() => expect(stepStatus('Save steps', 'job')).toBe('running'));

    await u.click(screen.getByRole('button', { name: /Debug/ }));
    const debug = screen.getByLabelText('Debug panel');
    expect(within(debug).getByRole('list', { name: 'Fetch steps (debug)' })).toBeInTheDocument();
    expect(within(debug).getByRole('list', { name: 'Analysis steps (debug)' })).toBeInTheDocument();
    expect(within(debug).getByRole('list', { name: 'Save steps (debug)' })).toBeInTheDocument();
    expect(within(debug).getByTestId('debug-job-id')).toHaveTextContent('7');
    expect(within(debug).getByLabelText('Last API response')).toHaveTextContent('"id": 7');

    await u.click(screen.getByRole('button', { name: 'Reset' }));
    expect(screen.getByLabelText('Title')).toHaveValue('');
    expect(screen.getByLabelText('Article text')).toHaveValue('');
    expect(within(debug).getByTestId('debug-job-id')).toHaveTextContent('none');
    expect(within(debug).getByLabelText('Last API response')).toHaveTextContent('No call yet.');
    expect(stepStatus('Save steps', 'job')).toBe('pending');
    expect(stepStatus('Fetch steps', 'api')).toBe('pending');
  });
});
