import { NotAvailableYet } from '../../components/NotAvailableYet';

export function PlaygroundScreen() {
  return <NotAvailableYet title="Playground" />;
}
