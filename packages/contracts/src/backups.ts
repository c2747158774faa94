import { z } from 'zod';
import { ReconcileReport } from './snippets.js';

/** Backup ids are UTC timestamps to the millisecond, so they sort by age. */
export const BACKUP_ID_PATTERN = /^\d{8}-\d{6}-\d{3}$/;
/** 'safety': made by a restore just before it replaces the data, so the restore can be undone. */
export const BACKUP_REASONS = ['manual', 'auto', 'safety'] as const;
/**
 * Auto backups kept by default; the general settings' `backup_retention_count` (and
 * `backup_retention_days`) decide, applied after each auto backup and by housekeeping.
 */
export const AUTO_BACKUP_RETENTION = 10;
/** Bounds of the auto-backup retention settings (general section). */
export const BACKUP_RETENTION_COUNT_BOUNDS = { min: 1, max: 100 } as const;
/** 0: no age limit. */
export const BACKUP_RETENTION_DAYS_BOUNDS = { min: 0, max: 3650 } as const;
/**
 * The largest backup archive an upload may send (64 GiB: a backup of a few million snippets
 * with room to spare); the body is refused 413 past it, as it arrives.
 */
export const MAX_BACKUP_UPLOAD_BYTES = 64 * 1024 ** 3;
/** The media type of a backup archive, downloaded and uploaded: an uncompressed POSIX tar. */
export const BACKUP_ARCHIVE_TYPE = 'application/x-tar';
/**
 * Manual backups kept, counted apart from the auto ones so a burst of either never deletes the
 * other. Each is a full copy of the store and the index (gigabytes at 1M snippets), so with the
 * auto ones the data dir holds at most 20 copies; a backup to keep for good is copied elsewhere.
 */
export const MANUAL_BACKUP_RETENTION = 10;
/** Safety backups kept (counted apart too): a restore's undo is wanted soon after it or never. */
export const SAFETY_BACKUP_RETENTION = 5;

export const BackupReason = z.enum(BACKUP_REASONS);
export type BackupReason = z.infer<typeof BackupReason>;

export const BackupCounts = z.object({
  snippets: z.number().int(),
  vectors: z.number().int(),
  users: z.number().int(),
  rules: z.number().int(),
  jobs: z.number().int(),
  sources: z.number().int(),
});
export type BackupCounts = z.infer<typeof BackupCounts>;

export const BackupFile = z.object({
  /** Relative to the backup's directory, with forward slashes. */
  path: z.string(),
  bytes: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type BackupFile = z.infer<typeof BackupFile>;

/** `<data>/backups/<id>/manifest.json`: what restore checks before replacing anything. */
export const BackupManifest = z.object({
  format: z.literal(1),
  id: z.string().regex(BACKUP_ID_PATTERN),
  created_at: z.string(),
  reason: BackupReason,
  app_version: z.string(),
  schema_version: z.number().int(),
  counts: BackupCounts,
  files: z.array(BackupFile).min(1),
});
export type BackupManifest = z.infer<typeof BackupManifest>;

export const Backup = z.object({
  id: z.string(),
  created_at: z.string(),
  size_mb: z.number(),
  reason: BackupReason,
  counts: BackupCounts,
});
export type Backup = z.infer<typeof Backup>;

export const BackupList = z.array(Backup);
export type BackupList = z.infer<typeof BackupList>;

/** Malformed ids are answered 404 by the service, like unknown ones: no pattern here. */
export const BackupIdParams = z.object({ id: z.string() });
export type BackupIdParams = z.infer<typeof BackupIdParams>;

export const RestoreResult = z.object({
  id: z.string(),
  restored_at: z.string(),
  counts: BackupCounts,
  reconcile: ReconcileReport,
  /** The safety backup of the data as it was just before this restore: restoring it undoes this one. */
  safety_backup: z.string(),
});
export type RestoreResult = z.infer<typeof RestoreResult>;

/** One check of a backup's verification, in the order they run; those after a failure are skipped. */
export const BackupCheck = z.object({
  name: z.enum(['manifest', 'files', 'checksums', 'store', 'index']),
  ok: z.boolean(),
  /** What was found: the problem when it failed. */
  detail: z.string(),
});
export type BackupCheck = z.infer<typeof BackupCheck>;

/** POST /admin/maintenance/backups/{id}/verify: the checks a restore or an upload runs. */
export const BackupVerification = z.object({
  id: z.string(),
  ok: z.boolean(),
  checked_at: z.string(),
  checks: z.array(BackupCheck),
});
export type BackupVerification = z.infer<typeof BackupVerification>;
