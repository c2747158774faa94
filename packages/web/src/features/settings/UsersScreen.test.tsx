import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UserAccount } from '@adam/contracts';
import { json, mockFetch, noContent } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { adminUser, loggedIn } from '../../test/session';

const account = (over: Partial<UserAccount>): UserAccount => ({
  id: 1,
  email: 'admin@example.com',
  name: 'Ada Admin',
  role: 'administrator',
  totp_enabled: true,
  must_change_password: false,
  disabled_at: null,
  created_at: '2026-01-02T10:00:00Z',
  ...over,
});

const users = [
  account({}),
  account({
    id: 2,
    email: 'olga@example.com',
    name: 'Olga',
    role: 'operator',
    totp_enabled: false,
  }),
  account({
    id: 3,
    email: 'vic@example.com',
    name: 'Vic',
    role: 'viewer',
    totp_enabled: false,
    must_change_password: true,
  }),
  account({ id: 4, email: 'dan@example.com', name: 'Dan', role: 'viewer', disabled_at: 'x' }),
];

const PATH = '/dashboard/settings/users';

const row = (email: string) => {
  const found = document.querySelector(`tr[data-user="${email}"]`);
  if (!(found instanceof HTMLElement)) throw new Error(`no row for ${email}`);
  return found;
};

describe('Settings → Users', () => {
  it('lists the users with role, 2FA and status', async () => {
    mockFetch({ ...loggedIn(), 'GET /admin/users': json({ items: users }) });
    renderApp(PATH);
    expect(await screen.findByText('olga@example.com')).toBeInTheDocument();
    expect(within(row('admin@example.com')).getByText('(you)')).toBeInTheDocument();
    expect(within(row('admin@example.com')).getByText('Active')).toBeInTheDocument();
    expect(within(row('admin@example.com')).getByText('On')).toBeInTheDocument();
    expect(within(row('vic@example.com')).getByText('Must change password')).toBeInTheDocument();
    expect(within(row('dan@example.com')).getByText('Disabled')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Role of olga@example.com' })).toHaveValue(
      'Operator',
    );
    expect(screen.getByRole('button', { name: 'Enable dan@example.com' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Disable olga@example.com' })).toBeInTheDocument();
  });

  it('shows an empty state and an error state with the server detail', async () => {
    mockFetch({ ...loggedIn(), 'GET /admin/users': json({ items: [] }) });
    const first = renderApp(PATH);
    expect(await screen.findByText('No users')).toBeInTheDocument();
    first.unmount();

    mockFetch({ ...loggedIn(), 'GET /admin/users': json({ detail: 'Database is locked' }, 500) });
    renderApp(PATH);
    expect(await screen.findByText('Could not load the users')).toBeInTheDocument();
    expect(screen.getAllByText('Database is locked').length).toBeGreaterThan(0);
  });

  it('creates a user and shows the one-time password once', async () => {
    let stored = [users[0]!];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/users': () => json({ items: stored }),
      'POST /admin/users': (call) => {
        const body = call.body as { email: string; name: string; role: UserAccount['role'] };
        const user = account({ id: 9, ...body, totp_enabled: false, must_change_password: true });
        stored = [...stored, user];
        return json({ user, one_time_password: 'otp-Secret-123' }, 201);
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Add user' }));
    const form = await screen.findByRole('form', { name: 'Add user' });
    await u.click(within(form).getByRole('button', { name: 'Create user' }));
    expect(await within(form).findByText(/Email must be a valid/)).toBeInTheDocument();
    expect(callsTo('POST', '/admin/users')).toHaveLength(0);

    await u.type(within(form).getByLabelText(/Email/), 'Nina@Example.com');
    await u.type(within(form).getByLabelText(/Name/), 'Nina');
    await u.click(within(form).getByRole('combobox', { name: 'Role' }));
    await u.click(await screen.findByRole('option', { name: 'Operator' }));
    await u.click(within(form).getByRole('button', { name: 'Create user' }));

    expect(await screen.findByText('otp-Secret-123')).toBeInTheDocument();
    expect(screen.getByText(/shown only now/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(callsTo('POST', '/admin/users')[0]?.body).toEqual({
      email: 'nina@example.com',
      name: 'Nina',
      role: 'operator',
    });
    expect(await screen.findByText('nina@example.com')).toBeInTheDocument();

    await u.click(screen.getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText('otp-Secret-123')).not.toBeInTheDocument());
    // Opening the dialog again offers a new form, never the old password.
    await u.click(screen.getByRole('button', { name: 'Add user' }));
    expect(await screen.findByRole('form', { name: 'Add user' })).toBeInTheDocument();
    expect(screen.queryByText('otp-Secret-123')).not.toBeInTheDocument();
  });

  it('asks before deleting, and deletes only once confirmed', async () => {
    let stored = [...users];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/users': () => json({ items: stored }),
      'DELETE /admin/users/2': () => {
        stored = stored.filter((user) => user.id !== 2);
        return noContent();
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Delete olga@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete user' });
    await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(callsTo('DELETE', '/admin/users/2')).toHaveLength(0);

    await u.click(screen.getByRole('button', { name: 'Delete olga@example.com' }));
    const again = await screen.findByRole('dialog', { name: 'Delete user' });
    await u.click(within(again).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('olga@example.com deleted')).toBeInTheDocument();
    expect(callsTo('DELETE', '/admin/users/2')).toHaveLength(1);
    await waitFor(() =>
      expect(document.querySelector('tr[data-user="olga@example.com"]')).toBeNull(),
    );
  });

  it("shows the server's 409 detail when the last administrator would be demoted", async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/users': json({ items: users }),
      'PATCH /admin/users/1': json(
        { detail: 'admin@example.com is the last active administrator' },
        409,
      ),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('combobox', { name: 'Role of admin@example.com' }));
    await u.click(await screen.findByRole('option', { name: 'Viewer' }));
    expect(
      await screen.findByText(
        'Could not change the role: admin@example.com is the last active administrator',
      ),
    ).toBeInTheDocument();
    expect(callsTo('PATCH', '/admin/users/1')[0]?.body).toEqual({ role: 'viewer' });
  });

  it('disables a user after a confirmation', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/users': json({ items: users }),
      'PATCH /admin/users/2': json({ ...users[1], disabled_at: '2026-01-03T00:00:00Z' }),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Disable olga@example.com' }));
    const dialog = await screen.findByRole('dialog', { name: 'Disable user' });
    await u.click(within(dialog).getByRole('button', { name: 'Disable' }));
    expect(await screen.findByText('olga@example.com disabled')).toBeInTheDocument();
    expect(callsTo('PATCH', '/admin/users/2')[0]?.body).toEqual({ disabled: true });
  });

  it('is not offered to an operator, whose URL shows the role it needs', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /auth/me': json({ ...adminUser, role: 'operator' }),
    });
    renderApp(PATH);
    expect(
      await screen.findByRole('heading', { name: 'This page needs the administrator role' }),
    ).toBeInTheDocument();
    expect(callsTo('GET', '/admin/users')).toHaveLength(0);
  });
});
