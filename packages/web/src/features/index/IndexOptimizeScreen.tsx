import { NotAvailableYet } from '../../components/NotAvailableYet';

export function IndexOptimizeScreen() {
  return <NotAvailableYet title="Optimize Index" />;
}
