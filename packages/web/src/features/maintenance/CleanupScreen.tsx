import { NotAvailableYet } from '../../components/NotAvailableYet';

export function CleanupScreen() {
  return <NotAvailableYet title="Cleanup" />;
}
