import { describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UnusedModelFile } from '@adam/contracts';
import { json, mockFetch, type Route } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { unusedFile } from '../models/models.fixtures';

const PATH = '/dashboard/maintenance/cleanup';

const files = (): UnusedModelFile[] => [
  unusedFile('embedding/old-mini/model.onnx', { size: 90 * 1024 * 1024 }),
  unusedFile('embedding/old-mini/tokenizer.json', { size: 700 * 1024 }),
  unusedFile('embedding/big/model.onnx', { size: 400 * 1024 * 1024, language: 'fr' }),
  unusedFile('spacy/fr/pack.bin', { type: 'spacy', language: 'fr', size: 12 * 1024 * 1024 }),
  unusedFile('stray.tmp', { type: 'other', language: '', size: 10 }),
];

function setup(routes: Record<string, Route | Response> = {}, listed = files()) {
  let current = listed;
  const api = mockFetch({
    ...loggedIn(),
    'GET /admin/models/cleanup/files': () => json(current),
    'DELETE /admin/models/cleanup/files': (call) => {
      const { files: paths } = call.body as { files: string[] };
      current = current.filter((f) => !paths.includes(f.path));
      return json({ deleted: paths, freed_bytes: 1 });
    },
    'POST /admin/models/cache/clear': json({
      unloaded_models: 2,
      freed_bytes: 2048,
      message: 'Unloaded 2 models',
    }),
    ...routes,
  });
  return api;
}

const group = (label: string) => screen.getByRole('table', { name: `${label} unused files` });
const paths = (label: string) =>
  within(group(label))
    .getAllByRole('row')
    .slice(1)
    .map((row) => row.getAttribute('data-path'));

describe('Model Cleanup', () => {
  it('groups unused files by type in tables, other files on their own, largest first by default', async () => {
    setup();
    renderApp(PATH);
    expect(await screen.findByRole('heading', { name: 'Model Cleanup' })).toBeInTheDocument();
    await screen.findByRole('table', { name: 'Embedding unused files' });
    expect(screen.getAllByRole('table').map((t) => t.getAttribute('aria-label'))).toEqual([
      'Embedding unused files',
      'SpaCy unused files',
      'Other files unused files',
    ]);
    expect(paths('Embedding')).toEqual([
      'embedding/big/model.onnx',
      'embedding/old-mini/model.onnx',
      'embedding/old-mini/tokenizer.json',
    ]);
    const row = within(group('Embedding')).getByText('embedding/big/model.onnx').closest('tr')!;
    expect(within(row).getByText('400 MB')).toBeInTheDocument();
    expect(within(row).getByText('French')).toBeInTheDocument();
    expect(within(row).getByRole('checkbox')).not.toBeChecked();
    expect(
      within(row).getByRole('button', { name: 'Delete embedding/big/model.onnx' }),
    ).toBeEnabled();

    const u = userEvent.setup();
    await u.click(screen.getByRole('button', { name: 'Size: largest first' }));
    expect(paths('Embedding')).toEqual([
      'embedding/old-mini/tokenizer.json',
      'embedding/old-mini/model.onnx',
      'embedding/big/model.onnx',
    ]);
    expect(screen.getByRole('button', { name: 'Size: smallest first' })).toBeInTheDocument();
  });

  it('filters by type and by language', async () => {
    setup();
    renderApp(PATH);
    await screen.findByRole('table', { name: 'Embedding unused files' });
    const u = userEvent.setup();
    await u.click(screen.getByRole('combobox', { name: 'Type' }));
    expect((await screen.findAllByRole('option')).map((o) => o.textContent)).toEqual([
      'All types',
      'embedding',
      'spacy',
      'emotion',
      'sentiment',
      'transformer',
      'reranker',
    ]);
    await u.click(screen.getByRole('option', { name: 'spacy' }));
    expect(screen.getAllByRole('table')).toHaveLength(1);
    expect(paths('SpaCy')).toEqual(['spacy/fr/pack.bin']);
    await u.click(screen.getByRole('combobox', { name: 'Type' }));
    await u.click(await screen.findByRole('option', { name: 'emotion' }));
    expect(screen.getByText('No file matches these filters')).toBeInTheDocument();
    await u.click(screen.getByRole('combobox', { name: 'Type' }));
    await u.click(await screen.findByRole('option', { name: 'All types' }));

    await u.click(screen.getByRole('combobox', { name: 'Language' }));
    await u.click(await screen.findByRole('option', { name: 'French' }));
    expect(paths('Embedding')).toEqual(['embedding/big/model.onnx']);
    expect(paths('SpaCy')).toEqual(['spacy/fr/pack.bin']);
    expect(
      screen.queryByRole('table', { name: 'Other files unused files' }),
    ).not.toBeInTheDocument();
  });

  it("deletes the selection after confirmation with 'Deleted selected files'; Delete Selected is disabled without one", async () => {
    const { callsTo } = setup();
    renderApp(PATH);
    await screen.findByRole('table', { name: 'Embedding unused files' });
    const u = userEvent.setup();
    const deleteSelected = screen.getByRole('button', { name: 'Delete Selected' });
    expect(deleteSelected).toBeDisabled();

    await u.click(screen.getByRole('checkbox', { name: 'Select all Embedding files' }));
    await u.click(
      screen.getByRole('checkbox', { name: 'Select embedding/old-mini/tokenizer.json' }),
    );
    await u.click(screen.getByRole('checkbox', { name: 'Select stray.tmp' }));
    expect(screen.getByRole('checkbox', { name: 'Select all Embedding files' })).toHaveAttribute(
      'data-indeterminate',
      'true',
    );
    await u.click(screen.getByRole('button', { name: 'Delete Selected (3)' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete 3 files?' });
    expect(callsTo('DELETE', '/admin/models/cleanup/files')).toHaveLength(0);
    await u.click(within(dialog).getByRole('button', { name: 'Delete' }));

    expect(await screen.findByText('Deleted selected files')).toBeInTheDocument();
    expect(callsTo('DELETE', '/admin/models/cleanup/files')[0]?.body).toEqual({
      files: ['embedding/big/model.onnx', 'embedding/old-mini/model.onnx', 'stray.tmp'],
    });
    await waitFor(() => expect(paths('Embedding')).toEqual(['embedding/old-mini/tokenizer.json']));
    expect(screen.getByRole('button', { name: 'Delete Selected' })).toBeDisabled();
  });

  it("deletes one file ('File deleted'), and says 'Delete failed' with the server's reason on a refusal", async () => {
    let refuse = false;
    const { callsTo } = setup({
      'DELETE /admin/models/cleanup/files': (call) =>
        refuse
          ? json({ detail: 'spacy/fr/pack.bin is used by model fr_core_news_sm' }, 422)
          : json({ deleted: (call.body as { files: string[] }).files, freed_bytes: 10 }),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Delete stray.tmp' }));
    await u.click(
      within(await screen.findByRole('dialog', { name: 'Delete this file?' })).getByRole('button', {
        name: 'Delete',
      }),
    );
    expect(await screen.findByText('File deleted')).toBeInTheDocument();
    expect(callsTo('DELETE', '/admin/models/cleanup/files')[0]?.body).toEqual({
      files: ['stray.tmp'],
    });

    refuse = true;
    await u.click(screen.getByRole('button', { name: 'Delete spacy/fr/pack.bin' }));
    await u.click(
      within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }),
    );
    expect((await screen.findAllByText('Delete failed')).length).toBeGreaterThanOrEqual(1);
    expect(
      screen.getByText('spacy/fr/pack.bin is used by model fr_core_news_sm'),
    ).toBeInTheDocument();
  });

  it("clears the cache with 'Model cache cleared', or says 'Failed to clear cache'", async () => {
    let fail = false;
    const { callsTo } = setup({
      'POST /admin/models/cache/clear': () =>
        fail
          ? json({ detail: 'busy' }, 500)
          : json({ unloaded_models: 2, freed_bytes: 2048, message: 'Unloaded 2 models' }),
    });
    renderApp(PATH);
    const u = userEvent.setup();
    await u.click(await screen.findByRole('button', { name: 'Clear Cache' }));
    expect(await screen.findByText('Model cache cleared')).toBeInTheDocument();
    expect(
      screen.getByText('Unloaded 2 models (2 models unloaded, 2 KB freed)'),
    ).toBeInTheDocument();
    expect(callsTo('POST', '/admin/models/cache/clear')).toHaveLength(1);

    fail = true;
    await u.click(screen.getByRole('button', { name: 'Clear Cache' }));
    expect(await screen.findByText('Failed to clear cache')).toBeInTheDocument();
  });

  it("says 'Failed to load files' when the listing fails, and shows an empty state when nothing is unused", async () => {
    const first = setup({ 'GET /admin/models/cleanup/files': json({ detail: 'disk error' }, 500) });
    const app = renderApp(PATH);
    expect((await screen.findAllByText('Failed to load files')).length).toBeGreaterThanOrEqual(1);
    expect(first.callsTo('GET', '/admin/models/cleanup/files').length).toBeGreaterThanOrEqual(1);
    app.unmount();

    setup({}, []);
    renderApp(PATH);
    expect(await screen.findByText('No unused model files')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Delete Selected' })).toBeDisabled();
  });
});
