import { describe, expect, it } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';

const PATH = '/dashboard/model/playground';

const ANSWER = {
  answers: [
    { sentence: 'Honey bees produce and store honey.', score: 0.812345 },
    { sentence: 'A honey bee is a eusocial flying insect.', score: 0.5 },
    { sentence: 'Bees live in hives.', score: 0.0004 },
  ],
  entities: [
    { text: 'Apis mellifera', label: 'ORG' },
    { text: 'Europe', label: 'LOC' },
  ],
  language: 'en',
};

function routes(extra: Record<string, Route | Response> = {}) {
  return {
    ...loggedIn(),
    'GET /playground/languages': json([
      { code: 'en', name: 'English' },
      { code: 'fr', name: 'French' },
    ]),
    'POST /playground/analyze': json(ANSWER),
    ...extra,
  };
}

async function openScreen() {
  renderApp(PATH);
  const u = userEvent.setup();
  // The first lazy load of the screen's chunk is slow on a busy machine.
  await screen.findByRole('form', { name: 'Analyze' });
  return u;
}

async function fill(u: ReturnType<typeof userEvent.setup>, context: string, question: string) {
  if (context) {
    await u.click(screen.getByLabelText('Context'));
    await u.paste(context);
  }
  if (question) await u.type(screen.getByLabelText('Question'), question);
}

describe('Playground: analyse', () => {
  it('enables Analyze only when context and question are both filled (blanks do not count)', async () => {
    const { callsTo } = mockFetch(routes());
    const u = await openScreen();
    const analyze = screen.getByRole('button', { name: 'Analyze' });
    expect(analyze).toBeDisabled();
    await fill(u, 'Honey bees produce honey.', '');
    expect(analyze).toBeDisabled();
    await u.type(screen.getByLabelText('Question'), '   ');
    expect(analyze).toBeDisabled();
    await u.clear(screen.getByLabelText('Context'));
    await u.type(screen.getByLabelText('Question'), 'What?');
    expect(analyze).toBeDisabled();
    await u.click(screen.getByLabelText('Context'));
    await u.paste('  \n ');
    expect(analyze).toBeDisabled();
    await u.paste('Bees.');
    expect(analyze).toBeEnabled();
    // Enter in the question does not bypass the rule either.
    await u.clear(screen.getByLabelText('Context'));
    await u.type(screen.getByLabelText('Question'), '{Enter}');
    expect(callsTo('POST', '/playground/analyze')).toHaveLength(0);
  });

  it('is disabled while an analysis runs', async () => {
    let answer!: (r: Response) => void;
    mockFetch(
      routes({ 'POST /playground/analyze': () => new Promise<Response>((r) => (answer = r)) }),
    );
    const u = await openScreen();
    await fill(u, 'Honey bees produce honey.', 'What do bees make?');
    await u.click(screen.getByRole('button', { name: 'Analyze' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Analyze' })).toBeDisabled());
    act(() => answer(json(ANSWER)));
    expect(await screen.findByText('0.812')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Analyze' })).toBeEnabled();
  });

  it('posts context, question, top_k 3 and the language; scores to 3 decimals, entities as text - label', async () => {
    const { callsTo } = mockFetch(routes());
    const u = await openScreen();
    await fill(u, 'Honey bees produce and store honey.', ' What do bees make? ');
    await u.click(screen.getByRole('combobox', { name: 'Language' }));
    expect(await screen.findByRole('option', { name: 'Auto' })).toBeInTheDocument();
    await u.click(await screen.findByRole('option', { name: 'French (fr)' }));
    await u.click(screen.getByRole('button', { name: 'Analyze' }));

    const table = await screen.findByRole('table', { name: 'Top sentences' });
    expect(
      within(table)
        .getAllByTestId('sentence-score')
        .map((c) => c.textContent),
    ).toEqual(['0.812', '0.500', '0.000']);
    expect(within(table).getByText('Honey bees produce and store honey.')).toBeInTheDocument();
    const entities = screen.getByLabelText('Named entities');
    expect(within(entities).getByText('Apis mellifera - ORG')).toBeInTheDocument();
    expect(within(entities).getByText('Europe - LOC')).toBeInTheDocument();
    expect(callsTo('POST', '/playground/analyze')[0]?.body).toEqual({
      context: 'Honey bees produce and store honey.',
      question: 'What do bees make?',
      top_k: 3,
      language: 'fr',
    });
  });

  it('shows no Named Entities section when the answer has none', async () => {
    mockFetch(routes({ 'POST /playground/analyze': json({ ...ANSWER, entities: [] }) }));
    const u = await openScreen();
    await fill(u, 'Honey bees produce honey.', 'What?');
    await u.click(screen.getByRole('button', { name: 'Analyze' }));
    await screen.findByRole('table', { name: 'Top sentences' });
    expect(screen.queryByText('Named Entities')).toBeNull();
  });

  it("says 'Analysis failed' in a toast and on the page, and clears old results", async () => {
    let fail = false;
    mockFetch(
      routes({
        'POST /playground/analyze': () =>
          fail ? json({ detail: 'Embedding model not loaded' }, 503) : json(ANSWER),
      }),
    );
    const u = await openScreen();
    await fill(u, 'Honey bees produce honey.', 'What?');
    await u.click(screen.getByRole('button', { name: 'Analyze' }));
    await screen.findByRole('table', { name: 'Top sentences' });
    fail = true;
    await u.click(screen.getByRole('button', { name: 'Analyze' }));
    const results = screen.getByLabelText('Analysis results');
    expect(await within(results).findByText('Analysis failed')).toBeInTheDocument();
    expect(within(results).getByText('Embedding model not loaded')).toBeInTheDocument();
    expect(document.querySelector('.mantine-Notification-root')?.textContent).toContain(
      'Analysis failed',
    );
    expect(screen.queryByRole('table', { name: 'Top sentences' })).toBeNull();
  });
});

describe('Playground: model warning banner', () => {
  it('shows the latest model_warning pushed on the channel', async () => {
    mockFetch(routes());
    await openScreen();
    expect(screen.queryByLabelText('Model warning')).toBeNull();
    await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(0));
    const socket = FakeWebSocket.latest()!;
    act(() => socket.open());
    const at = new Date().toISOString();
    act(() =>
      socket.push({ type: 'model_warning', message: 'No French language pack', timestamp: at }),
    );
    const banner = await screen.findByLabelText('Model warning');
    expect(banner).toHaveTextContent('No French language pack');
    act(() =>
      socket.push({ type: 'model_warning', message: 'No German language pack', timestamp: at }),
    );
    await waitFor(() => expect(banner).toHaveTextContent('No German language pack'));
    expect(banner).not.toHaveTextContent('No French language pack');
  });
});
