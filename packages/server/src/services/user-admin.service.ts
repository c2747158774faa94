import { randomBytes } from 'node:crypto';
import type { CreatedUser, CreateUser, UpdateUser, UserAccount } from '@adam/contracts';
import { Conflict, NotFound } from '../lib/errors.js';
import type { EventBus } from '../lib/event-bus.js';
import { hashPassword } from '../lib/password.js';
import type { Logger } from '../logging.js';
import type { ApiKeyRepository } from '../store/api-key.repository.js';
import type { UserRepository, UserRow } from '../store/user.repository.js';

/** Who made a change: a user, or the CLI (`{ email: 'cli' }`) for its log lines. */
type Actor = Pick<UserRow, 'email'>;

const LAST_ADMIN =
  'This is the last active administrator: make another user an administrator first';

/** What an administrator does to other people's accounts. */
export class UserAdminService {
  constructor(
    private readonly deps: {
      users: UserRepository;
      keys: ApiKeyRepository;
      bus: EventBus;
      log: Logger;
      /** log2 of scrypt's N for the passwords it sets (Config.passwordHashCost). */
      passwordHashCost: number;
      now?: () => number;
    },
  ) {}

  private now = (): number => (this.deps.now ?? Date.now)();

  list(): UserAccount[] {
    return this.deps.users.list().map(toAccount);
  }

  /** Creates a user with a one-time password (shown once), which they must change at first login. */
  async create(input: CreateUser, by: Actor): Promise<CreatedUser> {
    if (this.deps.users.findByEmail(input.email)) {
      throw new Conflict(`A user with the e-mail ${input.email} already exists`);
    }
    const password = randomBytes(18).toString('base64url');
    const id = this.deps.users.insert({
      email: input.email,
      name: input.name,
      password_hash: await hashPassword(password, this.deps.passwordHashCost),
      role: input.role,
      must_change_password: true,
    });
    this.deps.log.info(
      { component: 'auth' },
      `${by.email} created the ${input.role} ${input.email}`,
    );
    return { user: toAccount(this.get(id)), one_time_password: password };
  }

  /** The user with this e-mail (compared as the API stores it: lower case), or 404. */
  findByEmail(email: string): UserAccount {
    const user = this.deps.users.findByEmail(email.trim().toLowerCase());
    if (!user) throw new NotFound('user', email);
    return toAccount(user);
  }

  /**
   * Gives the user a new one-time password (shown once), to be changed at next login. As a
   * password change does, it ends every session and API key of the user: whoever held the old
   * password could have made them.
   */
  async resetPassword(id: number, by: Actor): Promise<CreatedUser> {
    const user = this.get(id);
    const password = randomBytes(18).toString('base64url');
    const hash = await hashPassword(password, this.deps.passwordHashCost);
    // Keys first: a crash in between leaves the old password with no keys, never the new one
    // beside keys the old one made.
    const revoked = this.deps.keys.revokeAllForUser(id);
    this.deps.users.update(id, { password_hash: hash, must_change_password: 1 });
    this.announceRevoked(revoked);
    this.deps.log.info(
      { component: 'auth' },
      `${by.email} reset the password of ${user.email}: ${revoked.length} key(s) ended`,
    );
    return { user: toAccount(this.get(id)), one_time_password: password };
  }

  update(id: number, change: UpdateUser, by: Actor): UserAccount {
    const user = this.get(id);
    const fields: Partial<Pick<UserRow, 'name' | 'role' | 'disabled_at'>> = {};
    if (change.name !== undefined) fields.name = change.name;
    if (change.role !== undefined) fields.role = change.role;
    if (change.disabled !== undefined) {
      // Disabling twice keeps the first date.
      fields.disabled_at = change.disabled
        ? (user.disabled_at ?? new Date(this.now()).toISOString())
        : null;
    }
    let revoked: number[] = [];
    const applied = this.deps.users.keepingAnAdministrator(() => {
      this.deps.users.update(id, fields);
      if (change.disabled) revoked = this.deps.keys.revokeAllForUser(id);
    });
    if (!applied) throw new Conflict(LAST_ADMIN);
    this.announceRevoked(revoked);
    const what = Object.entries(change)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ');
    this.deps.log.info({ component: 'auth' }, `${by.email} changed ${user.email}: ${what}`);
    return toAccount(this.get(id));
  }

  delete(id: number, by: Actor): void {
    const user = this.get(id);
    // Revoked before the rows go with the user: their ids tell the realtime channel what to close.
    let revoked: number[] = [];
    const applied = this.deps.users.keepingAnAdministrator(() => {
      revoked = this.deps.keys.revokeAllForUser(id);
      this.deps.users.delete(id);
    });
    if (!applied) throw new Conflict(LAST_ADMIN);
    this.announceRevoked(revoked);
    this.deps.log.info({ component: 'auth' }, `${by.email} deleted the user ${user.email}`);
  }

  /** The realtime channel closes these keys' sockets at once. */
  private announceRevoked(keyIds: number[]): void {
    for (const keyId of keyIds) this.deps.bus.emit('auth.key_revoked', { key_id: keyId });
  }

  private get(id: number): UserRow {
    const user = this.deps.users.findById(id);
    if (!user) throw new NotFound('user', id);
    return user;
  }
}

function toAccount(row: UserRow): UserAccount {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    totp_enabled: row.totp_enabled === 1,
    must_change_password: row.must_change_password === 1,
    disabled_at: row.disabled_at,
    created_at: row.created_at,
  };
}
