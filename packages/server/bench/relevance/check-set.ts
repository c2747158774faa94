/**
 * Checks the README relevance set and prints how hard it is for keyword matching (not a test):
 *
 *   cd packages/server && npx tsx bench/relevance/check-set.ts
 *
 * Fails (exit 1) on a duplicate id, an empty query, a relevant id that is not a passage, or a
 * grade on an unlabelled id. Then prints, per query kind, the content-word overlap between each
 * query and its relevant passages — Jaccard of lower-cased, stop-word-filtered, crudely stemmed
 * word sets, and the share of the query's words found in the passage — with a histogram, and
 * next to it a plain BM25 over the same words as the reference a keyword ranker reaches.
 */
import { scoreRankings, type EvalResult } from '../eval/evaluate.js';
import { loadReadmeCorpus, loadReadmeSet, type ReadmeQuery } from './readme-set.js';

const STOP = new Set(
  (
    'a an the and or but if then else of to in on at by for with from into onto over under ' +
    'about as is are was were be been being am do does did doing have has had having i me my ' +
    'we our you your he she it its they them their this that these those there here what which ' +
    'who whom whose when where why how all any both each few more most other some such no nor ' +
    'not only own same so than too very can could will would shall should may might must just ' +
    'also still yet even ever once again out up down off one two get got make made use used ' +
    'using way want need like instead without within while after before because through per ' +
    'every much many first without let lets via e g ie eg etc s t'
  ).split(/\s+/),
);

/** Crude stemming: enough to fold plurals and common suffixes onto one form. */
function stem(word: string): string {
  const rules: [RegExp, string][] = [
    [/ies$/, 'y'],
    [/(ss)es$/, '$1'],
    [/([^s])s$/, '$1'],
    [/ing$/, ''],
    [/ed$/, ''],
    [/ly$/, ''],
    [/ation$/, ''],
    [/er$/, ''],
    [/e$/, ''],
  ];
  let w = word;
  for (const [re, to] of rules) {
    const next = w.replace(re, to);
    if (next !== w && next.length >= 3) w = next;
  }
  return w;
}

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => w.length > 1 && !STOP.has(w))
    .map(stem);
}

const wordSet = (text: string): Set<string> => new Set(words(text));

function jaccard(a: Set<string>, b: Set<string>): number {
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
}

function coverage(query: Set<string>, doc: Set<string>): number {
  let hit = 0;
  for (const w of query) if (doc.has(w)) hit++;
  return query.size === 0 ? 0 : hit / query.size;
}

// ---- validation ----------------------------------------------------------------------------
const corpus = loadReadmeCorpus();
const set = loadReadmeSet();
const problems: string[] = [];
const docIds = new Set<string>();
for (const d of corpus.docs) {
  if (docIds.has(d.id)) problems.push(`duplicate document id ${d.id}`);
  docIds.add(d.id);
  if (d.text.trim() === '') problems.push(`empty document ${d.id}`);
}
const queryIds = new Set<string>();
for (const q of set.queries) {
  if (queryIds.has(q.id)) problems.push(`duplicate query id ${q.id}`);
  queryIds.add(q.id);
  if (q.text.trim() === '') problems.push(`empty query ${q.id}`);
  if (q.relevant.length === 0) problems.push(`query ${q.id} has no relevant document`);
  if (new Set(q.relevant).size !== q.relevant.length) problems.push(`query ${q.id} repeats an id`);
  for (const id of q.relevant) {
    if (!docIds.has(id)) problems.push(`query ${q.id}: relevant id ${id} is not a document`);
  }
  for (const [id, grade] of Object.entries(q.grades ?? {})) {
    if (!q.relevant.includes(id)) problems.push(`query ${q.id}: grade for unlabelled ${id}`);
    if (!(grade > 0)) problems.push(`query ${q.id}: grade of ${id} must be positive`);
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}

// ---- statistics ----------------------------------------------------------------------------
const docWords = new Map(corpus.docs.map((d) => [d.id, wordSet(d.text)]));
const kinds = ['semantic', 'rare', 'ordinary'] as const;
const packages = new Set(corpus.docs.map((d) => d.package));
const docLengths = corpus.docs.map((d) => d.text.split(/\s+/).length);
const relevantCounts = set.queries.map((q) => q.relevant.length);

console.log(
  `documents: ${corpus.docs.length} passages from ${packages.size} packages, ` +
    `${Math.min(...docLengths)}–${Math.max(...docLengths)} words ` +
    `(mean ${(docLengths.reduce((a, b) => a + b, 0) / docLengths.length).toFixed(0)})`,
);
console.log(
  `queries: ${set.queries.length} (` +
    kinds.map((k) => `${set.queries.filter((q) => q.kind === k).length} ${k}`).join(', ') +
    `); relevant per query: ` +
    [1, 2, 3]
      .map((n) => `${relevantCounts.filter((c) => (n === 3 ? c >= 3 : c === n)).length}× ${n}`)
      .join(', ')
      .replace('× 3', '× 3+') +
    `; ${set.queries.filter((q) => q.grades).length} graded`,
);
console.log('all ids unique, every relevant id exists, no empty query\n');

/** Mean over a query's relevant passages of `f(query words, passage words)`. */
const perQuery = (q: ReadmeQuery, f: (a: Set<string>, b: Set<string>) => number): number => {
  const qw = wordSet(q.text);
  return q.relevant.reduce((s, id) => s + f(qw, docWords.get(id)!), 0) / q.relevant.length;
};
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

const BINS = [0, 0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 1.0001];
const binLabel = (i: number) =>
  i === BINS.length - 2
    ? `>= ${BINS[i]!.toFixed(2)}    `
    : `${BINS[i]!.toFixed(2)}–${BINS[i + 1]!.toFixed(2)}`;
const groups: [string, readonly ReadmeQuery[]][] = [
  ...kinds.map((k) => [k, set.queries.filter((q) => q.kind === k)] as [string, ReadmeQuery[]]),
  ['all', set.queries],
];

console.log('content-word overlap between each query and its relevant passages');
console.log('kind        queries  mean Jaccard  mean share of query words in passage  with none');
for (const [name, qs] of groups) {
  const jac = qs.map((q) => perQuery(q, jaccard));
  const cov = qs.map((q) => perQuery(q, coverage));
  const none = cov.filter((c) => c === 0).length;
  console.log(
    `${name.padEnd(11)} ${String(qs.length).padStart(7)}  ${mean(jac).toFixed(3).padStart(12)}  ` +
      `${mean(cov).toFixed(3).padStart(36)}  ${String(none).padStart(9)}`,
  );
}

console.log('\nhistogram of Jaccard overlap (queries per bin)');
console.log(`bin          ${groups.map(([n]) => n.padStart(9)).join('')}`);
for (let i = 0; i < BINS.length - 1; i++) {
  const counts = groups.map(([, qs]) => {
    const n = qs.filter((q) => {
      const j = perQuery(q, jaccard);
      return j >= BINS[i]! && j < BINS[i + 1]!;
    }).length;
    return String(n).padStart(9);
  });
  console.log(`${binLabel(i)}    ${counts.join('')}`);
}

// ---- reference: BM25 over the same words ---------------------------------------------------
const docList = corpus.docs.map((d) => ({ id: d.id, words: words(d.text) }));
const avgLen = mean(docList.map((d) => d.words.length));
const df = new Map<string, number>();
for (const d of docList) for (const w of new Set(d.words)) df.set(w, (df.get(w) ?? 0) + 1);
const tf = docList.map((d) => {
  const m = new Map<string, number>();
  for (const w of d.words) m.set(w, (m.get(w) ?? 0) + 1);
  return m;
});
function bm25(query: string): string[] {
  const qw = [...new Set(words(query))];
  const n = docList.length;
  return docList
    .map((d, i) => {
      let score = 0;
      for (const w of qw) {
        const f = tf[i]!.get(w);
        if (!f) continue;
        const idf = Math.log(1 + (n - df.get(w)! + 0.5) / (df.get(w)! + 0.5));
        score += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * d.words.length) / avgLen));
      }
      return { id: d.id, score };
    })
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.id.localeCompare(b.id))
    .map((s) => s.id);
}
const fmt = (r: EvalResult) =>
  `nDCG@10 ${r.ndcg10.toFixed(3)}  recall@10 ${r.recall10.toFixed(3)}  MRR@10 ${r.mrr10.toFixed(3)}`;
console.log('\nreference: plain BM25 (k1 1.2, b 0.75) over the same stemmed content words');
for (const [name, qs] of groups) {
  const r = scoreRankings({ docs: set.docs, queries: qs }, (q) => bm25(q.text));
  console.log(`  ${name.padEnd(9)} ${fmt(r)}`);
}
