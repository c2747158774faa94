/**
 * Offline fusion tuning on dumped candidate lists (relevance/dump-candidates.ts), by ONE objective:
 *
 *   worst of  readme − (keyword + 0.01),  eval − max(keyword, vector),
 *             paraphrase − vector,        short − vector          (nDCG@10, higher is better)
 *
 * with a constraint: a useless vector side (cosines permuted as in relevance.bench.ts) keeps
 * readme and eval ≥ keyword − 0.005. Candidates are cut to each side's 50 best (the service's
 * HYBRID_DEPTH). Every variant is scored on the even halves (the choice) and the odd halves (the
 * check), printed best-first by the even objective:
 *
 *   npx tsx --conditions=adam-source bench/relevance/tune-fusion.ts /tmp/out-dir [variant filter]
 */
import fs from 'node:fs';
import path from 'node:path';
import { scoreRankings, type EvalSet } from '../eval/evaluate.js';
import { ftsMatch, type SearchCandidate } from '../../src/services/hybrid-search.js';
import { RELEVANCE_SETS } from './sets.js';
import { FUSION_VARIANTS, type Variant } from './fusion-forms.js';

const dir = process.argv[2] ?? '/tmp/fusion-candidates';
const filter = process.argv[3];
const DEPTH = 50;

type Cand = SearchCandidate & { doc: string };
interface Loaded {
  name: string;
  set: EvalSet;
  documents: number;
  lists: Cand[][];
  terms: number[];
}

/** Each side's `depth` best by its own score, the rest dropped (what the service fuses). */
function cut(list: Cand[], depth: number): Cand[] {
  const top = (side: 'keyword' | 'vector') =>
    list
      .filter((c) => c[side] !== null && c.foundBy.includes(side))
      .sort((a, b) => b[side]! - a[side]! || a.id - b.id)
      .slice(0, depth)
      .map((c) => c.id);
  const keep = new Set([...top('keyword'), ...top('vector')]);
  return list.filter((c) => keep.has(c.id));
}

function shuffled(c: readonly Cand[]): Cand[] {
  return c.map((x, i) => ({ ...x, vector: c[(i * 37 + 11) % c.length]!.vector }));
}

const sets: Loaded[] = RELEVANCE_SETS.map(([name, load]) => {
  const set = load();
  const dump = JSON.parse(fs.readFileSync(path.join(dir, `${name}.json`), 'utf8')) as {
    documents: number;
    lists: Cand[][];
  };
  return {
    name,
    set,
    documents: dump.documents,
    lists: dump.lists.map((l) => cut(l, DEPTH)),
    terms: set.queries.map((q) => {
      const m = ftsMatch(q.text, 'any');
      return m ? m.split(' OR ').length : 0;
    }),
  };
});

type Half = 'all' | 'even' | 'odd';
function ndcg(s: Loaded, rank: (list: Cand[], i: number) => string[], half: Half): number {
  const idx = s.set.queries
    .map((_q, i) => i)
    .filter((i) => half === 'all' || i % 2 === (half === 'even' ? 0 : 1));
  const sub = { docs: s.set.docs, queries: idx.map((i) => s.set.queries[i]!) };
  return scoreRankings(sub, (_q, j) => rank(s.lists[idx[j]!]!, idx[j]!)).ndcg10;
}

const sideRank = (side: 'keyword' | 'vector') => (list: Cand[]) =>
  list
    .filter((c) => c[side] !== null)
    .sort((a, b) => b[side]! - a[side]! || a.id - b.id)
    .map((c) => c.doc);

function fuseRank(s: Loaded, v: Variant, shuffle: boolean) {
  return (list: Cand[], i: number) => {
    const l = shuffle ? shuffled(list) : list;
    const scores = v.score(l, { terms: s.terms[i]!, documents: s.documents });
    return l
      .map((c, j) => ({ c, s: scores[j]! }))
      .sort((a, b) => b.s - a.s || a.c.id - b.c.id)
      .map((r) => r.c.doc);
  };
}

interface Row {
  label: string;
  obj: Record<Half, number>;
  shuf: Record<Half, number>;
  per: Record<string, Record<Half, number>>;
}

const halves: Half[] = ['even', 'odd', 'all'];
const base = new Map(
  sets.map((s) => [
    s.name,
    Object.fromEntries(
      halves.map((h) => [
        h,
        { k: ndcg(s, sideRank('keyword'), h), v: ndcg(s, sideRank('vector'), h) },
      ]),
    ) as Record<Half, { k: number; v: number }>,
  ]),
);

function margin(name: string, h: Half, hybrid: number): number {
  const b = base.get(name)![h];
  if (name === 'readme') return hybrid - (b.k + 0.01);
  if (name === 'eval') return hybrid - Math.max(b.k, b.v);
  return hybrid - b.v;
}

const rows: Row[] = [];
for (const v of FUSION_VARIANTS) {
  if (filter && !v.label.includes(filter)) continue;
  const per: Row['per'] = {};
  const obj = {} as Record<Half, number>;
  const shuf = {} as Record<Half, number>;
  for (const h of halves) {
    let worst = Infinity;
    let shufWorst = Infinity;
    for (const s of sets) {
      const x = ndcg(s, fuseRank(s, v, false), h);
      (per[s.name] ??= {} as Record<Half, number>)[h] = x;
      worst = Math.min(worst, margin(s.name, h, x));
      if (s.name === 'readme' || s.name === 'eval') {
        const y = ndcg(s, fuseRank(s, v, true), h);
        per[`${s.name}~`] ??= {} as Record<Half, number>;
        per[`${s.name}~`]![h] = y;
        shufWorst = Math.min(shufWorst, y - (base.get(s.name)![h].k - 0.005));
      }
    }
    obj[h] = worst;
    shuf[h] = shufWorst;
  }
  rows.push({ label: v.label, obj, shuf, per });
}

const f = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(3);
console.log(
  'base (even/odd/all) ' +
    sets
      .map((s) => {
        const b = base.get(s.name)!;
        const hs: Half[] = process.env.ODD === '1' ? halves : ['even'];
        return `${s.name} kw ${hs.map((h) => b[h].k.toFixed(3)).join('/')} vec ${hs.map((h) => b[h].v.toFixed(3)).join('/')}`;
      })
      .join(' | '),
);
rows.sort((a, b) => {
  const feasA = a.shuf.even >= 0 ? 1 : 0;
  const feasB = b.shuf.even >= 0 ? 1 : 0;
  return feasB - feasA || b.obj.even - a.obj.even;
});
const show = Number(process.env.SHOW ?? 40);
// The odd halves stay hidden unless asked for (ODD=1): choose on the even halves first.
const odd = process.env.ODD === '1';
for (const r of rows.slice(0, show)) {
  const cols = (x: Record<Half, number>) =>
    odd ? `${f(x.even)}/${f(x.odd)}/${f(x.all)}` : f(x.even);
  console.log(
    `${r.label.padEnd(40)} obj ${cols(r.obj)} | shuf ${cols(r.shuf)} | ` +
      Object.entries(r.per)
        .map(
          ([n, x]) =>
            `${n} ${odd ? `${x.even.toFixed(3)}/${x.odd.toFixed(3)}/${x.all.toFixed(3)}` : x.even.toFixed(3)}`,
        )
        .join(' '),
  );
}
