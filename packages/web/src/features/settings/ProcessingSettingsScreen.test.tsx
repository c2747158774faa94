import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  DEFAULT_CRAWLER_SETTINGS,
  DEFAULT_PROCESSING_SETTINGS,
  DEFAULT_UPLOAD_SETTINGS,
  ProcessingSettings,
} from '@adam/contracts';
import { json, mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { loggedIn } from '../../test/session';
import { model, modelList } from '../models/models.fixtures';

const stored = { ...DEFAULT_PROCESSING_SETTINGS, embedding_model: 'all-mpnet-base-v2' as const };
/** The crawler and uploads cards below the processing ones read their own sections. */
const otherSections = () => ({
  'GET /admin/settings/crawler': json(DEFAULT_CRAWLER_SETTINGS),
  'GET /admin/settings/uploads': json(DEFAULT_UPLOAD_SETTINGS),
});

describe('Processing Settings', () => {
  it('loads the stored values; the dimension is fixed at 384', async () => {
    mockFetch({
      ...loggedIn(),
      ...otherSections(),
      'GET /admin/settings/processing': json(stored),
    });
    renderApp('/dashboard/settings/processing');
    expect(await screen.findByText('Embedding Configuration')).toBeInTheDocument();
    expect(screen.getByText('Quality Filters')).toBeInTheDocument();
    expect(screen.getByLabelText('Batch Size')).toHaveValue('32');
    expect(screen.getByLabelText('Min Quality Score')).toHaveValue('0.4');
    expect(screen.getByLabelText('Segmenter Model')).toHaveValue('builtin');
    expect(screen.getByDisplayValue('all-mpnet-base-v2 (Balanced)')).toBeInTheDocument();
    const dimension = screen.getByLabelText('Dimension');
    expect(dimension).toHaveValue('384');
    expect(dimension).toHaveAttribute('readonly');
  });

  it('sends all twenty-one fields under settings and shows the saved values', async () => {
    const { callsTo } = mockFetch({
      ...loggedIn(),
      ...otherSections(),
      'GET /admin/settings/processing': json(stored),
      'PUT /admin/settings/processing': (call) => {
        const { settings } = call.body as { settings: Record<string, unknown> };
        // The server answers the stored group, here with its own normalisation.
        return json({ ...settings, segmenter_model: 'builtin-v2' });
      },
    });
    renderApp('/dashboard/settings/processing');
    const u = userEvent.setup();
    const batch = await screen.findByLabelText('Batch Size');
    await u.clear(batch);
    await u.type(batch, '64');
    const limit = screen.getByLabelText('Task Time Limit (s)');
    expect(limit).toHaveValue('60');
    await u.clear(limit);
    await u.type(limit, '20');
    const weight = screen.getByLabelText('Hybrid Vector Weight');
    await u.clear(weight);
    await u.type(weight, '0.6');
    await u.click(screen.getByRole('combobox', { name: 'Index Storage' }));
    await u.click(
      screen.getByRole('option', { name: 'i8: 8-bit integers, a quarter of the memory' }),
    );
    await u.click(screen.getByRole('button', { name: 'Apply Processing Settings' }));

    expect(await screen.findByText('Processing settings saved')).toBeInTheDocument();
    const [put] = callsTo('PUT', '/admin/settings/processing');
    const { settings } = put?.body as { settings: Record<string, unknown> };
    expect(Object.keys(settings).sort()).toEqual(Object.keys(ProcessingSettings.shape).sort());
    expect(Object.keys(settings)).toHaveLength(21);
    expect(settings.embedding_batch_size).toBe(64);
    expect(settings.search_vector_weight).toBe(0.6);
    expect(settings.index_storage).toBe('i8');
    expect(settings.task_timeout_seconds).toBe(20);
    expect(ProcessingSettings.safeParse(settings).success).toBe(true);
    await waitFor(() => expect(screen.getByLabelText('Segmenter Model')).toHaveValue('builtin-v2'));
  });

  it('shows a 422 as a toast with the detail and as the error of the named field', async () => {
    mockFetch({
      ...loggedIn(),
      ...otherSections(),
      'GET /admin/settings/processing': json(stored),
      'PUT /admin/settings/processing': json(
        {
          detail: 'segment_min_length: must not exceed segment_max_length',
          errors: [{ field: 'segment_min_length', message: 'must not exceed segment_max_length' }],
        },
        422,
      ),
    });
    renderApp('/dashboard/settings/processing');
    const u = userEvent.setup();
    await screen.findByLabelText('Batch Size');
    await u.click(screen.getByRole('button', { name: 'Apply Processing Settings' }));
    expect(
      await screen.findByText('segment_min_length: must not exceed segment_max_length'),
    ).toBeInTheDocument();
    expect(screen.getByText('must not exceed segment_max_length')).toBeInTheDocument();
    expect(screen.getByLabelText('Segment Min Length')).toHaveAttribute('aria-invalid', 'true');
  });
});

describe('Processing Settings: the embedding model select', () => {
  const registry = modelList([
    model(1, { name: 'builtin-384', type: 'embedding', status: 'installed', active: true }),
    model(2, {
      name: 'all-mpnet-base-v2',
      type: 'embedding',
      status: 'not_installed',
      active: false,
      dimension: null,
    }),
    model(3, {
      name: 'tiny-embedder',
      type: 'embedding',
      status: 'installed',
      active: false,
      dimension: 64,
    }),
    model(4, { name: 'French language pack', type: 'spacy', status: 'installed' }),
  ]);

  it('lists the registry embedding models with their status; only installed ones can be chosen', async () => {
    const current = { ...DEFAULT_PROCESSING_SETTINGS, embedding_model: 'builtin-384' };
    const { callsTo } = mockFetch({
      ...loggedIn(),
      ...otherSections(),
      'GET /admin/settings/processing': json(current),
      'GET /admin/models': json(registry),
      'PUT /admin/settings/processing': () => json(current),
    });
    renderApp('/dashboard/settings/processing');
    const u = userEvent.setup();
    expect(await screen.findByDisplayValue('builtin-384 · active')).toBeInTheDocument();
    expect(screen.getByLabelText('Dimension')).toHaveValue('384');
    await u.click(screen.getByRole('combobox', { name: 'Embedding Model' }));
    const mpnet = screen.getByRole('option', {
      name: 'all-mpnet-base-v2 (Balanced) · not installed',
    });
    expect(mpnet).toHaveAttribute('data-combobox-disabled', 'true');
    expect(screen.queryByRole('option', { name: /French language pack/ })).toBeNull();
    await u.click(screen.getByRole('option', { name: 'tiny-embedder · installed' }));
    expect(screen.getByLabelText('Dimension')).toHaveValue('64');

    await u.click(screen.getByRole('button', { name: 'Apply Processing Settings' }));
    const [put] = callsTo('PUT', '/admin/settings/processing');
    expect((put?.body as { settings: { embedding_model: string } }).settings.embedding_model).toBe(
      'tiny-embedder',
    );
    // The server answers the active model until the re-embedding job completes.
    expect(
      await screen.findByText(
        'Re-embedding every snippet with tiny-embedder: it becomes the active model when the job completes',
      ),
    ).toBeInTheDocument();
  });
});
