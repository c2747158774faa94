import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HUB_REPO_PATTERN, MODEL_LANGUAGES } from '@adam/contracts';
import { openDatabase, type Db } from '../store/db.js';
import { ModelRepository } from '../store/model.repository.js';
import {
  BUILTIN_EMBEDDER_KEY,
  BUILTIN_PIPELINE_KEY,
  MODEL_CATALOGUE,
  packKey,
  seedCatalogue,
} from './model-catalogue.js';

describe('the catalogue', () => {
  it('has unique keys and names, and a hub repository id for every installable model', () => {
    expect(new Set(MODEL_CATALOGUE.map((e) => e.key)).size).toBe(MODEL_CATALOGUE.length);
    expect(new Set(MODEL_CATALOGUE.map((e) => e.name.toLowerCase())).size).toBe(
      MODEL_CATALOGUE.length,
    );
    for (const e of MODEL_CATALOGUE.filter((x) => !x.builtin)) {
      expect(e.repo, e.key).toMatch(HUB_REPO_PATTERN);
      expect(e.expectedBytes, e.key).toBeGreaterThan(10_000_000);
      expect(e.version, e.key).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  it('has one spacy pack per language, packs of one multilingual model sharing its files', () => {
    const packs = MODEL_LANGUAGES.map((l) =>
      MODEL_CATALOGUE.find((e) => e.key === packKey(l.code)),
    );
    for (const [i, p] of packs.entries()) {
      expect(p, MODEL_LANGUAGES[i]!.code).toMatchObject({
        type: 'spacy',
        language: MODEL_LANGUAGES[i]!.code,
      });
    }
    const byRepo = new Map<string, string[]>();
    for (const p of packs) byRepo.set(p!.repo!, [...(byRepo.get(p!.repo!) ?? []), p!.language]);
    expect(byRepo.get('Xenova/bert-base-multilingual-cased-ner-hrl')).toEqual([
      'en',
      'fr',
      'es',
      'de',
      'it',
      'pt',
      'nl',
      'zh',
    ]);
  });

  it('offers the sentence-transformers of the processing screen and all-MiniLM-L6-v2', () => {
    const st = MODEL_CATALOGUE.filter((e) => e.repo?.startsWith('sentence-transformers/'));
    expect(st.map((e) => e.name).sort()).toEqual([
      'all-MiniLM-L6-v2',
      'all-mpnet-base-v2',
      'all-roberta-large-v1',
      'paraphrase-multilingual-MiniLM-L12-v2',
    ]);
    expect(
      st.every((e) => e.type === 'embedding' && e.repo === `sentence-transformers/${e.name}`),
    ).toBe(true);
    expect(st.find((e) => e.name.startsWith('paraphrase-multilingual'))!.language).toBe('multi');
  });
});

describe('seedCatalogue', () => {
  let dir: string;
  let db: Db;
  let models: ModelRepository;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-catalogue-'));
    db = openDatabase(dir);
    models = new ModelRepository(db);
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('adds every entry once: the built-in ones installed and active, the others not installed', () => {
    expect(seedCatalogue(models, 'https://hub.example/')).toHaveLength(MODEL_CATALOGUE.length);
    const rows = models.list();
    expect(rows).toHaveLength(MODEL_CATALOGUE.length);
    const embedder = models.findByCatalogue(BUILTIN_EMBEDDER_KEY)!;
    expect(embedder).toMatchObject({
      type: 'embedding',
      status: 'installed',
      active: 1,
      builtin: 1,
      language: 'en',
      dimension: 384,
      local_path: 'builtin',
      repo: null,
      source_url: null,
    });
    expect(embedder.description).toMatch(
      /^Offline word-vector sentence embedder shipped with ADAM/,
    );
    expect(models.findByCatalogue(BUILTIN_PIPELINE_KEY)).toMatchObject({
      type: 'spacy',
      status: 'installed',
      active: 1,
      builtin: 1,
    });
    const mini = models.findByName('all-MiniLM-L6-v2')!;
    expect(mini).toMatchObject({
      status: 'not_installed',
      active: 0,
      builtin: 0,
      source_url: 'https://hub.example/sentence-transformers/all-MiniLM-L6-v2',
    });
    expect(seedCatalogue(models, 'https://hub.example')).toEqual([]);
    expect(models.list()).toHaveLength(MODEL_CATALOGUE.length);
  });

  it("keeps an operator's edits across restarts, and adds back only what is missing", () => {
    seedCatalogue(models, 'https://hub.example');
    const mini = models.findByName('all-MiniLM-L6-v2')!;
    models.update(mini.id, { description: 'Ours', language: 'fr', status: 'installed' });
    db.prepare('DELETE FROM models WHERE catalogue = ?').run(packKey('ja'));
    expect(seedCatalogue(models, 'https://hub.example')).toEqual([packKey('ja')]);
    expect(models.findById(mini.id)).toMatchObject({
      description: 'Ours',
      language: 'fr',
      status: 'installed',
    });
  });

  it('leaves alone a name an operator took before the catalogue had it', () => {
    models.insert({ name: 'ALL-MINILM-L6-V2', type: 'transformer', language: 'de' });
    const added = seedCatalogue(models, 'https://hub.example');
    expect(added).not.toContain('embedding:all-MiniLM-L6-v2');
    expect(models.findByName('all-MiniLM-L6-v2')).toMatchObject({ type: 'transformer' });
  });
});
