import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { FetchUrlResponse, ScrapingRule } from '@adam/contracts';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const PATH = '/dashboard/model/playground/url';
const at = '2026-01-01T00:00:00Z';

const rule = (over: Partial<ScrapingRule>): ScrapingRule => ({
  id: 1,
  domain: 'example.org',
  mode: 'allow',
  target: null,
  enabled: true,
  created_at: at,
  updated_at: at,
  ...over,
});

const RULES = [
  rule({ id: 1, domain: 'news.example.com', mode: 'allow' }),
  rule({ id: 2, domain: 'example.org', mode: 'selector', target: 'article .body' }),
  rule({ id: 3, domain: 'old.example.net', mode: 'deny', enabled: false }),
];

const PAGE_HTML = `<!DOCTYPE html><html><head><title>Bees</title>
<link rel="stylesheet" href="/static/site.css"><script>window.__previewRan = true;</script></head>
<body><article><div class="body"><p>Honey bees produce and store honey.</p></div></article>
<img src="/bee.png"></body></html>`;

const page = (over: Partial<FetchUrlResponse> = {}): FetchUrlResponse => ({
  content: 'Honey bees produce and store honey.',
  html: PAGE_HTML,
  original_length: 12345,
  clean_length: 35,
  domain: 'example.org',
  rule: 'example.org (selector:article .body)',
  rule_id: 2,
  title: 'Bees',
  url: 'https://example.org/bees',
  html_truncated: false,
  warnings: [],
  ...over,
});

function routes(extra: Record<string, Route | Response> = {}) {
  return {
    ...loggedIn(),
    'GET /playground/languages': json([{ code: 'en', name: 'English' }]),
    'GET /rules/scraping': json(RULES),
    'POST /playground/fetch-url': json(page()),
    'POST /playground/analyze': json({
      answers: [{ sentence: 'Honey bees produce and store honey.', score: 0.91234 }],
      entities: [],
      language: 'en',
    }),
    ...extra,
  };
}

async function openScreen() {
  const app = renderApp(PATH);
  const u = userEvent.setup();
  await screen.findByRole('form', { name: 'Scrap URL' });
  return { u, app };
}

async function scrap(u: ReturnType<typeof userEvent.setup>, url = 'https://example.org/bees') {
  await u.type(screen.getByLabelText('URL'), url);
  await u.click(screen.getByRole('button', { name: 'Scrap' }));
}

const info = () => screen.getByRole('group', { name: 'Fetch info' });

describe('URL Playground: scrap', () => {
  it('enables Scrap only with a URL', async () => {
    const { callsTo } = mockFetch(routes());
    const { u } = await openScreen();
    const button = screen.getByRole('button', { name: 'Scrap' });
    expect(button).toBeDisabled();
    await u.type(screen.getByLabelText('URL'), '   ');
    expect(button).toBeDisabled();
    await u.type(screen.getByLabelText('URL'), 'example.org');
    expect(button).toBeEnabled();
    await u.clear(screen.getByLabelText('URL'));
    expect(button).toBeDisabled();
    expect(callsTo('POST', '/playground/fetch-url')).toHaveLength(0);
  });

  it('offers Auto rule and the rules as domain (mode[:target])', async () => {
    mockFetch(routes());
    const { u } = await openScreen();
    const select = screen.getByRole('combobox', { name: 'Scraping rule' });
    expect(select).toHaveValue('Auto rule');
    await u.click(select);
    const names = (await screen.findAllByRole('option')).map((o) => o.textContent);
    expect(names).toEqual([
      'Auto rule',
      'example.org (selector:article .body)',
      'news.example.com (allow)',
      'old.example.net (deny)',
    ]);
    expect(screen.getByText('Disabled rules')).toBeInTheDocument();
  });

  it('sends the chosen rule, shows the info line and fills the context, then analyses it', async () => {
    const { callsTo } = mockFetch(routes());
    const { u } = await openScreen();
    await u.click(screen.getByRole('combobox', { name: 'Scraping rule' }));
    await u.click(
      await screen.findByRole('option', { name: 'example.org (selector:article .body)' }),
    );
    await scrap(u, ' https://example.org/bees ');

    await waitFor(() =>
      expect(screen.getByLabelText('Context')).toHaveValue('Honey bees produce and store honey.'),
    );
    expect(callsTo('POST', '/playground/fetch-url')[0]?.body).toEqual({
      url: 'https://example.org/bees',
      rule_id: 2,
    });
    expect(within(info()).getByTestId('info-domain')).toHaveTextContent('example.org');
    expect(within(info()).getByTestId('info-original-length')).toHaveTextContent('12,345');
    expect(within(info()).getByTestId('info-clean-length')).toHaveTextContent('35');
    expect(within(info()).getByTestId('info-rule')).toHaveTextContent(
      'example.org (selector:article .body)',
    );

    await u.type(screen.getByLabelText('Question'), 'What do bees make?');
    await u.click(screen.getByRole('button', { name: 'Analyze' }));
    expect(await screen.findByText('0.912')).toBeInTheDocument();
    expect(callsTo('POST', '/playground/analyze')[0]?.body).toMatchObject({
      context: 'Honey bees produce and store honey.',
      question: 'What do bees make?',
      top_k: 3,
    });
  });

  it('with Auto rule sends no rule id and names a missing or a non-specific rule', async () => {
    let answer = page({ rule: 'No specific rule found – using default', rule_id: null });
    const { callsTo } = mockFetch(routes({ 'POST /playground/fetch-url': () => json(answer) }));
    const { u } = await openScreen();
    await scrap(u);
    expect(
      await within(await screen.findByRole('group', { name: 'Fetch info' })).findByText(
        'No specific rule found – using default',
      ),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/playground/fetch-url')[0]?.body).toEqual({
      url: 'https://example.org/bees',
    });

    answer = page({ domain: 'news.example.com', rule: 'news.example.com (allow)', rule_id: 1 });
    await u.click(screen.getByRole('button', { name: 'Scrap' }));
    await waitFor(() =>
      expect(within(info()).getByTestId('info-rule')).toHaveTextContent('No rule applied'),
    );
    expect(info()).toHaveTextContent('matched news.example.com (allow)');
  });

  it("says 'Failed to fetch URL: {detail}' with the server's detail, and keeps the edit link", async () => {
    mockFetch(
      routes({
        'POST /playground/fetch-url': json(
          { detail: 'Fetching https://spam.example.net/ is denied by the scraping rule' },
          422,
        ),
      }),
    );
    const { u } = await openScreen();
    await scrap(u, 'https://www.spam.example.net/');
    const text =
      'Failed to fetch URL: Fetching https://spam.example.net/ is denied by the scraping rule';
    expect(await screen.findAllByText(text)).toHaveLength(2);
    expect(
      screen.getByRole('link', { name: 'Edit rules for spam.example.net' }),
    ).toBeInTheDocument();
    expect(screen.queryByRole('group', { name: 'Fetch info' })).toBeNull();
  });
});

describe('URL Playground: the edit-rules link', () => {
  it('opens the scraping rules with the domain, whose row is highlighted', async () => {
    mockFetch(routes());
    const { u, app } = await openScreen();
    await scrap(u);
    const link = await screen.findByRole('link', { name: 'Edit rules for example.org' });
    expect(link).toHaveAttribute('href', '/dashboard/settings/scraping?domain=example.org');
    await u.click(link);
    await waitFor(() =>
      expect(app.location()).toBe('/dashboard/settings/scraping?domain=example.org'),
    );
    const row = await screen.findByRole('row', { current: true });
    expect(row).toHaveAttribute('data-domain', 'example.org');
  });
});

describe('URL Playground: the raw HTML preview', () => {
  it('renders the page in a frame with no permission and a blocking policy, scripts gone', async () => {
    mockFetch(routes());
    const { u } = await openScreen();
    await scrap(u);
    const frame = await screen.findByTitle('Rendered page (inert)');
    expect(frame.getAttribute('sandbox')).toBe('');
    const doc = new DOMParser().parseFromString(frame.getAttribute('srcdoc') ?? '', 'text/html');
    expect(doc.head.firstElementChild?.outerHTML).toBe(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
    expect(doc.querySelectorAll('script, link')).toHaveLength(0);
    expect(doc.body.textContent).toContain('Honey bees produce and store honey.');
    expect((window as { __previewRan?: boolean }).__previewRan).toBeUndefined();

    // The source view shows the page as text, its script included, never as elements.
    await u.click(screen.getByText('Source'));
    expect(screen.getByLabelText('Page source')).toHaveTextContent('window.__previewRan = true;');
    expect(screen.queryByTitle('Rendered page (inert)')).toBeNull();
    expect(
      Array.from(document.querySelectorAll('script')).some((s) =>
        s.textContent?.includes('__previewRan'),
      ),
    ).toBe(false);
  });
});

describe('URL Playground: reset', () => {
  it('is disabled when everything is empty and clears URL, rule, preview, info, context, question and results', async () => {
    mockFetch(routes());
    const { u } = await openScreen();
    const reset = screen.getByRole('button', { name: 'Reset' });
    expect(reset).toBeDisabled();
    await u.type(screen.getByLabelText('Question'), 'q');
    expect(reset).toBeEnabled();
    await u.clear(screen.getByLabelText('Question'));
    expect(reset).toBeDisabled();
    await u.click(screen.getByRole('combobox', { name: 'Scraping rule' }));
    await u.click(await screen.findByRole('option', { name: 'news.example.com (allow)' }));
    expect(reset).toBeEnabled();

    await scrap(u);
    await waitFor(() => expect(screen.getByLabelText('Context')).not.toHaveValue(''));
    await u.type(screen.getByLabelText('Question'), 'What do bees make?');
    await u.click(screen.getByRole('button', { name: 'Analyze' }));
    await screen.findByRole('table', { name: 'Top sentences' });

    await u.click(reset);
    expect(screen.getByLabelText('URL')).toHaveValue('');
    expect(screen.getByRole('combobox', { name: 'Scraping rule' })).toHaveValue('Auto rule');
    expect(screen.getByLabelText('Context')).toHaveValue('');
    expect(screen.getByLabelText('Question')).toHaveValue('');
    expect(screen.queryByRole('group', { name: 'Fetch info' })).toBeNull();
    expect(screen.queryByTitle('Rendered page (inert)')).toBeNull();
    expect(screen.queryByRole('table', { name: 'Top sentences' })).toBeNull();
    expect(screen.queryByRole('link', { name: /Edit rules for/ })).toBeNull();
    expect(reset).toBeDisabled();
  });
});
