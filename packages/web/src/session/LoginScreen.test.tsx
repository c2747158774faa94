import { describe, expect, it, vi } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, mockFetch, type Route } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';
import { API_KEY_STORAGE_KEY, LOGGED_IN_STORAGE_KEY } from './storage';

const user = { email: 'admin@example.com', name: 'Admin', totp_enabled: false };

const publicConfig = (inUse: boolean) => ({
  segment_max_tokens: 384,
  segment_max_sentences: 3,
  segmenter_model: 'builtin',
  default_credentials_in_use: inUse,
  default_credentials: inUse ? { email: 'admin@example.com', password: 'admin' } : null,
  version: '0.1.0',
});

/** Calls the dashboard makes once it is shown. */
const dashboardRoutes = {
  'GET /admin/settings/resources': json({ metrics_refresh_ms: 5000 }),
  'GET /metrics/realtime': json({ cpuUsage: 12, memoryUsage: 40, timestamp: 'now' }),
};

function setup(login: Route | Response, { inUse = true } = {}) {
  const fetch = mockFetch({
    'GET /config/public': json(publicConfig(inUse)),
    'POST /auth/login': login,
    ...dashboardRoutes,
  });
  const app = renderApp('/');
  return { ...fetch, app, user: userEvent.setup() };
}

async function fillAndSubmit(u: ReturnType<typeof userEvent.setup>, email = 'admin@example.com') {
  await u.type(screen.getByLabelText(/^Email/), email);
  await u.type(screen.getByLabelText(/^Password/), 'secret-password');
  await u.click(screen.getByRole('button', { name: 'Access Control Center' }));
}

describe('login screen', () => {
  it('shows the default credentials hint only while they are in use', async () => {
    setup(json({}), { inUse: true });
    expect(await screen.findByText(/admin@example\.com \/ admin/)).toBeInTheDocument();
  });

  it('hides the hint when the default credentials are no longer in use', async () => {
    const { callsTo } = setup(json({}), { inUse: false });
    await waitFor(() => expect(callsTo('GET', '/config/public')).toHaveLength(1));
    expect(screen.getByRole('button', { name: 'Access Control Center' })).toBeInTheDocument();
    expect(screen.queryByText(/Default credentials/)).not.toBeInTheDocument();
  });

  it('has no 2FA field until the server asks for it', () => {
    setup(json({}));
    expect(screen.queryByLabelText(/2FA Code/)).not.toBeInTheDocument();
  });

  it('requires a valid e-mail and a password before calling the server', async () => {
    const { user: u, callsTo } = setup(json({}));
    await u.click(screen.getByRole('button', { name: 'Access Control Center' }));
    expect(await screen.findByText('Email is required')).toBeInTheDocument();
    expect(screen.getByText('Password is required')).toBeInTheDocument();
    await u.type(screen.getByLabelText(/^Email/), 'not-an-email');
    await u.click(screen.getByRole('button', { name: 'Access Control Center' }));
    expect(await screen.findByText('Please enter a valid email')).toBeInTheDocument();
    expect(callsTo('POST', '/auth/login')).toHaveLength(0);
  });

  it('logs in without 2FA, stores the session and opens the overview', async () => {
    const {
      user: u,
      calls,
      app,
    } = setup(
      json({ api_key: 'key-1', user, requires_2fa: false, expires_at: '2030-01-01T00:00:00Z' }),
    );
    await fillAndSubmit(u);
    expect(await screen.findByText('Login successful!')).toBeInTheDocument();
    await waitFor(() => expect(app.location()).toBe('/dashboard/overview'));
    const login = calls.find((c) => c.path === '/auth/login');
    expect(login?.body).toEqual({ email: 'admin@example.com', password: 'secret-password' });
    expect(window.sessionStorage.getItem(API_KEY_STORAGE_KEY)).toBe('key-1');
    expect(window.sessionStorage.getItem(LOGGED_IN_STORAGE_KEY)).toBe('true');
    expect(window.sessionStorage.length).toBe(2);
  });

  it('asks for the 2FA code, then sends it with the second submit', async () => {
    const login = vi.fn<Route>((call) => {
      const body = call.body as { totp_code?: string };
      if (!body.totp_code) {
        return json({ api_key: null, user: null, requires_2fa: true, expires_at: null });
      }
      return json({ api_key: 'key-2fa', user, requires_2fa: false, expires_at: 'x' });
    });
    const { user: u, callsTo, app } = setup(login);
    await fillAndSubmit(u);

    expect(
      await screen.findByText('Two-factor authentication required. Please enter your 2FA code.'),
    ).toBeInTheDocument();
    const codeField = await screen.findByLabelText(/2FA Code/);
    expect(codeField).toHaveAttribute('placeholder', '123456');
    expect(callsTo('POST', '/auth/login')[0]?.body).not.toHaveProperty('totp_code');

    // The code is required once shown.
    await u.click(screen.getByRole('button', { name: 'Access Control Center' }));
    expect(await screen.findByText('2FA code is required')).toBeInTheDocument();
    expect(callsTo('POST', '/auth/login')).toHaveLength(1);

    await u.type(codeField, '123456');
    await u.click(screen.getByRole('button', { name: 'Access Control Center' }));
    await waitFor(() => expect(app.location()).toBe('/dashboard/overview'));
    expect(callsTo('POST', '/auth/login')[1]?.body).toEqual({
      email: 'admin@example.com',
      password: 'secret-password',
      totp_code: '123456',
    });
    expect(window.sessionStorage.getItem(API_KEY_STORAGE_KEY)).toBe('key-2fa');
  });

  it("shows 'Invalid 2FA code' for a 401 while the code is being entered", async () => {
    let step = 0;
    const { user: u } = setup(() =>
      step++ === 0
        ? json({ api_key: null, user: null, requires_2fa: true, expires_at: null })
        : json({ detail: 'Invalid two-factor code' }, 401),
    );
    await fillAndSubmit(u);
    await u.type(await screen.findByLabelText(/2FA Code/), '000000');
    await u.click(screen.getByRole('button', { name: 'Access Control Center' }));
    expect(await screen.findByText('Invalid 2FA code')).toBeInTheDocument();
  });

  it.each([
    ['a 401', () => json({ detail: 'Invalid email or password' }, 401), 'Invalid credentials'],
    ['a 500', () => json({ detail: 'boom' }, 500), 'Server error. Please try again later.'],
    ['a 503', () => json({}, 503), 'Server error. Please try again later.'],
    [
      'a 429',
      () => json({ detail: 'Too many login attempts, try again in 60 s' }, 429),
      'Too many login attempts, try again in 60 s',
    ],
    ['a 400 without text', () => json({}, 400), 'Login failed'],
  ] as const)('toasts %s as the spec says', async (_name, answer, message) => {
    const { user: u, app } = setup(answer);
    await fillAndSubmit(u);
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(app.location()).toBe('/');
    expect(window.sessionStorage.getItem(LOGGED_IN_STORAGE_KEY)).toBeNull();
  });

  it('toasts a network failure', async () => {
    const { user: u } = setup(() => {
      throw new TypeError('Failed to fetch');
    });
    await fillAndSubmit(u);
    expect(
      await screen.findByText('Network error. Please check your connection.'),
    ).toBeInTheDocument();
    // The login screen's own toast only, not a second one from the global handler.
    expect(screen.getAllByText('Network error. Please check your connection.')).toHaveLength(1);
  });
});
