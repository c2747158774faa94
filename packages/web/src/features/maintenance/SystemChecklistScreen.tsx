import { NotAvailableYet } from '../../components/NotAvailableYet';

export function SystemChecklistScreen() {
  return <NotAvailableYet title="System Checklist" />;
}
