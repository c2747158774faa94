import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ScrapingRule } from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { ruleDomain, targetOrNull } from './ScrapingRulesScreen';

const rule = (over: Partial<ScrapingRule>): ScrapingRule => ({
  id: 1,
  domain: 'example.org',
  mode: 'allow',
  target: null,
  enabled: true,
  created_at: '2026-01-02T10:00:00Z',
  updated_at: '2026-01-02T10:00:00Z',
  ...over,
});

const rules = [
  rule({ id: 1, domain: 'example.org' }),
  rule({ id: 2, domain: 'news.example.com', mode: 'selector', target: 'article .body' }),
];

const PATH = '/dashboard/settings/scraping';

/** A rules store the routes read and write, so refetches after a change see it. */
function ruleStore(initial: ScrapingRule[]) {
  let stored = initial.map((r) => ({ ...r }));
  return {
    list: () => json(stored),
    patch: (id: number, change: Partial<ScrapingRule>) => {
      stored = stored.map((r) => (r.id === id ? { ...r, ...change } : r));
      return json(stored.find((r) => r.id === id));
    },
    remove: (id: number) => {
      stored = stored.filter((r) => r.id !== id);
      return json({ id, deleted: true });
    },
  };
}

describe('Scraping rules', () => {
  it('sends an empty target as null, with the mode and enabled defaults', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /rules/scraping': json([]),
      'POST /rules/scraping': (call) =>
        json(rule({ id: 3, ...(call.body as Partial<ScrapingRule>) }), 201),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    expect(await screen.findByText('No scraping rules')).toBeInTheDocument();
    const form = screen.getByRole('form', { name: 'Add scraping rule' });
    await u.type(within(form).getByLabelText(/Domain/), 'wiki.example.net');
    await u.type(within(form).getByLabelText('Target'), '   ');
    await u.click(within(form).getByRole('button', { name: 'Add rule' }));

    expect(await screen.findByText('Rule added for wiki.example.net')).toBeInTheDocument();
    expect(callsTo('POST', '/rules/scraping')[0]?.body).toEqual({
      domain: 'wiki.example.net',
      mode: 'allow',
      target: null,
      enabled: true,
    });
    expect(targetOrNull('')).toBeNull();
    expect(targetOrNull(' main ')).toBe('main');
  });

  it('requires a domain, and a target for a selector rule, before any call', async () => {
    const { callsTo } = mockFetch({ ...loggedIn(), 'GET /rules/scraping': json(rules) });
    renderApp(PATH);
    const u = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Add scraping rule' });
    await u.click(within(form).getByRole('button', { name: 'Add rule' }));
    expect(await within(form).findByText('Domain is required')).toBeInTheDocument();

    await u.type(within(form).getByLabelText(/Domain/), 'x.org');
    await u.click(within(form).getByRole('combobox', { name: 'Mode' }));
    await u.click(await screen.findByRole('option', { name: 'selector' }));
    await u.click(within(form).getByRole('button', { name: 'Add rule' }));
    expect(
      await within(form).findByText('A selector rule needs a target CSS selector'),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/rules/scraping')).toHaveLength(0);
  });

  it("shows 'Failed to add rule' with the server's detail (409 duplicate domain)", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /rules/scraping': json(rules),
      'POST /rules/scraping': json(
        { detail: 'A scraping rule for example.org already exists' },
        409,
      ),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    const form = await screen.findByRole('form', { name: 'Add scraping rule' });
    await u.type(within(form).getByLabelText(/Domain/), 'example.org');
    await u.click(within(form).getByRole('button', { name: 'Add rule' }));
    expect(
      await screen.findByText('Failed to add rule: A scraping rule for example.org already exists'),
    ).toBeInTheDocument();
    // Silent call: the client's generic toast of the bare detail is not shown as well.
    expect(screen.queryByText('A scraping rule for example.org already exists')).toBeNull();
  });

  it('saves the enabled switch at once with PATCH {enabled}, and rolls back on failure', async () => {
    let fail = false;
    const store = ruleStore(rules);
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /rules/scraping': () => store.list(),
      'PATCH /rules/scraping/1': (call) =>
        fail
          ? json({ detail: 'Database is locked' }, 500)
          : store.patch(1, call.body as Partial<ScrapingRule>),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    const toggle = await screen.findByRole('switch', { name: 'Enabled example.org' });
    expect(toggle).toBeChecked();
    await u.click(toggle);
    await waitFor(() => expect(callsTo('PATCH', '/rules/scraping/1')).toHaveLength(1));
    expect(callsTo('PATCH', '/rules/scraping/1')[0]?.body).toEqual({ enabled: false });
    expect(await screen.findByText('Rule for example.org disabled')).toBeInTheDocument();
    await waitFor(() => expect(toggle).not.toBeChecked());

    fail = true;
    await u.click(toggle);
    expect(await screen.findByText('Update failed: Database is locked')).toBeInTheDocument();
    await waitFor(() => expect(toggle).not.toBeChecked());
  });

  it('edits a row inline and PATCHes domain, mode and target; cancel leaves it', async () => {
    const store = ruleStore(rules);
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /rules/scraping': () => store.list(),
      'PATCH /rules/scraping/2': (call) => store.patch(2, call.body as Partial<ScrapingRule>),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Edit news.example.com' }));
    await u.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(screen.getByRole('button', { name: 'Edit news.example.com' })).toBeInTheDocument();

    await u.click(screen.getByRole('button', { name: 'Edit news.example.com' }));
    const row = screen.getByRole('button', { name: 'Save' }).closest('tr') as HTMLElement;
    await u.click(within(row).getByRole('combobox', { name: 'Mode' }));
    await u.click(await screen.findByRole('option', { name: 'allow' }));
    await u.clear(within(row).getByRole('textbox', { name: 'Target' }));
    await u.click(within(row).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Rule for news.example.com updated')).toBeInTheDocument();
    expect(callsTo('PATCH', '/rules/scraping/2')[0]?.body).toEqual({
      domain: 'news.example.com',
      mode: 'allow',
      target: null,
    });
  });

  it("shows 'Update failed' with the detail when an inline edit is refused", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /rules/scraping': json(rules),
      'PATCH /rules/scraping/2': json(
        { detail: 'A scraping rule for example.org already exists' },
        409,
      ),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Edit news.example.com' }));
    const row = screen.getByRole('button', { name: 'Save' }).closest('tr') as HTMLElement;
    const domain = within(row).getByRole('textbox', { name: 'Domain' });
    await u.clear(domain);
    await u.type(domain, 'example.org');
    await u.click(within(row).getByRole('button', { name: 'Save' }));
    expect(
      await screen.findByText('Update failed: A scraping rule for example.org already exists'),
    ).toBeInTheDocument();
    // Still in edit mode so the operator can correct it.
    expect(within(row).getByRole('button', { name: 'Save' })).toBeInTheDocument();
  });

  it('asks for confirmation before DELETE, and says Delete failed with the detail', async () => {
    let status = 404;
    const store = ruleStore(rules);
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /rules/scraping': () => store.list(),
      'DELETE /rules/scraping/1': () =>
        status === 200 ? store.remove(1) : json({ detail: 'Scraping rule 1 not found' }, status),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Delete example.org' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText(/Delete the rule for example.org\?/)).toBeInTheDocument();
    expect(callsTo('DELETE', '/rules/scraping/1')).toHaveLength(0);
    await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(callsTo('DELETE', '/rules/scraping/1')).toHaveLength(0);

    await u.click(screen.getByRole('button', { name: 'Delete example.org' }));
    await u.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }),
    );
    expect(await screen.findByText('Delete failed: Scraping rule 1 not found')).toBeInTheDocument();

    status = 200;
    await u.click(screen.getByRole('button', { name: 'Delete example.org' }));
    await u.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }),
    );
    expect(await screen.findByText('Rule for example.org deleted')).toBeInTheDocument();
    expect(callsTo('DELETE', '/rules/scraping/1')).toHaveLength(2);
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Delete example.org' })).toBeNull(),
    );
  });

  it('highlights the row of the domain it was opened with (?domain=)', async () => {
    mockFetch({ ...loggedIn(), 'GET /rules/scraping': json(rules) });
    renderApp(`${PATH}?domain=${encodeURIComponent('https://www.News.Example.com/a/b')}`);
    const toggle = await screen.findByRole('switch', { name: 'Enabled news.example.com' });
    const row = toggle.closest('tr') as HTMLElement;
    expect(row).toHaveAttribute('data-highlighted', 'true');
    const other = screen.getByRole('switch', { name: 'Enabled example.org' }).closest('tr');
    expect(other).not.toHaveAttribute('data-highlighted');
    expect(ruleDomain('http://user@www.Example.org:8080/path?q')).toBe('example.org');
  });

  it('offers to add a rule for a domain that has none yet', async () => {
    mockFetch({ ...loggedIn(), 'GET /rules/scraping': json(rules) });
    renderApp(`${PATH}?domain=fresh.example.io`);
    expect(await screen.findByText(/No rule exists for/)).toBeInTheDocument();
    const form = screen.getByRole('form', { name: 'Add scraping rule' });
    expect(within(form).getByLabelText(/Domain/)).toHaveValue('fresh.example.io');
  });

  it("shows 'Failed to load rules' with the detail, inline and as a toast", async () => {
    mockFetch({
      ...loggedIn(),
      'GET /rules/scraping': json({ detail: 'Database unavailable' }, 503),
    });
    renderApp(PATH);
    expect(
      await screen.findByText('Failed to load rules: Database unavailable'),
    ).toBeInTheDocument();
    expect(screen.getByText('Failed to load rules')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
