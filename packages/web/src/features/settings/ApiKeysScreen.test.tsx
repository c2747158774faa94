import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ApiKey } from '@adam/contracts';
import { json, mockFetch, noContent } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { adminUser, loggedIn } from '../../test/session';

const apiKey = (over: Partial<ApiKey>): ApiKey => ({
  id: 1,
  name: 'feeder',
  scope: 'write',
  prefix: 'adam_Ab12Cd',
  created_at: '2026-01-02T10:00:00Z',
  expires_at: '2099-01-02T10:00:00Z',
  last_used_at: '2026-01-03T11:00:00Z',
  last_used_address: '10.0.0.7',
  revoked_at: null,
  ...over,
});

const keys = [
  apiKey({}),
  apiKey({ id: 2, name: 'old-report', scope: 'read', expires_at: '2020-01-01T00:00:00Z' }),
  apiKey({
    id: 3,
    name: 'gone',
    scope: 'admin',
    revoked_at: '2026-01-04T00:00:00Z',
    last_used_at: null,
    last_used_address: null,
  }),
];

const PATH = '/dashboard/settings/keys';

const row = (name: string) => {
  const found = document.querySelector(`tr[data-key="${name}"]`);
  if (!(found instanceof HTMLElement)) throw new Error(`no row for ${name}`);
  return found;
};

describe('Settings → API keys', () => {
  it('lists the keys with scope, prefix, last use and status', async () => {
    mockFetch({ ...loggedIn(), 'GET /auth/api-keys': json({ items: keys }) });
    renderApp(PATH);
    expect(await screen.findByText('feeder')).toBeInTheDocument();
    const feeder = within(row('feeder'));
    expect(feeder.getByText('Write')).toBeInTheDocument();
    expect(feeder.getByText('adam_Ab12Cd…')).toBeInTheDocument();
    expect(feeder.getByText('10.0.0.7')).toBeInTheDocument();
    expect(feeder.getByText('Active')).toBeInTheDocument();
    expect(within(row('old-report')).getByText('Expired')).toBeInTheDocument();
    expect(within(row('gone')).getByText('Revoked')).toBeInTheDocument();
    expect(within(row('gone')).getByText('Never')).toBeInTheDocument();
    // A revoked key has nothing left to revoke.
    expect(screen.queryByRole('button', { name: 'Revoke gone' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Revoke feeder' })).toBeInTheDocument();
  });

  it('shows an empty state and an error state with the server detail', async () => {
    mockFetch({ ...loggedIn(), 'GET /auth/api-keys': json({ items: [] }) });
    const first = renderApp(PATH);
    expect(await screen.findByText('No API keys')).toBeInTheDocument();
    first.unmount();

    mockFetch({ ...loggedIn(), 'GET /auth/api-keys': json({ detail: 'Database is locked' }, 500) });
    renderApp(PATH);
    expect(await screen.findByText('Could not load the API keys')).toBeInTheDocument();
    expect(screen.getAllByText('Database is locked').length).toBeGreaterThan(0);
  });

  it('checks the form before sending it', async () => {
    const { callsTo } = mockFetch({ ...loggedIn(), 'GET /auth/api-keys': json({ items: [] }) });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Create API key' }));
    const form = await screen.findByRole('form', { name: 'Create API key' });
    await u.click(within(form).getByRole('button', { name: 'Create key' }));
    expect(await within(form).findByText('Name is required')).toBeInTheDocument();

    const days = within(form).getByLabelText('Expires in (days)');
    await u.clear(days);
    await u.click(within(form).getByRole('button', { name: 'Create key' }));
    expect(await within(form).findByText('Expiry is required')).toBeInTheDocument();

    // Beyond the longest life the field clamps to it on blur.
    await u.click(days);
    await u.paste('400');
    await u.click(within(form).getByLabelText(/^Name/));
    expect(days).toHaveValue('365');
    expect(callsTo('POST', '/auth/api-keys')).toHaveLength(0);
  });

  it('creates a key and shows its secret once', async () => {
    let stored: ApiKey[] = [];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /auth/api-keys': () => json({ items: stored }),
      'POST /auth/api-keys': (call) => {
        const body = call.body as { name: string; scope: ApiKey['scope'] };
        const key = apiKey({ id: 7, name: body.name, scope: body.scope, last_used_at: null });
        stored = [key];
        return json({ key, secret: 'adam_Secret-Value-123' }, 201);
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Create API key' }));
    const form = await screen.findByRole('form', { name: 'Create API key' });
    await u.click(within(form).getByLabelText(/^Name/));
    await u.paste('nightly import');
    const days = within(form).getByLabelText('Expires in (days)');
    await u.clear(days);
    await u.paste('30');
    await u.click(within(form).getByRole('combobox', { name: /^Scope/ }));
    await u.click(await screen.findByRole('option', { name: /^Admin/ }));
    await u.click(within(form).getByRole('button', { name: 'Create key' }));

    expect(await screen.findByText('adam_Secret-Value-123')).toBeInTheDocument();
    expect(screen.getByText(/it will not be shown again/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    expect(callsTo('POST', '/auth/api-keys')[0]?.body).toEqual({
      name: 'nightly import',
      scope: 'admin',
      expires_in_days: 30,
    });
    expect(await screen.findByText('nightly import')).toBeInTheDocument();

    await u.click(screen.getByRole('button', { name: 'Done' }));
    await waitFor(() =>
      expect(screen.queryByText('adam_Secret-Value-123')).not.toBeInTheDocument(),
    );
    await u.click(screen.getByRole('button', { name: 'Create API key' }));
    expect(await screen.findByRole('form', { name: 'Create API key' })).toBeInTheDocument();
    expect(screen.queryByText('adam_Secret-Value-123')).not.toBeInTheDocument();
  });

  it("shows the server's refusal of a create", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /auth/api-keys': json({ items: [] }),
      'POST /auth/api-keys': json({ detail: 'At most 100 live API keys per user' }, 409),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Create API key' }));
    const form = await screen.findByRole('form', { name: 'Create API key' });
    await u.click(within(form).getByLabelText(/^Name/));
    await u.paste('one too many');
    await u.click(within(form).getByRole('button', { name: 'Create key' }));
    expect(
      await screen.findByText('Could not create the API key: At most 100 live API keys per user'),
    ).toBeInTheDocument();
    expect(within(form).getByLabelText(/^Name/)).toHaveValue('one too many');
  });

  it('revokes a key only once confirmed', async () => {
    let stored = [...keys];
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /auth/api-keys': () => json({ items: stored }),
      'DELETE /auth/api-keys/1': () => {
        stored = stored.map((k) => (k.id === 1 ? { ...k, revoked_at: '2026-02-01T00:00:00Z' } : k));
        return noContent();
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Revoke feeder' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke API key' });
    await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(callsTo('DELETE', '/auth/api-keys/1')).toHaveLength(0);

    await u.click(screen.getByRole('button', { name: 'Revoke feeder' }));
    const again = await screen.findByRole('dialog', { name: 'Revoke API key' });
    await u.click(within(again).getByRole('button', { name: 'Revoke' }));
    expect(await screen.findByText('API key “feeder” revoked')).toBeInTheDocument();
    expect(callsTo('DELETE', '/auth/api-keys/1')).toHaveLength(1);
    await waitFor(() => expect(within(row('feeder')).getByText('Revoked')).toBeInTheDocument());
  });

  it('shows a failed revoke with the server detail', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /auth/api-keys': json({ items: keys }),
      'DELETE /auth/api-keys/1': json({ detail: 'API key 1 not found' }, 404),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Revoke feeder' }));
    const dialog = await screen.findByRole('dialog', { name: 'Revoke API key' });
    await u.click(within(dialog).getByRole('button', { name: 'Revoke' }));
    expect(
      await screen.findByText('Could not revoke the API key: API key 1 not found'),
    ).toBeInTheDocument();
  });

  it('offers a viewer only the read scope, never more than their role', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /auth/me': json({ ...adminUser, role: 'viewer' }),
      'GET /auth/api-keys': json({ items: [] }),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Create API key' }));
    const form = await screen.findByRole('form', { name: 'Create API key' });
    await u.click(within(form).getByRole('combobox', { name: /^Scope/ }));
    const options = await screen.findAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['Read: reads only, as a viewer']);
  });
});
