import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { rng } from '../../test/fixtures/seeded-random.js';
import { generatePage } from '../../test/fixtures/fixture-pages.js';
import { ftsMatch } from '../services/hybrid-search.js';
import { migrate } from '../store/db.js';
import { migrations } from '../store/migrations/index.js';
import { SnippetRepository } from '../store/snippet.repository.js';
import { bm25Idf, bm25Term } from './bm25.js';
import { KeywordIndex, KeywordIndexError, type KeywordHit } from './keyword-index.js';
import { parseMatch, UnsupportedKeywordQuery, type KeywordQuery } from './keyword-query.js';
import {
  DamagedKeywordIndex,
  KEYWORD_FILE,
  loadKeywordIndex,
  saveKeywordIndex,
  verifyKeywordFile,
} from './keyword-store.js';
import { terms } from './tokenizer.js';

/** The reference's view of a corpus: each document's term counts, and the collection's. */
function model(docs: Map<number, string>) {
  const tfs = new Map<number, { counts: Map<string, number>; len: number }>();
  const df = new Map<string, number>();
  let total = 0;
  for (const [id, text] of docs) {
    const counts = new Map<string, number>();
    const ts = terms(text);
    total += ts.length;
    for (const t of ts) counts.set(t, (counts.get(t) ?? 0) + 1);
    for (const t of counts.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    tfs.set(id, { counts, len: ts.length });
  }
  return { tfs, df, N: docs.size, avgdl: total / docs.size };
}

/** The reference: every live document scored, FTS5's formula, phrase order, (score, id) desc. */
function exhaustive(m: ReturnType<typeof model>, query: KeywordQuery, k: number): KeywordHit[] {
  const hits: KeywordHit[] = [];
  for (const [id, { counts, len }] of m.tfs) {
    const present = query.phrases.map((p) => p !== null && counts.has(p));
    if (query.mode === 'any' ? !present.some(Boolean) : !present.every(Boolean)) continue;
    let score = 0;
    for (const p of query.phrases) {
      if (p === null || !counts.has(p)) continue;
      score += bm25Term(bm25Idf(m.N, m.df.get(p)!), counts.get(p)!, len, m.avgdl);
    }
    hits.push({ id, score });
  }
  return hits.sort((a, b) => b.score - a.score || b.id - a.id).slice(0, k);
}

/** A Zipf-like vocabulary: a few very common words, a long tail of rare ones. */
function corpus(seed: number, count: number) {
  const rand = rng(seed);
  const vocab = Array.from({ length: 600 }, (_, i) => `w${i.toString(36)}x`);
  vocab.push('running', 'runs', 'run', 'Études', 'etudes');
  const word = () => vocab[Math.floor(vocab.length * rand() ** 3)]!;
  const text = () =>
    Array.from({ length: 1 + Math.floor(rand() * 60) }, word).join(rand() < 0.5 ? ' ' : ', ');
  const docs = new Map<number, string>();
  let id = 0;
  for (let i = 0; i < count; i++) {
    id += 1 + Math.floor(rand() * 3);
    docs.set(id, text());
  }
  const query = (): KeywordQuery => {
    const n = 1 + Math.floor(rand() * 15);
    const words = Array.from({ length: n }, word);
    if (rand() < 0.1) words.push('nowhereatall');
    const expr = ftsMatch(words.join(' '), rand() < 0.75 ? 'any' : 'all')!;
    return parseMatch(expr);
  };
  return { docs, query, text, rand };
}

const rows = (docs: Map<number, string>) => [...docs].map(([id, text]) => ({ id, text }));

describe('the keyword index', () => {
  it('answers the exhaustive BM25 top k, ids and scores, on random corpora and queries', () => {
    for (const seed of [1, 2, 3]) {
      const { docs, query } = corpus(seed, 3_000);
      const index = KeywordIndex.build(rows(docs));
      const m = model(docs);
      for (let q = 0; q < 150; q++) {
        const qq = query();
        const k = [1, 5, 10, 50][q % 4]!;
        expect(index.search(qq, k), JSON.stringify(qq)).toEqual(exhaustive(m, qq, k));
      }
    }
  });

  it('answers the exact top k and the count among the accepted ids only (a filter), base and mutable parts', () => {
    const { docs, query, text, rand } = corpus(11, 3_000);
    const index = KeywordIndex.build(rows(docs));
    // Some changes pending in the mutable part and the deletion bitmap.
    let nextId = Math.max(...docs.keys()) + 1;
    for (let i = 0; i < 200; i++) {
      const t = text();
      index.add(nextId, t);
      docs.set(nextId++, t);
    }
    for (const id of [...docs.keys()].filter((_, i) => i % 17 === 0)) {
      index.remove(id, docs.get(id)!);
      docs.delete(id);
    }
    const ids = [...docs.keys()];
    const sets = [
      new Set(ids.filter((id) => id % 3 === 0)),
      new Set(ids.filter(() => rand() < 0.01)),
      new Set(ids.filter((id) => id > nextId - 150)),
      new Set<number>(),
    ];
    for (const accepted of sets) {
      const full = model(docs);
      for (let q = 0; q < 60; q++) {
        const qq = query();
        const k = [1, 10, 50][q % 3]!;
        // bm25's statistics stay the whole collection's: only the candidates are filtered.
        const want = exhaustive(full, qq, Number.MAX_SAFE_INTEGER)
          .filter((h) => accepted.has(h.id))
          .slice(0, k);
        const asked: number[] = [];
        const got = index.search(qq, k, {
          accept: (id) => {
            asked.push(id);
            return accepted.has(id);
          },
        });
        expect(got, JSON.stringify(qq)).toEqual(want);
        expect(new Set(asked).size).toBe(asked.length);
        // The listing's total: every accepted match, counted without ranking.
        const matches = exhaustive(full, qq, Number.MAX_SAFE_INTEGER);
        expect(index.count(qq, { accept: (id) => accepted.has(id) }), JSON.stringify(qq)).toBe(
          matches.filter((h) => accepted.has(h.id)).length,
        );
        expect(index.count(qq)).toBe(matches.length);
      }
    }
  });

  it('keeps its block bounds valid when the average length grows past the one they were computed at', () => {
    const { docs, query, text } = corpus(12, 3_000);
    const index = KeywordIndex.build(rows(docs));
    // Long documents in the mutable part and short base documents deleted: avgdl rises ~3×,
    // and every base document's bm25 with it, above the blocks' impacts at the build's avgdl.
    let nextId = Math.max(...docs.keys()) + 1;
    for (let i = 0; i < 1_500; i++) {
      const t = `${text()} ${text()} ${text()} ${text()} ${text()} ${text()}`;
      index.add(nextId, t);
      docs.set(nextId++, t);
    }
    for (const [id, t] of [...docs].filter(([id, t]) => id < 9_000 && terms(t).length < 30)) {
      index.remove(id, t);
      docs.delete(id);
    }
    const m = model(docs);
    for (let q = 0; q < 150; q++) {
      const qq = query();
      const k = [1, 5, 10, 50][q % 4]!;
      expect(index.search(qq, k), JSON.stringify(qq)).toEqual(exhaustive(m, qq, k));
    }
  });

  it('answers the exact top k over many windows where copies of documents tie on score', () => {
    // 24k documents, each text three to five times under different ids: the k-th score is
    // reached by several copies at once, so the windows' and the postings' bounds meet theta
    // exactly, and ties are broken by the higher id.
    const { text, rand } = corpus(21, 0);
    const docs = new Map<number, string>();
    let id = 0;
    while (docs.size < 24_000) {
      const t = text();
      for (let c = 3 + Math.floor(rand() * 3); c > 0; c--)
        docs.set((id += 1 + Math.floor(rand() * 2)), t);
    }
    const index = KeywordIndex.build(rows(docs));
    const m = model(docs);
    // A word in most documents has an idf of ~0: beside it a query's bounds are one term's,
    // as tight as they get, and the windows' and postings' tests are decided at the margin.
    const everywhere = ['w0x', 'w1x'];
    const mid = ['w3x', 'w4x', 'w5x', 'w8x', 'w1gx', 'w2ax', 'w10x'];
    const pick = (a: string[]) => a[Math.floor(rand() * a.length)]!;
    for (let q = 0; q < 96; q++) {
      const words =
        q % 3 === 0
          ? [pick(mid), pick(everywhere)]
          : q % 3 === 1
            ? [pick(mid), pick(mid), pick(everywhere)]
            : [pick(mid), pick(mid), pick(mid), pick(everywhere)];
      const qq = parseMatch(ftsMatch(words.join(' '), 'any')!);
      const k = [1, 3, 10, 50][q % 4]!;
      expect(index.search(qq, k), JSON.stringify(qq)).toEqual(exhaustive(m, qq, k));
    }
  });

  it('skips most postings on a common-word query (it stops early)', () => {
    const { docs } = corpus(4, 20_000);
    const index = KeywordIndex.build(rows(docs));
    const qq = parseMatch(ftsMatch('w0x w1x w2x w3x', 'any')!);
    const scored = index.countScored(qq, 10);
    const postings = ['w0x', 'w1x', 'w2x', 'w3x'].reduce(
      (n, w) => n + index.postingCount(terms(w)[0]!),
      0,
    );
    expect(postings).toBeGreaterThan(20_000);
    expect(scored).toBeLessThan(postings / 4);
  });

  it('reflects adds, deletes and updates, before and after merging', () => {
    const { docs, query, text, rand } = corpus(7, 2_000);
    const index = KeywordIndex.build(rows(docs));
    index.mergeAt = 300;
    let nextId = Math.max(...docs.keys()) + 1;
    for (let step = 0; step < 1_200; step++) {
      const ids = [...docs.keys()];
      const r = rand();
      if (r < 0.4) {
        const id = rand() < 0.5 ? nextId++ : Math.floor(rand() * nextId);
        if (docs.has(id)) continue;
        const t = text();
        index.add(id, t);
        docs.set(id, t);
      } else if (r < 0.7) {
        const id = ids[Math.floor(rand() * ids.length)]!;
        expect(index.remove(id, docs.get(id)!)).toBe(true);
        docs.delete(id);
      } else {
        const id = ids[Math.floor(rand() * ids.length)]!;
        const t = text();
        index.update(id, docs.get(id)!, t);
        docs.set(id, t);
      }
      if (step % 40 === 0) {
        const qq = query();
        expect(index.search(qq, 10), `step ${step}`).toEqual(exhaustive(model(docs), qq, 10));
      }
    }
    expect(index.size).toBe(docs.size);
    index.merge();
    const m = model(docs);
    for (let q = 0; q < 50; q++) {
      const qq = query();
      expect(index.search(qq, 10)).toEqual(exhaustive(m, qq, 10));
    }
    expect(index.remove(-5 + 10 ** 9, 'x')).toBe(false);
    const someId = [...docs.keys()][0]!;
    expect(() => index.add(someId, 'again')).toThrow(KeywordIndexError);
    expect(() => index.remove(someId, `${docs.get(someId)} extra words`)).toThrow(
      /not the text indexed/,
    );
  });

  it('scores as FTS5 bm25() does on the snippets table, and follows its inserts, updates and deletes', () => {
    const db = new Database(':memory:');
    migrate(db, migrations);
    const snippets = new SnippetRepository(db);
    const now = '2026-11-27T01:00:00.000Z';
    const insert = db.prepare(
      `INSERT INTO snippets (text, text_hash, theme, quality_score, metadata, created_at, updated_at)
       VALUES (?, ?, 'science', 0.5, '{}', ?, ?)`,
    );
    const texts = new Map<number, string>();
    for (let n = 1; n <= 60; n++)
      for (const p of generatePage(n).body) {
        const id = Number(insert.run(p, `h${texts.size}`, now, now).lastInsertRowid);
        texts.set(id, p);
      }
    const index = KeywordIndex.build(rows(texts));
    const questions = [
      'volcano',
      'the energy of stars',
      'How do scientists measure the age of rocks and fossils found in deep layers of sediment?',
      'ocean currents climate',
      'Études économiques',
      'running runs run',
      'What happened to the ancient libraries when the empires that built them collapsed and burned?',
    ];
    const compare = () => {
      for (const q of questions) {
        const expr = ftsMatch(q, 'any')!;
        // Today's query, and the same with its ties ordered as ours (higher id first).
        const today = snippets.keywordSearch(expr, 20);
        const fts = db
          .prepare(
            `SELECT rowid AS id, bm25(snippets_fts) AS bm25 FROM snippets_fts
             WHERE snippets_fts MATCH ? ORDER BY bm25, rowid DESC LIMIT 20`,
          )
          .all(expr) as { id: number; bm25: number }[];
        const ours = index.search(parseMatch(expr), 20);
        expect(
          ours.map((h) => h.id),
          q,
        ).toEqual(fts.map((h) => h.id));
        ours.forEach((h, i) => {
          expect(-h.score).toBeCloseTo(fts[i]!.bm25, 12);
          expect(-h.score).toBeCloseTo(today[i]!.bm25, 12);
        });
      }
    };
    expect(snippets.keywordSearch(ftsMatch(questions[2]!, 'any')!, 20).length).toBe(20);
    compare();
    // Through the store's own triggers on one side, the index's calls on the other.
    const ids = [...texts.keys()];
    for (const id of ids.slice(0, 30)) {
      db.prepare('DELETE FROM snippets WHERE id = ?').run(id);
      index.remove(id, texts.get(id)!);
    }
    for (const id of ids.slice(30, 60)) {
      const t = `${texts.get(id)} volcano energy rocks`;
      db.prepare('UPDATE snippets SET text = ? WHERE id = ?').run(t, id);
      index.update(id, texts.get(id)!, t);
    }
    for (let i = 0; i < 20; i++) {
      const t = `A new volcano note ${i} about stars and oceans.`;
      index.add(Number(insert.run(t, `n${i}`, now, now).lastInsertRowid), t);
    }
    compare();
    index.merge();
    compare();
  });

  it('refuses MATCH expressions it does not run (phrases), and reads the ones ftsMatch makes', () => {
    expect(parseMatch('"a" OR "b"')).toEqual({ mode: 'any', phrases: ['a', 'b'] });
    expect(parseMatch('"Runs" "running"')).toEqual({ mode: 'all', phrases: ['run', 'run'] });
    expect(() => parseMatch(ftsMatch('two words', 'phrase')!)).toThrow(UnsupportedKeywordQuery);
    expect(() => parseMatch('a OR b')).toThrow(UnsupportedKeywordQuery);
    expect(() => parseMatch('"a" OR "b" "c"')).toThrow(UnsupportedKeywordQuery);
  });
});

describe('saving and loading the keyword index', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-keyword-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('loads what it saved, pending changes included, and answers the same', () => {
    const { docs, query } = corpus(11, 2_000);
    const index = KeywordIndex.build(rows(docs));
    const first = [...docs.keys()][0]!;
    index.remove(first, docs.get(first)!);
    docs.delete(first);
    index.add(999_999, 'running Études w0x w1x');
    docs.set(999_999, 'running Études w0x w1x');
    const dir = tempDir();
    saveKeywordIndex(index, dir);
    expect(fs.readdirSync(dir)).toEqual([KEYWORD_FILE]);
    const loaded = loadKeywordIndex(dir, { verify: true })!;
    expect(loaded.size).toBe(docs.size);
    const m = model(docs);
    for (let q = 0; q < 60; q++) {
      const qq = query();
      expect(loaded.search(qq, 10)).toEqual(exhaustive(m, qq, 10));
    }
    // A loaded index takes changes too.
    loaded.add(1_000_001, 'w0x w0x w0x');
    docs.set(1_000_001, 'w0x w0x w0x');
    const qq = parseMatch('"w0x"');
    expect(loaded.search(qq, 5)).toEqual(exhaustive(model(docs), qq, 5));
    expect(loadKeywordIndex(tempDir())).toBeNull();
  });

  it('refuses a damaged file with a clear error', () => {
    const { docs } = corpus(12, 500);
    const dir = tempDir();
    saveKeywordIndex(KeywordIndex.build(rows(docs)), dir);
    const file = path.join(dir, KEYWORD_FILE);
    const good = fs.readFileSync(file);
    const damaged = (bytes: Buffer, opts = {}) => {
      fs.writeFileSync(file, bytes);
      return () => loadKeywordIndex(dir, opts);
    };
    expect(damaged(good.subarray(0, good.length - 8))).toThrow(
      /damaged.*bytes where the header says/,
    );
    expect(damaged(Buffer.concat([good, Buffer.alloc(8)]))).toThrow(DamagedKeywordIndex);
    const header = Buffer.from(good);
    header[60]! ^= 1;
    expect(damaged(header)).toThrow(/header checksum mismatch/);
    expect(damaged(Buffer.from('not an index at all, just text'))).toThrow(
      /not a keyword index file/,
    );
    // A flipped bit in the postings passes the cheap check and fails the full one.
    const body = Buffer.from(good);
    body[body.length - 100]! ^= 0x10;
    expect(damaged(body)).not.toThrow();
    expect(() => verifyKeywordFile(dir)).toThrow(/checksum mismatch/);
    expect(damaged(body, { verify: true })).toThrow(/rebuild it from the store/);
  });
});
