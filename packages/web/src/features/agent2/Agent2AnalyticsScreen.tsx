import { NotAvailableYet } from '../../components/NotAvailableYet';

export function Agent2AnalyticsScreen() {
  return <NotAvailableYet title="Agent 2 Analytics" />;
}
