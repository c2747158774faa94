import { beforeAll, describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Job } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { makeJob } from '../jobs/jobs.fixtures';
import { MESSAGES } from './messages';

const ADD = '/dashboard/sources/add';
const now = () => new Date().toISOString();

async function enterUrls(text: string) {
  const u = userEvent.setup();
  const box = await screen.findByRole('textbox', { name: 'URLs' });
  await u.click(box);
  await u.paste(text);
  return u;
}

describe('Add Sources', () => {
  // The screen loads lazily: compiled here, outside the first query's wait, on a busy machine.
  beforeAll(() => import('./AddSourcesScreen'), 60_000);

  it('refuses an empty list with the spec message, without calling the server', async () => {
    const { callsTo } = mockFetch({ ...loggedIn() });
    renderApp(ADD);
    const u = await enterUrls('   \n\n  ');
    await u.click(screen.getByRole('button', { name: 'Process Sources' }));
    // Under the field and as a toast.
    expect(await screen.findAllByText(MESSAGES.noUrls)).toHaveLength(2);
    expect(screen.getByRole('textbox', { name: 'URLs' })).toHaveAttribute('aria-invalid', 'true');
    expect(callsTo('POST', '/sources/process')).toHaveLength(0);
  });

  it('sends the lines trimmed, blank ones dropped, with language, priority and min quality', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'POST /sources/process': (call) => {
        const { urls } = call.body as { urls: string[] };
        return json({ job_id: 3, urls, status: 'pending' });
      },
      'GET /sources/jobs/3': json(makeJob({ id: 3 })),
    });
    renderApp(ADD);
    const u = await enterUrls('  https://a.test/one  \n\n   \nhttps://b.test/two\n');
    expect(screen.getByText('2 URLs')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Process Sources' }));
    await waitFor(() => expect(callsTo('POST', '/sources/process')).toHaveLength(1));
    expect(callsTo('POST', '/sources/process')[0]?.body).toEqual({
      urls: ['https://a.test/one', 'https://b.test/two'],
      language: 'auto',
      priority: 'normal',
    });

    await enterUrls('https://c.test/three');
    await u.click(screen.getByRole('combobox', { name: 'Language' }));
    await u.click(await screen.findByRole('option', { name: 'French' }));
    await u.click(screen.getByRole('combobox', { name: 'Priority' }));
    await u.click(await screen.findByRole('option', { name: 'high' }));
    await u.type(screen.getByRole('textbox', { name: 'Min quality' }), '0.5');
    await u.click(screen.getByRole('button', { name: 'Process Sources' }));
    await waitFor(() => expect(callsTo('POST', '/sources/process')).toHaveLength(2));
    expect(callsTo('POST', '/sources/process')[1]?.body).toEqual({
      urls: ['https://c.test/three'],
      language: 'fr',
      priority: 'high',
      min_quality: 0.5,
    });
  });

  it("shows the server's per-URL 422 errors naming the form line", async () => {
    const message = "'not a url' is not a valid http(s) URL";
    mockFetch({
      ...loggedIn(),
      'POST /sources/process': json(
        { detail: `Invalid URLs: ${message}`, errors: [{ field: 'urls[1]', message }] },
        422,
      ),
    });
    renderApp(ADD);
    const u = await enterUrls('https://ok.test/a\n\nnot a url');
    await u.click(screen.getByRole('button', { name: 'Process Sources' }));
    const alert = await screen.findByLabelText('Invalid URLs');
    expect(within(alert).getByText(`Line 3: ${message}`)).toBeInTheDocument();
    expect(
      await screen.findByText(`${MESSAGES.queueFailed}: Invalid URLs: ${message}`),
    ).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'URLs' })).toHaveAttribute('aria-invalid', 'true');
  });

  it("shows 'Failed to queue sources' with the detail once when the call fails", async () => {
    mockFetch({
      ...loggedIn(),
      'POST /sources/process': json({ detail: 'Queue unavailable' }, 503),
    });
    renderApp(ADD);
    const u = await enterUrls('https://ok.test/a');
    await u.click(screen.getByRole('button', { name: 'Process Sources' }));
    expect(
      await screen.findByText(`${MESSAGES.queueFailed}: Queue unavailable`),
    ).toBeInTheDocument();
    // The call is silent: no second toast with the bare detail.
    expect(screen.queryByText('Queue unavailable')).toBeNull();
  });

  it('follows the created job live to its success toast on job_completed', async () => {
    let job: Job = makeJob({ id: 12, urls: ['https://a.test/1', 'https://a.test/2'] });
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'POST /sources/process': json({ job_id: 12, urls: job.urls, status: 'pending' }),
      'GET /sources/jobs/12': () => json(job),
    });
    renderApp(ADD);
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    const socket = FakeWebSocket.latest()!;
    act(() => socket.open());
    const u = await enterUrls(job.urls.join('\n'));
    await u.click(screen.getByRole('button', { name: 'Process Sources' }));

    const card = await screen.findByTestId('followed-job');
    expect(await within(card).findByTestId('job-status')).toHaveTextContent('pending');
    expect(within(card).getByRole('link', { name: /View snippets/ })).toHaveAttribute(
      'href',
      '/dashboard/sources/snippets?job_id=12',
    );
    expect(within(card).getByRole('link', { name: /Open the queue/ })).toHaveAttribute(
      'href',
      '/dashboard/sources/queue',
    );

    act(() =>
      socket.push({
        type: 'job_progress',
        job_id: 12,
        progress: 0.5,
        stage: 'Processed 1 of 2 URLs',
        stats: { urls_done: 1, segments_created: 20 },
        segmentation_method: 'semantic',
        last_fallback_reason: null,
        timestamp: now(),
      }),
    );
    await waitFor(() => expect(within(card).getByTestId('job-percent')).toHaveTextContent('50%'));
    expect(within(card).getByTestId('job-stage')).toHaveTextContent('Processed 1 of 2 URLs');
    expect(within(card).getByTestId('job-status')).toHaveTextContent('processing');

    job = {
      ...job,
      status: 'completed',
      progress: 1,
      stage: 'completed',
      stats: { urls_total: 2, urls_done: 2, segments_created: 48 },
    };
    const fetched = callsTo('GET', '/sources/jobs/12').length;
    act(() =>
      socket.push({ type: 'job_completed', job_id: 12, segments_created: 48, timestamp: now() }),
    );
    expect(await screen.findByText('Sources processed: 48 segments')).toBeInTheDocument();
    expect(callsTo('GET', '/sources/jobs/12').length).toBe(fetched + 1);
    expect(within(card).getByTestId('job-status')).toHaveTextContent('completed');
  });

  it("ends a failed job with 'Processing failed' and the reason", async () => {
    let job: Job = makeJob({ id: 13, status: 'processing' });
    mockFetch({
      ...loggedIn(),
      'POST /sources/process': json({ job_id: 13, urls: job.urls, status: 'pending' }),
      'GET /sources/jobs/13': () => json(job),
    });
    renderApp(ADD);
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    const socket = FakeWebSocket.latest()!;
    act(() => socket.open());
    const u = await enterUrls('https://down.test/x');
    await u.click(screen.getByRole('button', { name: 'Process Sources' }));
    const card = await screen.findByTestId('followed-job');
    await within(card).findByTestId('job-status');

    job = { ...job, status: 'failed', stage: 'failed' };
    const reason = 'None of the 1 URLs could be processed';
    act(() => socket.push({ type: 'job_failed', job_id: 13, error: reason, timestamp: now() }));
    expect(await screen.findAllByText(`${MESSAGES.processingFailed}: ${reason}`)).not.toHaveLength(
      0,
    );
    await waitFor(() => expect(within(card).getByTestId('job-status')).toHaveTextContent('failed'));
  });
});
