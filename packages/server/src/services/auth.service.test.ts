import { randomBytes, scryptSync } from 'node:crypto';
import Database from 'better-sqlite3';
import * as OTPAuth from 'otpauth';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../config.js';
import type { AppError } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import { EventBus } from '../lib/event-bus.js';
import { ApiKeyRepository } from '../store/api-key.repository.js';
import { migrate } from '../store/db.js';
import { MIN_PASSWORD_HASH_COST } from '../lib/password.js';
import { migrations } from '../store/migrations/index.js';
import { UserRepository } from '../store/user.repository.js';
import { AuthService } from './auth.service.js';

type Throttle = Config['loginThrottle'];
const NO_DELAY: Throttle = {
  windowSeconds: 900,
  perAccountAndAddress: 5,
  perAddress: 20,
  accountDelayAfter: 1000,
  accountDelayBaseMs: 500,
  accountDelayMaxMs: 8000,
};
const A = '198.51.100.1';
const B = '198.51.100.2';

/** A password hash in the stored format with a tiny scrypt cost: checks take microseconds. */
function cheapHash(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, { N: 16, r: 1, p: 1 });
  return `scrypt$16$1$1$${salt.toString('base64')}$${key.toString('base64')}`;
}

let db: Database.Database;
let now: number;
let users: UserRepository;
let warnings: string[];

function auth(throttle: Partial<Throttle> = {}) {
  return new AuthService({
    users,
    keys: new ApiKeyRepository(db),
    bus: new EventBus(),
    log: {
      info: () => {},
      warn: (_: unknown, msg: string) => warnings.push(msg),
      error: () => {},
    } as unknown as Logger,
    config: {
      adminEmail: 'admin@example.com',
      adminPassword: 'admin',
      apiKeyTtlSeconds: 3600,
      refreshGraceSeconds: 3600,
      loginThrottle: { ...NO_DELAY, ...throttle },
      passwordHashCost: MIN_PASSWORD_HASH_COST,
    },
    now: () => now,
  });
}

beforeEach(() => {
  db = new Database(':memory:');
  migrate(db, migrations);
  users = new UserRepository(db);
  for (const name of ['alice', 'bob', 'carol']) {
    users.insert({ email: `${name}@example.com`, name, password_hash: cheapHash(`${name}-pw`) });
  }
  now = Date.parse('2026-02-01T08:00:00Z');
  warnings = [];
});

const wrong = (name: string) => ({ email: `${name}@example.com`, password: 'wrong' });
const right = (name: string) => ({ email: `${name}@example.com`, password: `${name}-pw` });
const tick = (seconds: number) => (now += seconds * 1000);

/** The status a login answers: 200, or the error's status and message. */
async function attempt(
  svc: AuthService,
  body: { email: string; password: string; totp_code?: string },
  address: string,
): Promise<{ status: number; detail?: string; retryAfter?: string }> {
  try {
    await svc.login(body, address);
    return { status: 200 };
  } catch (e) {
    const err = e as AppError;
    return { status: err.status, detail: err.message, retryAfter: err.headers?.['retry-after'] };
  }
}

async function failTimes(svc: AuthService, name: string, address: string, n: number) {
  for (let i = 0; i < n; i++) {
    expect((await attempt(svc, wrong(name), address)).status).toBe(401);
    tick(10);
  }
}

describe('AuthService login throttling', () => {
  it('refuses an (e-mail, address) pair at its limit with the seconds left, and no one else', async () => {
    const svc = auth();
    await failTimes(svc, 'alice', A, 5); // at 0, 10, ... 40 s; now 50 s
    expect(await attempt(svc, right('alice'), A)).toEqual({
      status: 429,
      detail: 'Too many failed login attempts. Try again in 850 seconds.',
      retryAfter: '850',
    });
    expect((await attempt(svc, right('bob'), A)).status).toBe(200);
    expect((await attempt(svc, right('alice'), B)).status).toBe(200);
    // The window slides: once the first failure is 900 s old, the pair has one attempt again.
    now += 850_000 - 1;
    expect((await attempt(svc, right('alice'), A)).status).toBe(429);
    tick(1);
    expect((await attempt(svc, right('alice'), A)).status).toBe(200);
  });

  it('refuses an address at its limit across e-mails, and only that address', async () => {
    const svc = auth({ perAccountAndAddress: 3, perAddress: 6 });
    await failTimes(svc, 'alice', A, 3);
    await failTimes(svc, 'bob', A, 3); // six failures at 0 ... 50 s; now 60 s
    expect(await attempt(svc, right('carol'), A)).toMatchObject({ status: 429, retryAfter: '840' });
    expect((await attempt(svc, right('carol'), B)).status).toBe(200);
    now += 840_000;
    expect((await attempt(svc, right('carol'), A)).status).toBe(200);
  });

  it('counts the addresses of one IPv6 /64 as one', async () => {
    const svc = auth();
    for (let i = 1; i <= 5; i++) {
      expect((await attempt(svc, wrong('alice'), `2001:db8:0:1::${i}`)).status).toBe(401);
    }
    expect((await attempt(svc, right('alice'), '2001:db8:0:1:ffff::9')).status).toBe(429);
    expect((await attempt(svc, right('alice'), '2001:db8:0:2::1')).status).toBe(200);
  });

  it("keeps an address's earlier failures after one of its logins succeeds", async () => {
    const svc = auth({ perAccountAndAddress: 5, perAddress: 6 });
    await failTimes(svc, 'alice', A, 3);
    expect((await attempt(svc, right('alice'), A)).status).toBe(200);
    await failTimes(svc, 'bob', A, 3);
    // bob has 3 failures of his own (under 5): the address's 6 refuse him.
    expect((await attempt(svc, right('bob'), A)).status).toBe(429);
  });

  it('does not count a right password awaiting its 2FA code as a failure', async () => {
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    const alice = users.findByEmail('alice@example.com')!;
    users.update(alice.id, { totp_secret: secret, totp_enabled: 1 });
    const svc = auth({ perAccountAndAddress: 2 });
    for (let i = 0; i < 4; i++) {
      expect(await svc.login(right('alice'), A)).toMatchObject({
        requires_2fa: true,
        api_key: null,
      });
    }
    await failTimes(svc, 'alice', A, 2);
    expect((await attempt(svc, right('alice'), A)).status).toBe(429);
  });

  it("delays an e-mail's attempts from any address, doubling to the cap, until its failures leave the window", async () => {
    const svc = auth({ accountDelayAfter: 2, accountDelayBaseMs: 1, accountDelayMaxMs: 4 });
    for (let i = 1; i <= 6; i++) {
      expect((await attempt(svc, wrong('alice'), `198.51.100.${i}`)).status).toBe(401);
      tick(10);
    }
    const delays = () =>
      warnings.flatMap(
        (m) => /^Login for alice@example\.com .* delayed (\d+) ms/.exec(m)?.[1] ?? [],
      );
    expect(delays()).toEqual(['1', '2', '4', '4']);
    // The first failure (at 0 s) leaves the window: five remain, so the next attempt waits
    // for five (4 ms, capped); once all have left, none.
    now = Date.parse('2026-02-01T08:15:00Z') + 1;
    await attempt(svc, wrong('alice'), B);
    expect(delays()).toEqual(['1', '2', '4', '4', '4']);
    tick(900);
    await attempt(svc, wrong('alice'), B);
    expect(delays()).toHaveLength(5);
  });

  it('computes the per-account delay: none below the threshold, then doubling up to the cap', () => {
    const svc = auth({ accountDelayAfter: 5, accountDelayBaseMs: 500, accountDelayMaxMs: 8000 });
    expect([0, 4, 5, 6, 7, 8, 9, 10, 1000].map((n) => svc.accountDelayMs(n))).toEqual([
      0, 0, 500, 1000, 2000, 4000, 8000, 8000, 8000,
    ]);
  });
});

describe('AuthService realtime tickets', () => {
  it('redeems a ticket once, for the key that asked, until 30 s have passed', () => {
    const svc = auth();
    const { ticket, expires_in } = svc.issueTicket('adam_key-1');
    expect(expires_in).toBe(30);
    expect(ticket).toMatch(/^adamt_[\w-]{43}$/);
    expect(svc.redeemTicket(ticket)).toBe('adam_key-1');
    expect(() => svc.redeemTicket(ticket)).toThrow('Invalid or expired ticket');

    const late = svc.issueTicket('adam_key-1').ticket;
    const inTime = svc.issueTicket('adam_key-1').ticket;
    tick(29);
    expect(svc.redeemTicket(inTime)).toBe('adam_key-1');
    tick(1);
    expect(() => svc.redeemTicket(late)).toThrow('Invalid or expired ticket');
    expect(() => svc.redeemTicket('')).toThrow('Invalid or expired ticket');
  });

  it('keeps at most 10,000 tickets, dropping the oldest first', () => {
    const svc = auth();
    const first = svc.issueTicket('k').ticket;
    const second = svc.issueTicket('k').ticket;
    for (let i = 0; i < 9_999; i++) svc.issueTicket('k');
    expect(() => svc.redeemTicket(first)).toThrow('Invalid or expired ticket');
    expect(svc.redeemTicket(second)).toBe('k');
  });
});
