import { useState } from 'react';
import { Stack } from '@mantine/core';
import { DatabasePanel } from './DatabasePanel';
import { HistoryCharts } from './HistoryCharts';
import { useDatabaseMetrics, type MetricsPoll } from './monitoring.api';
import type { NetworkUnit } from './monitoringRules';
import { SystemPanel, type SystemQuery } from './SystemPanel';

/**
 * What the Control Centre and Performance Monitoring both show: the system panel, the four
 * histories and the databases, all polled the screen's way. The network unit toggle drives the
 * network card and its chart together.
 */
export function MonitoringPanels({ poll, system }: { poll: MetricsPoll; system: SystemQuery }) {
  const [unit, setUnit] = useState<NetworkUnit>('MB/s');
  const database = useDatabaseMetrics(poll);
  return (
    <Stack gap="xl">
      <SystemPanel system={system} unit={unit} onUnitChange={setUnit} />
      <HistoryCharts poll={poll} networkUnit={unit} />
      <DatabasePanel database={database} />
    </Stack>
  );
}
