import { NotAvailableYet } from '../../components/NotAvailableYet';

export function RealtimeMonitoringScreen() {
  return <NotAvailableYet title="Real-time Monitoring" />;
}
