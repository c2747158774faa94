import { NotAvailableYet } from '../../components/NotAvailableYet';

export function AddSourcesScreen() {
  return <NotAvailableYet title="Add Sources" />;
}
