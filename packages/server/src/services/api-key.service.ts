import {
  API_KEY_MAX_PER_USER,
  CreateApiKey,
  roleAllows,
  SCOPE_ROLE,
  type ApiKey,
  type CreatedApiKey,
} from '@adam/contracts';
import { Conflict, Forbidden, NotFound } from '../lib/errors.js';
import type { EventBus } from '../lib/event-bus.js';
import type { Logger } from '../logging.js';
import type { ApiKeyRepository, ApiKeyRow } from '../store/api-key.repository.js';
import type { UserRepository } from '../store/user.repository.js';
import { newSecret, type AuthContext } from './auth.service.js';

const DAY_MS = 86_400_000;

/**
 * Programs' API keys: a user's own (created from a login session only: the guard refuses
 * `sessionOnly` routes to an API key), and an administrator's view of anyone's.
 */
export class ApiKeyService {
  constructor(
    private readonly deps: {
      users: UserRepository;
      keys: ApiKeyRepository;
      bus: EventBus;
      log: Logger;
      now?: () => number;
    },
  ) {}

  private now = (): number => (this.deps.now ?? Date.now)();

  /** Creates a key; its secret is answered this once and only its hash is kept. */
  create(ctx: AuthContext, input: CreateApiKey, address: string): CreatedApiKey {
    const { name, scope, expires_in_days } = CreateApiKey.parse(input);
    const user = this.deps.users.findById(ctx.user.id) ?? ctx.user;
    // Asked of the user's own role, not the session's: a session has no scope.
    if (!roleAllows(user.role, SCOPE_ROLE[scope])) {
      throw new Forbidden(
        `The ${scope} scope needs the ${SCOPE_ROLE[scope]} role; ${user.email} is a ${user.role}`,
      );
    }
    const nowIso = new Date(this.now()).toISOString();
    if (this.deps.keys.countLiveApiKeys(user.id, nowIso) >= API_KEY_MAX_PER_USER) {
      throw new Conflict(
        `${user.email} already has ${API_KEY_MAX_PER_USER} live API keys: revoke one first`,
      );
    }
    const { secret, hash, prefix } = newSecret();
    const id = this.deps.keys.insert({
      user_id: user.id,
      key_hash: hash,
      kind: 'api',
      name,
      scope,
      prefix,
      created_at: nowIso,
      created_address: address,
      expires_at: new Date(this.now() + expires_in_days * DAY_MS).toISOString(),
    });
    this.deps.log.info(
      { component: 'auth' },
      `${user.email} created the ${scope} API key "${name}" (${prefix}…)`,
    );
    return { key: toApiKey(this.deps.keys.findById(id)!), secret };
  }

  list(userId: number): ApiKey[] {
    this.user(userId);
    return this.deps.keys.listApiKeys(userId).map(toApiKey);
  }

  /**
   * Revokes one of the user's keys at once (its sockets close). Another user's key, a session
   * or an unknown id are all the same 404: nobody learns what exists.
   */
  revoke(userId: number, keyId: number, by: AuthContext): void {
    const key = this.deps.keys.findById(keyId);
    if (!key || key.user_id !== userId || key.kind !== 'api') throw new NotFound('API key', keyId);
    if (this.deps.keys.revoke(key.id)) {
      this.deps.bus.emit('auth.key_revoked', { key_id: key.id });
      this.deps.log.info(
        { component: 'auth' },
        `${by.user.email} revoked the API key "${key.name}" (${key.prefix}…) of user ${userId}`,
      );
    }
  }

  private user(id: number) {
    const user = this.deps.users.findById(id);
    if (!user) throw new NotFound('User', id);
    return user;
  }
}

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name ?? '',
    scope: row.scope ?? 'read',
    prefix: row.prefix ?? '',
    created_at: row.created_at,
    expires_at: row.expires_at,
    last_used_at: row.last_used_at,
    last_used_address: row.last_used_address,
    revoked_at: row.revoked_at,
  };
}
