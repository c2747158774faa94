import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, mockFetch, noContent } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';
import { adminUser, loggedIn } from '../test/session';
import { jobList, makeJob } from '../features/jobs/jobs.fixtures';
import { menuFor, TABS, tabRole } from '../navigation/tabRegistry';

const as = (role: 'administrator' | 'operator' | 'viewer') => ({
  ...loggedIn(),
  'GET /auth/me': json({ ...adminUser, role }),
});

const menu = () => screen.getByRole('navigation', { name: 'Agent 1 menu' });
const menuLinks = () =>
  within(menu())
    .queryAllByRole('link')
    .map((link) => link.textContent);

describe('role-hidden menus', () => {
  it("leaves Users, Logs and the writing settings out of a viewer's menu", async () => {
    mockFetch(as('viewer'));
    renderApp('/dashboard/settings/security');
    const u = userEvent.setup();
    await screen.findByRole('navigation', { name: 'Agent 1 menu' });
    expect(await within(menu()).findByRole('link', { name: 'Security' })).toBeVisible();
    await u.click(within(menu()).getByRole('button', { name: 'Monitoring' }));
    expect(await within(menu()).findByRole('link', { name: 'Real-time' })).toBeVisible();
    const links = menuLinks();
    for (const hidden of ['Users', 'Logs', 'General', 'Processing', 'Resources', 'Scraping Rules'])
      expect(links).not.toContain(hidden);
    expect(links).toContain('Performance');
  });

  it("shows Users and Logs in an administrator's menu, Logs but not Users in an operator's", async () => {
    mockFetch(as('administrator'));
    const admin = renderApp('/dashboard/settings/security');
    await screen.findByRole('navigation', { name: 'Agent 1 menu' });
    expect(await within(menu()).findByRole('link', { name: 'Users' })).toBeVisible();
    admin.unmount();

    mockFetch(as('operator'));
    renderApp('/dashboard/monitoring/performance');
    await screen.findByRole('navigation', { name: 'Agent 1 menu' });
    expect(await within(menu()).findByRole('link', { name: 'Logs' })).toBeVisible();
    expect(menuLinks()).not.toContain('Users');
  });

  it("shows a viewer who types a hidden tab's URL the role it needs, and calls nothing for it", async () => {
    const { callsTo } = mockFetch(as('viewer'));
    renderApp('/dashboard/monitoring/logs');
    expect(
      await screen.findByRole('heading', { name: 'This page needs the operator role' }),
    ).toBeInTheDocument();
    expect(screen.getByText(/signed in as a viewer/)).toBeInTheDocument();
    expect(callsTo('GET', '/admin/logs')).toHaveLength(0);
  });

  it('declares the server-side roles on the tabs', () => {
    const role = (id: string) => tabRole(TABS.find((tab) => tab.id === id)!);
    expect(role('settings-users')).toBe('administrator');
    expect(role('settings-general')).toBe('administrator');
    expect(role('monitoring-logs')).toBe('operator');
    expect(role('settings-scraping')).toBe('operator');
    expect(role('settings-security')).toBe('viewer');
    expect(role('overview')).toBe('viewer');
    // A group with nothing left for the role disappears instead of opening empty.
    const groups = (r: 'viewer' | 'administrator') =>
      menuFor('agent1', r).flatMap((entry) => (entry.kind === 'group' ? [entry.group.id] : []));
    expect(groups('administrator')).toContain('settings');
    expect(groups('viewer')).toContain('settings');
  });
});

describe('role-hidden buttons', () => {
  const queue = (role: 'operator' | 'viewer') => ({
    ...as(role),
    'GET /sources/jobs/active': json(jobList([makeJob({ id: 7, status: 'pending' })])),
    'GET /sources/jobs/queue': json(jobList([])),
    'GET /sources/jobs/history': json(jobList([])),
    'GET /sources/jobs/stuck': json(jobList([])),
    'GET /sources/jobs/throughput': json({ detail: 'not in this test' }, 500),
  });

  it("offers a viewer the job queue's reads but not its cancel and delete", async () => {
    mockFetch(queue('viewer'));
    renderApp('/dashboard/sources/queue');
    expect(await screen.findByRole('link', { name: 'View snippets of job 7' })).toBeVisible();
    expect(screen.queryByRole('button', { name: 'Cancel job 7' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Delete job 7' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Cancel all pending' })).not.toBeInTheDocument();
  });

  it('offers an operator the same queue with its writes', async () => {
    mockFetch(queue('operator'));
    renderApp('/dashboard/sources/queue');
    expect(await screen.findByRole('button', { name: 'Cancel job 7' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Delete job 7' })).toBeVisible();
    expect(screen.getByRole('button', { name: 'Cancel all pending' })).toBeVisible();
  });

  it('leaves restores to administrators and backups to operators', async () => {
    const routes = {
      'GET /admin/maintenance/backups': json([
        {
          id: '20260301-100000-000',
          created_at: '2026-03-01T10:00:00.000Z',
          size_mb: 3.25,
          reason: 'manual',
          counts: { snippets: 1, vectors: 1, users: 1, rules: 0, jobs: 1, sources: 1 },
        },
      ]),
    };
    mockFetch({ ...as('operator'), ...routes });
    const operator = renderApp('/dashboard/maintenance/backup');
    expect(await screen.findByRole('button', { name: 'Create backup' })).toBeVisible();
    expect(screen.queryByRole('button', { name: /Restore backup/ })).not.toBeInTheDocument();
    operator.unmount();

    mockFetch({ ...as('viewer'), ...routes });
    renderApp('/dashboard/maintenance/backup');
    expect(await screen.findByText('20260301-100000-000')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Create backup' })).not.toBeInTheDocument();
  });
});

describe('refused calls', () => {
  it("shows the server's 403 message", async () => {
    mockFetch({
      ...as('operator'),
      // The role was lowered on the server after this console loaded.
      'GET /admin/logs': json(
        { detail: 'This needs the operator role; admin@example.com is a viewer' },
        403,
      ),
    });
    renderApp('/dashboard/monitoring/logs');
    expect(
      (await screen.findAllByText(/This needs the operator role; admin@example.com is a viewer/))
        .length,
    ).toBeGreaterThan(0);
  });
});

describe('one-time password', () => {
  it('takes a user who must change their password to that form, then to the dashboard', async () => {
    const fresh = { ...adminUser, role: 'viewer' as const, must_change_password: true };
    const { callsTo } = mockFetch({
      ...as('viewer'),
      'GET /config/public': json({
        segment_max_tokens: 384,
        segment_max_sentences: 3,
        segmenter_model: 'builtin',
        default_credentials_in_use: false,
        default_credentials: null,
        version: '0.1.0',
      }),
      'POST /auth/login': json({ api_key: 'key-2', user: fresh, requires_2fa: false }),
      'POST /auth/password': noContent(),
      'GET /analytics/overview': json({ detail: 'not in this test' }, 500),
    });
    window.sessionStorage.clear();
    window.localStorage.clear();
    const app = renderApp('/');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText(/^Email/), 'admin@example.com');
    await u.type(screen.getByLabelText(/^Password/), 'one-time-pw');
    await u.click(screen.getByRole('button', { name: 'Access Control Center' }));

    const form = await screen.findByRole('form', { name: 'Choose your password' });
    // Nothing of the dashboard is asked for: the server would refuse it (403).
    expect(callsTo('POST', '/auth/ws-ticket')).toHaveLength(0);
    expect(callsTo('GET', '/metrics/realtime')).toHaveLength(0);

    await u.type(within(form).getByLabelText(/^One-time Password/), 'one-time-pw');
    await u.type(within(form).getByLabelText(/^New Password/), 'my-own-password');
    await u.type(within(form).getByLabelText(/^Confirm New Password/), 'my-other-password');
    await u.click(within(form).getByRole('button', { name: 'Change Password' }));
    expect(await within(form).findByText('Passwords do not match')).toBeInTheDocument();
    expect(callsTo('POST', '/auth/password')).toHaveLength(0);

    await u.clear(within(form).getByLabelText(/^Confirm New Password/));
    await u.type(within(form).getByLabelText(/^Confirm New Password/), 'my-own-password');
    await u.click(within(form).getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByRole('navigation', { name: 'Agent 1 menu' })).toBeInTheDocument();
    expect(callsTo('POST', '/auth/password')[0]?.body).toEqual({
      current_password: 'one-time-pw',
      new_password: 'my-own-password',
    });
    await waitFor(() => expect(app.location()).toBe('/dashboard/overview'));
  });

  it('shows the form again after a reload while the password is still unchanged', async () => {
    mockFetch({
      ...loggedIn(),
      'GET /auth/me': json({ ...adminUser, role: 'viewer', must_change_password: true }),
    });
    renderApp('/dashboard/settings/users');
    expect(await screen.findByRole('form', { name: 'Choose your password' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Agent 1 menu' })).not.toBeInTheDocument();
  });
});
