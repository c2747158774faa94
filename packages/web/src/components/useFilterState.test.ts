import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { dateFilterToIso, useFilterState } from './useFilterState';

const INITIAL = { q: '', kind: 'all', min: '' as number | string };

describe('useFilterState', () => {
  afterEach(() => vi.useRealTimers());

  it('applies a select at once and a text field trimmed once typing pauses', () => {
    vi.useFakeTimers();
    const { result } = renderHook(() => useFilterState(INITIAL, { text: ['q'], debounceMs: 300 }));
    act(() => result.current.set('kind', 'web'));
    expect(result.current.applied.kind).toBe('web');

    act(() => result.current.set('q', '  honey '));
    expect(result.current.values.q).toBe('  honey ');
    expect(result.current.applied.q).toBe('');
    act(() => vi.advanceTimersByTime(299));
    expect(result.current.applied.q).toBe('');
    act(() => vi.advanceTimersByTime(1));
    expect(result.current.applied.q).toBe('honey');
  });

  it('says when a field differs from its default, and reset puts every field back', () => {
    const { result } = renderHook(() => useFilterState(INITIAL, { text: ['q'] }));
    expect(result.current.active).toBe(false);
    act(() => result.current.set('min', 0.5));
    expect(result.current.active).toBe(true);
    act(() => result.current.reset());
    expect(result.current.values).toEqual(INITIAL);
    expect(result.current.active).toBe(false);
  });

  it('calls onChange on every change and on reset (screens go back to page 1 there)', () => {
    const onChange = vi.fn();
    const { result } = renderHook(() => useFilterState(INITIAL, { onChange }));
    act(() => result.current.set('kind', 'file'));
    act(() => result.current.reset());
    expect(onChange).toHaveBeenCalledTimes(2);
  });

  it('keeps the first defaults when the caller passes a new literal each render', () => {
    const { result, rerender } = renderHook(({ kind }) => useFilterState({ ...INITIAL, kind }), {
      initialProps: { kind: 'all' },
    });
    rerender({ kind: 'web' });
    expect(result.current.values.kind).toBe('all');
    expect(result.current.active).toBe(false);
  });
});

describe('dateFilterToIso', () => {
  it('turns a local date-time into an ISO instant and leaves empty or invalid text unbounded', () => {
    expect(dateFilterToIso('2026-11-27T10:30')).toBe(new Date(2026, 10, 27, 10, 30).toISOString());
    expect(dateFilterToIso('')).toBeUndefined();
    expect(dateFilterToIso('not a date')).toBeUndefined();
  });
});
