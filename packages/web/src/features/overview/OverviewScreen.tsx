import { NotAvailableYet } from '../../components/NotAvailableYet';

export function OverviewScreen() {
  return <NotAvailableYet title="System Overview" />;
}
