import { NotAvailableYet } from '../../components/NotAvailableYet';

export function SnippetsSearchScreen() {
  return <NotAvailableYet title="Snippets Search" />;
}
