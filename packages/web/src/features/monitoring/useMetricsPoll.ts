import { useEffect, useRef, useState } from 'react';
import { useRealtime } from '../../lib/realtime/RealtimeProvider';
import type { MetricsPoll } from './monitoring.api';
import {
  clampRefreshSeconds,
  parseActiveParam,
  parseRefreshParam,
  refreshSecondsFromMs,
} from './monitoringRules';

/**
 * Spec 001 §7 Polling: every refresh tick also asks the channel for an update (request_update),
 * while the screen polls and the page is visible (the queries skip hidden pages too).
 */
export function useRequestUpdateTick({ intervalMs, polling }: MetricsPoll): void {
  const { requestUpdate } = useRealtime();
  const send = useRef(requestUpdate);
  send.current = requestUpdate;
  useEffect(() => {
    if (!polling) return;
    const id = window.setInterval(() => {
      if (document.visibilityState !== 'hidden') send.current();
    }, intervalMs);
    return () => window.clearInterval(id);
  }, [intervalMs, polling]);
}

/**
 * The Control Centre's refresh slider and Pause/Resume. The interval starts from the tab's
 * `refresh` parameter (ms, like the setting) or else the resources setting metrics_refresh_ms (following it
 * until the operator moves the slider); the tab's `active` parameter says whether it starts
 * running (`active=false` opens it paused).
 */
export function useRefreshControl(
  settingMs: number,
  params: { refresh?: string; active?: string },
) {
  const [chosen, setChosen] = useState<number | null>(() => parseRefreshParam(params.refresh));
  const [paused, setPaused] = useState(() => parseActiveParam(params.active) === false);
  // Opening the tab again with other parameters (a cross-link) applies them.
  const [seen, setSeen] = useState(params);
  if (seen.refresh !== params.refresh || seen.active !== params.active) {
    setSeen(params);
    if (seen.refresh !== params.refresh) setChosen(parseRefreshParam(params.refresh));
    const active = parseActiveParam(params.active);
    if (seen.active !== params.active && active !== null) setPaused(!active);
  }
  const seconds = chosen ?? refreshSecondsFromMs(settingMs);
  return {
    seconds,
    setSeconds: (value: number) => setChosen(clampRefreshSeconds(value)),
    paused,
    togglePaused: () => setPaused((p) => !p),
  };
}

/** `value` while `live`; the last live value while not (a paused screen stays still). */
export function useFrozenWhile<T>(live: boolean, value: T): T {
  const [frozen, setFrozen] = useState(value);
  if (live && frozen !== value) setFrozen(value);
  return live ? value : frozen;
}
