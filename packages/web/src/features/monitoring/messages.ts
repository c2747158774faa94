/**
 * Texts of the monitoring screens. The titles, 'Loading...' and the inline error lines are spec
 * 001 §2.5, §2.6 and §8, exactly as written; the rest (labels, alerts) is ours.
 */
export const MONITORING_MESSAGES = {
  controlCentreTitle: 'Centre de Contrôle ADAM',
  performanceTitle: 'Performance Monitoring',
  loading: 'Loading...',
  realtimeError: 'Erreur temps réel',
  systemError: 'Erreur système',
  cpuError: 'Erreur CPU',
  ramError: 'Erreur RAM',
  networkError: 'Erreur réseau',
  diskError: 'Erreur disque',
  databaseError: 'Erreur base de données',
  // Ours.
  controlCentreDescription:
    'The machine and the stores, live: figures from the server every refresh interval.',
  performanceDescription:
    'The machine and the stores, refreshed at the resources setting’s interval.',
  monitoringOff: 'Monitoring is off (header toggle): the figures are not refreshed.',
  pausedNote: 'Paused: nothing is refreshed until you resume.',
  allClear: 'All clear: CPU and memory are within their thresholds.',
  cpuCritical: 'CPU critical',
  memoryHigh: 'Memory high',
  redisNotConfigured: 'not configured',
  redisNotConfiguredHint: 'The server runs its jobs on the embedded queue (no REDIS_URL).',
  noGpu: 'No GPU reported by this machine.',
  noHistory: 'No samples in this range yet.',
  decorative: 'Decorative animation, not data',
} as const;
