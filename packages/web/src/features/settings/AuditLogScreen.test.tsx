import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { AuditEntry } from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const entry = (id: number, over: Partial<AuditEntry> = {}): AuditEntry => ({
  id,
  at: '2026-03-01T10:00:00.000Z',
  user_id: 1,
  user_email: 'admin@example.com',
  key_id: 1,
  key_kind: 'session',
  action: 'PUT /admin/settings/:section',
  target: 'processing',
  address: '127.0.0.1',
  status: 200,
  outcome: 'ok',
  detail: null,
  prev_hash: 'a',
  hash: 'b',
  ...over,
});

const PATH = '/dashboard/settings/audit';
const verified = json({
  ok: true,
  checked: 3,
  anchor_id: 0,
  broken_id: null,
  problem: null,
  detail: null,
});

describe('Settings → Audit log', () => {
  it('lists entries, pages by cursor and sends the filters', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /admin/audit/verify': verified,
      'GET /admin/audit': (call) =>
        call.query.cursor === '2'
          ? json({ entries: [entry(1, { action: 'DELETE /sources/:id' })], next_cursor: null })
          : json({
              entries: [entry(3), entry(2, { outcome: 'refused', status: 403 })],
              next_cursor: '2',
            }),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    expect(await screen.findByText('Chain intact · 3 entries')).toBeInTheDocument();
    expect(await screen.findByText('refused 403')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Older' }));
    expect(await screen.findByText('DELETE /sources/:id')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Older' })).toBeDisabled();
    await u.click(screen.getByRole('button', { name: 'Newer' }));
    expect(await screen.findByText('refused 403')).toBeInTheDocument();

    await u.type(screen.getByLabelText('User'), 'olga@example.com');
    await waitFor(() =>
      expect(callsTo('GET', '/admin/audit').some((c) => c.query.user === 'olga@example.com')).toBe(
        true,
      ),
    );
    const last = callsTo('GET', '/admin/audit').at(-1);
    expect(last?.query.cursor).toBeUndefined();
  });

  it('shows a broken chain and an empty trail', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /admin/audit/verify': json({
        ok: false,
        checked: 5,
        anchor_id: 0,
        broken_id: 4,
        problem: 'edited',
        detail: 'hash mismatch',
      }),
      'GET /admin/audit': json({ entries: [], next_cursor: null }),
    });
    renderApp(PATH);
    expect(await screen.findByText('Audit chain broken')).toBeInTheDocument();
    expect(screen.getByText(/Entry 4 was edited: hash mismatch/)).toBeInTheDocument();
    expect(await screen.findByText('No audit entries')).toBeInTheDocument();
  });
});
