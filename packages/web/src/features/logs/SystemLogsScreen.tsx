import { NotAvailableYet } from '../../components/NotAvailableYet';

export function SystemLogsScreen() {
  return <NotAvailableYet title="System Logs" />;
}
