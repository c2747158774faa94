import { NotAvailableYet } from '../../components/NotAvailableYet';

export function BackupsScreen() {
  return <NotAvailableYet title="Backups" />;
}
