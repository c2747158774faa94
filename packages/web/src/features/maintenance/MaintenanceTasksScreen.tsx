import { NotAvailableYet } from '../../components/NotAvailableYet';

export function MaintenanceTasksScreen() {
  return <NotAvailableYet title="Maintenance Tasks" />;
}
