import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';

interface MonitoringValue {
  /** The header's Monitoring On/Off toggle (default on); off stops the metrics poll. */
  enabled: boolean;
  setEnabled: (enabled: boolean) => void;
}

const MonitoringContext = createContext<MonitoringValue | null>(null);

export function MonitoringProvider({ children }: { children: ReactNode }) {
  const [enabled, setEnabled] = useState(true);
  const value = useMemo(() => ({ enabled, setEnabled }), [enabled]);
  return <MonitoringContext.Provider value={value}>{children}</MonitoringContext.Provider>;
}

export function useMonitoring(): MonitoringValue {
  const value = useContext(MonitoringContext);
  if (!value) throw new Error('useMonitoring must be used inside <MonitoringProvider>');
  return value;
}
