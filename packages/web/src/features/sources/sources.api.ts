/** Fetchers, query keys and hooks of the source calls (spec 002 §7: /sources/...). */
export const sourceKeys = {
  all: ['sources'] as const,
  list: (search: string, domain: string, page: number) =>
    ['sources', 'list', { search, domain, page }] as const,
};
