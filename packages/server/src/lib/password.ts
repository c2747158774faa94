import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * scrypt's cost as log2 of N (r=8, p=1): 15 is 32 MiB and about 50-180 ms of one core a hash
 * here. ADAM_PASSWORD_HASH_COST sets it; a stored hash keeps the cost it was made with.
 */
export const DEFAULT_PASSWORD_HASH_COST = 15;
export const MIN_PASSWORD_HASH_COST = 10;
export const MAX_PASSWORD_HASH_COST = 18;
const R = 8;
const P = 1;
const KEY_LEN = 32;

interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

function scryptAsync(password: string, salt: Buffer, opts: ScryptCost): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; Node refuses above maxmem (32 MiB by default).
  const maxmem = 2 * 128 * opts.N * opts.r;
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LEN, { ...opts, maxmem }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(
  password: string,
  cost: number = DEFAULT_PASSWORD_HASH_COST,
): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** cost;
  const key = await scryptAsync(password, salt, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const params: ScryptCost = { N: Number(n), r: Number(r), p: Number(p) };
  // A stored hash sizes scrypt's memory (128·N·r bytes): one beyond what this server makes (a
  // crafted users table in a restored backup, say) is refused rather than allocated.
  if (params.N > 2 ** MAX_PASSWORD_HASH_COST || params.r > R || params.p > P) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), params);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// A fixed hash per cost checked against when the e-mail is unknown, so both paths take as long.
const dummyHashes = new Map<number, Promise<string>>();
export function dummyVerify(
  password: string,
  cost: number = DEFAULT_PASSWORD_HASH_COST,
): Promise<boolean> {
  let hash = dummyHashes.get(cost);
  if (!hash) {
    hash = hashPassword('dummy-password-for-timing', cost);
    dummyHashes.set(cost, hash);
  }
  return hash.then((h) => verifyPassword(password, h));
}
