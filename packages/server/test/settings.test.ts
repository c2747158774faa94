import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SETTINGS_SECTIONS } from '@adam/contracts';
import { startServer, type TestServer } from './helpers.js';

let s: TestServer;
let key: string;

beforeEach(async () => {
  s = await startServer();
  key = await s.login();
});
afterEach(async () => {
  await s.close();
});

const put = (section: string, body: unknown) =>
  s.api(`/api/v1/admin/settings/${section}`, { method: 'PUT', key, body });
const get = (section = '') =>
  s.api(`/api/v1/admin/settings${section ? `/${section}` : ''}`, { key });

describe('settings', () => {
  it('starts with the spec defaults for processing and resources', async () => {
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.body.processing).toMatchObject({
      embedding_batch_size: 32,
      min_quality_score: 0.4,
      min_content_length: 50,
      min_word_count: 30,
      segment_min_words: 20,
      segment_quality_threshold: 0.3,
      segment_max_tokens: 384,
      segment_max_sentences: 3,
      segment_min_length: 150,
      segment_max_length: 500,
      segment_overlap: 50,
      max_concurrent_scrapes: 10,
      smart_segmentation: true,
      // Ours, not the spec's: the tuned hybrid-search weight (bench/relevance.bench.ts).
      search_vector_weight: 0.4,
      // Ours: the time budget of one task on a worker thread (issue 23).
      task_timeout_seconds: 60,
      // Ours: the rerank stage of hybrid search, off and without a model (issue 27).
      rerank_enabled: false,
      rerank_top_n: 20,
      reranker_model: '',
    });
    expect(Object.keys(r.body.processing)).toHaveLength(21);
    expect(r.body.resources).toEqual({ metrics_refresh_ms: 5000 });
    expect(r.body.general.auto_backup).toBe(true);
    expect((await get('processing')).body).toEqual(r.body.processing);
  });

  it('answers 404 for an unknown section, on read and on write', async () => {
    const r = await get('nope');
    expect(r.status).toBe(404);
    expect(r.body.detail).toBe('Settings section nope not found');
    expect((await put('nope', { settings: {} })).status).toBe(404);
  });

  it('saves a change, keeps the other fields, and keeps it across a restart', async () => {
    const r = await put('processing', {
      section: 'processing',
      settings: { embedding_batch_size: 64, min_quality_score: 0.55 },
    });
    expect(r.status).toBe(200);
    expect(r.body.embedding_batch_size).toBe(64);
    expect(r.body.min_quality_score).toBe(0.55);
    expect(r.body.segment_max_tokens).toBe(384);

    const dataDir = s.dataDir;
    await s.close();
    s = await startServer({ dataDir });
    key = await s.login();
    expect((await get('processing')).body.embedding_batch_size).toBe(64);
    expect((await s.api('/api/v1/config/public')).body.segment_max_tokens).toBe(384);
  });

  it('feeds /config/public from the processing settings', async () => {
    await put('processing', {
      settings: {
        segment_max_tokens: 256,
        segment_max_sentences: 5,
        segmenter_model: 'xx_sent_ud_sm',
      },
    });
    const pub = (await s.api('/api/v1/config/public')).body;
    expect(pub).toMatchObject({
      segment_max_tokens: 256,
      segment_max_sentences: 5,
      segmenter_model: 'xx_sent_ud_sm',
    });
  });

  it.each([
    ['embedding_batch_size', 0, 'must be at least 1'],
    ['embedding_batch_size', 129, 'must be at most 128'],
    ['embedding_batch_size', 1.5, 'must be a whole number'],
    ['embedding_batch_size', '32', ''],
    ['min_quality_score', 1.01, 'must be at most 1'],
    ['min_quality_score', -0.1, 'must be at least 0'],
    ['segment_quality_threshold', 2, 'must be at most 1'],
    ['min_content_length', 9, 'must be at least 10'],
    ['min_word_count', 4, 'must be at least 5'],
    ['segment_min_words', 4, 'must be at least 5'],
    ['segment_min_length', 0, 'must be at least 1'],
    ['segment_max_tokens', 0, 'must be at least 1'],
    ['segment_max_sentences', 0, 'must be at least 1'],
    ['segment_overlap', -1, 'must be at least 0'],
    ['max_concurrent_scrapes', 0, 'must be at least 1'],
    ['embedding_model', 'gpt-9', 'gpt-9 is not an embedding model of the registry'],
    [
      'embedding_model',
      'all-mpnet-base-v2',
      'all-mpnet-base-v2 is not installed: install it first (Model Management)',
    ],
    ['smart_segmentation', 'yes', ''],
    ['segmenter_model', '', 'is required'],
  ])('answers 422 naming %s for %j and saves nothing', async (field, value, message) => {
    const before = (await get('processing')).body;
    const r = await put('processing', { settings: { embedding_batch_size: 16, [field]: value } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toContain(field);
    expect(r.body.errors).toContainEqual(expect.objectContaining({ field }));
    if (message)
      expect(r.body.errors.find((e: { field: string }) => e.field === field).message).toBe(message);
    expect((await get('processing')).body).toEqual(before);
  });

  it('answers 422 when segment_min_length exceeds segment_max_length', async () => {
    const r = await put('processing', {
      settings: { segment_min_length: 600, segment_max_length: 500 },
    });
    expect(r.status).toBe(422);
    expect(r.body.errors[0].field).toBe('segment_min_length');
  });

  it('answers 422 for an unknown field, a missing settings object, or a mismatched section', async () => {
    const unknown = await put('processing', {
      settings: { embedding_batch_size: 16, colour: 'red' },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toContainEqual({
      field: 'colour',
      message: 'is not a known field',
    });
    const missing = await put('processing', { embedding_batch_size: 16 });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].field).toBe('settings');
    const mismatch = await put('processing', { section: 'resources', settings: {} });
    expect(mismatch.status).toBe(422);
    expect((await get('processing')).body.embedding_batch_size).toBe(32);
  });

  it("answers 422 naming a field of another section, whatever the section's type", async () => {
    const r = await put('resources', { settings: { api_title: 'ADAM' } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toBe('Invalid resources settings: api_title: is not a known field');
    expect(r.body.errors).toEqual([{ field: 'api_title', message: 'is not a known field' }]);
    const typed = await put('quality', { settings: { search_history_enabled: 'yes' } });
    expect(typed.status).toBe(422);
    expect(typed.body.errors[0].field).toBe('search_history_enabled');
    expect((await get('quality')).body.search_history_enabled).toBe(true);
  });

  it("shows each section's schema in the OpenAPI document, for reads and saves", async () => {
    const doc = (await s.api('/api/docs/json')).body;
    const path = doc.paths['/api/v1/admin/settings/{section}'];
    const read = path.get.responses['200'].content['application/json'].schema;
    const titles = read.anyOf.map((v: { title: string }) => v.title);
    expect(titles).toHaveLength(SETTINGS_SECTIONS.length);
    expect(titles).toContain('ProcessingSettings');
    const processing = read.anyOf.find((v: { title: string }) => v.title === 'ProcessingSettings');
    expect(processing.properties.embedding_batch_size).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 128,
    });
    expect(processing.required).toContain('embedding_batch_size');
    const body = path.put.requestBody.content['application/json'].schema;
    const changes = body.properties.settings.anyOf;
    expect(changes.map((v: { title: string }) => v.title)).toEqual(
      titles.map((t: string) => `${t}Change`),
    );
    const generalChange = changes.find(
      (v: { title: string }) => v.title === 'GeneralSettingsChange',
    );
    // A change names any of the section's fields and no other.
    expect(generalChange.required ?? []).toEqual([]);
    expect(generalChange.additionalProperties).toBe(false);
    expect(Object.keys(generalChange.properties)).toContain('backup_frequency');
    expect(path.put.responses['200'].content['application/json'].schema.anyOf).toHaveLength(
      SETTINGS_SECTIONS.length,
    );
    // The document of every route is built at its first request: slow on a busy machine.
  }, 180_000);

  it('enforces metrics_refresh_ms of at least 1000', async () => {
    const low = await put('resources', { settings: { metrics_refresh_ms: 999 } });
    expect(low.status).toBe(422);
    expect(low.body.errors).toEqual([
      { field: 'metrics_refresh_ms', message: 'must be at least 1000' },
    ]);
    const ok = await put('resources', { settings: { metrics_refresh_ms: 1000 } });
    expect(ok.body).toEqual({ metrics_refresh_ms: 1000 });
  });

  it('validates the general section', async () => {
    expect((await put('general', { settings: { backup_frequency: 30 } })).status).toBe(422);
    expect((await put('general', { settings: { default_language: 'it' } })).status).toBe(422);
    const ok = await put('general', { settings: { backup_frequency: 360, auto_backup: false } });
    expect(ok.body).toMatchObject({ backup_frequency: 360, auto_backup: false });
  });

  it('emits settings.updated on the event bus after a save, not after a refused one', async () => {
    const seen: string[] = [];
    s.adam.bus.on('settings.updated', (e) => seen.push(e.section));
    await put('resources', { settings: { metrics_refresh_ms: 10 } });
    await put('resources', { settings: { metrics_refresh_ms: 2000 } });
    expect(seen).toEqual(['resources']);
  });
});
