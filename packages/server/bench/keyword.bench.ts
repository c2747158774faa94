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
 * word in 2–20 rows: from a sample of the rows, else from the tail of the index's vocabulary —
 * the 1M data's extra rows are suffixed copies, so sampled words are never that rare there) and
 * "question" (10–15 words of a fixture-page sentence the rows were not cut from). Ranking
 * agreement with FTS5: overlap@10, and nDCG@10 taking FTS5's own bm25 of each returned row as
 * its gain (1.0 when an engine returns FTS5's top 10 in FTS5's order).
 *
 * Third column: LanceDB's full-text index (BM25; `@lancedb/lancedb` 0.31.0, English stemming,
 * no stop words, ASCII folding, no positions), on the same rows, asked the same words (those of
 * the MATCH expression; its default match is OR). Not a dependency of the project: its optional
 * dependencies pull @huggingface/transformers 3.0.2 → onnxruntime-node 1.19.2, whose install
 * script downloads CUDA binaries from GitHub on Linux x64. Install it apart, without scripts, and
 * point the bench at it:
 *   mkdir /tmp/lancedb-0.31 && cd /tmp/lancedb-0.31 && echo '{}' > package.json \
 *     && npm install --ignore-scripts @lancedb/lancedb@0.31.0 apache-arrow@18.1.0
 *   ADAM_BENCH_LANCEDB=/tmp/lancedb-0.31 npx tsx --conditions=adam-source bench/keyword.bench.ts
 * Without it the column is left out.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ftsMatch, queryWords } from '../src/services/hybrid-search.js';
import { KeywordIndex } from '../src/keyword/keyword-index.js';
import { parseMatch } from '../src/keyword/keyword-query.js';
import { termText, terms } from '../src/keyword/tokenizer.js';
import { footer, header, mib, pageSentences, rng, seconds, summarize, table } from './common.js';
import { ensureExportData } from './export-data.js';

const K = 10;
const PER_KIND = 150;
const WARMUP = 20;
const SIZES = (process.argv[2] ?? '50000,200000,1000000').split(',').map(Number);
const TOKENIZE = 'porter unicode61 remove_diacritics 2';

header('keyword: FTS5 bm25 SQL vs the keyword engine (block-max MaxScore) vs LanceDB FTS, k = 10');
const started = performance.now();
const dataDir = await ensureExportData();
const source = new Database(path.join(dataDir, 'adam.db'), { readonly: true });
const total = source.prepare('SELECT COUNT(*) FROM snippets').pluck().get() as number;

interface Query {
  kind: 'common' | 'rare' | 'question';
  text: string;
  match: string;
}

type Side = 'fts' | 'ours' | 'lance';

interface SizeResult {
  size: number;
  buildMs: number;
  lanceBuildMs: number;
  bytes: number;
  rssDelta: number;
  lat: Record<string, Record<Side, number[]>>;
  /** The engine's CPU time per query (getrusage): its work without the waits for a core. */
  cpu: Record<string, number[]>;
  overlap: Record<string, number[]>;
  ndcg: Record<string, Record<Side, number[]>>;
  scoredShare: Record<string, number[]>;
}

/** The little of LanceDB's API the bench uses. */
interface LanceTable {
  add(rows: Record<string, unknown>[]): Promise<unknown>;
  createIndex(column: string, options: { config: unknown }): Promise<void>;
  query(): {
    fullTextSearch(q: string): {
      select(c: string[]): { limit(n: number): { toArray(): Promise<{ id: number }[]> } };
    };
  };
}
interface LanceModule {
  connect(uri: string): Promise<{
    createTable(name: string, rows: Record<string, unknown>[]): Promise<LanceTable>;
    close?(): void;
  }>;
  Index: { fts(o: Record<string, unknown>): unknown };
}

async function loadLance(): Promise<LanceModule | null> {
  const dir = process.env.ADAM_BENCH_LANCEDB;
  const where = dir
    ? path.join(dir, 'node_modules/@lancedb/lancedb/dist/index.js')
    : '@lancedb/lancedb';
  try {
    return (await import(where)) as LanceModule;
  } catch (e) {
    console.log(
      `LanceDB: not loaded from ${where} (${(e as Error).message.split('\n')[0]}): column left out`,
    );
    return null;
  }
}
const lance = await loadLance();

/** The words of a MATCH expression made by ftsMatch ("a" OR "b" → a b). */
const matchWords = (match: string) =>
  match
    .split(' OR ')
    .map((w) => w.replaceAll('"', ''))
    .join(' ');

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
      // What the app indexes (migration 27's view: title, section and text), as the real
      // snippets_fts table at 1M does.
      .prepare('SELECT id, text FROM snippets_keyword WHERE id <= ? ORDER BY id')
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
  const buildCpu0 = process.cpuUsage();
  const index = KeywordIndex.build(rowsOf());
  const buildCpu = process.cpuUsage(buildCpu0);
  const buildMs = performance.now() - t0;
  globalThis.gc?.();
  const rssDelta = process.memoryUsage().rss - rssBefore;
  const stats = index.stats();
  console.log(
    `engine: built in ${seconds(buildMs)} (CPU ${seconds((buildCpu.user + buildCpu.system) / 1000)}, ` +
      `reading the rows included); ${stats.docs.toLocaleString('en')} docs, ` +
      `${stats.terms.toLocaleString('en')} terms, ${stats.postings.toLocaleString('en')} postings, ` +
      `arrays ${mib(stats.bytes)}, RSS +${mib(rssDelta)}`,
  );

  // LanceDB: a table of the same rows, then its full-text index.
  let lanceTable: LanceTable | null = null;
  let lanceBuildMs = 0;
  if (lance) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'adam-bench-lance-'));
    tmpDirs.push(dir);
    const t1 = performance.now();
    const db = await lance.connect(dir);
    let batch: Record<string, unknown>[] = [];
    for (const r of rowsOf()) {
      batch.push({ id: r.id, text: r.text });
      if (batch.length === 50_000) {
        if (lanceTable) await lanceTable.add(batch);
        else lanceTable = await db.createTable('snippets', batch);
        batch = [];
      }
    }
    if (batch.length > 0) {
      if (lanceTable) await lanceTable.add(batch);
      else lanceTable = await db.createTable('snippets', batch);
    }
    const loaded = performance.now() - t1;
    await lanceTable!.createIndex('text', {
      config: lance.Index.fts({
        withPosition: false,
        stem: true,
        language: 'English',
        lowercase: true,
        removeStopWords: false,
        asciiFolding: true,
      }),
    });
    lanceBuildMs = performance.now() - t1;
    console.log(
      `LanceDB: table + full-text index in ${seconds(lanceBuildMs)} (rows ${seconds(loaded)}, ` +
        `index ${seconds(lanceBuildMs - loaded)}), on disk ${mib(dirBytes(dir))}`,
    );
  }
  const lanceSearch = async (q: Query) =>
    lanceTable!
      .query()
      .fullTextSearch(matchWords(q.match))
      .select(['id', '_score'])
      .limit(K)
      .toArray();

  const queries = makeQueries(index, size);
  const res: SizeResult = {
    size,
    buildMs,
    lanceBuildMs,
    bytes: stats.bytes,
    rssDelta,
    lat: {},
    cpu: {},
    overlap: {},
    ndcg: {},
    scoredShare: {},
  };
  for (const q of queries.slice(0, WARMUP)) {
    ftsQuery.all(q.match, K);
    index.search(parseMatch(q.match), K);
    if (lanceTable) await lanceSearch(q);
  }
  for (const q of queries) {
    const a = performance.now();
    const theirs = ftsQuery.all(q.match, K) as { id: number; bm25: number }[];
    const b = performance.now();
    const cpu0 = process.cpuUsage();
    const ours = index.search(parseMatch(q.match), K);
    const cpu1 = process.cpuUsage(cpu0);
    const c = performance.now();
    (res.cpu[q.kind] ??= []).push((cpu1.user + cpu1.system) / 1000);
    const scored = index.scoredInLastSearch;
    const d = performance.now();
    const lanceHits = lanceTable ? await lanceSearch(q) : [];
    const e = performance.now();
    const lat = (res.lat[q.kind] ??= { fts: [], ours: [], lance: [] });
    lat.fts.push(b - a);
    lat.ours.push(c - b);
    if (lanceTable) lat.lance.push(e - d);
    const ideal = new Set(theirs.map((h) => h.id));
    (res.overlap[q.kind] ??= []).push(
      theirs.length === 0 ? 1 : ours.filter((h) => ideal.has(h.id)).length / theirs.length,
    );
    // Gain: FTS5's own bm25 of the row (the engine's score is not trusted here).
    const gain = (id: number) =>
      -((ftsScores.get(q.match, BigInt(id)) as { bm25: number } | undefined)?.bm25 ?? 0);
    const dcg = (gains: number[]) => gains.reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
    const idealDcg = dcg(theirs.map((h) => -h.bm25));
    const ndcg = (res.ndcg[q.kind] ??= { fts: [], ours: [], lance: [] });
    ndcg.ours.push(idealDcg === 0 ? 1 : dcg(ours.map((h) => gain(h.id))) / idealDcg);
    if (lanceTable)
      ndcg.lance.push(idealDcg === 0 ? 1 : dcg(lanceHits.map((h) => gain(h.id))) / idealDcg);
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
      'engine CPU p50/p95',
      'overlap@10',
      'nDCG@10',
      'scored/postings',
      'LanceDB p50',
      'LanceDB p95',
      'LanceDB nDCG@10',
    ],
    Object.entries(res.lat).map(([kind, l]) => {
      const f = summarize(l.fts);
      const o = summarize(l.ours);
      const x = l.lance.length > 0 ? summarize(l.lance) : null;
      const u = summarize(res.cpu[kind]!);
      return [
        kind,
        l.fts.length,
        `${f.p50.toFixed(2)} ms`,
        `${f.p95.toFixed(2)} ms`,
        `${o.p50.toFixed(3)} ms`,
        `${o.p95.toFixed(3)} ms`,
        `${u.p50.toFixed(2)}/${u.p95.toFixed(2)} ms`,
        mean(res.overlap[kind]!).toFixed(4),
        mean(res.ndcg[kind]!.ours).toFixed(4),
        `${(100 * mean(res.scoredShare[kind]!)).toFixed(1)}%`,
        x ? `${x.p50.toFixed(2)} ms` : '–',
        x ? `${x.p95.toFixed(2)} ms` : '–',
        x ? mean(res.ndcg[kind]!.lance).toFixed(4) : '–',
      ];
    }),
  );
  verdict(res);
  if (fts !== source) fts.close();
}

if (results.length > 1) {
  console.log('\nGrowth of p95 between sizes (FTS5 / engine / LanceDB):');
  const rows: string[][] = [];
  for (let i = 1; i < results.length; i++) {
    const a = results[i - 1]!;
    const b = results[i]!;
    for (const kind of Object.keys(b.lat)) {
      if (!a.lat[kind]) continue;
      const p95 = (r: SizeResult, side: Side) => summarize(r.lat[kind]![side]).p95;
      const ratio = (side: Side) =>
        a.lat[kind]![side].length && b.lat[kind]![side].length
          ? `${(p95(b, side) / p95(a, side)).toFixed(1)}×`
          : '–';
      rows.push([
        `${a.size.toLocaleString('en')} → ${b.size.toLocaleString('en')}`,
        kind,
        ratio('fts'),
        ratio('ours'),
        ratio('lance'),
      ]);
    }
    rows.push([
      `${a.size.toLocaleString('en')} → ${b.size.toLocaleString('en')}`,
      'build',
      '',
      `${(b.buildMs / a.buildMs).toFixed(1)}×`,
      a.lanceBuildMs ? `${(b.lanceBuildMs / a.lanceBuildMs).toFixed(1)}×` : '–',
    ]);
  }
  table(['sizes', 'kind', 'FTS5 p95', 'engine p95', 'LanceDB p95'], rows);
}

source.close();
for (const d of tmpDirs) fs.rmSync(d, { recursive: true, force: true });
footer(started);

/**
 * Which engine to choose at this size, by measurement: the fastest p95 on every kind among the
 * engines whose ranking stays within 0.005 nDCG@10 of FTS5's (the issue's quality bar).
 */
function verdict(res: SizeResult): void {
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / (xs.length || 1);
  const names: Record<Side, string> = { fts: 'FTS5', ours: 'engine', lance: 'LanceDB' };
  const lines: string[] = [];
  const wins: Record<Side, number> = { fts: 0, ours: 0, lance: 0 };
  for (const [kind, l] of Object.entries(res.lat)) {
    const sides = (['fts', 'ours', 'lance'] as Side[]).filter((s) => l[s].length > 0);
    const quality = (s: Side) => (s === 'fts' ? 1 : mean(res.ndcg[kind]![s]));
    const ok = sides.filter((s) => quality(s) >= 1 - 0.005);
    const best = ok.sort((x, y) => summarize(l[x]).p95 - summarize(l[y]).p95)[0]!;
    wins[best]++;
    const out = sides
      .filter((s) => !ok.includes(s))
      .map((s) => `${names[s]} out on quality (nDCG@10 ${quality(s).toFixed(4)})`);
    lines.push(
      `${kind}: ${names[best]} (p95 ${summarize(l[best]).p95.toFixed(2)} ms)${out.length ? `; ${out.join(', ')}` : ''}`,
    );
  }
  const winner = (Object.keys(wins) as Side[]).sort((x, y) => wins[y] - wins[x])[0]!;
  console.log(`choice at ${res.size.toLocaleString('en')}: ${names[winner]} — ${lines.join('; ')}`);
}

function dirBytes(dir: string): number {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile()) n += fs.statSync(path.join(e.parentPath, e.name)).size;
  return n;
}

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
  let rare = words.filter((w) => {
    const n = df(w);
    return n >= 2 && n <= 20;
  });
  if (rare.length < 20) {
    // The vocabulary's tail: terms that read back as themselves (their own stem). At 1M the
    // data's words are all common (suffixed copies of 250k rows); its rare terms are numbers.
    rare = index
      .termsWithPostings(2, 20)
      .map(termText)
      .filter((w) => /^[a-z0-9]{3,}$/.test(w) && terms(w)[0] === w && ftsMatch(w, 'any'))
      .sort();
  }
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
