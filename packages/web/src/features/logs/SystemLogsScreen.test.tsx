import { describe, expect, it } from 'vitest';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { LogEntry, LogsResponse } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch, type RecordedCall, type Route } from '../../test/fetchMock';
import { formatUtc } from '../../lib/format';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const LOGS = '/dashboard/monitoring/logs';
const BASE = Date.UTC(2026, 2, 1, 10, 0, 0);

/** `count` lines, newest first, one second apart, starting `offset` seconds before BASE. */
function lines(count: number, prefix: string, offset = 0): LogEntry[] {
  return Array.from({ length: count }, (_, i) => ({
    timestamp: new Date(BASE - (offset + i) * 1000).toISOString(),
    level: 'info' as const,
    component: 'jobs',
    message: `${prefix} ${offset + i}`,
  }));
}

const answer = (logs: LogEntry[], page = 1, has_more = false): LogsResponse => ({
  logs,
  page,
  page_size: 20,
  has_more,
});

/** The logs call answering from `pages` by the requested page number. */
function paged(pages: Record<number, LogsResponse>): Route {
  return (call: RecordedCall) => json(pages[Number(call.query.page)] ?? answer([], 1));
}

function logsRoutes(route: Route | Response) {
  return { ...loggedIn(), 'GET /admin/logs': route };
}

const rows = () => screen.queryAllByTestId('log-row');
const messages = () =>
  rows().map((row) =>
    within(row)
      .getAllByRole('cell')[3]!
      .textContent?.replace(/Show all$/, ''),
  );

async function openSocket() {
  await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(0));
  const socket = FakeWebSocket.latest()!;
  act(() => socket.open());
  return socket;
}

describe('Logs Système: the request (spec 001 §7)', () => {
  it('asks for level, range, page and page_size, with tail = page_size × page', async () => {
    const { callsTo } = mockFetch(
      logsRoutes(
        paged({
          1: answer(lines(20, 'first'), 1, true),
          2: answer(lines(5, 'second', 20), 2, false),
        }),
      ),
    );
    renderApp(LOGS);
    expect(await screen.findByText('first 0')).toBeInTheDocument();
    expect(callsTo('GET', '/admin/logs')[0]?.query).toEqual({
      level: 'all',
      range: '1h',
      page: '1',
      page_size: '20',
      tail: '20',
    });

    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('second 20')).toBeInTheDocument();
    expect(callsTo('GET', '/admin/logs').at(-1)?.query).toMatchObject({ page: '2', tail: '40' });
  });

  it('sends the level, range and search, and any filter change goes back to page 1', async () => {
    const { callsTo } = mockFetch(
      logsRoutes((call) =>
        json(answer(lines(20, `p${call.query.page}`), Number(call.query.page), true)),
      ),
    );
    renderApp(LOGS);
    const u = userEvent.setup();
    await screen.findByText('p1 0');
    await u.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('Page 2')).toBeInTheDocument();
    await screen.findByText('p2 0');

    await u.click(screen.getByRole('combobox', { name: 'Level' }));
    await u.click(await screen.findByRole('option', { name: 'Warning' }));
    expect(await screen.findByText('Page 1')).toBeInTheDocument();
    await waitFor(() =>
      expect(callsTo('GET', '/admin/logs').at(-1)?.query).toMatchObject({
        level: 'warning',
        page: '1',
        tail: '20',
      }),
    );

    await u.click(screen.getByRole('radio', { name: '7d' }));
    await waitFor(() =>
      expect(callsTo('GET', '/admin/logs').at(-1)?.query).toMatchObject({
        level: 'warning',
        range: '7d',
      }),
    );

    // Enter searches at once, without waiting for the pause.
    await u.type(screen.getByRole('textbox', { name: 'Search' }), '  login failed {Enter}');
    await waitFor(() =>
      expect(callsTo('GET', '/admin/logs').at(-1)?.query).toEqual({
        level: 'warning',
        range: '7d',
        q: 'login failed',
        page: '1',
        page_size: '20',
        tail: '20',
      }),
    );
  });

  it('searches once the operator stops typing', async () => {
    const { callsTo } = mockFetch(logsRoutes(json(answer(lines(2, 'line')))));
    renderApp(LOGS);
    await screen.findByText('line 0');
    fireEvent.change(screen.getByRole('textbox', { name: 'Search' }), {
      target: { value: 'quota' },
    });
    // Not at once (no call per key typed), but after the pause.
    expect(callsTo('GET', '/admin/logs').filter((c) => c.query.q !== undefined)).toHaveLength(0);
    await waitFor(() => expect(callsTo('GET', '/admin/logs').at(-1)?.query.q).toBe('quota'));
  });
});

describe('Logs Système: paging', () => {
  it("shows 'Page N', Previous disabled on page 1, Next disabled when there is no more", async () => {
    mockFetch(
      logsRoutes(
        paged({
          1: answer(lines(20, 'newer'), 1, true),
          2: answer(lines(3, 'older', 20), 2, false),
        }),
      ),
    );
    renderApp(LOGS);
    const u = userEvent.setup();
    await screen.findByText('newer 0');
    expect(screen.getByText('Page 1')).toBeInTheDocument();
    expect(rows()).toHaveLength(20);
    expect(screen.getByRole('button', { name: 'Previous' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Next' })).toBeEnabled();

    await u.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByText('older 20');
    expect(screen.getByText('Page 2')).toBeInTheDocument();
    expect(messages()).toEqual(['older 20', 'older 21', 'older 22']);
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Previous' })).toBeEnabled();

    await u.click(screen.getByRole('button', { name: 'Previous' }));
    await screen.findByText('newer 0');
    expect(screen.getByText('Page 1')).toBeInTheDocument();
  });
});

describe('Logs Système: states', () => {
  it("says 'Chargement...' while the first page loads", async () => {
    let release: (response: Response) => void = () => {};
    mockFetch(logsRoutes(() => new Promise<Response>((resolve) => (release = resolve))));
    renderApp(LOGS);
    expect(await screen.findByText('Chargement...')).toBeInTheDocument();
    act(() => release(json(answer(lines(1, 'arrived')))));
    expect(await screen.findByText('arrived 0')).toBeInTheDocument();
    expect(screen.queryByText('Chargement...')).toBeNull();
  });

  it("says 'Aucun log pour la période sélectionnée' when the range holds no line", async () => {
    mockFetch(logsRoutes(json(answer([]))));
    renderApp(LOGS);
    expect(await screen.findByText('Aucun log pour la période sélectionnée')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();
  });

  it("says 'Failed to fetch logs' with 'Erreur: {message}', and Retry loads again", async () => {
    let fail = true;
    const { callsTo } = mockFetch(
      logsRoutes(() =>
        fail
          ? json({ detail: 'range must be one of 1h, 24h, 7d' }, 422)
          : json(answer(lines(1, 'back'))),
      ),
    );
    renderApp(LOGS);
    expect(await screen.findByText('Failed to fetch logs')).toBeInTheDocument();
    expect(screen.getByText('Erreur: range must be one of 1h, 24h, 7d')).toBeInTheDocument();
    // Inline only: no toast repeats it.
    expect(document.querySelector('.mantine-Notification-root')).toBeNull();

    fail = false;
    await userEvent.setup().click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('back 0')).toBeInTheDocument();
    expect(screen.queryByText('Failed to fetch logs')).toBeNull();
    expect(callsTo('GET', '/admin/logs')).toHaveLength(2);
  });

  it('Refresh loads the page again', async () => {
    let round = 0;
    const { callsTo } = mockFetch(logsRoutes(() => json(answer(lines(1, `round${(round += 1)}`)))));
    renderApp(LOGS);
    await screen.findByText('round1 0');
    await userEvent.setup().click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('round2 0')).toBeInTheDocument();
    expect(callsTo('GET', '/admin/logs')).toHaveLength(2);
  });

  it('drops duplicate lines and shows lines with unparsable timestamps last', async () => {
    const [a, b] = lines(2, 'line');
    const bad: LogEntry = {
      timestamp: 'sometime',
      level: 'error',
      component: 'x',
      message: 'undated',
    };
    mockFetch(logsRoutes(json(answer([bad, a!, { ...a! }, b!]))));
    renderApp(LOGS);
    await screen.findByText('line 0');
    expect(messages()).toEqual(['line 0', 'line 1', 'undated']);
    expect(within(rows()[2]!).getByText('sometime')).toBeInTheDocument();
  });

  it('shows timestamp to the second, level badge, component, and a long message in full on demand', async () => {
    const long = `Install failed: ${'x'.repeat(400)}`;
    const line: LogEntry = {
      timestamp: new Date(2026, 2, 1, 9, 5, 7).toISOString(),
      level: 'warning',
      component: 'models',
      message: long,
    };
    mockFetch(logsRoutes(json(answer([line]))));
    renderApp(LOGS);
    const row = (await screen.findAllByTestId('log-row'))[0]!;
    const time = within(row).getByText(/^Mar 01, 2026 09:05:07 \S+$/);
    // The same instant in UTC on hover.
    expect(time).toHaveAttribute('title', formatUtc(line.timestamp));
    expect(time.title).toMatch(/^2026-03-01 \d\d:05:07 UTC$/);
    expect(within(row).getByText('warning')).toBeInTheDocument();
    expect(within(row).getByText('models')).toBeInTheDocument();
    expect(within(row).getByText(long)).toHaveAttribute('title', long);
    await userEvent.setup().click(within(row).getByRole('button', { name: 'Show all' }));
    expect(within(row).getByRole('button', { name: 'Show less' })).toBeInTheDocument();
  });
});

describe('Logs Système: live lines', () => {
  const push = (socket: FakeWebSocket, line: Partial<LogEntry> & { message: string }) =>
    act(() =>
      socket.push({
        type: 'log_entry',
        timestamp: new Date(BASE + 60_000).toISOString(),
        level: 'warning',
        component: 'auth',
        ...line,
      }),
    );

  it('puts matching live lines on top of page 1, once, and says so', async () => {
    mockFetch(logsRoutes(paged({ 1: answer(lines(20, 'stored'), 1, false) })));
    renderApp(LOGS);
    await screen.findByText('stored 0');
    const socket = await openSocket();
    expect(await screen.findByText(/new lines appear at the top of page 1/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next' })).toBeDisabled();

    push(socket, { message: 'Failed login for eve' });
    push(socket, { message: 'Failed login for eve' });
    expect(await screen.findByText('Failed login for eve')).toBeInTheDocument();
    expect(messages()[0]).toBe('Failed login for eve');
    // Still one page of 20: the oldest line moved to page 2, which now exists.
    expect(rows()).toHaveLength(20);
    expect(screen.queryByText('stored 19')).toBeNull();
    expect(screen.getByRole('button', { name: 'Next' })).toBeEnabled();
  });

  it('ignores live lines that do not match the filters, or when not on page 1', async () => {
    mockFetch(
      logsRoutes((call) =>
        json(answer(lines(20, `p${call.query.page}`), Number(call.query.page), true)),
      ),
    );
    renderApp(LOGS);
    const u = userEvent.setup();
    await screen.findByText('p1 0');
    const socket = await openSocket();

    await u.click(screen.getByRole('combobox', { name: 'Level' }));
    await u.click(await screen.findByRole('option', { name: 'Error' }));
    await waitFor(() => expect(screen.queryByText('p1 0')).toBeInTheDocument());
    push(socket, { message: 'a warning', level: 'warning' });
    push(socket, { message: 'an error', level: 'error' });
    expect(await screen.findByText('an error')).toBeInTheDocument();
    expect(screen.queryByText('a warning')).toBeNull();

    await u.click(screen.getByRole('button', { name: 'Next' }));
    await screen.findByText('p2 0');
    expect(screen.getByText('Live updates show on page 1 only.')).toBeInTheDocument();
    push(socket, { message: 'while on page 2', level: 'error' });
    expect(screen.queryByText('while on page 2')).toBeNull();
    // Page 1 again is the server's page (here without that line), not what was pushed meanwhile.
    await u.click(screen.getByRole('button', { name: 'Previous' }));
    await screen.findByText('p1 0');
    expect(screen.queryByText('while on page 2')).toBeNull();
  });

  it('says live updates are paused while the channel is down', async () => {
    mockFetch(logsRoutes(json(answer([]))));
    renderApp(LOGS);
    expect(await screen.findByText(/Live updates paused/)).toBeInTheDocument();
  });
});
