/**
 * The laboratory's one running simulation, shared by the Agent 2 screens (issue 12). Mounted
 * above the routes, so the population survives moving between screens and coming back within
 * the session; it evolves only while evolution is active and the operator is on an Agent 2
 * screen (/dashboard/agent2/...). It is kept in local storage (labStorage.ts), so a reload goes on
 * where it was; Reset starts a new population (and stores that one).
 */
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useLocation } from 'react-router';
import * as simulation from './simulation';
import { loadLab, saveLab } from './labStorage';
import { useSnippetSources } from './snippetThemes';
import type { EvolutionParams, LabState } from './types';

export interface LabValue {
  state: LabState;
  /** Evolution Active (true, the default) or Paused. */
  running: boolean;
  setRunning(running: boolean): void;
  /** Ends the current generation now (breeding and culling). */
  startNewGeneration(): void;
  /** A new population (a new seed), keeping the applied params. */
  reset(): void;
  applyParams(params: EvolutionParams): void;
}

const LabContext = createContext<LabValue | null>(null);

const AGENT2_PATH = '/dashboard/agent2';

function isAgent2Path(pathname: string): boolean {
  return pathname === AGENT2_PATH || pathname.startsWith(`${AGENT2_PATH}/`);
}

export interface LabProviderProps {
  children: ReactNode;
  /** A fixed seed (tests); the first mount's time otherwise. */
  seed?: number;
  /** A ready-made state to start from (screens' tests), instead of a new population. */
  initialState?: LabState;
  /** Restore from and save to local storage; by default when neither seed nor initialState is given. */
  persist?: boolean;
}

/**
 * Saves when a generation ends, on a pause, a reset or new params, and when the page is hidden
 * or left: between those the simulation's ticks are not worth a write of the whole state.
 */
function useSavedLab(state: LabState, running: boolean, persist: boolean) {
  const latest = useRef({ state, running });
  latest.current = { state, running };
  useEffect(() => {
    if (persist) saveLab(state, running);
    // Not at every tick: the dependencies are the moments named above.
  }, [persist, state.generation, state.seed, state.params, running]);
  useEffect(() => {
    if (!persist) return;
    const save = () => saveLab(latest.current.state, latest.current.running);
    const onVisibility = () => {
      if (document.visibilityState === 'hidden') save();
    };
    window.addEventListener('pagehide', save);
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      window.removeEventListener('pagehide', save);
      document.removeEventListener('visibilitychange', onVisibility);
      save();
    };
  }, [persist]);
}

export function LabProvider({
  children,
  seed,
  initialState,
  persist = seed === undefined && initialState === undefined,
}: LabProviderProps) {
  const { pathname } = useLocation();
  const onAgent2 = isAgent2Path(pathname);
  // The snippets are fetched when the laboratory is first opened, not at every dashboard visit.
  const [opened, setOpened] = useState(onAgent2);
  if (onAgent2 && !opened) setOpened(true);
  const sources = useSnippetSources(opened);
  const sourcesRef = useRef(sources);
  sourcesRef.current = sources;

  // Read once, for the first render of both pieces of state.
  const [stored] = useState(() => (persist ? loadLab() : null));
  const [state, setState] = useState<LabState>(
    () => initialState ?? stored?.state ?? simulation.createLab(seed ?? Date.now()),
  );
  const [running, setRunning] = useState(stored?.running ?? true);
  useSavedLab(state, running, persist);

  useEffect(() => {
    if (!running || !onAgent2) return;
    const timer = setInterval(
      () => setState((s) => simulation.tick(s, { sources: sourcesRef.current })),
      simulation.TICK_MS,
    );
    return () => clearInterval(timer);
  }, [running, onAgent2]);

  const startNewGeneration = useCallback(
    () => setState((s) => simulation.startNewGeneration(s, { sources: sourcesRef.current })),
    [],
  );
  const reset = useCallback(
    () =>
      setState((s) =>
        simulation.createLab(simulation.nextSeed(s), {
          params: s.params,
          sources: sourcesRef.current,
        }),
      ),
    [],
  );
  const applyParams = useCallback(
    (params: EvolutionParams) => setState((s) => simulation.applyParams(s, params)),
    [],
  );

  const value = useMemo(
    () => ({ state, running, setRunning, startNewGeneration, reset, applyParams }),
    [state, running, startNewGeneration, reset, applyParams],
  );
  return <LabContext.Provider value={value}>{children}</LabContext.Provider>;
}

export function useLab(): LabValue {
  const value = useContext(LabContext);
  if (!value) throw new Error('useLab must be used inside <LabProvider>');
  return value;
}
