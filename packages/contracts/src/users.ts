import { z } from 'zod';

/**
 * What a user may do, each including the ones after it: an administrator everything, an operator
 * the corpus and the machine (sources, jobs, snippets, index, maintenance, backups, models) but
 * not people or security, a viewer reads only.
 */
export const ROLES = ['administrator', 'operator', 'viewer'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

/** True when `held` includes everything `needed` may do. */
export function roleAllows(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) <= ROLES.indexOf(needed);
}

/** A user as an administrator sees them in the user list. */
export const UserAccount = z.object({
  id: z.number().int(),
  email: z.string(),
  name: z.string(),
  role: Role,
  totp_enabled: z.boolean(),
  must_change_password: z.boolean(),
  disabled_at: z.string().nullable(),
  created_at: z.string(),
});
export type UserAccount = z.infer<typeof UserAccount>;

export const UserAccountList = z.object({ items: z.array(UserAccount) });
export type UserAccountList = z.infer<typeof UserAccountList>;

export const CreateUser = z.object({
  email: z.string().trim().toLowerCase().email('must be a valid e-mail address').max(254),
  name: z.string().trim().min(1, 'is required').max(200),
  role: Role,
});
export type CreateUser = z.infer<typeof CreateUser>;

/** The created user and their one-time password, shown once: it must be changed at first login. */
export const CreatedUser = z.object({
  user: UserAccount,
  one_time_password: z.string(),
});
export type CreatedUser = z.infer<typeof CreatedUser>;

/** Any subset of the fields; `disabled: true` disables (ending the user's sessions at once). */
export const UpdateUser = z
  .object({
    name: z.string().trim().min(1, 'is required').max(200),
    role: Role,
    disabled: z.boolean(),
  })
  .partial()
  .strict();
export type UpdateUser = z.infer<typeof UpdateUser>;
