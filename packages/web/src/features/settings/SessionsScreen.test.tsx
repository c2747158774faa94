import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Session } from '@adam/contracts';
import { json, mockFetch, noContent } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const session = (over: Partial<Session>): Session => ({
  id: 1,
  user_agent: FIREFOX,
  created_address: '10.0.0.1',
  last_used_address: '10.0.0.1',
  created_at: '2026-01-02T10:00:00Z',
  last_used_at: '2026-01-02T12:00:00Z',
  expires_at: '2099-01-02T10:00:00Z',
  current: true,
  ...over,
});

const sessions = [
  session({}),
  session({ id: 2, user_agent: CHROME, last_used_address: '192.0.2.9', current: false }),
  session({
    id: 3,
    user_agent: null,
    created_address: '198.51.100.4',
    last_used_address: null,
    last_used_at: null,
    current: false,
  }),
];

const PATH = '/dashboard/settings/sessions';

const row = (id: number) => {
  const found = document.querySelector(`tr[data-session="${id}"]`);
  if (!(found instanceof HTMLElement)) throw new Error(`no row for session ${id}`);
  return found;
};

describe('Settings → Sessions', () => {
  it('lists the sessions, this one marked and not offered for sign-out', async () => {
    mockFetch({ ...loggedIn(), 'GET /auth/sessions': json({ items: sessions }) });
    renderApp(PATH);
    expect(await screen.findByText('Firefox 133 on Linux')).toBeInTheDocument();
    expect(within(row(1)).getByText('This session')).toBeInTheDocument();
    expect(within(row(1)).queryByRole('button')).not.toBeInTheDocument();
    expect(within(row(2)).getByText('Chrome 131 on Windows')).toBeInTheDocument();
    expect(within(row(2)).getByText('192.0.2.9')).toBeInTheDocument();
    expect(within(row(2)).getByText('signed in from 10.0.0.1')).toBeInTheDocument();
    expect(within(row(3)).getByText('Unknown client')).toBeInTheDocument();
    expect(within(row(3)).getByText('198.51.100.4')).toBeInTheDocument();
    expect(within(row(3)).getByText('Not since')).toBeInTheDocument();
  });

  it('shows an error state with the server detail, and an empty one', async () => {
    mockFetch({ ...loggedIn(), 'GET /auth/sessions': json({ detail: 'Database is locked' }, 500) });
    const first = renderApp(PATH);
    expect(await screen.findByText('Could not load the sessions')).toBeInTheDocument();
    expect(screen.getAllByText('Database is locked').length).toBeGreaterThan(0);
    first.unmount();

    mockFetch({ ...loggedIn(), 'GET /auth/sessions': json({ items: [] }) });
    renderApp(PATH);
    expect(await screen.findByText('No sessions')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Sign out all other sessions' })).toBeDisabled();
  });

  it('signs out one session after a confirmation', async () => {
    let stored = [...sessions];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /auth/sessions': () => json({ items: stored }),
      'DELETE /auth/sessions/2': () => {
        stored = stored.filter((s) => s.id !== 2);
        return noContent();
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await screen.findByText('Chrome 131 on Windows');
    await u.click(within(row(2)).getByRole('button'));
    const dialog = await screen.findByRole('dialog', { name: 'Sign out session' });
    expect(within(dialog).getByText(/Chrome 131 on Windows from 192\.0\.2\.9/)).toBeInTheDocument();
    await u.click(within(dialog).getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByText('Session signed out')).toBeInTheDocument();
    expect(callsTo('DELETE', '/auth/sessions/2')).toHaveLength(1);
    await waitFor(() => expect(document.querySelector('tr[data-session="2"]')).toBeNull());
  });

  it('signs out all other sessions only once confirmed', async () => {
    let stored = [...sessions];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /auth/sessions': () => json({ items: stored }),
      'POST /auth/sessions/revoke-others': () => {
        stored = stored.filter((s) => s.current);
        return json({ revoked: 2 });
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await screen.findByText('Firefox 133 on Linux');
    await u.click(screen.getByRole('button', { name: 'Sign out all other sessions' }));
    const dialog = await screen.findByRole('dialog', { name: 'Sign out all other sessions' });
    expect(within(dialog).getByText(/all 2 other sessions/)).toBeInTheDocument();
    await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(callsTo('POST', '/auth/sessions/revoke-others')).toHaveLength(0);

    await u.click(screen.getByRole('button', { name: 'Sign out all other sessions' }));
    const again = await screen.findByRole('dialog', { name: 'Sign out all other sessions' });
    await u.click(within(again).getByRole('button', { name: 'Sign out others' }));
    expect(await screen.findByText('2 sessions signed out')).toBeInTheDocument();
    expect(callsTo('POST', '/auth/sessions/revoke-others')).toHaveLength(1);
    await waitFor(() => expect(document.querySelector('tr[data-session="2"]')).toBeNull());
    expect(screen.getByRole('button', { name: 'Sign out all other sessions' })).toBeDisabled();
  });

  it('shows a refused sign-out with the server detail', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /auth/sessions': json({ items: sessions }),
      'POST /auth/sessions/revoke-others': json(
        { detail: 'Only a login session may do this, not an API key' },
        403,
      ),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await screen.findByText('Firefox 133 on Linux');
    await u.click(screen.getByRole('button', { name: 'Sign out all other sessions' }));
    const dialog = await screen.findByRole('dialog', { name: 'Sign out all other sessions' });
    await u.click(within(dialog).getByRole('button', { name: 'Sign out others' }));
    expect(
      await screen.findByText(
        'Could not sign out the sessions: Only a login session may do this, not an API key',
      ),
    ).toBeInTheDocument();
  });
});
