import { NotAvailableYet } from '../../components/NotAvailableYet';

export function IndexSearchScreen() {
  return <NotAvailableYet title="Index Search" />;
}
