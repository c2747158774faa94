/**
 * Real snippets the laboratory's experiences draw their themes from (issue 12): a few of the best
 * per theme, fetched once when the laboratory first runs. The simulation stays in the browser;
 * on failure (no snippet, server down) it uses the plain themes and says nothing.
 */
import { useQuery } from '@tanstack/react-query';
import { THEMES, type SnippetList } from '@adam/contracts';
import { fetchSnippets } from '../../snippets/snippets.api';
import type { SnippetSource } from './types';

const SNIPPETS_PER_THEME = 5;
/** The text an experience keeps of its snippet: enough to recognise it on the screens. */
export const SOURCE_TEXT_MAX = 300;

export const labSnippetKeys = { sources: ['agent2', 'lab', 'snippet-sources'] as const };

function toSources(lists: SnippetList[]): SnippetSource[] {
  return lists.flatMap((list) =>
    list.snippets.map((s) => ({
      id: s.id,
      text: s.text.length > SOURCE_TEXT_MAX ? `${s.text.slice(0, SOURCE_TEXT_MAX)}…` : s.text,
      theme: s.theme,
    })),
  );
}

/** One small page per theme; a theme whose call fails is left out. */
export async function fetchSnippetSources(signal?: AbortSignal): Promise<SnippetSource[]> {
  const results = await Promise.allSettled(
    THEMES.map((theme) =>
      fetchSnippets(
        { page: 1, per_page: SNIPPETS_PER_THEME, sort_by: 'quality_score', order: 'desc', theme },
        signal,
      ),
    ),
  );
  return toSources(results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])));
}

/** The sources, fetched once per session when `enabled` first turns true; [] until then. */
export function useSnippetSources(enabled: boolean): SnippetSource[] {
  const { data } = useQuery({
    queryKey: labSnippetKeys.sources,
    queryFn: ({ signal }) => fetchSnippetSources(signal),
    enabled,
    staleTime: Infinity,
    gcTime: Infinity,
    retry: false,
  });
  return data ?? EMPTY;
}

const EMPTY: SnippetSource[] = [];
