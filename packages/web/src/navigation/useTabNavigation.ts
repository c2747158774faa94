import { useCallback, useMemo } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { findTab, tabHref, type TabParams } from './tabRegistry';

/** Opens a tab, with its cross-link parameters (e.g. settings-scraping with `{ domain }`). */
export function useOpenTab() {
  const navigate = useNavigate();
  return useCallback((id: string, params?: TabParams) => navigate(tabHref(id, params)), [navigate]);
}

/** The cross-link parameters a tab was opened with, limited to those the tab declares. */
export function useTabParams(id: string): Record<string, string | undefined> {
  const [search] = useSearchParams();
  return useMemo(() => {
    const values: Record<string, string | undefined> = {};
    for (const name of findTab(id)?.params ?? []) values[name] = search.get(name) ?? undefined;
    return values;
  }, [id, search]);
}
