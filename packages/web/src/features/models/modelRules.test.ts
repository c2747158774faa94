import { describe, expect, it } from 'vitest';
import {
  DIALOG_INSTALL_POLL_MS,
  FALLBACK_REFRESH_MS,
  INSTALL_POLL_MS,
  INSTALL_TIMEOUT_MS,
  VIRTUAL_LIST,
} from './constants';
import { groupFiles } from './cleanupRules';
import { model, unusedFile } from './models.fixtures';
import {
  canInstall,
  canTest,
  canToggle,
  canUninstall,
  languageFilterOptions,
  languageName,
  shouldVirtualise,
  sortModels,
  statusLabel,
  tabOf,
} from './modelRules';

describe('model rules', () => {
  it('holds the spec 001 §9 constants', () => {
    expect(INSTALL_TIMEOUT_MS).toBe(300_000);
    expect(INSTALL_POLL_MS).toBe(1000);
    expect(DIALOG_INSTALL_POLL_MS).toBe(5000);
    expect(FALLBACK_REFRESH_MS).toBe(3000);
    expect(VIRTUAL_LIST).toEqual({ viewportOffset: 300, minItemHeight: 220, spacing: 16 });
  });

  it('virtualises only when the cards would exceed the viewport less 300 and none is expanded', () => {
    // 3 cards: 3 × 220 + 2 × 16 = 692.
    expect(shouldVirtualise(3, 992, false)).toBe(false);
    expect(shouldVirtualise(3, 991, false)).toBe(true);
    expect(shouldVirtualise(3, 991, true)).toBe(false);
    expect(shouldVirtualise(0, 0, false)).toBe(false);
  });

  it('shows loaded and installed as installed, and offers actions by status', () => {
    expect(statusLabel('loaded')).toBe('installed');
    expect(statusLabel('installed')).toBe('installed');
    expect(statusLabel('not_installed')).toBe('not installed');
    expect(statusLabel('downloading')).toBe('downloading');
    for (const status of [
      'loaded',
      'installed',
      'available',
      'not_installed',
      'downloading',
      'error',
    ] as const) {
      const m = model(1, { status });
      expect(canInstall(m)).toBe(status === 'not_installed');
      expect(canUninstall(m)).toBe(status !== 'not_installed');
      expect(canToggle(m)).toBe(status === 'loaded' || status === 'installed');
      expect(canTest(m)).toBe(status === 'loaded' || status === 'installed');
    }
    expect(canUninstall(model(1, { status: 'installed', builtin: true }))).toBe(false);
  });

  it('names languages, multi as Multilingual, unknown codes as themselves', () => {
    expect(languageName('fr')).toBe('French');
    expect(languageName('multi')).toBe('Multilingual');
    expect(languageName('xx')).toBe('xx');
    expect(languageFilterOptions(['fr', 'en', 'fr', 'multi']).map((o) => o.label)).toEqual([
      'All languages',
      'English',
      'French',
      'Multilingual',
    ]);
  });

  it('puts spacy models on the SpaCy tab and every other type on the Embedding tab', () => {
    expect(tabOf({ type: 'spacy' })).toBe('spacy');
    for (const type of ['embedding', 'transformer', 'emotion', 'sentiment'] as const) {
      expect(tabOf({ type })).toBe('embedding');
    }
  });

  it('sorts updated_at newest first, names and languages A to Z', () => {
    const a = model(1, { name: 'b', language: 'fr', updated_at: '2026-01-01T00:00:00Z' });
    const b = model(2, { name: 'a', language: 'en', updated_at: '2026-02-01T00:00:00Z' });
    const c = model(3, { name: 'c', language: 'de', updated_at: '2026-03-01T00:00:00Z' });
    expect(sortModels([a, b, c], 'name').map((m) => m.name)).toEqual(['a', 'b', 'c']);
    expect(sortModels([a, b, c], 'updated_at').map((m) => m.name)).toEqual(['c', 'a', 'b']);
    // English, French, German.
    expect(sortModels([a, b, c], 'language').map((m) => m.language)).toEqual(['en', 'fr', 'de']);
  });

  it('groups cleanup files in type order with other last, sorted by size either way', () => {
    const files = [
      unusedFile('x', { type: 'other', size: 1 }),
      unusedFile('s', { type: 'spacy', size: 5 }),
      unusedFile('e1', { size: 10 }),
      unusedFile('e2', { size: 30 }),
    ];
    const desc = groupFiles(files, { type: 'all', language: 'all', sizeDescending: true });
    expect(desc.map((g) => g.type)).toEqual(['embedding', 'spacy', 'other']);
    expect(desc[0]?.files.map((f) => f.path)).toEqual(['e2', 'e1']);
    expect(desc[0]?.totalSize).toBe(40);
    const asc = groupFiles(files, { type: 'embedding', language: 'all', sizeDescending: false });
    expect(asc.map((g) => g.type)).toEqual(['embedding']);
    expect(asc[0]?.files.map((f) => f.path)).toEqual(['e1', 'e2']);
  });
});
