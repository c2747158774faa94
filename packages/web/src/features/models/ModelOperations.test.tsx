import { beforeEach, describe, expect, it, vi } from 'vitest';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { InstallProgress, Model } from '@adam/contracts';
import { FakeWebSocket } from '../../test/fakeSocket';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { DEFAULT_TEST_SENTENCE, INSTALL_POLL_MS, INSTALL_TIMEOUT_MS } from './constants';
import { MODEL_MESSAGES } from './messages';
import {
  actionResult,
  model,
  modelList,
  progress,
  keepListsUnvirtualised,
} from './models.fixtures';

const PATH = '/dashboard/model/management';
const NAME = 'all-MiniLM-L6-v2';

/** A server whose model 2 and its progress the test moves along. */
function setup(
  current: { model: Model; progress: InstallProgress },
  routes: Record<string, Route | Response> = {},
) {
  return mockFetch({
    ...loggedIn(),
    'GET /admin/models': () => json(modelList([current.model])),
    'GET /admin/models/2': () => json(current.model),
    'GET /admin/models/2/progress': () => json(current.progress),
    'POST /admin/models/2/install': json(actionResult(2)),
    ...routes,
  });
}

const card = () => screen.getByRole('article', { name: NAME });
const tick = (ms = INSTALL_POLL_MS) => act(() => void vi.advanceTimersByTime(ms));

keepListsUnvirtualised();

describe('Install', () => {
  beforeEach(() => {
    // Intervals and the clock are simulated (the polls and the 5-minute time-out); the rest is real.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  });

  it('announces the start, polls model and progress every second with live progress, and ends on installed', async () => {
    const current = { model: model(2, { name: NAME }), progress: progress(2) };
    const { callsTo } = setup(current);
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await within(await screen.findByRole('article', { name: NAME })).findByRole('button', {
        name: 'Install',
      }),
    );

    expect(
      await screen.findByText(
        'Starting installation for all-MiniLM-L6-v2. This may take a few minutes...',
      ),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/admin/models/2/install')).toHaveLength(1);
    // Nothing else may start while it installs.
    expect(within(card()).getByRole('button', { name: 'Install' })).toBeDisabled();
    expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(0);

    current.model = { ...current.model, status: 'downloading' };
    current.progress = progress(2, { progress: 40, message: 'Downloading model.onnx' });
    tick();
    await waitFor(() => expect(screen.getByTestId('model-progress-2')).toHaveTextContent('40%'));
    expect(within(card()).getByText('Downloading model.onnx')).toBeInTheDocument();
    expect(callsTo('GET', '/admin/models/2')).toHaveLength(1);
    expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(1);

    current.model = {
      ...current.model,
      status: 'installed',
      local_path: 'embedding/all-MiniLM-L6-v2',
    };
    current.progress = progress(2, { progress: 100, status: 'installed', message: 'Installed' });
    tick();
    expect(await screen.findByText('all-MiniLM-L6-v2 installed successfully!')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('model-progress-2')).not.toBeInTheDocument());
    expect(await within(card()).findByRole('button', { name: 'Test' })).toBeEnabled();

    // Polling has stopped.
    tick(5 * INSTALL_POLL_MS);
    expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(2);
  });

  it('retries a failed install from the card, without uninstalling first', async () => {
    const failed = model(2, {
      name: NAME,
      status: 'error',
      error: 'Hub answered 500 for onnx/model.onnx',
    });
    const current = { model: failed, progress: progress(2, { status: 'error', progress: 40 }) };
    const { callsTo } = setup(current);
    renderApp(PATH);
    const u = userEvent.setup();
    const article = await screen.findByRole('article', { name: NAME });
    expect(within(article).getByText('Hub answered 500 for onnx/model.onnx')).toBeInTheDocument();
    expect(within(article).queryByRole('button', { name: 'Install' })).not.toBeInTheDocument();
    await u.click(within(article).getByRole('button', { name: 'Retry install' }));
    expect(
      await screen.findByText(
        'Starting installation for all-MiniLM-L6-v2. This may take a few minutes...',
      ),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/admin/models/2/install')).toHaveLength(1);
    expect(callsTo('POST', '/admin/models/2/uninstall')).toHaveLength(0);
    current.model = { ...current.model, status: 'installed', error: null };
    current.progress = progress(2, { progress: 100, status: 'installed', message: 'Installed' });
    tick();
    expect(await screen.findByText('all-MiniLM-L6-v2 installed successfully!')).toBeInTheDocument();
    expect(within(card()).queryByRole('button', { name: 'Retry install' })).not.toBeInTheDocument();
  });

  it('cancels the install job from the card, and stops following it', async () => {
    const current = { model: model(2, { name: NAME }), progress: progress(2) };
    const { callsTo } = setup(current, {
      'POST /sources/jobs/31/cancel': () => {
        current.model = { ...current.model, status: 'not_installed' };
        current.progress = progress(2, {
          status: 'not_installed',
          message: 'Installation cancelled',
        });
        return json({ id: 31, status: 'cancelled' });
      },
    });
    renderApp(PATH);
    const u = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await u.click(
      await within(await screen.findByRole('article', { name: NAME })).findByRole('button', {
        name: 'Install',
      }),
    );
    await screen.findByText(/^Starting installation/);
    current.model = { ...current.model, status: 'downloading' };
    current.progress = progress(2, { progress: 30, job_id: 31, message: 'Downloading model.onnx' });
    tick();
    await u.click(
      await within(card()).findByRole('button', { name: `Cancel the install of ${NAME}` }),
    );
    expect(callsTo('POST', '/sources/jobs/31/cancel')).toHaveLength(1);
    tick();
    expect(
      await screen.findByText(
        'Installation of all-MiniLM-L6-v2 cancelled: its partial files stay, a new install resumes the download.',
      ),
    ).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('model-progress-2')).not.toBeInTheDocument());
    const polls = callsTo('GET', '/admin/models/2/progress').length;
    tick(5 * INSTALL_POLL_MS);
    expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(polls);
  });

  it("ends on status error with 'Installation failed for {model}: {message}'", async () => {
    const current = { model: model(2, { name: NAME }), progress: progress(2) };
    const { callsTo } = setup(current);
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await within(await screen.findByRole('article', { name: NAME })).findByRole('button', {
        name: 'Install',
      }),
    );
    await screen.findByText(/^Starting installation/);

    current.model = { ...current.model, status: 'error', error: 'sha256 mismatch for model.onnx' };
    current.progress = progress(2, { status: 'error', message: 'sha256 mismatch for model.onnx' });
    tick();
    expect(
      await screen.findByText(
        'Installation failed for all-MiniLM-L6-v2: sha256 mismatch for model.onnx',
      ),
    ).toBeInTheDocument();
    tick(3 * INSTALL_POLL_MS);
    expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(1);
  });

  it("gives up after 5 minutes with 'Installation timed out or failed for {model}'", async () => {
    const current = {
      model: model(2, { name: NAME }),
      progress: progress(2, { progress: 40 }),
    };
    const { callsTo } = setup(current);
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await within(await screen.findByRole('article', { name: NAME })).findByRole('button', {
        name: 'Install',
      }),
    );
    await screen.findByText(/^Starting installation/);
    current.model = { ...current.model, status: 'downloading' };

    tick(INSTALL_TIMEOUT_MS - INSTALL_POLL_MS);
    await waitFor(() => expect(screen.getByTestId('model-progress-2')).toHaveTextContent('40%'));
    expect(screen.queryByText(MODEL_MESSAGES.installTimedOut(NAME))).not.toBeInTheDocument();

    tick();
    expect(
      await screen.findByText('Installation timed out or failed for all-MiniLM-L6-v2'),
    ).toBeInTheDocument();
    const polls = callsTo('GET', '/admin/models/2/progress').length;
    tick(5 * INSTALL_POLL_MS);
    expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(polls);
  });

  it("says 'Failed to start installation for {model}: {reason}' when the start is refused", async () => {
    const current = { model: model(2, { name: NAME }), progress: progress(2) };
    const { callsTo } = setup(current, {
      'POST /admin/models/2/install': json({ detail: 'The model hub is not configured' }, 409),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await within(await screen.findByRole('article', { name: NAME })).findByRole('button', {
        name: 'Install',
      }),
    );
    expect(
      await screen.findByText(
        'Failed to start installation for all-MiniLM-L6-v2: The model hub is not configured',
      ),
    ).toBeInTheDocument();
    expect(within(card()).getByRole('button', { name: 'Install' })).toBeEnabled();
    tick(3 * INSTALL_POLL_MS);
    expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(0);
  });

  it('moves the progress with model_progress events from the channel', async () => {
    const current = { model: model(2, { name: NAME }), progress: progress(2) };
    setup(current);
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await within(await screen.findByRole('article', { name: NAME })).findByRole('button', {
        name: 'Install',
      }),
    );
    await screen.findByText(/^Starting installation/);
    act(() => FakeWebSocket.latest()?.open());
    act(() =>
      FakeWebSocket.latest()?.push({
        type: 'model_progress',
        model_id: 2,
        status: 'downloading',
        progress: 63.4,
        message: 'Downloading tokenizer.json',
        timestamp: 'now',
      }),
    );
    await waitFor(() => expect(screen.getByTestId('model-progress-2')).toHaveTextContent('63%'));
    expect(within(card()).getByText('Downloading tokenizer.json')).toBeInTheDocument();
  });
});

describe('Uninstall', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
  });

  it('asks with the spec text, calls only once confirmed, then polls progress until 100', async () => {
    const current = {
      model: model(2, { name: NAME, status: 'installed' }),
      progress: progress(2, { status: 'installed', progress: 100, job_id: null }),
    };
    const { callsTo } = setup(current, {
      'POST /admin/models/2/uninstall': () => {
        current.progress = progress(2, {
          status: 'installed',
          progress: 50,
          message: 'Removing files',
        });
        return json(
          actionResult(2, { status: 'installed', message: 'Uninstall queued', progress: 0 }),
        );
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    const uninstall = await within(await screen.findByRole('article', { name: NAME })).findByRole(
      'button',
      {
        name: 'Uninstall',
      },
    );
    await u.click(uninstall);
    let dialog = await screen.findByRole('dialog', { name: `Uninstall ${NAME}?` });
    expect(
      within(dialog).getByText(
        'Are you sure you want to uninstall this model? This will delete the model files.',
      ),
    ).toBeInTheDocument();
    await u.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(callsTo('POST', '/admin/models/2/uninstall')).toHaveLength(0);

    await u.click(uninstall);
    dialog = await screen.findByRole('dialog', { name: `Uninstall ${NAME}?` });
    await u.click(within(dialog).getByRole('button', { name: 'Uninstall' }));
    expect(await screen.findByText('all-MiniLM-L6-v2 uninstalled')).toBeInTheDocument();
    expect(callsTo('POST', '/admin/models/2/uninstall')).toHaveLength(1);

    tick();
    await waitFor(() => expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(1));
    await within(card()).findByText('Removing files');
    current.progress = progress(2, {
      status: 'not_installed',
      progress: 100,
      message: 'Uninstalled',
    });
    current.model = { ...current.model, status: 'not_installed' };
    tick();
    await waitFor(() => expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(2));
    expect(await within(card()).findByRole('button', { name: 'Install' })).toBeEnabled();
    tick(3 * INSTALL_POLL_MS);
    expect(callsTo('GET', '/admin/models/2/progress')).toHaveLength(2);
  });

  it("says 'Failed to uninstall {model}: {reason}'", async () => {
    const current = { model: model(2, { name: NAME, status: 'installed' }), progress: progress(2) };
    setup(current, {
      'POST /admin/models/2/uninstall': json({ detail: 'The model is in use by a job' }, 409),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await within(await screen.findByRole('article', { name: NAME })).findByRole('button', {
        name: 'Uninstall',
      }),
    );
    await u.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Uninstall' }),
    );
    expect(
      await screen.findByText('Failed to uninstall all-MiniLM-L6-v2: The model is in use by a job'),
    ).toBeInTheDocument();
  });
});

describe('Activate and test', () => {
  it('toggles the active flag with the spec toasts, names the re-embedding job, and reports a failure', async () => {
    const current = { model: model(2, { name: NAME, status: 'installed' }), progress: progress(2) };
    let fail = false;
    const { callsTo } = setup(current, {
      'POST /admin/models/2/toggle': (call) => {
        if (fail) return json({ detail: 'Another model is being activated' }, 409);
        const { active } = call.body as { active: boolean };
        current.model = { ...current.model, active };
        return json({ model: current.model, job_id: active ? 12 : null, message: 'ok' });
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    const toggle = await screen.findByRole('switch', { name: `Active: ${NAME}` });
    await u.click(toggle);
    expect(await screen.findByText('all-MiniLM-L6-v2 activated')).toBeInTheDocument();
    expect(screen.getByText(/as job #12/)).toBeInTheDocument();
    expect(callsTo('POST', '/admin/models/2/toggle')[0]?.body).toEqual({ active: true });
    await waitFor(() =>
      expect(screen.getByRole('switch', { name: `Active: ${NAME}` })).toBeChecked(),
    );

    await u.click(screen.getByRole('switch', { name: `Active: ${NAME}` }));
    expect(await screen.findByText('all-MiniLM-L6-v2 deactivated')).toBeInTheDocument();

    fail = true;
    await waitFor(() =>
      expect(screen.getByRole('switch', { name: `Active: ${NAME}` })).toBeEnabled(),
    );
    await u.click(screen.getByRole('switch', { name: `Active: ${NAME}` }));
    expect(
      await screen.findByText(
        'Failed to update status for all-MiniLM-L6-v2: Another model is being activated',
      ),
    ).toBeInTheDocument();
  });

  it('shows an embedding model being activated until its re-embedding job completes', async () => {
    const current = { model: model(2, { name: NAME, status: 'installed' }), progress: progress(2) };
    setup(current, {
      // As the server answers: still inactive, with the switch job that will make it active.
      'POST /admin/models/2/toggle': () => {
        current.model = { ...current.model, active: false, activation_job_id: 12 };
        return json({ model: current.model, job_id: 12, message: 'ok' });
      },
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('switch', { name: `Active: ${NAME}` }));
    expect(await screen.findByText('all-MiniLM-L6-v2 activated')).toBeInTheDocument();
    expect(await screen.findByText('activating · re-embedding job #12')).toBeInTheDocument();
    const toggle = screen.getByRole('switch', { name: `Active: ${NAME}` });
    expect(toggle).toBeChecked();
    expect(toggle).toBeDisabled();
  });

  it('tests with the default sentence, refuses blank text, and shows the result as JSON', async () => {
    const current = { model: model(2, { name: NAME, status: 'loaded' }), progress: progress(2) };
    const { callsTo } = setup(current, {
      'POST /admin/models/2/test': (call) =>
        json({
          model_id: 2,
          model: NAME,
          type: 'embedding',
          elapsed_ms: 4.5,
          result: { dimension: 384, echo: (call.body as { text: string }).text.length },
        }),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(
      await within(await screen.findByRole('article', { name: NAME })).findByRole('button', {
        name: 'Test',
      }),
    );
    const dialog = await screen.findByRole('dialog', { name: `Test ${NAME}` });
    const text = within(dialog).getByRole('textbox', { name: /Test text/ });
    const run = within(dialog).getByRole('button', { name: 'Run Test' });
    expect(text).toHaveValue(DEFAULT_TEST_SENTENCE);

    await u.clear(text);
    await u.type(text, '   ');
    expect(run).toBeDisabled();
    // The keyboard submit still checks: the message, and the default sentence back.
    await u.type(text, '{Control>}{Enter}{/Control}');
    expect(within(dialog).getByText('Test text cannot be empty')).toBeInTheDocument();
    expect(text).toHaveValue(DEFAULT_TEST_SENTENCE);
    expect(callsTo('POST', '/admin/models/2/test')).toHaveLength(0);

    await u.click(run);
    const result = await within(dialog).findByTestId('test-result');
    expect(JSON.parse(result.textContent ?? '')).toMatchObject({
      model: NAME,
      result: { dimension: 384, echo: DEFAULT_TEST_SENTENCE.length },
    });
    expect(callsTo('POST', '/admin/models/2/test')[0]?.body).toEqual({
      text: DEFAULT_TEST_SENTENCE,
    });
  });

  it("a 400 for a spaCy model asks for the language pack; other failures say 'Test failed for {model}'", async () => {
    const spacy = model(2, {
      name: 'fr_core_news_sm',
      type: 'spacy',
      language: 'fr',
      status: 'installed',
    });
    const embedding = model(3, { name: NAME, status: 'installed' });
    mockFetch({
      ...loggedIn(),
      'GET /admin/models': json(modelList([spacy, embedding])),
      'GET /admin/models/language-packs': json([]),
      'POST /admin/models/2/test': json({ detail: 'Language pack fr is not installed' }, 400),
      'POST /admin/models/3/test': json({ detail: 'ONNX session failed' }, 500),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await screen.findByRole('article', { name: NAME });
    await u.click(within(card()).getByRole('button', { name: 'Test' }));
    let dialog = await screen.findByRole('dialog', { name: `Test ${NAME}` });
    await u.click(within(dialog).getByRole('button', { name: 'Run Test' }));
    expect(
      await screen.findByText('Test failed for all-MiniLM-L6-v2: ONNX session failed'),
    ).toBeInTheDocument();
    expect(within(dialog).getByTestId('test-error')).toHaveTextContent(
      'Error: ONNX session failed',
    );
    await u.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await u.click(screen.getByRole('tab', { name: /SpaCy Models/ }));
    await u.click(
      within(await screen.findByRole('article', { name: 'fr_core_news_sm' })).getByRole('button', {
        name: 'Test',
      }),
    );
    dialog = await screen.findByRole('dialog', { name: 'Test fr_core_news_sm' });
    await u.click(within(dialog).getByRole('button', { name: 'Run Test' }));
    expect(
      await screen.findByText(
        'Model not ready for testing—please install the language pack (see spaCy docs).',
      ),
    ).toBeInTheDocument();
    expect(within(dialog).getByTestId('test-error')).toHaveTextContent(
      'Error: Language pack fr is not installed',
    );
  });
});
