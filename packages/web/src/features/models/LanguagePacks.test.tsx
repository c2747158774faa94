import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { InstallProgress, LanguagePack, ModelActionResult } from '@adam/contracts';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { DIALOG_INSTALL_POLL_MS, FALLBACK_REFRESH_MS } from './constants';
import { model, modelList, pack, progress, keepListsUnvirtualised } from './models.fixtures';

const PATH = '/dashboard/model/management';

const english = pack('en', {
  installed: true,
  status: 'installed',
  model_id: 99,
  description: 'Built-in English pipeline.',
});

function setup(
  current: { packs: LanguagePack[]; progress: InstallProgress },
  routes: Record<string, Route | Response> = {},
) {
  return mockFetch({
    ...loggedIn(),
    'GET /admin/models': json(
      modelList([
        model(99, { name: 'en_builtin', type: 'spacy', status: 'installed', builtin: true }),
        model(100, { name: 'fr_core_news_sm', type: 'spacy', language: 'fr' }),
      ]),
    ),
    'GET /admin/models/language-packs': () => json(current.packs),
    'GET /admin/models/100/progress': () => json(current.progress),
    ...routes,
  });
}

const started = (over: Partial<ModelActionResult> = {}): ModelActionResult => ({
  model_id: 100,
  status: 'downloading',
  message: 'Install queued',
  job_id: 30,
  ...over,
});

async function openPack(u: ReturnType<typeof userEvent.setup>, name: string) {
  await u.click(await screen.findByRole('tab', { name: /SpaCy Models/ }));
  await u.click(await screen.findByRole('button', { name: `${name} language pack` }));
  return screen.findByRole('dialog');
}

keepListsUnvirtualised();

describe('Available Language Packs', () => {
  it('lists packs with flag, name, version and size; an installed one opens its view/uninstall dialog', async () => {
    const current = { packs: [english, pack('fr')], progress: progress(100) };
    setup(current);
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('tab', { name: /SpaCy Models/ }));
    const tile = await screen.findByRole('button', { name: 'French language pack' });
    expect(within(tile).getByText('🇫🇷')).toBeInTheDocument();
    expect(within(tile).getByText('v3.7.0 · 12 MB')).toBeInTheDocument();
    expect(within(tile).getByText('not installed')).toBeInTheDocument();

    // The built-in English pack can be viewed, not uninstalled.
    const dialog = await openPack(u, 'English');
    expect(within(dialog).getByText('Language Pack')).toBeInTheDocument();
    expect(within(dialog).getByText('Built-in English pipeline.')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Uninstall' })).toBeDisabled();
    await u.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('uninstalls an installed pack from its dialog', async () => {
    const current = {
      packs: [english, pack('fr', { installed: true, status: 'installed' })],
      progress: progress(100),
    };
    const { callsTo } = setup(current, {
      'POST /admin/models/language-packs/fr/uninstall': () => {
        current.packs = [english, pack('fr')];
        return json(started({ status: 'not_installed', progress: 100 }));
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    const dialog = await openPack(u, 'French');
    await u.click(within(dialog).getByRole('button', { name: 'Uninstall' }));
    expect(await screen.findByText('Language pack fr uninstalled')).toBeInTheDocument();
    expect(callsTo('POST', '/admin/models/language-packs/fr/uninstall')).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(
      within(await screen.findByRole('button', { name: 'French language pack' })).getByText(
        'not installed',
      ),
    ).toBeInTheDocument();
  });

  it('shows the version warning only when the pack version differs from the required one, and closes on a backdrop click', async () => {
    const current = {
      packs: [
        english,
        pack('fr', { version: '3.6.1', required_version: '3.7.0' }),
        pack('de', { name: 'German', model_id: 101 }),
      ],
      progress: progress(100),
    };
    setup(current);
    renderApp(PATH);
    const u = userEvent.setup();
    let dialog = await openPack(u, 'French');
    expect(within(dialog).getByText('Install Language Pack')).toBeInTheDocument();
    expect(within(dialog).getByTestId('pack-name')).toHaveTextContent('French');
    expect(within(dialog).getByTestId('pack-version-warning')).toHaveTextContent(
      'Pack version 3.6.1 differs from the required 3.7.0',
    );
    await u.click(document.querySelector('.mantine-Modal-overlay') as HTMLElement);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    dialog = await openPack(u, 'German');
    expect(within(dialog).queryByTestId('pack-version-warning')).not.toBeInTheDocument();
  });

  it('names the pack by its code when it has no name', async () => {
    const current = { packs: [pack('nl', { name: '', model_id: 102 })], progress: progress(100) };
    setup(current);
    renderApp(PATH);
    const u = userEvent.setup();
    const dialog = await openPack(u, 'nl');
    expect(within(dialog).getByTestId('pack-name')).toHaveTextContent('nl');
  });

  it("polls every 5 s with one-decimal progress, Close instead of Cancel and no Install, then closes with 'Language pack fr installed'", async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const current = { packs: [english, pack('fr')], progress: progress(100, { progress: 12.5 }) };
    const { callsTo } = setup(current, {
      'POST /admin/models/language-packs/fr/install': json(started({ progress: 12.5 })),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    const dialog = await openPack(u, 'French');
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
    await u.click(within(dialog).getByRole('button', { name: 'Install' }));

    await waitFor(() =>
      expect(within(dialog).getByTestId('pack-progress')).toHaveTextContent('12.5%'),
    );
    expect(within(dialog).getByRole('button', { name: 'Close' })).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Cancel' })).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Install' })).not.toBeInTheDocument();

    current.progress = progress(100, { progress: 57.26, message: 'Downloading pack' });
    act(() => void vi.advanceTimersByTime(DIALOG_INSTALL_POLL_MS - 1));
    expect(callsTo('GET', '/admin/models/100/progress')).toHaveLength(0);
    act(() => void vi.advanceTimersByTime(1));
    await waitFor(() =>
      expect(within(dialog).getByTestId('pack-progress')).toHaveTextContent('57.3%'),
    );
    expect(callsTo('GET', '/admin/models/100/progress')).toHaveLength(1);

    current.progress = progress(100, { progress: 100, status: 'installed', message: 'Installed' });
    current.packs = [english, pack('fr', { installed: true, status: 'installed' })];
    const listReads = callsTo('GET', '/admin/models/language-packs').length;
    act(() => void vi.advanceTimersByTime(DIALOG_INSTALL_POLL_MS));
    expect(await screen.findByText('Language pack fr installed')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() =>
      expect(callsTo('GET', '/admin/models/language-packs').length).toBeGreaterThan(listReads),
    );
  });

  it('refreshes after 3 s when the install answers without a progress phase', async () => {
    vi.useFakeTimers({
      toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
      shouldAdvanceTime: true,
    });
    const current = { packs: [english, pack('fr')], progress: progress(100) };
    const { callsTo } = setup(current, {
      'POST /admin/models/language-packs/fr/install': () => {
        current.packs = [english, pack('fr', { installed: true, status: 'installed' })];
        return json(started({ status: 'downloading' }));
      },
    });
    renderApp(PATH);
    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const dialog = await openPack(u, 'French');
    const before = callsTo('GET', '/admin/models/language-packs').length;
    await u.click(within(dialog).getByRole('button', { name: 'Install' }));
    await waitFor(() =>
      expect(callsTo('POST', '/admin/models/language-packs/fr/install')).toHaveLength(1),
    );
    expect(within(dialog).getByTestId('pack-progress')).toHaveTextContent('0.0%');
    expect(callsTo('GET', '/admin/models/language-packs')).toHaveLength(before);

    act(() => void vi.advanceTimersByTime(FALLBACK_REFRESH_MS));
    expect(await screen.findByText('Language pack fr installed')).toBeInTheDocument();
    expect(callsTo('GET', '/admin/models/language-packs').length).toBeGreaterThan(before);
    // Nothing to poll: the progress was never asked for.
    expect(callsTo('GET', '/admin/models/100/progress')).toHaveLength(0);
  });

  it("says 'Failed to install language pack' when the install fails, and offers Install again", async () => {
    const current = { packs: [english, pack('fr')], progress: progress(100) };
    setup(current, {
      'POST /admin/models/language-packs/fr/install': json(
        { detail: 'The model hub answered 404' },
        502,
      ),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    const dialog = await openPack(u, 'French');
    await u.click(within(dialog).getByRole('button', { name: 'Install' }));
    expect(await screen.findByText('Failed to install language pack')).toBeInTheDocument();
    expect(within(dialog).getByText('The model hub answered 404')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Install' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Cancel' })).toBeInTheDocument();
  });
});
