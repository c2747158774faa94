import { NotAvailableYet } from '../../components/NotAvailableYet';

export function UrlPlaygroundScreen() {
  return <NotAvailableYet title="URL Playground" />;
}
