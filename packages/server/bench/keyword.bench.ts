/**
 * Keyword search at 50k, 200k and 1M snippets: FTS5's bm25 SQL as search runs it today
 * (SnippetRepository.keywordSearch without a filter) against the keyword engine (src/keyword/,
 * block-max MaxScore), in the same run, on the same rows and the same MATCH expressions
 * (`ftsMatch(text, 'any')`). Not a test: prints figures, asserts nothing.
 *
 *   npm run bench -w @adam/server -- keyword                 # 50k, 200k, 1M
 *   npx tsx --conditions=adam-source bench/keyword.bench.ts 50000,200000
 *
 * Rows: the export bench's 1M data dir (bench/export-data.ts, built on first use, read only
 * here). At 1M the query runs on its real snippets_fts table; at 50k and 200k on an FTS5 table
 * of the first rows with the same tokenizer, built in a temporary file.
 * Queries, k = 10, three kinds: "common" (two words each in over 3% of the rows), "rare" (one
 * word in 2–20 rows) and "question" (10–15 words of a fixture-page sentence the rows were not
 * cut from). Ranking agreement with FTS5: overlap@10, and nDCG@10 taking FTS5's own bm25 of each
 * returned row as its gain (1.0 when the engine returns FTS5's top 10 in FTS5's order).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ftsMatch, queryWords } from '../src/services/hybrid-search.js';
import { KeywordIndex } from '../src/keyword/keyword-index.js';
import { parseMatch } from '../src/keyword/keyword-query.js';
import { terms } from '../src/keyword/tokenizer.js';
import { footer, header, mib, pageSentences, rng, seconds, summarize, table } from './common.js';
import { ensureExportData } from './export-data.js';

const K = 10;
const PER_KIND = 150;
const WARMUP = 20;
const SIZES = (process.argv[2] ?? '50000,200000,1000000').split(',').map(Number);
const TOKENIZE = 'porter unicode61 remove_diacritics 2';

header('keyword: FTS5 bm25 SQL vs the keyword engine (block-max MaxScore), k = 10');
const started = performance.now();
const dataDir = await ensureExportData();
const source = new Database(path.join(dataDir, 'adam.db'), { readonly: true });
const total = source.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;

interface Query {
  kind: 'common' | 'rare' | 'question';
  text: string;
  match: string;
}

interface SizeResult {
  size: number;
  buildMs: number;
  bytes: number;
  rssDelta: number;
  lat: Record<string, { fts: number[]; ours: number[] }>;
  overlap: Record<string, number[]>;
  ndcg: Record<string, number[]>;
  scoredShare: Record<string, number[]>;
}

const results: SizeResult[] = [];
const tmpDirs: string[] = [];

for (const size of SIZES) {
  if (size > total) {
    console.log(`\n${size.toLocaleString('en')} rows: the data has only ${total}, skipped`);
    continue;
  }
  console.log(`\n=== ${size.toLocaleString('en')} snippets ===`);
  const rowsOf = () =>
    source
      .prepare('SELECT id, text FROM snippets WHERE id <= ? ORDER BY id')
      .iterate(size) as IterableIterator<{ id: number; text: string }>;
  // FTS5: the real table at the full size, else a table of the first rows.
  let fts: Database.Database = source;
  if (size < total) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-bench-keyword-'));
    tmpDirs.push(dir);
    fts = new Database(path.join(dir, 'fts.db'));
    fts.pragma('journal_mode = WAL');
    fts.exec(`CREATE VIRTUAL TABLE snippets_fts USING fts5(text, tokenize='${TOKENIZE}')`);
    const t0 = performance.now();
    const insert = fts.prepare('INSERT INTO snippets_fts(rowid, text) VALUES (?, ?)');
    fts.transaction(() => {
      for (const r of rowsOf()) insert.run(r.id, r.text);
    })();
    fts.exec("INSERT INTO snippets_fts(snippets_fts) VALUES ('optimize')");
    console.log(`FTS5 table of the first rows: ${seconds(performance.now() - t0)}`);
  }
  const ftsQuery = fts.prepare(
    `SELECT rowid AS id, bm25(snippets_fts) AS bm25 FROM snippets_fts
     WHERE snippets_fts MATCH ? ORDER BY bm25 LIMIT ?`,
  );
  const ftsScores = fts.prepare(
    `SELECT rowid AS id, bm25(snippets_fts) AS bm25 FROM snippets_fts
     WHERE snippets_fts MATCH ? AND rowid = ?`,
  );

  globalThis.gc?.();
  const rssBefore = process.memoryUsage().rss;
  const t0 = performance.now();
  const index = KeywordIndex.build(rowsOf());
  const buildMs = performance.now() - t0;
  globalThis.gc?.();
  const rssDelta = process.memoryUsage().rss - rssBefore;
  const stats = index.stats();
  console.log(
    `engine: built in ${seconds(buildMs)}; ${stats.docs.toLocaleString('en')} docs, ` +
      `${stats.terms.toLocaleString('en')} terms, ${stats.postings.toLocaleString('en')} postings, ` +
      `arrays ${mib(stats.bytes)}, RSS +${mib(rssDelta)}`,
  );

  const queries = makeQueries(index, size);
  const res: SizeResult = {
    size,
    buildMs,
    bytes: stats.bytes,
    rssDelta,
    lat: {},
    overlap: {},
    ndcg: {},
    scoredShare: {},
  };
  for (const q of queries.slice(0, WARMUP)) {
    ftsQuery.all(q.match, K);
    index.search(parseMatch(q.match), K);
  }
  for (const q of queries) {
    const a = performance.now();
    const theirs = ftsQuery.all(q.match, K) as { id: number; bm25: number }[];
    const b = performance.now();
    const ours = index.search(parseMatch(q.match), K);
    const c = performance.now();
    const scored = index.scoredInLastSearch;
    (res.lat[q.kind] ??= { fts: [], ours: [] }).fts.push(b - a);
    res.lat[q.kind]!.ours.push(c - b);
    const ideal = new Set(theirs.map((h) => h.id));
    (res.overlap[q.kind] ??= []).push(
      theirs.length === 0 ? 1 : ours.filter((h) => ideal.has(h.id)).length / theirs.length,
    );
    // Gain: FTS5's own bm25 of the row (the engine's score is not trusted here).
    const gain = (id: number) =>
      -((ftsScores.get(q.match, BigInt(id)) as { bm25: number } | undefined)?.bm25 ?? 0);
    const dcg = (gains: number[]) => gains.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
    const idealDcg = dcg(theirs.map((h) => -h.bm25));
    (res.ndcg[q.kind] ??= []).push(
      idealDcg === 0 ? 1 : dcg(ours.map((h) => gain(h.id))) / idealDcg,
    );
    const postings = new Set<string>();
    for (const p of parseMatch(q.match).phrases) if (p) postings.add(p);
    let sum = 0;
    for (const t of postings) sum += index.postingCount(t);
    (res.scoredShare[q.kind] ??= []).push(sum === 0 ? 0 : scored / sum);
  }
  results.push(res);
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / (xs.length || 1);
  table(
    [
      'kind',
      'queries',
      'FTS5 p50',
      'FTS5 p95',
      'engine p50',
      'engine p95',
      'overlap@10',
      'nDCG@10',
      'scored/postings',
    ],
    Object.entries(res.lat).map(([kind, l]) => {
      const f = summarize(l.fts);
      const o = summarize(l.ours);
      return [
        kind,
        l.fts.length,
        `${f.p50.toFixed(2)} ms`,
        `${f.p95.toFixed(2)} ms`,
        `${o.p50.toFixed(3)} ms`,
        `${o.p95.toFixed(3)} ms`,
        mean(res.overlap[kind]!).toFixed(4),
        mean(res.ndcg[kind]!).toFixed(4),
        `${(100 * mean(res.scoredShare[kind]!)).toFixed(1)}%`,
      ];
    }),
  );
  if (fts !== source) fts.close();
}

if (results.length > 1) {
  console.log('\nGrowth of p95 between sizes (FTS5 / engine):');
  const rows: string[][] = [];
  for (let i = 1; i < results.length; i++) {
    const a = results[i - 1]!;
    const b = results[i]!;
    for (const kind of Object.keys(b.lat)) {
      const p95 = (r: SizeResult, side: 'fts' | 'ours') => summarize(r.lat[kind]![side]).p95;
      rows.push([
        `${a.size.toLocaleString('en')} → ${b.size.toLocaleString('en')}`,
        kind,
        `${(p95(b, 'fts') / p95(a, 'fts')).toFixed(1)}×`,
        `${(p95(b, 'ours') / p95(a, 'ours')).toFixed(1)}×`,
      ]);
    }
    rows.push([
      `${a.size.toLocaleString('en')} → ${b.size.toLocaleString('en')}`,
      'build',
      '',
      `${(b.buildMs / a.buildMs).toFixed(1)}×`,
    ]);
  }
  table(['sizes', 'kind', 'FTS5 p95', 'engine p95'], rows);
}

source.close();
for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
footer(started);

/** The three kinds of queries, the same words at every size where they qualify. */
function makeQueries(index: KeywordIndex, size: number): Query[] {
  const rand = rng(25);
  const df = (word: string) => {
    const t = terms(word);
    return t.length === 1 ? index.postingCount(t[0]!) : 0;
  };
  // Candidate words from the rows themselves (a fixed sample), and unseen sentences.
  const sample = source
    .prepare('SELECT text FROM snippets WHERE id % 997 = 1 AND id <= ? LIMIT 400')
    .pluck()
    .all(size) as string[];
  const words = [...new Set(sample.flatMap((t) => queryWords(t.toLowerCase())))];
  const common = words.filter((w) => w.length > 3 && ftsMatch(w, 'any') && df(w) > size * 0.03);
  const rare = words.filter((w) => {
    const n = df(w);
    return n >= 2 && n <= 20;
  });
  const out: Query[] = [];
  const add = (kind: Query['kind'], text: string) => {
    const match = ftsMatch(text, 'any');
    if (match) out.push({ kind, text, match });
  };
  for (let i = 0; i < PER_KIND && common.length > 1; i++)
    add(
      'common',
      `${common[Math.floor(rand() * common.length)]} ${common[Math.floor(rand() * common.length)]}`,
    );
  for (let i = 0; i < PER_KIND && rare.length > 0; i++)
    add('rare', rare[Math.floor(rand() * rare.length)]!);
  // Sentences of fixture pages far past the ones the rows were cut from.
  for (let n = 100_000; out.filter((q) => q.kind === 'question').length < PER_KIND; n++) {
    for (const s of pageSentences(n).sentences) {
      const w = queryWords(s);
      if (w.length < 10) continue;
      add('question', w.slice(0, 10 + Math.floor(rand() * 6)).join(' '));
      break;
    }
  }
  // Interleaved, so a slow phase of the machine does not fall on one kind.
  return out.sort(() => rand() - 0.5);
}
