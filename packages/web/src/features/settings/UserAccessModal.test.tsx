import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ApiKey, Session, UserAccount } from '@adam/contracts';
import { json, mockFetch, noContent } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { adminUser, loggedIn } from '../../test/session';

const olga: UserAccount = {
  id: 2,
  email: 'olga@example.com',
  name: 'Olga',
  role: 'operator',
  totp_enabled: false,
  must_change_password: false,
  disabled_at: null,
  created_at: '2026-01-02T10:00:00Z',
};

const olgaSession: Session = {
  id: 11,
  user_agent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  created_address: '10.0.0.5',
  last_used_address: '10.0.0.5',
  created_at: '2026-01-02T10:00:00Z',
  last_used_at: '2026-01-02T11:00:00Z',
  expires_at: '2099-01-01T00:00:00Z',
  current: false,
};

const olgaKey: ApiKey = {
  id: 21,
  name: 'olga-feeder',
  scope: 'write',
  prefix: 'adam_Zz99Yy',
  created_at: '2026-01-02T10:00:00Z',
  expires_at: '2099-01-01T00:00:00Z',
  last_used_at: null,
  last_used_address: null,
  revoked_at: null,
};

const PATH = '/dashboard/settings/users';

describe("Settings → Users: a user's sessions and API keys", () => {
  it("lists a user's sessions and signs them all out after a confirmation", async () => {
    let live = [olgaSession];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/users': json({ items: [olga] }),
      'GET /admin/users/2/sessions': () => json({ items: live }),
      'DELETE /admin/users/2/sessions': () => {
        live = [];
        return json({ revoked: 1 });
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await screen.findByRole('button', { name: 'Sessions and API keys of olga@example.com' }),
    );
    const panel = await screen.findByRole('dialog', {
      name: 'Sessions and API keys of olga@example.com',
    });
    expect(await within(panel).findByText('Firefox 133 on Linux')).toBeInTheDocument();
    await u.click(within(panel).getByRole('button', { name: 'Sign out all sessions' }));
    const confirm = await screen.findByRole('dialog', { name: 'Sign out everywhere' });
    await u.click(within(confirm).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('olga@example.com: 1 session signed out')).toBeInTheDocument();
    expect(callsTo('DELETE', '/admin/users/2/sessions')).toHaveLength(1);
    expect(await within(panel).findByText('olga@example.com is not logged in anywhere.'));
  });

  it("signs out one of a user's sessions after a confirmation, the others staying", async () => {
    const chrome: Session = {
      ...olgaSession,
      id: 12,
      user_agent: 'Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/131.0 Safari/537.36',
      last_used_address: '10.0.0.9',
    };
    let live = [olgaSession, chrome];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/users': json({ items: [olga] }),
      'GET /admin/users/2/sessions': () => json({ items: live }),
      'DELETE /admin/users/2/sessions/12': () => {
        live = [olgaSession];
        return noContent();
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await screen.findByRole('button', { name: 'Sessions and API keys of olga@example.com' }),
    );
    const panel = await screen.findByRole('dialog', {
      name: 'Sessions and API keys of olga@example.com',
    });
    await u.click(
      await within(panel).findByRole('button', {
        name: 'Sign out Chrome 131 on Windows from 10.0.0.9',
      }),
    );
    const confirm = await screen.findByRole('dialog', { name: 'Sign out session' });
    expect(
      within(confirm).getByText(/olga@example\.com out of Chrome 131 on Windows/),
    ).toBeInTheDocument();
    await u.click(within(confirm).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('olga@example.com: session signed out')).toBeInTheDocument();
    expect(callsTo('DELETE', '/admin/users/2/sessions/12')).toHaveLength(1);
    expect(callsTo('DELETE', '/admin/users/2/sessions')).toHaveLength(0);
    await waitFor(() => expect(within(panel).queryByText('Chrome 131 on Windows')).toBeNull());
    expect(within(panel).getByText('Firefox 133 on Linux')).toBeInTheDocument();
  });

  it("revokes a user's API key and shows a failed load with the server detail", async () => {
    let stored = [olgaKey];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/users': json({ items: [olga] }),
      'GET /admin/users/2/sessions': json({ detail: 'User 2 not found' }, 404),
      'GET /admin/users/2/api-keys': () => json({ items: stored }),
      'DELETE /admin/users/2/api-keys/21': () => {
        stored = [{ ...olgaKey, revoked_at: '2026-02-01T00:00:00Z' }];
        return noContent();
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await screen.findByRole('button', { name: 'Sessions and API keys of olga@example.com' }),
    );
    const panel = await screen.findByRole('dialog', {
      name: 'Sessions and API keys of olga@example.com',
    });
    expect(await within(panel).findByText('Could not load the sessions')).toBeInTheDocument();
    expect(within(panel).getByText('User 2 not found')).toBeInTheDocument();

    await u.click(within(panel).getByRole('tab', { name: 'API keys' }));
    await u.click(await within(panel).findByRole('button', { name: 'Revoke olga-feeder' }));
    const confirm = await screen.findByRole('dialog', { name: 'Revoke API key' });
    expect(within(confirm).getByText(/of olga@example\.com/)).toBeInTheDocument();
    await u.click(within(confirm).getByRole('button', { name: 'Revoke' }));
    expect(
      await screen.findByText('API key “olga-feeder” of olga@example.com revoked'),
    ).toBeInTheDocument();
    expect(callsTo('DELETE', '/admin/users/2/api-keys/21')).toHaveLength(1);
    await waitFor(() => expect(within(panel).getByText('Revoked')).toBeInTheDocument());
  });

  it('is not offered to a viewer, who never asks for anyone else’s keys or sessions', async () => {
    const { calls } = mockFetch({
      ...loggedIn(),
      'GET /auth/me': json({ ...adminUser, role: 'viewer' }),
    });
    renderApp(PATH);
    expect(
      await screen.findByRole('heading', { name: 'This page needs the administrator role' }),
    ).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: /Sessions and API keys of/ }),
    ).not.toBeInTheDocument();
    expect(calls.filter((c) => c.path.startsWith('/admin/users'))).toHaveLength(0);
  });
});
