import { NotAvailableYet } from '../../components/NotAvailableYet';

export function Agent2SnippetsScreen() {
  return <NotAvailableYet title="Enriched Snippets" />;
}
