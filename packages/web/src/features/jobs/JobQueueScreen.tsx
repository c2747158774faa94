import { NotAvailableYet } from '../../components/NotAvailableYet';

export function JobQueueScreen() {
  return <NotAvailableYet title="Job Queue Management" />;
}
