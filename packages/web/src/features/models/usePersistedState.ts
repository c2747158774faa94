import { useCallback, useState } from 'react';

/** Local storage keys of the Model Management filters (spec 001 §2.2: one key each). */
export const MODEL_FILTER_KEYS = {
  search: 'models.filter.search',
  status: 'models.filter.status',
  language: 'models.filter.language',
} as const;

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * A string kept in local storage under `key`, so it survives visits. A stored value `accept`
 * refuses (an old or hand-edited entry) falls back to `initial`.
 */
export function usePersistedState(
  key: string,
  initial: string,
  accept: (value: string) => boolean = () => true,
): [string, (value: string) => void] {
  const [value, setValue] = useState(() => {
    const stored = read(key);
    return stored !== null && accept(stored) ? stored : initial;
  });
  const set = useCallback(
    (next: string) => {
      setValue(next);
      try {
        window.localStorage.setItem(key, next);
      } catch {
        // Storage may be full or disabled: the filter then lasts for this visit only.
      }
    },
    [key],
  );
  return [value, set];
}
