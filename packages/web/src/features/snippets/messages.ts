/** Spec 002 §5 and §8 texts of the snippet screens, exactly as written there. */
export const SNIPPET_MESSAGES = {
  loadListFailed: 'Failed to load snippet list',
  consistencyFailed: 'Failed to check snippet consistency',
  deleteFailed: (id: number) => `Failed to delete snippet ${id}`,
  cleanupFailed: 'Failed to clean orphaned snippets',
  notIndexed: 'Snippet not indexed',
  indexInfoFailed: 'Failed to fetch index info',
  searchFailed: 'Search failed',
  emptyQuery: 'Searches need a non-empty query',
} as const;

/** A spec text with the server's detail after it: 'Failed to load snippet list: …'. */
export const withDetail = (message: string, detail: string) => `${message}: ${detail}`;

/** Index status labels (spec 002 §2 Snippets browser). */
export const INDEX_STATUS_LABELS = {
  indexed: 'indexed',
  pending: 'pending indexing',
  missing: 'not in index',
} as const;
