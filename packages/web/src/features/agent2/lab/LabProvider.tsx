/**
 * The laboratory's one running simulation, shared by the Agent 2 screens (issue 12). Mounted
 * above the routes, so the population survives moving between screens and coming back within
 * the session; it evolves only while evolution is active and the operator is on an Agent 2
 * screen (/dashboard/agent2/...).
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

export const AGENT2_PATH = '/dashboard/agent2';

export function isAgent2Path(pathname: string): boolean {
  return pathname === AGENT2_PATH || pathname.startsWith(`${AGENT2_PATH}/`);
}

export interface LabProviderProps {
  children: ReactNode;
  /** A fixed seed (tests); the first mount's time otherwise. */
  seed?: number;
  /** A ready-made state to start from (screens' tests), instead of a new population. */
  initialState?: LabState;
}

export function LabProvider({ children, seed, initialState }: LabProviderProps) {
  const { pathname } = useLocation();
  const onAgent2 = isAgent2Path(pathname);
  // The snippets are fetched when the laboratory is first opened, not at every dashboard visit.
  const [opened, setOpened] = useState(onAgent2);
  if (onAgent2 && !opened) setOpened(true);
  const sources = useSnippetSources(opened);
  const sourcesRef = useRef(sources);
  sourcesRef.current = sources;

  const [state, setState] = useState<LabState>(
    () => initialState ?? simulation.createLab(seed ?? Date.now()),
  );
  const [running, setRunning] = useState(true);

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
