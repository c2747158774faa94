import { NotAvailableYet } from '../../components/NotAvailableYet';

export function PerformanceMonitoringScreen() {
  return <NotAvailableYet title="Performance Monitoring" />;
}
