import { describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, mockFetch, noContent } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';
import { loggedIn } from '../test/session';
import { API_KEY_STORAGE_KEY, LOGGED_IN_STORAGE_KEY } from '../session/storage';
import { EXPANDED_MENUS_STORAGE_KEY } from '../layout/useExpandedMenus';
import { WS_AUTH_FAILURE_MESSAGE } from '../lib/realtime/realtimeClient';
import { FakeWebSocket } from '../test/fakeSocket';

const menu = () => screen.getByRole('navigation', { name: 'Agent 1 menu' });
const groupToggle = (label: string) =>
  within(menu())
    .getAllByRole('button')
    .find((el) => el.textContent === label) as HTMLElement;

describe('sidebar', () => {
  it('saves group expansion to local storage and restores it on the next visit', async () => {
    mockFetch(loggedIn());
    const app = renderApp('/dashboard/overview');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'System Overview' });
    expect(within(menu()).queryByRole('link', { name: 'Statistics' })).not.toBeInTheDocument();

    await u.click(groupToggle('Index'));
    expect(await within(menu()).findByRole('link', { name: 'Statistics' })).toBeVisible();
    expect(JSON.parse(window.localStorage.getItem(EXPANDED_MENUS_STORAGE_KEY) ?? '{}')).toEqual({
      index: true,
    });

    app.remount();
    await screen.findByRole('heading', { name: 'System Overview' });
    expect(within(menu()).getByRole('link', { name: 'Statistics' })).toBeVisible();
    expect(within(menu()).queryByRole('link', { name: 'Real-time' })).not.toBeInTheDocument();

    await u.click(groupToggle('Index'));
    await waitFor(() =>
      expect(JSON.parse(window.localStorage.getItem(EXPANDED_MENUS_STORAGE_KEY) ?? '{}')).toEqual({
        index: false,
      }),
    );
  });

  it('opens the group of the tab in the address bar', async () => {
    mockFetch(loggedIn());
    renderApp('/dashboard/settings/general');
    await screen.findByRole('heading', { name: 'General Settings' });
    expect(within(menu()).getByRole('link', { name: 'Security' })).toBeVisible();
    expect(within(menu()).getByRole('link', { name: 'General' })).toHaveAttribute(
      'href',
      '/dashboard/settings/general',
    );
  });

  it('shows system status and the CPU and memory use from /metrics/realtime', async () => {
    mockFetch(loggedIn());
    renderApp('/dashboard/overview');
    const status = await screen.findByLabelText('System status');
    expect(within(status).getByText('online')).toBeInTheDocument();
    expect(await within(status).findByText('37.5%')).toBeInTheDocument();
    expect(within(status).getByText('61.2%')).toBeInTheDocument();
  });
});

describe('header', () => {
  it('shows the latency of the metrics poll and the segment rate the server measured', async () => {
    mockFetch(loggedIn());
    renderApp('/dashboard/overview');
    expect(await screen.findByText(/^\d+ ms$/)).toBeInTheDocument();
    expect(screen.getByText('2.5 seg/s')).toBeInTheDocument();
  });

  it('polls at metrics_refresh_ms while monitoring is on, and stops when it is off', async () => {
    const routes = loggedIn();
    const { callsTo } = mockFetch({
      ...routes,
      'GET /admin/settings/resources': json({ metrics_refresh_ms: 1000 }),
    });
    renderApp('/dashboard/overview');
    const u = userEvent.setup();
    await waitFor(() => expect(callsTo('GET', '/metrics/realtime').length).toBeGreaterThan(0));
    await waitFor(() => expect(callsTo('GET', '/metrics/realtime').length).toBeGreaterThan(1));

    const toggle = screen.getByRole('switch', { name: 'Monitoring On' });
    expect(toggle).toBeChecked();
    await u.click(toggle);
    expect(screen.getByRole('switch', { name: 'Monitoring Off' })).not.toBeChecked();
    const count = callsTo('GET', '/metrics/realtime').length;
    await act(() => new Promise((r) => setTimeout(r, 1500)));
    expect(callsTo('GET', '/metrics/realtime')).toHaveLength(count);
  });

  it('has a user menu with the name, Security and Logout', async () => {
    mockFetch(loggedIn());
    const app = renderApp('/dashboard/overview');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'System Overview' });
    const trigger = screen.getByRole('button', { name: 'User menu' });
    expect(trigger).toHaveTextContent('Ada Admin');

    await u.click(trigger);
    const security = await screen.findByRole('menuitem', { name: 'Security' });
    expect(screen.getByRole('menuitem', { name: 'Logout' })).toBeInTheDocument();
    await u.click(security);
    await waitFor(() => expect(app.location()).toBe('/dashboard/settings/security'));
    await waitFor(() => expect(screen.queryByRole('menuitem')).not.toBeInTheDocument());
  });

  it('logs out: POST /auth/logout, clears the session, goes to /', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'POST /auth/logout': noContent(),
      'GET /config/public': json({
        segment_max_tokens: 384,
        segment_max_sentences: 3,
        segmenter_model: 'builtin',
        default_credentials_in_use: false,
        default_credentials: null,
        version: '0.1.0',
      }),
    });
    const app = renderApp('/dashboard/overview');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'System Overview' });
    await u.click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('button', { name: 'Access Control Center' })).toBeVisible();
    expect(callsTo('POST', '/auth/logout')).toHaveLength(1);
    expect(app.location()).toBe('/');
    expect(window.sessionStorage.getItem(API_KEY_STORAGE_KEY)).toBeNull();
    expect(window.sessionStorage.getItem(LOGGED_IN_STORAGE_KEY)).toBeNull();
  });

  it('logs out with a toast when a call finds the session expired', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /metrics/realtime': json({ detail: 'Invalid API key' }, 401),
      'POST /auth/refresh': json({ detail: 'Session expired' }, 401),
      'GET /config/public': json({
        segment_max_tokens: 384,
        segment_max_sentences: 3,
        segmenter_model: 'builtin',
        default_credentials_in_use: false,
        default_credentials: null,
        version: '0.1.0',
      }),
    });
    const app = renderApp('/dashboard/overview');
    expect(await screen.findByText('Session expired. Please log in again.')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'Access Control Center' })).toBeVisible();
    expect(app.location()).toBe('/');
    expect(window.sessionStorage.getItem(LOGGED_IN_STORAGE_KEY)).toBeNull();
  });
});

describe('realtime channel', () => {
  it('opens one socket with a ticket from the server, not the key, and asks for an update', async () => {
    const { callsTo } = mockFetch(loggedIn());
    renderApp('/dashboard/settings/general');
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    const socket = FakeWebSocket.latest()!;
    expect(socket.url).toMatch(/\/api\/v1\/ws\?ticket=ticket-1$/);
    expect(callsTo('POST', '/auth/ws-ticket')).toHaveLength(1);
    act(() => socket.open());
    expect(socket.sent.map((s) => JSON.parse(s))).toEqual([{ type: 'request_update' }]);
  });

  it('shows the auth-failure banner and toast, and does not reconnect', async () => {
    mockFetch(loggedIn());
    renderApp('/dashboard/settings/general');
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    act(() => FakeWebSocket.latest()!.serverClose(4401));
    // The banner in the page and the toast.
    const banner = await screen.findByRole('button', { name: 'Reconnect' });
    expect(banner.closest('[role="alert"]')).toHaveTextContent(WS_AUTH_FAILURE_MESSAGE);
    expect(screen.getAllByText(WS_AUTH_FAILURE_MESSAGE).length).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 1200));
    expect(FakeWebSocket.instances).toHaveLength(1);
  });
});
