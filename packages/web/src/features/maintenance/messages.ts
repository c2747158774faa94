/** Spec 002 §8 (Backups, Other): the texts the maintenance screens show, exactly as in the spec. */
export const MAINTENANCE_MESSAGES = {
  actionFailed: 'Action failed',
  backupsLoadFailed: 'Failed to load backups',
  backupFailed: 'Failed to start backup',
  restoreFailed: 'Failed to start restore',
} as const;
