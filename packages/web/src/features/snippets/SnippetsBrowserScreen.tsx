import { NotAvailableYet } from '../../components/NotAvailableYet';

export function SnippetsBrowserScreen() {
  return <NotAvailableYet title="Snippets Browser" />;
}
