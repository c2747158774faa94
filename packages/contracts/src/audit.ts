import { z } from 'zod';

/** ok: done; refused: 401/403 (no key, a role too low, a failed login); failed: any other error. */
export const AUDIT_OUTCOMES = ['ok', 'refused', 'failed'] as const;
export const AuditOutcome = z.enum(AUDIT_OUTCOMES);
export type AuditOutcome = z.infer<typeof AuditOutcome>;

/** What a secret-like settings field shows in the audit trail instead of its value. */
export const REDACTED = '[redacted]';

/** A field changed by a settings save: its value before and after (secrets as REDACTED). */
export const AuditChange = z.object({ before: z.unknown(), after: z.unknown() });
export type AuditChange = z.infer<typeof AuditChange>;

export const AuditEntry = z.object({
  id: z.number().int(),
  at: z.string(),
  /** Null for the CLI and for a failed login (user_email then holds the address tried). */
  user_id: z.number().int().nullable(),
  /** The user's email; "cli" for a command of the command line. */
  user_email: z.string().nullable(),
  key_id: z.number().int().nullable(),
  key_kind: z.string().nullable(),
  /** The route (`PUT /admin/settings/:section`) or a CLI action (`cli restore`). */
  action: z.string(),
  /** The route's parameters (an id, a section), or the CLI command's argument. */
  target: z.string().nullable(),
  /** The client's address, or "cli". */
  address: z.string(),
  status: z.number().int().nullable(),
  outcome: AuditOutcome,
  /** Settings: `{changes: {field: {before, after}}}`; refused calls: `{detail}` of the answer. */
  detail: z.record(z.string(), z.unknown()).nullable(),
  prev_hash: z.string(),
  hash: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AUDIT_PAGE_MAX = 500;

const Time = z
  .string()
  .trim()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be a date/time');

/** Filters shared by the search and the export. */
export const AuditFilters = z.object({
  /** A user's id (digits) or email. */
  user: z.string().trim().min(1).max(320).optional(),
  action: z.string().trim().min(1).max(200).optional(),
  target: z.string().trim().min(1).max(500).optional(),
  outcome: AuditOutcome.optional(),
  from: Time.optional(),
  to: Time.optional(),
});
export type AuditFilters = z.infer<typeof AuditFilters>;

export const AuditSearchQuery = AuditFilters.extend({
  /** The next_cursor of the previous page: entries older than it. */
  cursor: z
    .string()
    .regex(/^\d{1,15}$/, 'is not a cursor a page gave')
    .optional(),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(50),
});
export type AuditSearchQuery = z.infer<typeof AuditSearchQuery>;

export const AuditPage = z.object({
  entries: z.array(AuditEntry),
  /** Null on the last page. */
  next_cursor: z.string().nullable(),
});
export type AuditPage = z.infer<typeof AuditPage>;

export const AUDIT_EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export const AuditExportQuery = AuditFilters.extend({
  format: z.enum(AUDIT_EXPORT_FORMATS).default('jsonl'),
});
export type AuditExportQuery = z.infer<typeof AuditExportQuery>;

export const AuditVerification = z.object({
  ok: z.boolean(),
  /** Entries checked (after the anchor). */
  checked: z.number().int(),
  /** The last pruned entry verification started after (0: none pruned). */
  anchor_id: z.number().int(),
  /** The first entry found wrong (for a deletion: the first entry after the gap). */
  broken_id: z.number().int().nullable(),
  problem: z.enum(['edited', 'deleted']).nullable(),
  detail: z.string().nullable(),
});
export type AuditVerification = z.infer<typeof AuditVerification>;
