import { NotAvailableYet } from '../../components/NotAvailableYet';

export function WikipediaPlaygroundScreen() {
  return <NotAvailableYet title="Wikipedia Playground" />;
}
