import type { Role } from '@adam/contracts';
import type { TestServer } from './helpers.js';

export interface RoleUser {
  id: number;
  email: string;
  password: string;
  key: string;
}

/**
 * Creates a user of `role` through the API as the administrator, logs in with the one-time
 * password and changes it, as a person would: answers the key of that session.
 */
export async function createRoleUser(
  s: TestServer,
  adminKey: string,
  role: Role,
  email = `${role}-${Math.random().toString(36).slice(2, 8)}@example.com`,
): Promise<RoleUser> {
  const created = await s.api('/api/v1/admin/users', {
    method: 'POST',
    key: adminKey,
    body: { email, name: `Test ${role}`, role },
  });
  if (created.status !== 201) throw new Error(`create user: ${JSON.stringify(created.body)}`);
  const key = await s.login(email, created.body.one_time_password);
  const password = `${role}-own-password`;
  const changed = await s.api('/api/v1/auth/password', {
    method: 'POST',
    key,
    body: { current_password: created.body.one_time_password, new_password: password },
  });
  if (changed.status !== 204) throw new Error(`password change: ${JSON.stringify(changed.body)}`);
  return { id: created.body.user.id, email, password, key };
}
