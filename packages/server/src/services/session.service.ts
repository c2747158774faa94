import type { Session } from '@adam/contracts';
import { NotFound } from '../lib/errors.js';
import type { EventBus } from '../lib/event-bus.js';
import type { Logger } from '../logging.js';
import type { ApiKeyRepository, ApiKeyRow } from '../store/api-key.repository.js';
import type { UserRepository } from '../store/user.repository.js';
import type { AuthContext } from './auth.service.js';

/** Login sessions: a user's own, and an administrator's view of anyone's. */
export class SessionService {
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

  /** The user's live sessions; `current` marks the one `ctx` presents, if it is one of them. */
  list(userId: number, ctx?: AuthContext): Session[] {
    if (!this.deps.users.findById(userId)) throw new NotFound('User', userId);
    return this.deps.keys
      .listLiveSessions(userId, new Date(this.now()).toISOString())
      .map((row) => toSession(row, row.id === ctx?.key.id));
  }

  /** Ends one of the user's sessions. Another user's, an API key or an ended one: 404. */
  revoke(userId: number, sessionId: number, by: AuthContext): void {
    const row = this.deps.keys.findById(sessionId);
    if (!row || row.user_id !== userId || row.kind !== 'session' || row.revoked_at) {
      throw new NotFound('Session', sessionId);
    }
    if (this.deps.keys.revoke(row.id)) this.ended(userId, [row.id], by);
  }

  /** Ends every session of the user but `exceptId` (the caller's own); answers how many. */
  revokeAll(userId: number, by: AuthContext, exceptId?: number): number {
    if (!this.deps.users.findById(userId)) throw new NotFound('User', userId);
    const ids = this.deps.keys.revokeAllForUser(userId, exceptId, 'session');
    this.ended(userId, ids, by);
    return ids.length;
  }

  /** Their open sockets close at once. */
  private ended(userId: number, ids: number[], by: AuthContext): void {
    for (const id of ids) this.deps.bus.emit('auth.key_revoked', { key_id: id });
    if (ids.length > 0) {
      this.deps.log.info(
        { component: 'auth' },
        `${by.user.email} ended ${ids.length} session(s) of user ${userId}`,
      );
    }
  }
}

function toSession(row: ApiKeyRow, current: boolean): Session {
  return {
    id: row.id,
    user_agent: row.user_agent,
    created_address: row.created_address,
    last_used_address: row.last_used_address,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
    current,
  };
}
