/** What the model screens show and offer for a model (spec 001 §2.2, §4), as pure functions. */
import {
  MODEL_LANGUAGES,
  MODEL_STATUSES,
  MULTILINGUAL,
  type Model,
  type ModelStatus,
} from '@adam/contracts';
import { VIRTUAL_LIST } from './constants';

// --- Status and actions (§4) ------------------------------------------------------------------

/** loaded and installed are both shown as 'installed'. */
export function statusLabel(status: ModelStatus): string {
  if (status === 'loaded' || status === 'installed') return 'installed';
  if (status === 'not_installed') return 'not installed';
  return status;
}

export const STATUS_COLOR: Record<ModelStatus, string> = {
  loaded: 'teal',
  installed: 'teal',
  available: 'blue',
  not_installed: 'gray',
  downloading: 'yellow',
  error: 'red',
};

export const isInstalled = (status: ModelStatus) => status === 'loaded' || status === 'installed';

/** Install is offered only when the model is not installed. */
export const canInstall = (model: Pick<Model, 'status'>) => model.status === 'not_installed';

/**
 * A failed install is tried again in place (the server installs from `error` as from
 * `not_installed`), rather than uninstalled and installed again; it needs a hub repository.
 */
export const canRetryInstall = (model: Pick<Model, 'status' | 'repo'>) =>
  model.status === 'error' && model.repo !== null && model.repo !== '';

/** Uninstall for any other status; a built-in model ships with ADAM and stays. */
export const canUninstall = (model: Pick<Model, 'status' | 'builtin'>) =>
  model.status !== 'not_installed' && !model.builtin;

/** The active toggle and the Test button: installed or loaded models only. */
export const canToggle = (model: Pick<Model, 'status'>) => isInstalled(model.status);
export const canTest = (model: Pick<Model, 'status'>) => isInstalled(model.status);

// --- Languages --------------------------------------------------------------------------------

const LANGUAGE_NAMES: Record<string, string> = Object.fromEntries(
  MODEL_LANGUAGES.map((l) => [l.code, l.name]),
);
const LANGUAGE_FLAGS: Record<string, string> = Object.fromEntries(
  MODEL_LANGUAGES.map((l) => [l.code, l.flag]),
);

/** The friendly name when known ('multi' is Multilingual), else the code itself. */
export function languageName(code: string): string {
  if (code === MULTILINGUAL) return 'Multilingual';
  return LANGUAGE_NAMES[code] ?? code;
}

export const languageFlag = (code: string): string =>
  code === MULTILINGUAL ? '🌐' : (LANGUAGE_FLAGS[code] ?? '');

export const LANGUAGE_OPTIONS = MODEL_LANGUAGES.map((l) => ({ value: l.code, label: l.name }));

/** 'all' and the languages present, by friendly name. */
export function languageFilterOptions(languages: Iterable<string>, all = 'All languages') {
  const present = [...new Set(languages)].sort((a, b) =>
    languageName(a).localeCompare(languageName(b)),
  );
  return [
    { value: 'all', label: all },
    ...present.map((code) => ({ value: code, label: languageName(code) })),
  ];
}

// --- Tabs, filters, sort (§2.2) ---------------------------------------------------------------

export type ModelTab = 'embedding' | 'spacy';

/**
 * The spec shows two tabs. SpaCy holds the spacy models (the language packs); Embedding holds
 * every other type, so emotion, sentiment and transformer models stay reachable (each card names
 * its type).
 */
export const tabOf = (model: Pick<Model, 'type'>): ModelTab =>
  model.type === 'spacy' ? 'spacy' : 'embedding';

export const STATUS_FILTERS = ['all', ...MODEL_STATUSES] as const;
export const STATUS_FILTER_OPTIONS = STATUS_FILTERS.map((value) => ({
  value,
  label:
    value === 'all'
      ? 'All statuses'
      : value === 'not_installed'
        ? 'Not installed'
        : value[0]!.toUpperCase() + value.slice(1),
}));

export const MODEL_SORTS = ['name', 'language', 'updated_at'] as const;
export type ModelSort = (typeof MODEL_SORTS)[number];
export const SORT_OPTIONS: { value: ModelSort; label: string }[] = [
  { value: 'name', label: 'Name' },
  { value: 'language', label: 'Language' },
  { value: 'updated_at', label: 'Last updated' },
];

export interface ModelFilters {
  search: string;
  status: string;
  language: string;
}

/** Search matches the name or the language (code or friendly name), ignoring case. */
export function matchesFilters(model: Model, filters: ModelFilters): boolean {
  const q = filters.search.trim().toLowerCase();
  if (
    q &&
    !model.name.toLowerCase().includes(q) &&
    !model.language.toLowerCase().includes(q) &&
    !languageName(model.language).toLowerCase().includes(q)
  ) {
    return false;
  }
  if (filters.status !== 'all' && model.status !== filters.status) return false;
  if (filters.language !== 'all' && model.language !== filters.language) return false;
  return true;
}

/** Name and language A→Z (then name); updated_at newest first. */
export function sortModels(models: readonly Model[], sort: ModelSort): Model[] {
  const byName = (a: Model, b: Model) => a.name.localeCompare(b.name);
  const compare: Record<ModelSort, (a: Model, b: Model) => number> = {
    name: byName,
    language: (a, b) =>
      languageName(a.language).localeCompare(languageName(b.language)) || byName(a, b),
    updated_at: (a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at) || byName(a, b),
  };
  return [...models].sort(compare[sort]);
}

/** §2.2 and §9: virtualise when the cards would not fit in the viewport less 300 and none is open. */
export function shouldVirtualise(count: number, viewportHeight: number, anyExpanded: boolean) {
  if (anyExpanded || count === 0) return false;
  const content = count * VIRTUAL_LIST.minItemHeight + (count - 1) * VIRTUAL_LIST.spacing;
  return content > viewportHeight - VIRTUAL_LIST.viewportOffset;
}
