/** Test data of the snippet screens' component tests. */
import type { ConsistencyReport, Snippet, SnippetList } from '@adam/contracts';

export function snippet(id: number, overrides: Partial<Snippet> = {}): Snippet {
  return {
    id,
    text: `Honey bees dance to tell their sisters where the flowers are (${id}).`,
    theme: 'science',
    quality_score: 0.82,
    language: 'en',
    word_count: 12,
    size_bytes: 64,
    created_at: '2026-03-01T10:00:00.000Z',
    updated_at: '2026-03-01T10:00:00.000Z',
    indexed_at: '2026-03-01T10:00:01.000Z',
    faiss_id: id,
    index_pending: false,
    source_info: { title: 'Honeybees', url: 'https://fixture.test/articles/honeybees' },
    job_id: 7,
    metadata: { segmentation_method: 'semantic' },
    ...overrides,
  };
}

export function page(
  snippets: Snippet[],
  total = snippets.length,
  pageNo = 1,
  totalExact = true,
): SnippetList {
  return {
    snippets,
    total,
    total_exact: totalExact,
    page: pageNo,
    per_page: 50,
    next_cursor: null,
    prev_cursor: null,
  };
}

export function report(overrides: Partial<ConsistencyReport['summary']> = {}): ConsistencyReport {
  return {
    summary: {
      total_index: 3,
      total_disk: 3,
      consistent: 2,
      index_only: 1,
      disk_only: 1,
      ...overrides,
    },
    snippets_ok: [
      { id: 1, theme: 'science', quality_score: 0.9, faiss_id: 1, text: 'First consistent' },
      { id: 2, theme: 'general', quality_score: 0.6, faiss_id: 2, text: 'Second consistent' },
    ],
    index_only: [{ faiss_id: 900 }],
    disk_only: [
      {
        id: 3,
        theme: 'science',
        quality_score: 0.4,
        faiss_id: null,
        index_pending: true,
        text: 'Lost vector',
      },
    ],
    checked_at: '2026-03-01T10:05:00.000Z',
  };
}
