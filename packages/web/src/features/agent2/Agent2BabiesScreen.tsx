import { NotAvailableYet } from '../../components/NotAvailableYet';

export function Agent2BabiesScreen() {
  return <NotAvailableYet title="Digital Babies" />;
}
