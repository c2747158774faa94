import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { DEFAULT_PROCESSING_SETTINGS } from '@adam/contracts';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const PAGE = '/dashboard/settings/processing';
const crawler = {
  user_agent: 'ADAM-crawler/0.1 (+docs.example)',
  per_host_concurrency: 3,
  min_delay_ms: 1500,
  max_backoff_ms: 120_000,
};
const uploads = { max_file_mib: 20, max_files: 40, max_total_mib: 200 };

function serve(extra: Record<string, Route | Response> = {}) {
  return mockFetch({
    ...loggedIn(),
    'GET /admin/settings/processing': json(DEFAULT_PROCESSING_SETTINGS),
    'GET /admin/settings/crawler': json(crawler),
    'GET /admin/settings/uploads': json(uploads),
    ...extra,
  });
}

/** The server's answer to a PUT: what was sent, as it stores it. */
const echo: Route = (call) => json((call.body as { settings: Record<string, unknown> }).settings);

/** The card under its heading; the first screen of a run loads lazily, slowly on a busy machine. */
const card = async (title: string) =>
  (await screen.findByRole('heading', { name: title })).closest(
    '.mantine-Paper-root',
  ) as HTMLElement;

describe('Crawler settings card', () => {
  it('shows the stored values', async () => {
    serve();
    renderApp(PAGE);
    const c = within(await card('Crawler'));
    expect(await c.findByLabelText('User Agent')).toHaveValue(crawler.user_agent);
    expect(c.getByLabelText('Per-Host Concurrency')).toHaveValue('3');
    expect(c.getByLabelText('Min Delay')).toHaveValue('1,500 ms');
    expect(c.getByLabelText('Max Backoff')).toHaveValue('120,000 ms');
  });

  it('saves the section on its own, as numbers', async () => {
    const { callsTo } = serve({ 'PUT /admin/settings/crawler': echo });
    renderApp(PAGE);
    const u = userEvent.setup();
    const c = within(await card('Crawler'));
    const agent = await c.findByLabelText('User Agent');
    await u.clear(agent);
    await u.type(agent, 'AcmeBot/2.0');
    const delay = c.getByLabelText('Min Delay');
    await u.clear(delay);
    await u.type(delay, '250');
    await u.click(c.getByRole('button', { name: 'Save Crawler Settings' }));

    expect(await screen.findByText('Crawler settings saved')).toBeInTheDocument();
    expect(callsTo('PUT', '/admin/settings/crawler')[0]?.body).toEqual({
      settings: { ...crawler, user_agent: 'AcmeBot/2.0', min_delay_ms: 250 },
    });
    expect(callsTo('PUT', '/admin/settings/processing')).toHaveLength(0);
    expect(callsTo('PUT', '/admin/settings/uploads')).toHaveLength(0);
  });

  it("shows the server's 422 at the field it names", async () => {
    serve({
      'PUT /admin/settings/crawler': json(
        {
          detail: 'Invalid crawler settings: user_agent: is required',
          errors: [{ field: 'user_agent', message: 'is required' }],
        },
        422,
      ),
    });
    renderApp(PAGE);
    const u = userEvent.setup();
    const c = within(await card('Crawler'));
    const agent = await c.findByLabelText('User Agent');
    await u.clear(agent);
    await u.type(agent, '   ');
    await u.click(c.getByRole('button', { name: 'Save Crawler Settings' }));
    await waitFor(() => expect(agent).toHaveAttribute('aria-invalid', 'true'));
    expect(agent).toHaveAccessibleDescription(expect.stringContaining('is required'));
    expect(c.getByLabelText('Min Delay')).not.toHaveAttribute('aria-invalid', 'true');
    // Typing again clears the field's error.
    await u.type(agent, 'x');
    expect(agent).not.toHaveAttribute('aria-invalid', 'true');
  });
  it('names an emptied number at its field and sends nothing', async () => {
    const { callsTo } = serve({ 'PUT /admin/settings/crawler': echo });
    renderApp(PAGE);
    const u = userEvent.setup();
    const c = within(await card('Crawler'));
    const delay = await c.findByLabelText('Min Delay');
    await u.clear(delay);
    await u.click(c.getByRole('button', { name: 'Save Crawler Settings' }));
    await waitFor(() => expect(delay).toHaveAttribute('aria-invalid', 'true'));
    expect(delay).toHaveAccessibleDescription(expect.stringContaining('is required'));
    expect(callsTo('PUT', '/admin/settings/crawler')).toHaveLength(0);
  });
});

describe('Upload limits card', () => {
  it('shows the stored values', async () => {
    serve();
    renderApp(PAGE);
    const c = within(await card('Upload Limits'));
    expect(await c.findByLabelText('Max File Size')).toHaveValue('20 MiB');
    expect(c.getByLabelText('Max Files per Upload')).toHaveValue('40');
    expect(c.getByLabelText('Max Upload Size')).toHaveValue('200 MiB');
  });

  it('saves the section on its own, as numbers', async () => {
    const { callsTo } = serve({ 'PUT /admin/settings/uploads': echo });
    renderApp(PAGE);
    const u = userEvent.setup();
    const c = within(await card('Upload Limits'));
    const size = await c.findByLabelText('Max File Size');
    await u.clear(size);
    await u.type(size, '100');
    const total = c.getByLabelText('Max Upload Size');
    await u.clear(total);
    await u.type(total, '2048');
    await u.click(c.getByRole('button', { name: 'Save Upload Limits' }));

    expect(await screen.findByText('Upload limits saved')).toBeInTheDocument();
    expect(callsTo('PUT', '/admin/settings/uploads')[0]?.body).toEqual({
      settings: { max_file_mib: 100, max_files: 40, max_total_mib: 2048 },
    });
    expect(total).toHaveValue('2,048 MiB');
  });

  it("shows the server's 422 at the field it names", async () => {
    serve({
      'PUT /admin/settings/uploads': json(
        {
          detail:
            'Invalid uploads settings: max_file_mib: must not exceed the max upload size (max_total_mib)',
          errors: [
            {
              field: 'max_file_mib',
              message: 'must not exceed the max upload size (max_total_mib)',
            },
          ],
        },
        422,
      ),
    });
    renderApp(PAGE);
    const u = userEvent.setup();
    const c = within(await card('Upload Limits'));
    const size = await c.findByLabelText('Max File Size');
    await u.clear(size);
    await u.type(size, '500');
    await u.click(c.getByRole('button', { name: 'Save Upload Limits' }));
    await waitFor(() => expect(size).toHaveAttribute('aria-invalid', 'true'));
    expect(size).toHaveAccessibleDescription(
      expect.stringContaining('must not exceed the max upload size (max_total_mib)'),
    );
    expect(c.getByLabelText('Max Upload Size')).not.toHaveAttribute('aria-invalid', 'true');
  });
});
