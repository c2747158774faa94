import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PASSWORD_HASH_COST,
  dummyVerify,
  hashPassword,
  verifyPassword,
} from './password.js';

describe('password hashes', () => {
  it('hash with scrypt at the given cost, and a stored hash checks at its own cost', async () => {
    const cheap = await hashPassword('s3cret', 10);
    expect(cheap).toMatch(/^scrypt\$1024\$8\$1\$/);
    const dear = await hashPassword('s3cret', 12);
    expect(dear).toMatch(/^scrypt\$4096\$8\$1\$/);
    for (const stored of [cheap, dear]) {
      expect(await verifyPassword('s3cret', stored)).toBe(true);
      expect(await verifyPassword('s3cret ', stored)).toBe(false);
    }
  });

  it('hash at N = 2^15 by default', async () => {
    expect(DEFAULT_PASSWORD_HASH_COST).toBe(15);
    const stored = await hashPassword('s3cret');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await verifyPassword('s3cret', stored)).toBe(true);
  });

  it('refuse a hash of another scheme or a malformed one', async () => {
    expect(await verifyPassword('x', 'bcrypt$2b$10$abc')).toBe(false);
    expect(await verifyPassword('x', 'scrypt$1024$8')).toBe(false);
    // Costs beyond what the server makes are not run (2^30 would ask scrypt for 128 GiB).
    const made = await hashPassword('x', 10);
    const [, , , , salt, key] = made.split('$');
    expect(await verifyPassword('x', `scrypt$${2 ** 30}$8$1$${salt}$${key}`)).toBe(false);
    expect(await verifyPassword('x', `scrypt$1024$64$1$${salt}$${key}`)).toBe(false);
    expect(await verifyPassword('x', made)).toBe(true);
  });

  it('check an unknown account against a dummy hash of the same cost (the caller refuses either way)', async () => {
    // The dummy's own password matches: that proves the check ran scrypt on a real hash.
    expect(await dummyVerify('dummy-password-for-timing', 10)).toBe(true);
    expect(await dummyVerify('anything else', 10)).toBe(false);
  });
});
