import { NotAvailableYet } from '../../components/NotAvailableYet';

export function IndexContentScreen() {
  return <NotAvailableYet title="Index Content" />;
}
