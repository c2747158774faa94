import { NotAvailableYet } from '../../components/NotAvailableYet';

export function SnippetsAnalyticsScreen() {
  return <NotAvailableYet title="Snippets Analytics" />;
}
