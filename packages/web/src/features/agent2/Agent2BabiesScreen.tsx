import { BabiesLaboratory } from './babies/BabiesLaboratory';
import { useLab } from './lab/LabProvider';

/** Agent 2 Digital Babies Laboratory (spec 001 §2.4), over the lab the Agent 2 screens share. */
export function Agent2BabiesScreen() {
  const { state, running, setRunning } = useLab();
  return <BabiesLaboratory state={state} running={running} onRunningChange={setRunning} />;
}
