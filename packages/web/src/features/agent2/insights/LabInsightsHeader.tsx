import { LabHeader } from '../lab/LabHeader';
import type { LabValue } from '../lab/LabProvider';
import { livingBabies } from '../lab/simulation';
import { INSIGHTS_MESSAGES as M } from './messages';

/** The laboratory's header on the Agent 2 insight screens, in their English. */
export function LabInsightsHeader({
  title,
  description,
  lab,
}: {
  title: string;
  description: string;
  lab: Pick<LabValue, 'state' | 'running' | 'setRunning'>;
}) {
  const { state, running, setRunning } = lab;
  const living = livingBabies(state).length;
  return (
    <LabHeader
      title={title}
      description={description}
      labels={M}
      generation={state.generation}
      population={living}
      archived={state.babies.length - living + state.pruned}
      running={running}
      onRunningChange={setRunning}
    />
  );
}
