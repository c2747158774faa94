import { NotAvailableYet } from '../../components/NotAvailableYet';

export function IndexStatsScreen() {
  return <NotAvailableYet title="Index Statistics" />;
}
