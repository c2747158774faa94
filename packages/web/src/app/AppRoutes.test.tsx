import { describe, expect, it } from 'vitest';
import { DEFAULT_PROCESSING_SETTINGS } from '@adam/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, mockFetch } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';
import { loggedIn } from '../test/session';
import { LOGGED_IN_STORAGE_KEY } from '../session/storage';

const publicConfig = json({
  segment_max_tokens: 384,
  segment_max_sentences: 3,
  segmenter_model: 'builtin',
  default_credentials_in_use: false,
  default_credentials: null,
  version: '0.1.0',
});

describe('routes when logged out', () => {
  it('redirects /dashboard/* to /', async () => {
    mockFetch({ 'GET /config/public': publicConfig });
    const app = renderApp('/dashboard/settings/processing');
    expect(await screen.findByRole('button', { name: 'Access Control Center' })).toBeVisible();
    expect(app.location()).toBe('/');
  });

  it('shows the login screen on any other path', async () => {
    mockFetch({ 'GET /config/public': publicConfig });
    const app = renderApp('/some/other/path');
    expect(await screen.findByRole('button', { name: 'Access Control Center' })).toBeVisible();
    expect(app.location()).toBe('/some/other/path');
  });
});

describe('start-up session check', () => {
  it('shows Loading... while checking, then the dashboard', async () => {
    let answer: (r: Response) => void = () => {};
    const routes = loggedIn();
    mockFetch({ ...routes, 'GET /auth/me': () => new Promise<Response>((r) => (answer = r)) });
    renderApp('/dashboard/overview');
    expect(screen.getByText('Loading...')).toBeInTheDocument();
    answer(json({ email: 'admin@example.com', name: 'Ada Admin', totp_enabled: false }));
    expect(await screen.findByRole('heading', { name: 'System Overview' })).toBeInTheDocument();
  });

  it('clears the session when the current user cannot be fetched', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /config/public': publicConfig,
      'GET /auth/me': json({ detail: 'boom' }, 500),
    });
    const app = renderApp('/dashboard/overview');
    expect(await screen.findByRole('button', { name: 'Access Control Center' })).toBeVisible();
    expect(app.location()).toBe('/');
    expect(window.sessionStorage.getItem(LOGGED_IN_STORAGE_KEY)).toBeNull();
  });

  it('does not check anything without the logged-in flag', () => {
    const { calls } = mockFetch({ 'GET /config/public': publicConfig });
    renderApp('/');
    expect(screen.queryByText('Loading...')).not.toBeInTheDocument();
    expect(calls.some((c) => c.path === '/auth/me')).toBe(false);
  });
});

describe('routes when logged in', () => {
  it.each(['/', '/login', '/anything/else', '/dashboard', '/dashboard/'])(
    'sends %s to /dashboard/overview',
    async (path) => {
      mockFetch(loggedIn());
      const app = renderApp(path);
      expect(await screen.findByRole('heading', { name: 'System Overview' })).toBeInTheDocument();
      expect(app.location()).toBe('/dashboard/overview');
    },
  );

  it('opens the tab named by the path', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/settings/processing': json({
        ...DEFAULT_PROCESSING_SETTINGS,
        embedding_model: 'all-mpnet-base-v2',
      }),
    });
    renderApp('/dashboard/settings/processing');
    expect(await screen.findByRole('heading', { name: 'Processing Settings' })).toBeInTheDocument();
    const menu = screen.getByRole('navigation', { name: 'Agent 1 menu' });
    expect(within(menu).getByRole('link', { name: 'Processing' })).toHaveAttribute(
      'data-active',
      'true',
    );
  });

  it('opens nested paths such as model/playground/url', async () => {
    mockFetch(loggedIn());
    renderApp('/dashboard/model/playground/url');
    expect(await screen.findByRole('heading', { name: 'URL Playground' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Scrap' })).toBeInTheDocument();
  });

  it('selects the Agent 2 menu for agent2 tabs', async () => {
    mockFetch(loggedIn());
    renderApp('/dashboard/agent2/control');
    expect(await screen.findByRole('heading', { name: 'Agent 2 Control' })).toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Agent 2 menu' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Agent 1 menu' })).not.toBeInTheDocument();
    expect(screen.getByRole('radio', { name: 'Agent 2' })).toBeChecked();
  });

  it('shows page not found for an unknown tab', async () => {
    mockFetch(loggedIn());
    renderApp('/dashboard/no/such/tab');
    expect(await screen.findByText('The page you are looking for does not exist.')).toBeVisible();
    expect(screen.getByRole('navigation', { name: 'Agent 1 menu' })).toBeInTheDocument();
  });

  it('keeps the Agent 2 menu for an unknown agent2 tab', async () => {
    mockFetch(loggedIn());
    renderApp('/dashboard/agent2/nowhere');
    expect(await screen.findByText('The page you are looking for does not exist.')).toBeVisible();
    expect(screen.getByRole('navigation', { name: 'Agent 2 menu' })).toBeInTheDocument();
  });

  it('switches agents: Agent 2 opens agent2-overview, Agent 1 opens overview', async () => {
    mockFetch(loggedIn());
    const app = renderApp('/dashboard/overview');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'System Overview' });
    await u.click(screen.getByRole('radio', { name: 'Agent 2' }));
    await waitFor(() => expect(app.location()).toBe('/dashboard/agent2/overview'));
    expect(await screen.findByRole('heading', { name: 'Agent 2 Overview' })).toBeInTheDocument();
    await u.click(screen.getByRole('radio', { name: 'Agent 1' }));
    await waitFor(() => expect(app.location()).toBe('/dashboard/overview'));
  });

  it('keeps cross-link parameters in the URL', async () => {
    mockFetch(loggedIn());
    const app = renderApp('/dashboard/sources/snippets?job_id=7&source_url=https%3A%2F%2Fa.org');
    expect(await screen.findByRole('heading', { name: 'Snippets Browser' })).toBeInTheDocument();
    expect(app.location()).toBe(
      '/dashboard/sources/snippets?job_id=7&source_url=https%3A%2F%2Fa.org',
    );
  });
});
