import { z } from 'zod';
import { Role, ROLES } from './users.js';

/**
 * What a program's API key may do, each including the ones after it. A call made with a key
 * acts with the lesser of its scope's role and its user's role (`keyRole`).
 */
export const API_KEY_SCOPES = ['admin', 'write', 'read'] as const;
export const ApiKeyScope = z.enum(API_KEY_SCOPES);
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

export const SCOPE_ROLE: Record<ApiKeyScope, Role> = {
  admin: 'administrator',
  write: 'operator',
  read: 'viewer',
};

/** The role a call acts with: the user's, capped by the key's scope (a session has none). */
export function keyRole(userRole: Role, scope: ApiKeyScope | null): Role {
  if (!scope) return userRole;
  const capped = SCOPE_ROLE[scope];
  return ROLES.indexOf(capped) > ROLES.indexOf(userRole) ? capped : userRole;
}

/** The longest an API key may live: a program's key is renewed by creating a new one. */
export const API_KEY_MAX_DAYS = 365;
/** How many live API keys one user may hold. */
export const API_KEY_MAX_PER_USER = 100;
/** The first characters of a secret, kept in the clear so a list can tell keys apart. */
export const API_KEY_PREFIX_LENGTH = 12;

export const CreateApiKey = z
  .object({
    name: z.string().trim().min(1, 'is required').max(100),
    scope: ApiKeyScope,
    expires_in_days: z
      .number()
      .int()
      .min(1, 'must be at least 1 day')
      .max(API_KEY_MAX_DAYS, `must be at most ${API_KEY_MAX_DAYS} days`)
      .default(90),
  })
  .strict();
export type CreateApiKey = z.input<typeof CreateApiKey>;

/** An API key as a list shows it: never its secret, only the secret's first characters. */
export const ApiKey = z.object({
  id: z.number().int(),
  name: z.string(),
  scope: ApiKeyScope,
  prefix: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  last_used_at: z.string().nullable(),
  last_used_address: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;

export const ApiKeyList = z.object({ items: z.array(ApiKey) });
export type ApiKeyList = z.infer<typeof ApiKeyList>;

/** The created key with its secret, shown this once: only a hash of it is kept. */
export const CreatedApiKey = z.object({ key: ApiKey, secret: z.string() });
export type CreatedApiKey = z.infer<typeof CreatedApiKey>;

/** A live login session: the browser and address it logged in from, and when it was last seen. */
export const Session = z.object({
  id: z.number().int(),
  user_agent: z.string().nullable(),
  created_address: z.string().nullable(),
  last_used_address: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  expires_at: z.string(),
  /** The session that asked. */
  current: z.boolean(),
});
export type Session = z.infer<typeof Session>;

export const SessionList = z.object({ items: z.array(Session) });
export type SessionList = z.infer<typeof SessionList>;

export const RevokedCount = z.object({ revoked: z.number().int() });
export type RevokedCount = z.infer<typeof RevokedCount>;

/** `/admin/users/{id}/.../{keyId}`: a user's key or session. */
export const UserKeyParams = z.object({
  id: z.coerce.number().int().positive('must be a positive id'),
  keyId: z.coerce.number().int().positive('must be a positive id'),
});
export type UserKeyParams = z.infer<typeof UserKeyParams>;
