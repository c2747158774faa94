import { NotAvailableYet } from '../../components/NotAvailableYet';

export function ScrapingRulesScreen() {
  return <NotAvailableYet title="Scraping Rules" />;
}
