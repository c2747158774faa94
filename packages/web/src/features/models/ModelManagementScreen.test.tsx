import { describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Model } from '@adam/contracts';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { job } from '../index/index.fixtures';
import { model, modelList, pack, progress, keepListsUnvirtualised } from './models.fixtures';
import { MODEL_FILTER_KEYS } from './usePersistedState';

const PATH = '/dashboard/model/management';

const catalogue = (): Model[] => [
  model(1, {
    name: 'builtin-hash-384',
    status: 'loaded',
    active: true,
    builtin: true,
    source_url: null,
    repo: null,
  }),
  model(2, { name: 'all-MiniLM-L6-v2', status: 'not_installed' }),
  model(3, {
    name: 'paraphrase-multilingual-MiniLM-L12-v2',
    language: 'multi',
    status: 'installed',
    updated_at: '2026-03-05T10:00:00.000Z',
  }),
  model(4, { name: 'emotion-roberta', type: 'emotion', status: 'available', language: 'fr' }),
  model(5, { name: 'fr_core_news_sm', type: 'spacy', language: 'fr', status: 'installed' }),
];

function setup(models: Model[] = catalogue(), routes: Record<string, Route | Response> = {}) {
  return mockFetch({
    ...loggedIn(),
    'GET /admin/models': () => json(modelList(models)),
    'GET /admin/models/language-packs': json([
      pack('fr', { installed: true, status: 'installed', model_id: 5 }),
    ]),
    ...routes,
  });
}

const card = (name: string) => screen.getByRole('article', { name });
const cardNames = () => screen.queryAllByRole('article').map((a) => a.getAttribute('aria-label'));

keepListsUnvirtualised();

describe('Model Management: list, stats, tabs, filters', () => {
  it('shows the stats strip and the two tabs with their counts; other types sit on the Embedding tab', async () => {
    setup();
    renderApp(PATH);
    expect(await screen.findByRole('heading', { name: 'Model Management' })).toBeInTheDocument();
    await screen.findByRole('article', { name: 'all-MiniLM-L6-v2' });
    const strip = screen.getByLabelText('Model statistics');
    expect(within(strip).getByText('Total Models')).toBeInTheDocument();
    expect(within(strip).getByText('124 MB')).toBeInTheDocument();
    expect(within(strip).getByText('Languages')).toBeInTheDocument();
    expect(screen.getByTestId('tab-count-embedding')).toHaveTextContent('4');
    expect(screen.getByTestId('tab-count-spacy')).toHaveTextContent('1');
    expect(cardNames()).toEqual([
      'all-MiniLM-L6-v2',
      'builtin-hash-384',
      'emotion-roberta',
      'paraphrase-multilingual-MiniLM-L12-v2',
    ]);

    const u = userEvent.setup();
    await u.click(screen.getByRole('tab', { name: /SpaCy Models/ }));
    expect(cardNames()).toEqual(['fr_core_news_sm']);
    expect(screen.getByText('Available Language Packs')).toBeInTheDocument();
    expect(await screen.findByRole('button', { name: 'French language pack' })).toBeInTheDocument();
  });

  it('shows loaded and installed both as installed, and offers each action only where §4 allows it', async () => {
    setup();
    renderApp(PATH);
    await screen.findByRole('article', { name: 'all-MiniLM-L6-v2' });
    const loaded = card('builtin-hash-384');
    expect(within(loaded).getByTestId('model-status')).toHaveTextContent('installed');
    expect(within(loaded).getByRole('button', { name: 'Test' })).toBeInTheDocument();
    expect(within(loaded).getByRole('switch', { name: 'Active: builtin-hash-384' })).toBeChecked();
    expect(within(loaded).queryByRole('button', { name: 'Install' })).not.toBeInTheDocument();
    // Built-in: neither uninstalled nor edited.
    expect(within(loaded).queryByRole('button', { name: 'Uninstall' })).not.toBeInTheDocument();
    expect(within(loaded).getByRole('button', { name: 'Edit builtin-hash-384' })).toBeDisabled();

    const notInstalled = card('all-MiniLM-L6-v2');
    expect(within(notInstalled).getByTestId('model-status')).toHaveTextContent('not installed');
    expect(within(notInstalled).getByRole('button', { name: 'Install' })).toBeEnabled();
    expect(
      within(notInstalled).queryByRole('button', { name: 'Uninstall' }),
    ).not.toBeInTheDocument();
    expect(within(notInstalled).queryByRole('button', { name: 'Test' })).not.toBeInTheDocument();
    expect(within(notInstalled).queryByRole('switch')).not.toBeInTheDocument();

    const available = card('emotion-roberta');
    expect(within(available).getByRole('button', { name: 'Uninstall' })).toBeInTheDocument();
    expect(within(available).queryByRole('button', { name: 'Install' })).not.toBeInTheDocument();
    expect(within(available).queryByRole('button', { name: 'Test' })).not.toBeInTheDocument();
    expect(within(available).queryByRole('switch')).not.toBeInTheDocument();

    const installed = card('paraphrase-multilingual-MiniLM-L12-v2');
    expect(within(installed).getByTestId('model-status')).toHaveTextContent('installed');
    expect(within(installed).getByRole('button', { name: 'Uninstall' })).toBeInTheDocument();
    expect(within(installed).getByRole('button', { name: 'Test' })).toBeInTheDocument();
    expect(within(installed).getByText(/Multilingual/)).toBeInTheDocument();
  });

  it('filters by name or language ignoring case, by status and by language, and sorts', async () => {
    setup();
    renderApp(PATH);
    await screen.findByRole('article', { name: 'all-MiniLM-L6-v2' });
    const u = userEvent.setup();

    const search = screen.getByRole('textbox', { name: 'Search' });
    await u.type(search, 'MINILM');
    expect(cardNames()).toEqual(['all-MiniLM-L6-v2', 'paraphrase-multilingual-MiniLM-L12-v2']);
    await u.clear(search);
    await u.type(search, 'multi');
    expect(cardNames()).toEqual(['paraphrase-multilingual-MiniLM-L12-v2']);
    await u.clear(search);
    await u.type(search, 'FRENCH');
    expect(cardNames()).toEqual(['emotion-roberta']);
    expect(screen.getByTestId('tab-count-spacy')).toHaveTextContent('1');
    await u.clear(search);

    await u.click(screen.getByRole('combobox', { name: 'Status' }));
    await u.click(await screen.findByRole('option', { name: 'Installed' }));
    // The raw status: loaded models are under 'Loaded'.
    expect(cardNames()).toEqual(['paraphrase-multilingual-MiniLM-L12-v2']);
    await u.click(screen.getByRole('combobox', { name: 'Status' }));
    await u.click(await screen.findByRole('option', { name: 'Not installed' }));
    expect(cardNames()).toEqual(['all-MiniLM-L6-v2']);
    await u.click(screen.getByRole('combobox', { name: 'Status' }));
    await u.click(await screen.findByRole('option', { name: 'All statuses' }));

    await u.click(screen.getByRole('combobox', { name: 'Language' }));
    const options = (await screen.findAllByRole('option')).map((o) => o.textContent);
    expect(options).toEqual(['All languages', 'English', 'French', 'Multilingual']);
    await u.click(screen.getByRole('option', { name: 'Multilingual' }));
    expect(cardNames()).toEqual(['paraphrase-multilingual-MiniLM-L12-v2']);
    await u.click(screen.getByRole('combobox', { name: 'Language' }));
    await u.click(await screen.findByRole('option', { name: 'All languages' }));

    await u.click(screen.getByRole('combobox', { name: 'Sort by' }));
    await u.click(await screen.findByRole('option', { name: 'Last updated' }));
    expect(cardNames()[0]).toBe('paraphrase-multilingual-MiniLM-L12-v2');
    await u.click(screen.getByRole('combobox', { name: 'Sort by' }));
    await u.click(await screen.findByRole('option', { name: 'Language' }));
    expect(cardNames()).toEqual([
      'all-MiniLM-L6-v2',
      'builtin-hash-384',
      'emotion-roberta',
      'paraphrase-multilingual-MiniLM-L12-v2',
    ]);
  });

  it('keeps search, status and language in local storage, one key each, across visits', async () => {
    setup();
    const app = renderApp(PATH);
    await screen.findByRole('article', { name: 'all-MiniLM-L6-v2' });
    const u = userEvent.setup();
    await u.type(screen.getByRole('textbox', { name: 'Search' }), 'mini');
    await u.click(screen.getByRole('combobox', { name: 'Status' }));
    await u.click(await screen.findByRole('option', { name: 'Installed' }));
    await u.click(screen.getByRole('combobox', { name: 'Language' }));
    await u.click(await screen.findByRole('option', { name: 'Multilingual' }));
    expect(window.localStorage.getItem(MODEL_FILTER_KEYS.search)).toBe('mini');
    expect(window.localStorage.getItem(MODEL_FILTER_KEYS.status)).toBe('installed');
    expect(window.localStorage.getItem(MODEL_FILTER_KEYS.language)).toBe('multi');

    app.remount();
    await screen.findByRole('article', { name: 'paraphrase-multilingual-MiniLM-L12-v2' });
    expect(screen.getByRole('textbox', { name: 'Search' })).toHaveValue('mini');
    expect(screen.getByRole('combobox', { name: 'Status' })).toHaveValue('Installed');
    expect(screen.getByRole('combobox', { name: 'Language' })).toHaveValue('Multilingual');
    expect(cardNames()).toEqual(['paraphrase-multilingual-MiniLM-L12-v2']);
  });

  it('shows six skeleton cards while loading, then "No models found" when there are none', async () => {
    let answer: (r: Response) => void = () => {};
    mockFetch({
      ...loggedIn(),
      'GET /admin/models': () => new Promise<Response>((r) => (answer = r)),
    });
    renderApp(PATH);
    expect(await screen.findAllByTestId('model-skeleton')).toHaveLength(6);
    answer(json(modelList([])));
    expect(await screen.findByText('No models found')).toBeInTheDocument();
    expect(screen.queryByTestId('model-skeleton')).not.toBeInTheDocument();
  });

  it("says 'Failed to load models: {message}' when the list fails", async () => {
    mockFetch({ ...loggedIn(), 'GET /admin/models': json({ detail: 'database is locked' }, 500) });
    renderApp(PATH);
    expect(
      (await screen.findAllByText('Failed to load models: database is locked')).length,
    ).toBeGreaterThanOrEqual(1);
  });

  it('virtualises a long list unless a card is expanded, which then shows its details', async () => {
    window.innerHeight = 800;
    // jsdom lays nothing out: the virtualiser reads its scroll box's height from clientHeight.
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(500);
    const many = Array.from({ length: 30 }, (_, i) =>
      model(i + 1, { name: `m-${String(i + 1).padStart(2, '0')}` }),
    );
    setup(many);
    renderApp(PATH);
    await screen.findByRole('article', { name: 'm-01' });
    const list = screen.getByTestId('model-list');
    expect(list).toHaveAttribute('data-virtualised', 'true');
    expect(cardNames().length).toBeLessThan(30);

    const u = userEvent.setup();
    await u.click(within(card('m-01')).getByRole('button', { name: 'Show details of m-01' }));
    expect(screen.getByTestId('model-list')).toHaveAttribute('data-virtualised', 'false');
    expect(cardNames()).toHaveLength(30);
    const details = within(card('m-01')).getByLabelText('Model details');
    expect(within(details).getByText('sentence-transformers/model-1@main')).toBeInTheDocument();
    expect(
      within(details).getByRole('link', { name: 'http://hub.test/sentence-transformers/model-1' }),
    ).toBeInTheDocument();

    await u.click(within(card('m-01')).getByRole('button', { name: 'Hide details of m-01' }));
    expect(screen.getByTestId('model-list')).toHaveAttribute('data-virtualised', 'true');

    // 30 × 220 + 29 × 16 = 7,064 fits in a 10,000 high window less 300: a plain list again.
    window.innerHeight = 10_000;
    act(() => void window.dispatchEvent(new Event('resize')));
    expect(screen.getByTestId('model-list')).toHaveAttribute('data-virtualised', 'false');
    expect(cardNames()).toHaveLength(30);
  });
});

describe('Model dialogs', () => {
  it('creates a model: name and type required, five types, ten languages, repository defaulting to the name', async () => {
    let models = catalogue();
    const { callsTo } = setup(undefined, {
      'GET /admin/models': () => json(modelList(models)),
      'POST /admin/models': (call) => {
        const body = call.body as { name: string };
        const created = model(9, { ...body, repo: body.name } as Partial<Model>);
        models = [...models, created];
        return json(created, 201);
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'New Model' }));
    const dialog = await screen.findByRole('dialog', { name: 'New Model' });
    expect(within(dialog).getByText(/Defaults to the name/)).toBeInTheDocument();

    await u.click(within(dialog).getByRole('button', { name: 'Create' }));
    expect(within(dialog).getByText('Name is required')).toBeInTheDocument();
    expect(within(dialog).getByText('Type is required')).toBeInTheDocument();
    expect(callsTo('POST', '/admin/models')).toHaveLength(0);

    await u.type(within(dialog).getByRole('textbox', { name: /Name/ }), 'all-MiniLM-L12-v2');
    await u.click(within(dialog).getByRole('combobox', { name: /Type/ }));
    expect((await screen.findAllByRole('option')).map((o) => o.textContent)).toEqual([
      'embedding',
      'spacy',
      'emotion',
      'sentiment',
      'transformer',
      'reranker',
    ]);
    await u.click(screen.getByRole('option', { name: 'embedding' }));
    await u.click(within(dialog).getByRole('combobox', { name: 'Language' }));
    const languages = (await screen.findAllByRole('option')).map((o) => o.textContent);
    expect(languages).toEqual([
      'English',
      'French',
      'Spanish',
      'German',
      'Italian',
      'Portuguese',
      'Dutch',
      'Russian',
      'Japanese',
      'Chinese',
    ]);
    await u.click(screen.getByRole('option', { name: 'French' }));
    await u.click(within(dialog).getByRole('button', { name: 'Create' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(callsTo('POST', '/admin/models')[0]?.body).toEqual({
      name: 'all-MiniLM-L12-v2',
      type: 'embedding',
      language: 'fr',
      description: '',
      revision: 'main',
    });
    expect(await screen.findByRole('article', { name: 'all-MiniLM-L12-v2' })).toBeInTheDocument();
  });

  it('edits a model sending only what changed, checks the repository, and never edits a built-in one', async () => {
    const { callsTo } = setup(undefined, {
      'PUT /admin/models/3': (call) => json({ ...catalogue()[2], ...(call.body as object) }),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await screen.findByRole('article', { name: 'all-MiniLM-L6-v2' });
    expect(screen.getByRole('button', { name: 'Edit builtin-hash-384' })).toBeDisabled();

    await u.click(
      screen.getByRole('button', { name: 'Edit paraphrase-multilingual-MiniLM-L12-v2' }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: 'Edit paraphrase-multilingual-MiniLM-L12-v2',
    });
    const repo = within(dialog).getByRole('textbox', { name: 'Hub repository' });
    await u.clear(repo);
    await u.type(repo, 'not a repo!');
    await u.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(
      within(dialog).getByText('Hub repository must be a hub repository id such as owner/name'),
    ).toBeInTheDocument();
    expect(callsTo('PUT', '/admin/models/3')).toHaveLength(0);

    await u.clear(repo);
    await u.type(repo, 'sentence-transformers/model-3');
    const description = within(dialog).getByRole('textbox', { name: 'Description' });
    await u.clear(description);
    await u.type(description, 'Fifty languages.');
    await u.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(callsTo('PUT', '/admin/models/3')).toHaveLength(1));
    // 'multi' is not offered by the language select and stays as it is.
    expect(callsTo('PUT', '/admin/models/3')[0]?.body).toEqual({ description: 'Fifty languages.' });
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it("shows the installation logs: the install job's record and errors, and the progress messages", async () => {
    const failed = model(2, {
      name: 'all-MiniLM-L6-v2',
      status: 'error',
      error: 'sha256 mismatch for model.onnx',
    });
    setup([failed], {
      'GET /admin/models/2/progress': json(
        progress(2, { status: 'error', message: 'sha256 mismatch for model.onnx', job_id: 21 }),
      ),
      'GET /sources/jobs/21': json(
        job(21, {
          type: 'install_model',
          status: 'failed',
          progress: 0.4,
          stage: 'Downloading model.onnx',
          failed_at: '2026-03-01T10:01:00.000Z',
          errors: [
            {
              type: 'checksum',
              error: 'ChecksumMismatch',
              message: 'sha256 mismatch for model.onnx',
              url: null,
              at: '2026-03-01T10:01:00.000Z',
            },
          ],
        }),
      ),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await screen.findByRole('button', { name: 'Installation logs of all-MiniLM-L6-v2' }),
    );
    const dialog = await screen.findByRole('dialog', {
      name: 'Installation logs: all-MiniLM-L6-v2',
    });
    const jobPanel = await within(dialog).findByLabelText('Job #21');
    expect(within(jobPanel).getByText('Job #21 · install_model')).toBeInTheDocument();
    expect(within(jobPanel).getByText('failed')).toBeInTheDocument();
    expect(within(jobPanel).getByText('checksum')).toBeInTheDocument();
    const messages = within(dialog).getByRole('table', { name: 'Progress messages' });
    expect(within(messages).getByText('sha256 mismatch for model.onnx')).toBeInTheDocument();
  });
});
