/** Fetchers, query keys and hooks of maintenance, workers, health and backups (spec 002 §7). */
export const maintenanceKeys = {
  all: ['maintenance'] as const,
  health: ['maintenance', 'health'] as const,
  workers: ['maintenance', 'workers'] as const,
  backups: ['maintenance', 'backups'] as const,
};
