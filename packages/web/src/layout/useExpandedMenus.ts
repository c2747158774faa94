import { useCallback, useEffect, useState } from 'react';

/** Local storage entry holding which sidebar groups are open, as JSON `{ groupId: true }`. */
export const EXPANDED_MENUS_STORAGE_KEY = 'dashboard.expandedMenus';

type Expanded = Record<string, boolean>;

function readExpanded(): Expanded {
  try {
    const raw = window.localStorage.getItem(EXPANDED_MENUS_STORAGE_KEY);
    if (!raw) return {};
    const parsed: unknown = JSON.parse(raw);
    // Also accept a plain list of open group ids.
    if (Array.isArray(parsed)) {
      return Object.fromEntries(parsed.filter((v) => typeof v === 'string').map((v) => [v, true]));
    }
    if (parsed && typeof parsed === 'object') {
      return Object.fromEntries(
        Object.entries(parsed).filter(([, v]) => typeof v === 'boolean') as [string, boolean][],
      );
    }
  } catch {
    // A corrupt entry just means every group starts closed.
  }
  return {};
}

/**
 * Expansion state of the sidebar groups, saved to and restored from local storage. `openAtStart`
 * (the opened tab's group) is open from the first render: opening it in an effect would show it
 * closed for a frame and then animate it open on every page load.
 */
export function useExpandedMenus(openAtStart?: string) {
  const [expanded, setExpanded] = useState<Expanded>(() => {
    const saved = readExpanded();
    return openAtStart ? { ...saved, [openAtStart]: true } : saved;
  });

  useEffect(() => {
    try {
      window.localStorage.setItem(EXPANDED_MENUS_STORAGE_KEY, JSON.stringify(expanded));
    } catch {
      // Storage may be full or disabled; expansion then lasts for this visit only.
    }
  }, [expanded]);

  const setGroupExpanded = useCallback((id: string, open: boolean) => {
    setExpanded((current) => (current[id] === open ? current : { ...current, [id]: open }));
  }, []);

  const isExpanded = useCallback((id: string) => expanded[id] === true, [expanded]);

  return { isExpanded, setGroupExpanded };
}
