import { NotAvailableYet } from '../../components/NotAvailableYet';

export function EmotionAnalyticsScreen() {
  return <NotAvailableYet title="Emotion Analytics" />;
}
