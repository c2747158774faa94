import { NotAvailableYet } from '../../components/NotAvailableYet';

export function Agent2EvolutionScreen() {
  return <NotAvailableYet title="Evolution Monitor" />;
}
