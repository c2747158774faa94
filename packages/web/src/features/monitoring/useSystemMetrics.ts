import { useMonitoring } from '../../layout/MonitoringContext';
import { useMetricsRefreshMs } from '../settings/settings.api';
import { useRealtimeMetrics } from './monitoring.api';

/**
 * The realtime host metrics behind the header figures and the sidebar bars: polled every
 * metrics_refresh_ms (resources settings) while monitoring is on.
 */
export function useSystemMetrics() {
  const { enabled } = useMonitoring();
  const intervalMs = useMetricsRefreshMs();
  const query = useRealtimeMetrics({ enabled, intervalMs });
  return { ...query, monitoring: enabled, intervalMs };
}
