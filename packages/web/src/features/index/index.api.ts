/** Fetchers, query keys and hooks of the index calls (spec 002 §7: /admin/index/...). */
export const indexKeys = {
  all: ['index'] as const,
  stats: ['index', 'stats'] as const,
  entries: (params: { page: number; search: string; theme: string }) =>
    ['index', 'entries', params] as const,
};
