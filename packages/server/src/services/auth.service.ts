import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import {
  API_KEY_PREFIX_LENGTH,
  DEFAULT_ADMIN_EMAIL,
  DEFAULT_ADMIN_PASSWORD,
  TOTP_DIGITS,
  TOTP_PERIOD_SECONDS,
  WS_TICKET_TTL_SECONDS,
  type LoginRequest,
  keyRole,
  type LoginResponse,
  type RefreshResponse,
  type Role,
  type TwoFactorSetupResponse,
  type User,
  type WsTicketResponse,
} from '@adam/contracts';
import type { Config } from '../config.js';
import {
  BadRequest,
  Conflict,
  Forbidden,
  TooManyRequests,
  Unauthorized,
  Unprocessable,
} from '../lib/errors.js';
import { dummyVerify, hashPassword, verifyPassword } from '../lib/password.js';
import { addressBucket, FailureThrottle } from '../lib/throttle.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../lib/event-bus.js';
import type { ApiKeyRepository, ApiKeyRow, NewApiKey } from '../store/api-key.repository.js';
import type { UserRepository, UserRow } from '../store/user.repository.js';

const ISSUER = 'ADAM';

export interface AuthContext {
  user: UserRow;
  key: ApiKeyRow;
}

export const hashApiKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** A new secret (sessions and programs' keys alike), its hash and the prefix lists show. */
export function newSecret(): { secret: string; hash: string; prefix: string } {
  const secret = `adam_${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashApiKey(secret), prefix: secret.slice(0, API_KEY_PREFIX_LENGTH) };
}

/** The role a call acts with: its user's, capped by an API key's scope. */
export const roleOf = (ctx: AuthContext): Role => keyRole(ctx.user.role, ctx.key.scope);

/** A session keeps this much of its browser's User-Agent. */
const MAX_USER_AGENT = 256;

/** Past this many live tickets the expired ones are swept, then the oldest dropped. */
const MAX_TICKETS = 10_000;

export class AuthService {
  private readonly throttle: FailureThrottle;
  private defaultCredentialsInUse: boolean | null = null;
  /**
   * Realtime tickets → the key that asked for each. In memory on purpose: they live 30 s, and a
   * restart closes every socket anyway. The socket then stands or falls with that key.
   */
  private readonly tickets = new Map<string, { key: string; expiresAt: number }>();

  constructor(
    private readonly deps: {
      users: UserRepository;
      keys: ApiKeyRepository;
      bus: EventBus;
      log: Logger;
      config: Pick<
        Config,
        | 'adminEmail'
        | 'adminPassword'
        | 'apiKeyTtlSeconds'
        | 'refreshGraceSeconds'
        | 'loginThrottle'
        | 'passwordHashCost'
      >;
      now?: () => number;
    },
  ) {
    this.throttle = new FailureThrottle(deps.config.loginThrottle.windowSeconds * 1000, this.now);
  }

  private now = (): number => (this.deps.now ?? Date.now)();

  /** Creates the first administrator on an empty store. */
  async ensureAdmin(): Promise<void> {
    if (this.deps.users.count() > 0) return;
    const { adminEmail, adminPassword } = this.deps.config;
    this.deps.users.insert({
      email: adminEmail,
      name: 'Administrator',
      password_hash: await hashPassword(adminPassword, this.deps.config.passwordHashCost),
    });
    this.deps.log.info({ component: 'auth' }, `Created administrator ${adminEmail}`);
  }

  /** Whether the default administrator still opens the console (the login hint shows it then). */
  async usesDefaultCredentials(): Promise<boolean> {
    if (this.defaultCredentialsInUse === null) {
      const u = this.deps.users.findByEmail(DEFAULT_ADMIN_EMAIL);
      this.defaultCredentialsInUse =
        !!u && (await verifyPassword(DEFAULT_ADMIN_PASSWORD, u.password_hash));
    }
    return this.defaultCredentialsInUse;
  }

  /**
   * Malicious lockout is avoided by never refusing an account as a whole: the hard limits count
   * failures per (e-mail, address) and per address, so an attacker blocks only their own
   * address. Guessing from many addresses is slowed instead: past a few failures of one e-mail,
   * every attempt on it waits, doubling up to a cap, and the right password still gets in.
   * Unknown e-mails take the same path, so limits and timing tell nothing about who exists.
   */
  async login(req: LoginRequest, address: string, userAgent?: string): Promise<LoginResponse> {
    const email = req.email.trim().toLowerCase();
    const bucket = addressBucket(address);
    const accountKey = `email:${email}`;
    const pairKey = `pair:${email}|${bucket}`;
    const addressKey = `addr:${bucket}`;
    const limits = this.deps.config.loginThrottle;
    const wait = Math.max(
      this.throttle.retryAfter(pairKey, limits.perAccountAndAddress),
      this.throttle.retryAfter(addressKey, limits.perAddress),
    );
    if (wait > 0) {
      this.deps.log.warn({ component: 'auth' }, `Login throttled for ${email} from ${address}`);
      throw new TooManyRequests(
        `Too many failed login attempts. Try again in ${wait} seconds.`,
        wait,
      );
    }
    // Counted as failed before the check and taken back if it succeeds: attempts sent in
    // parallel (or waiting out the delay) all count, instead of all passing the limit at once.
    const delayMs = this.accountDelayMs(this.throttle.count(accountKey));
    for (const k of [accountKey, pairKey, addressKey]) this.throttle.record(k);
    const release = () => {
      for (const k of [accountKey, pairKey, addressKey]) this.throttle.release(k);
    };
    if (delayMs > 0) {
      this.deps.log.warn(
        { component: 'auth' },
        `Login for ${email} from ${address} delayed ${delayMs} ms after repeated failures`,
      );
      await sleep(delayMs);
    }
    const fail = (message: string): never => {
      this.deps.log.warn(
        { component: 'auth' },
        `Failed login for ${email} from ${address}: ${message}`,
      );
      throw new Unauthorized(message);
    };

    const user = this.deps.users.findByEmail(email);
    const ok = user
      ? await verifyPassword(req.password, user.password_hash)
      : await dummyVerify(req.password, this.deps.config.passwordHashCost);
    if (!user || !ok) return fail('Invalid credentials');
    // Told only to whoever knows the password: it says nothing to a guesser.
    if (user.disabled_at) return fail('This account is disabled');

    if (user.totp_enabled) {
      if (!req.totp_code) {
        release();
        return { api_key: null, user: null, requires_2fa: true, expires_at: null };
      }
      if (!this.checkTotp(user, user.totp_secret, req.totp_code)) return fail('Invalid 2FA code');
    }

    // The address keeps its other failures: a login to one account it owns does not reset a spray.
    release();
    this.throttle.clear(accountKey);
    this.throttle.clear(pairKey);
    const { key, expiresAt } = this.issueKey(user.id, {
      user_agent: userAgent?.slice(0, MAX_USER_AGENT) || null,
      created_address: address,
    });
    this.deps.log.info({ component: 'auth' }, `${user.email} logged in from ${address}`);
    this.deps.bus.emit('auth.login', { user_id: user.id, email: user.email });
    return { api_key: key, user: toUser(user), requires_2fa: false, expires_at: expiresAt };
  }

  /** The wait before checking a password for an e-mail with `failures` recent failures. */
  accountDelayMs(failures: number): number {
    const { accountDelayAfter, accountDelayBaseMs, accountDelayMaxMs } =
      this.deps.config.loginThrottle;
    if (failures < accountDelayAfter) return 0;
    return Math.min(accountDelayMaxMs, accountDelayBaseMs * 2 ** (failures - accountDelayAfter));
  }

  /**
   * Resolves a presented key to its user, or throws 401 saying why. `address` is recorded as
   * where the key was last used (a socket's re-check has none).
   */
  authenticate(presented: string | undefined, address?: string): AuthContext {
    if (!presented) throw new Unauthorized('Not authenticated');
    const key = this.deps.keys.findByHash(hashApiKey(presented));
    if (!key || key.revoked_at) throw new Unauthorized('Invalid API key');
    if (Date.parse(key.expires_at) <= this.now()) throw new Unauthorized('API key expired');
    const user = this.deps.users.findById(key.user_id);
    if (!user) throw new Unauthorized('Invalid API key');
    if (user.disabled_at) throw new Unauthorized('This account is disabled');
    // Written at most once a minute per key: a poll every few seconds should not mean a write.
    const at = new Date(this.now()).toISOString();
    if (!key.last_used_at || Date.parse(key.last_used_at) < this.now() - 60_000) {
      this.deps.keys.touch(key.id, at, address);
    }
    return { user, key };
  }

  /**
   * Exchanges a key for a new one; the old one stops working. A key that expired less than the
   * grace period ago may still be exchanged: that is what the console's refresh-on-401 is for.
   */
  refresh(presented: string | undefined): RefreshResponse {
    if (!presented) throw new Unauthorized('Not authenticated');
    const key = this.deps.keys.findByHash(hashApiKey(presented));
    if (!key || key.revoked_at) throw new Unauthorized('Invalid API key');
    // A program's key has a lifetime its creator chose: it is renewed by creating another.
    if (key.kind !== 'session') {
      throw new Forbidden('An API key cannot be refreshed: create a new one');
    }
    if (Date.parse(key.expires_at) + this.deps.config.refreshGraceSeconds * 1000 <= this.now()) {
      throw new Unauthorized('API key expired');
    }
    const user = this.deps.users.findById(key.user_id);
    if (!user) throw new Unauthorized('Invalid API key');
    if (user.disabled_at) throw new Unauthorized('This account is disabled');
    // Only the request that revokes the old key gets a new one: two racing refreshes cannot both win.
    if (!this.deps.keys.revoke(key.id)) throw new Unauthorized('Invalid API key');
    this.deps.bus.emit('auth.key_revoked', { key_id: key.id });
    // The same session, renewed: it keeps its login's time, browser and address.
    const { key: fresh, expiresAt } = this.issueKey(user.id, {
      created_at: key.created_at,
      user_agent: key.user_agent,
      created_address: key.created_address,
    });
    return { api_key: fresh, user: toUser(user), expires_at: expiresAt };
  }

  logout(ctx: AuthContext): void {
    this.deps.keys.revoke(ctx.key.id);
    this.deps.bus.emit('auth.key_revoked', { key_id: ctx.key.id });
    this.deps.log.info({ component: 'auth' }, `${ctx.user.email} logged out`);
  }

  /**
   * A single-use ticket for the realtime socket, bound to the key that asked for it (its
   * plaintext, held in memory like the socket's own re-check holds it).
   */
  issueTicket(presented: string): WsTicketResponse {
    const now = this.now();
    if (this.tickets.size >= MAX_TICKETS) {
      for (const [t, v] of this.tickets) if (v.expiresAt <= now) this.tickets.delete(t);
      // Still full of live ones: the oldest go first (a Map iterates in insertion order).
      for (const t of this.tickets.keys()) {
        if (this.tickets.size < MAX_TICKETS) break;
        this.tickets.delete(t);
      }
    }
    const ticket = `adamt_${randomBytes(32).toString('base64url')}`;
    this.tickets.set(ticket, { key: presented, expiresAt: now + WS_TICKET_TTL_SECONDS * 1000 });
    return { ticket, expires_in: WS_TICKET_TTL_SECONDS };
  }

  /** The key a ticket stands for, once: the ticket is gone after this call, valid or not. */
  redeemTicket(ticket: string): string {
    const found = this.tickets.get(ticket);
    this.tickets.delete(ticket);
    if (!found || found.expiresAt <= this.now())
      throw new Unauthorized('Invalid or expired ticket');
    return found.key;
  }

  async changePassword(ctx: AuthContext, current: string, next: string): Promise<void> {
    const user = this.deps.users.findById(ctx.user.id)!;
    if (!(await verifyPassword(current, user.password_hash))) {
      throw new Unauthorized('Current password is incorrect');
    }
    if (current === next) {
      throw new Unprocessable('New password must differ from the current one', [
        { field: 'new_password', message: 'must differ from the current password' },
      ]);
    }
    // A one-time password is spent once its user has chosen their own.
    this.deps.users.update(user.id, {
      password_hash: await hashPassword(next, this.deps.config.passwordHashCost),
      must_change_password: 0,
    });
    // Other sessions of this user end, their open sockets with them; the one that changed the
    // password stays.
    for (const id of this.deps.keys.revokeAllForUser(user.id, ctx.key.id)) {
      this.deps.bus.emit('auth.key_revoked', { key_id: id });
    }
    this.defaultCredentialsInUse = null;
    this.deps.log.info({ component: 'auth' }, `${user.email} changed their password`);
  }

  async setupTwoFactor(ctx: AuthContext): Promise<TwoFactorSetupResponse> {
    if (ctx.user.totp_enabled) throw new Conflict('Two-factor authentication is already enabled');
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    this.deps.users.update(ctx.user.id, { totp_pending_secret: secret });
    const otpauthUrl = totpFor(ctx.user.email, secret).toString();
    const qr = await QRCode.toDataURL(otpauthUrl, { margin: 1, width: 240 });
    return { secret, otpauth_url: otpauthUrl, qr };
  }

  enableTwoFactor(ctx: AuthContext, code: string): void {
    const user = this.deps.users.findById(ctx.user.id)!;
    if (user.totp_enabled) throw new Conflict('Two-factor authentication is already enabled');
    if (!user.totp_pending_secret) {
      throw new BadRequest('Start two-factor setup first (POST /auth/2fa/setup)');
    }
    this.guardCodeAttempts(user);
    if (!this.checkTotp(user, user.totp_pending_secret, code)) this.codeFailed(user);
    this.deps.users.update(user.id, {
      totp_secret: user.totp_pending_secret,
      totp_pending_secret: null,
      totp_enabled: 1,
    });
    this.deps.log.info({ component: 'auth' }, `${user.email} enabled two-factor authentication`);
  }

  disableTwoFactor(ctx: AuthContext, code: string): void {
    const user = this.deps.users.findById(ctx.user.id)!;
    if (!user.totp_enabled) throw new Conflict('Two-factor authentication is not enabled');
    this.guardCodeAttempts(user);
    if (!this.checkTotp(user, user.totp_secret, code)) this.codeFailed(user);
    this.deps.users.update(user.id, { totp_secret: null, totp_enabled: 0 });
    this.deps.log.info({ component: 'auth' }, `${user.email} disabled two-factor authentication`);
  }

  toUser(row: UserRow): User {
    return toUser(this.deps.users.findById(row.id) ?? row);
  }

  private guardCodeAttempts(user: UserRow): void {
    const wait = this.throttle.retryAfter(
      `code:${user.id}`,
      this.deps.config.loginThrottle.perAccountAndAddress,
    );
    if (wait > 0)
      throw new TooManyRequests(`Too many wrong codes. Try again in ${wait} seconds.`, wait);
  }

  private codeFailed(user: UserRow): never {
    this.throttle.record(`code:${user.id}`);
    throw new Unauthorized('Invalid 2FA code');
  }

  /** Checks a code against the secret and burns its time step, so no code works twice. */
  private checkTotp(user: UserRow, secret: string | null, code: string): boolean {
    if (!secret) return false;
    const timestamp = this.now();
    const delta = totpFor(user.email, secret).validate({ token: code, window: 1, timestamp });
    if (delta === null) return false;
    const step = Math.floor(timestamp / 1000 / TOTP_PERIOD_SECONDS) + delta;
    return this.deps.users.claimTotpStep(user.id, step);
  }

  /** A new login session's key. */
  private issueKey(
    userId: number,
    session: Pick<NewApiKey, 'created_at' | 'user_agent' | 'created_address'>,
  ): { key: string; expiresAt: string } {
    const { secret, hash, prefix } = newSecret();
    const expiresAt = new Date(this.now() + this.deps.config.apiKeyTtlSeconds * 1000).toISOString();
    this.deps.keys.insert({
      ...session,
      user_id: userId,
      key_hash: hash,
      prefix,
      kind: 'session',
      expires_at: expiresAt,
    });
    return { key: secret, expiresAt };
  }
}

function totpFor(email: string, secret: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: OTPAuth.Secret.fromBase32(secret),
  });
}

function toUser(row: UserRow): User {
  return {
    email: row.email,
    name: row.name,
    totp_enabled: row.totp_enabled === 1,
    role: row.role,
    must_change_password: row.must_change_password === 1,
  };
}
