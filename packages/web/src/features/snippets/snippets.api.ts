/** Fetchers, query keys and hooks of the snippet calls (spec 002 §7: /snippets...). */
import type { SnippetListQuery } from '@adam/contracts';

export const snippetKeys = {
  all: ['snippets'] as const,
  lists: ['snippets', 'list'] as const,
  list: (query: SnippetListQuery) => ['snippets', 'list', query] as const,
  detail: (id: number) => ['snippets', 'detail', id] as const,
  indexInfo: (id: number) => ['snippets', 'index-info', id] as const,
  consistency: ['snippets', 'consistency'] as const,
  analytics: (days: number) => ['snippets', 'analytics', days] as const,
};
