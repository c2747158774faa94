import { useMemo, useState } from 'react';
import { useDebouncedValue } from '@mantine/hooks';

type FilterValue = string | number | null;

export interface FilterState<T extends Record<string, FilterValue>> {
  /** What the fields show, as typed. */
  values: T;
  /** What the query uses: the text fields trimmed and applied once typing pauses. */
  applied: T;
  set: <K extends keyof T>(key: K, value: T[K]) => void;
  reset: () => void;
  /** Whether any field differs from its initial value. */
  active: boolean;
}

/**
 * The state of a filter bar. Fields named in `text` are debounced (typing queries the server once
 * the operator pauses) and trimmed; the others apply at once. `onChange` runs on every change
 * (screens reset their paging there).
 */
export function useFilterState<T extends Record<string, FilterValue>>(
  initial: T,
  options: { text?: readonly (keyof T)[]; debounceMs?: number; onChange?: () => void } = {},
): FilterState<T> {
  const { text = [], debounceMs = 300, onChange } = options;
  // The first render's defaults stay the defaults (callers pass a fresh literal each render).
  const [defaults] = useState(initial);
  const [textKeys] = useState(text);
  const [values, setValues] = useState<T>(defaults);

  // Debouncing a string keeps the timer from restarting on every render (a new object would).
  const typedNow = JSON.stringify(textKeys.map((k) => String(values[k] ?? '').trim()));
  const [typed] = useDebouncedValue(typedNow, debounceMs);

  const applied = useMemo(() => {
    const trimmed = JSON.parse(typed) as string[];
    const next = { ...values };
    textKeys.forEach((k, i) => {
      next[k] = trimmed[i] as T[keyof T];
    });
    return next;
  }, [values, typed, textKeys]);

  const set = <K extends keyof T>(key: K, value: T[K]) => {
    setValues((current) => ({ ...current, [key]: value }));
    onChange?.();
  };
  const reset = () => {
    setValues(defaults);
    onChange?.();
  };

  const active = (Object.keys(defaults) as (keyof T)[]).some((k) => values[k] !== defaults[k]);
  return { values, applied, set, reset, active };
}

/** A From/To field's datetime-local value as the ISO time the server expects (empty: no bound). */
export function dateFilterToIso(value: string): string | undefined {
  if (!value) return undefined;
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}
