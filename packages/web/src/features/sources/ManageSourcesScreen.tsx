import { NotAvailableYet } from '../../components/NotAvailableYet';

export function ManageSourcesScreen() {
  return <NotAvailableYet title="Manage Sources" />;
}
