import { NotAvailableYet } from '../../components/NotAvailableYet';

export function ModelManagementScreen() {
  return <NotAvailableYet title="Model Management" />;
}
