import Database from 'better-sqlite3';
import { EMOTION_PRESENT_THRESHOLD } from '@adam/contracts';
import { describe, expect, it } from 'vitest';
import { migrate, type Db } from '../db.js';
import { migrations } from './index.js';

const AGGREGATES = ['snippet_stats', 'snippet_hourly', 'emotion_hourly', 'emotion_totals'];

function open(upTo = Infinity): Db {
  const db = new Database(':memory:');
  migrate(
    db,
    migrations.filter((m) => m.id <= upTo),
  );
  return db;
}

let seq = 0;
function insert(
  db: Db,
  r: {
    theme?: string;
    q?: number;
    lang?: string | null;
    at?: string;
    emotions?: unknown;
    metadata?: string;
  },
): number {
  seq++;
  return Number(
    db
      .prepare(
        `INSERT INTO snippets (text, text_hash, theme, quality_score, language, metadata, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        `text ${seq}`,
        `hash ${seq}`,
        r.theme ?? 'science',
        r.q ?? 0.5,
        r.lang === undefined ? 'en' : r.lang,
        r.metadata ?? JSON.stringify({ emotions: r.emotions ?? {} }),
        r.at ?? '2026-11-22T10:15:00.000Z',
        r.at ?? '2026-11-22T10:15:00.000Z',
      ).lastInsertRowid,
  );
}

const SAMPLE = [
  {
    theme: 'science',
    q: 0.35,
    at: '2026-11-22T10:15:00.000Z',
    emotions: { joy: 0.3, trust: 0.3, fear: 0.05 },
  },
  { theme: 'science', q: 0.3, at: '2026-11-22T10:59:59.999Z', emotions: { anger: 0.6, joy: 0.5 } },
  { theme: 'general', q: 1, lang: null, at: '2026-11-22T11:00:00.000Z', emotions: { joy: 0.09 } },
  { theme: 'technology', q: 0, at: '2026-11-21T23:30:00.000Z', emotions: {} },
  { theme: 'general', q: 0.95, at: '2026-11-22T11:20:00.000Z', metadata: 'not json' },
  {
    theme: 'general',
    q: 0.7,
    at: '2026-11-22T11:21:00.000Z',
    metadata: '{"emotions": [0.5, 0.7]}',
  },
];

const dump = (db: Db) =>
  Object.fromEntries(
    AGGREGATES.map((t) => [
      t,
      (db.prepare(`SELECT * FROM ${t} ORDER BY 1, 2, 3`).all() as Record<string, unknown>[]).map(
        (row) =>
          Object.fromEntries(
            Object.entries(row).map(([k, v]) => [
              k,
              typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v,
            ]),
          ),
      ),
    ]),
  );

describe('analytics aggregates (migration 5)', () => {
  it('uses the contracts’ threshold for a present emotion', () => {
    const sql = migrations.find((m) => m.id === 5)!.sql;
    expect(sql).toContain(`value >= ${EMOTION_PRESENT_THRESHOLD}`);
  });

  it('backfills existing rows exactly as the triggers count new ones', () => {
    const before = open(4);
    for (const r of SAMPLE) insert(before, r);
    migrate(before, migrations);
    const after = open();
    for (const r of SAMPLE) insert(after, r);
    expect(dump(before)).toEqual(dump(after));
    expect(before.prepare('SELECT value FROM analytics_counters').pluck().get()).toBe(
      SAMPLE.length,
    );
  });

  it('counts per hour, decile, theme and language, with the dominant emotion (ties by name)', () => {
    const db = open();
    for (const r of SAMPLE) insert(db, r);
    const hours = db
      .prepare('SELECT hour, n, with_emotion FROM snippet_hourly ORDER BY hour')
      .all();
    expect(hours).toEqual([
      { hour: '2026-11-21T23', n: 1, with_emotion: 0 },
      { hour: '2026-11-22T10', n: 2, with_emotion: 2 },
      { hour: '2026-11-22T11', n: 3, with_emotion: 0 },
    ]);
    const stats = db
      .prepare('SELECT theme, language, quality_bucket, n FROM snippet_stats ORDER BY 1, 2, 3')
      .all();
    expect(stats).toEqual([
      { theme: 'general', language: '', quality_bucket: 9, n: 1 },
      { theme: 'general', language: 'en', quality_bucket: 7, n: 1 },
      { theme: 'general', language: 'en', quality_bucket: 9, n: 1 },
      { theme: 'science', language: 'en', quality_bucket: 3, n: 2 },
      { theme: 'technology', language: 'en', quality_bucket: 0, n: 1 },
    ]);
    const totals = db
      .prepare('SELECT emotion, n_present, n_dominant FROM emotion_totals ORDER BY emotion')
      .all();
    expect(totals).toEqual([
      { emotion: 'anger', n_present: 1, n_dominant: 1 },
      { emotion: 'fear', n_present: 0, n_dominant: 0 },
      // 0.3 joy = 0.3 trust: joy wins by name; 0.09 is below the threshold.
      { emotion: 'joy', n_present: 2, n_dominant: 1 },
      { emotion: 'trust', n_present: 1, n_dominant: 0 },
    ]);
  });

  it('takes a deleted or updated row back out, leaving no empty row behind', () => {
    const db = open();
    const ids = SAMPLE.map((r) => insert(db, r));
    const reference = open();
    for (const r of SAMPLE.slice(2)) insert(reference, r);
    insert(reference, { ...SAMPLE[1]!, theme: 'philosophy' });

    db.prepare('DELETE FROM snippets WHERE id = ?').run(ids[0]);
    db.prepare("UPDATE snippets SET theme = 'philosophy' WHERE id = ?").run(ids[1]);
    expect(dump(db)).toEqual(dump(reference));

    db.prepare('DELETE FROM snippets').run();
    for (const t of AGGREGATES) {
      expect(db.prepare(`SELECT COUNT(*) FROM ${t}`).pluck().get(), t).toBe(0);
    }
  });
});
