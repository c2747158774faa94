import type { ReactNode } from 'react';
import { describe, expect, it } from 'vitest';
import { act, renderHook, waitFor } from '@testing-library/react';
import { QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter, useLocation } from 'react-router';
import { json, mockFetch, type RecordedCall } from '../../test/fetchMock';
import { createQueryClient } from '../../lib/queryClient';
import { page, snippet } from './snippets.fixtures';
import { positiveInt, qualityFilter, useSnippetsBrowser } from './useSnippetsBrowser';

const last = (calls: RecordedCall[]) => calls[calls.length - 1]!;

function setup(path = '/dashboard/sources/snippets', total = 120) {
  const mock = mockFetch({
    'GET /snippets': (call) =>
      json(page([snippet(1), snippet(2), snippet(3)], total, Number(call.query.page))),
  });
  const queryClient = createQueryClient();
  let search = '';
  function LocationProbe() {
    search = useLocation().search;
    return null;
  }
  const wrapper = ({ children }: { children: ReactNode }) => (
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        <LocationProbe />
        {children}
      </MemoryRouter>
    </QueryClientProvider>
  );
  const hook = renderHook(() => useSnippetsBrowser(), { wrapper });
  const lists = () => mock.callsTo('GET', '/snippets');
  return { ...hook, lists, search: () => search };
}

describe('useSnippetsBrowser', () => {
  it('reads job_id and source_url from the URL and removes one without the other', async () => {
    const { result, lists, search } = setup(
      '/dashboard/sources/snippets?job_id=12&source_url=https%3A%2F%2Fa.org%2Fx',
    );
    await waitFor(() => expect(result.current.rows).toHaveLength(3));
    expect(result.current.jobId).toBe(12);
    expect(result.current.sourceUrl).toBe('https://a.org/x');
    expect(result.current.filtered).toBe(true);
    expect(last(lists()).query).toMatchObject({ job_id: '12', source_url: 'https://a.org/x' });

    act(() => result.current.removePrefilter('job_id'));
    await waitFor(() => expect(result.current.jobId).toBeUndefined());
    expect(search()).toBe('?source_url=https%3A%2F%2Fa.org%2Fx');
    await waitFor(() => expect(last(lists()).query.job_id).toBeUndefined());
  });

  it('selects rows one by one and the whole page, and a reload clears the selection', async () => {
    const { result } = setup();
    await waitFor(() => expect(result.current.rows).toHaveLength(3));
    act(() => result.current.toggle(2));
    expect([...result.current.selected]).toEqual([2]);
    expect(result.current.someOnPage).toBe(true);
    expect(result.current.allOnPage).toBe(false);

    act(() => result.current.toggleAll());
    expect([...result.current.selected].sort()).toEqual([1, 2, 3]);
    expect(result.current.allOnPage).toBe(true);
    act(() => result.current.toggleAll());
    expect(result.current.selected.size).toBe(0);

    act(() => result.current.toggle(1));
    const before = result.current.list.dataUpdatedAt;
    await act(async () => {
      await result.current.list.refetch();
    });
    await waitFor(() => expect(result.current.list.dataUpdatedAt).not.toBe(before));
    expect(result.current.selected.size).toBe(0);
  });

  it('goes back to page 1 when a filter changes', async () => {
    const { result, lists } = setup();
    await waitFor(() => expect(result.current.pages).toBe(3));
    act(() => result.current.goToPage(3));
    await waitFor(() => expect(last(lists()).query.page).toBe('3'));
    expect(result.current.page).toBe(3);

    act(() => result.current.form.set('sortBy', 'word_count'));
    expect(result.current.page).toBe(1);
    await waitFor(() =>
      expect(last(lists()).query).toMatchObject({ page: '1', sort_by: 'word_count' }),
    );
  });

  it('sends the search as every word, and counts it as a filter', async () => {
    const { result, lists } = setup();
    await waitFor(() => expect(result.current.rows).toHaveLength(3));
    expect(result.current.filtered).toBe(false);
    act(() => result.current.form.set('search', ' honey bees '));
    await waitFor(() =>
      expect(last(lists()).query).toMatchObject({ search: 'honey bees', match: 'all' }),
    );
    expect(result.current.filtered).toBe(true);
  });
});

describe('URL and quality parsing', () => {
  it('takes only positive safe integers as a job id', () => {
    expect(positiveInt('12')).toBe(12);
    for (const bad of [null, '', '0', '-3', '1.5', '12abc', '99999999999999999999']) {
      expect(positiveInt(bad)).toBeUndefined();
    }
  });

  it('clamps the minimum quality to 0–1 and treats an empty box as no minimum', () => {
    expect(qualityFilter(0.4)).toBe(0.4);
    expect(qualityFilter('1.7')).toBe(1);
    expect(qualityFilter(-2)).toBe(0);
    expect(qualityFilter(' ')).toBeUndefined();
    expect(qualityFilter('abc')).toBeUndefined();
  });
});
