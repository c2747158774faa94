import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rng } from '../../test/fixtures/seeded-random.js';
import { openDatabase, type Db } from './db.js';
import { LogRepository, trigramMatch, type LogFilter, type LogRow } from './log.repository.js';

const LEVELS = ['debug', 'info', 'info', 'warning', 'error'] as const;
const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

/** What listPage must answer, computed the plain way over every row (sorted newest first). */
function reference(rows: (LogRow & { id: number })[], f: LogFilter, offset: number, limit: number) {
  // LIKE folds ASCII letters only.
  const fold = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const q = fold(f.q);
  const kept = rows.filter(
    (r) =>
      r.timestamp >= f.since &&
      (f.level === null || r.level === f.level) &&
      (q === '' || fold(r.message).includes(q) || fold(r.component).includes(q)),
  );
  const seen = new Set<string>();
  const unique = kept.filter((r) => {
    const k = `${r.timestamp}\u0000${r.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  return unique
    .slice(offset, offset + limit)
    .map(({ timestamp, level, component, message }) => ({ timestamp, level, component, message }));
}

describe('LogRepository.listPage', () => {
  let dir: string;
  let db: Db;
  let repo: LogRepository;
  const rows: (LogRow & { id: number })[] = [];

  // 50,000 lines over two days, stored out of time order: each search path has work to do.
  // "rare-needle" is in a few lines (the trigram path), "zeta" in the ~29,000 lines older than
  // 20 hours, none of the newest 5,000 (too many candidates: the range is read in order),
  // "ping" in the newer ones (the newest lines hold the page); "q%" and "%" are taken literally.
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-logrepo-'));
    db = openDatabase(dir);
    repo = new LogRepository(db);
    const rand = rng(7);
    const batch: LogRow[] = [];
    for (let i = 0; i < 50_000; i++) {
      const age = Math.floor(rand() * 48 * 3600_000);
      // Coarse timestamps (whole seconds) so many lines share one.
      const timestamp = iso(NOW - Math.floor(age / 1000) * 1000);
      const level = LEVELS[Math.floor(rand() * LEVELS.length)]!;
      const old = age > 20 * 3600_000;
      let message = `ping ${Math.floor(rand() * 50)}`;
      if (i % 9000 === 17) message = `found a Rare-Needle in line ${i}`;
      else if (old) message = `zeta round ${Math.floor(rand() * 20)}`;
      else if (i % 5000 === 3) message = `progress q% ${i}`;
      const component = i % 7 === 0 ? 'Queue' : 'http';
      batch.push({ timestamp, level, component, message });
      // One in twenty-five stored again, sometimes at another level: a duplicate.
      if (i % 25 === 0)
        batch.push({ timestamp, level: i % 50 === 0 ? 'error' : level, component, message });
    }
    repo.insertMany(batch);
    batch.forEach((r, i) => rows.push({ ...r, id: i + 1 }));
    // Newest first, as the answers are: the reference then only filters.
    rows.sort((a, b) =>
      a.timestamp === b.timestamp ? b.id - a.id : a.timestamp < b.timestamp ? 1 : -1,
    );
  });
  afterAll(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const since = (hours: number) => iso(NOW - hours * 3600_000);
  const cases: [string, LogFilter, number, number][] = [
    ['every line, first page', { since: since(24), level: null, q: '' }, 0, 21],
    ['every line, a deep page', { since: since(48), level: null, q: '' }, 20_000, 21],
    ['one level', { since: since(24), level: 'error', q: '' }, 0, 21],
    ['one level, a later page', { since: since(24), level: 'warning', q: '' }, 400, 21],
    ['a common term', { since: since(24), level: null, q: 'ping 1' }, 0, 21],
    ['a rare term, any case', { since: since(48), level: null, q: 'rare-NEEDLE' }, 0, 21],
    ['a rare term at one level', { since: since(48), level: 'info', q: 'needle' }, 0, 21],
    ['a term of old lines only', { since: since(48), level: null, q: 'zeta round 1' }, 0, 21],
    ['a term of old lines, a later page', { since: since(48), level: null, q: 'zeta' }, 300, 21],
    ['a short term', { since: since(48), level: null, q: 'q%' }, 0, 21],
    ['the component', { since: since(2), level: null, q: 'queue' }, 0, 21],
    ['a rare term in a short range', { since: since(0.5), level: null, q: 'ping 7' }, 0, 21],
    ['a term nowhere', { since: since(48), level: null, q: 'nowhere to be found' }, 0, 21],
    ['a wildcard taken literally', { since: since(48), level: null, q: '%' }, 0, 21],
  ];

  it.each(cases)('answers %s like a plain scan would', (_, filter, offset, limit) => {
    const expected = reference(rows, filter, offset, limit);
    expect(repo.listPage(filter, offset, limit)).toEqual(expected);
  });

  it('pages through a search without showing a line twice or skipping one', () => {
    const filter: LogFilter = { since: since(48), level: null, q: 'needle' };
    const all = reference(rows, filter, 0, 1000);
    expect(all.length).toBeGreaterThan(2);
    const paged = [0, 1, 2, 3].flatMap((p) => repo.listPage(filter, p * 2, 2));
    expect(paged).toEqual(all);
  });
});

describe('trigramMatch', () => {
  it('asks for every 3-character piece, quoted, and nothing under 3 characters', () => {
    expect(trigramMatch('ab')).toBeNull();
    expect(trigramMatch('abcd')).toBe('"abc" AND "bcd"');
    expect(trigramMatch('a"bc')).toBe('"a""b" AND """bc"');
    // By character, not UTF-16 unit.
    expect(trigramMatch('é🙂ab')).toBe('"é🙂a" AND "🙂ab"');
  });
});
