/**
 * The laboratory kept in the browser's local storage, so a reload goes on from the generation it
 * had reached. What is read back is checked field by field: an old format, a hand edit or a
 * partial write gives a new population, never a broken screen.
 */
import { clampParams } from './simulation';
import type { DigitalBaby, LabState } from './types';

export const LAB_STORAGE_KEY = 'adam.agent2.lab';
const FORMAT = 1;
/** Local storage holds about 5 MB a site; the laboratory keeps well under it. */
const MAX_STORED_CHARS = 2_000_000;
/** A snippet's text is kept this long in a stored experience (the screens show an excerpt). */
const SOURCE_TEXT_KEPT = 280;

export interface StoredLab {
  state: LabState;
  running: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function shortenSources(baby: DigitalBaby): DigitalBaby {
  const shorten = <T extends { source: DigitalBaby['experiences'][number]['source'] }>(e: T): T =>
    e.source && e.source.text.length > SOURCE_TEXT_KEPT
      ? { ...e, source: { ...e.source, text: e.source.text.slice(0, SOURCE_TEXT_KEPT) } }
      : e;
  return {
    ...baby,
    experiences: baby.experiences.map(shorten),
    capitalizedMemories: baby.capitalizedMemories.map(shorten),
  };
}

/**
 * The state as stored: snippet texts shortened; when that is still too large, archived babies
 * lose their experiences, then the oldest archived babies are dropped (counted as pruned).
 */
export function serializeLab(state: LabState, running: boolean): string {
  let babies = state.babies.map(shortenSources);
  let pruned = state.pruned;
  const encode = () =>
    JSON.stringify({ format: FORMAT, running, state: { ...state, babies, pruned } });
  let text = encode();
  if (text.length <= MAX_STORED_CHARS) return text;
  babies = babies.map((b) =>
    b.status === 'archived' ? { ...b, experiences: [], capitalizedMemories: [] } : b,
  );
  text = encode();
  while (text.length > MAX_STORED_CHARS) {
    const oldestArchived = babies.findIndex((b) => b.status === 'archived');
    if (oldestArchived < 0) break;
    // Half the archived babies at a time: a few passes at most.
    const archived = babies.filter((b) => b.status === 'archived').length;
    const drop = new Set(
      babies
        .filter((b) => b.status === 'archived')
        .slice(0, Math.max(1, Math.ceil(archived / 2)))
        .map((b) => b.id),
    );
    babies = babies.filter((b) => !drop.has(b.id));
    pruned += drop.size;
    text = encode();
  }
  return text;
}

function isBaby(value: unknown): value is DigitalBaby {
  return (
    isRecord(value) &&
    typeof value.id === 'string' &&
    isCount(value.generation) &&
    isRecord(value.dna) &&
    typeof value.fitness === 'number' &&
    Array.isArray(value.experiences) &&
    Array.isArray(value.parentIds) &&
    Array.isArray(value.capitalizedMemories) &&
    typeof value.color === 'string' &&
    (value.status === 'active' || value.status === 'testing' || value.status === 'archived')
  );
}

/** The stored laboratory, or null when there is none or it cannot be trusted. */
export function parseLab(text: string | null): StoredLab | null {
  if (!text || text.length > MAX_STORED_CHARS * 2) return null;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isRecord(data) || data.format !== FORMAT || !isRecord(data.state)) return null;
  const s = data.state;
  if (
    !isCount(s.seed) ||
    !isCount(s.rngState) ||
    !isCount(s.generation) ||
    s.generation < 1 ||
    !isCount(s.tick) ||
    !isCount(s.pruned) ||
    !Array.isArray(s.babies) ||
    !s.babies.every(isBaby) ||
    !Array.isArray(s.history) ||
    !s.history.every((h) => isRecord(h) && isCount(h.generation)) ||
    !isRecord(s.params)
  ) {
    return null;
  }
  const p = s.params;
  if (
    ![p.creativityThreshold, p.mutationRate, p.emotionalDepth, p.innovationTendency].every(
      (v) => typeof v === 'number' && Number.isFinite(v),
    )
  ) {
    return null;
  }
  const state = { ...(s as unknown as LabState) };
  state.params = clampParams(state.params);
  return { state, running: data.running !== false };
}

export function loadLab(): StoredLab | null {
  try {
    return parseLab(window.localStorage.getItem(LAB_STORAGE_KEY));
  } catch {
    return null;
  }
}

export function saveLab(state: LabState, running: boolean): void {
  try {
    window.localStorage.setItem(LAB_STORAGE_KEY, serializeLab(state, running));
  } catch {
    // Storage full or disabled: the laboratory then lasts for this visit only.
  }
}
