/**
 * Fusion forms compared offline by relevance/tune-fusion.ts on dumped candidate lists: each maps
 * a query's candidates (with the query's word count and the store's size) to one score per
 * candidate, higher first.
 */
import type { KeywordBasis, SearchCandidate } from '../../src/services/fusion.js';

export interface Variant {
  label: string;
  score(list: readonly SearchCandidate[], basis: KeywordBasis): number[];
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** The keyword evidence K (strength × bm25 / best) of each candidate, and the strength. */
function evidence(list: readonly SearchCandidate[], basis: KeywordBasis, reference: number) {
  let best = 0;
  for (const c of list) if (c.keyword !== null && c.keyword > best) best = c.keyword;
  const ref = reference * Math.max(1, basis.terms) * Math.log(Math.max(3, basis.documents));
  const strength = Math.min(1, best / ref);
  const k = list.map((c) => (best > 0 ? (strength * Math.max(0, c.keyword ?? 0)) / best : 0));
  return { k, strength };
}

/** Ids of a side's `n` best among the candidates. */
function topIds(list: readonly SearchCandidate[], side: 'keyword' | 'vector', n: number): number[] {
  return list
    .filter((c) => c[side] !== null)
    .sort((a, b) => b[side]! - a[side]! || a.id - b.id)
    .slice(0, n)
    .map((c) => c.id);
}

/** Share of the keyword side's top n that the vector side's top n also holds (0–1). */
function overlap(list: readonly SearchCandidate[], n: number): number {
  const kw = topIds(list, 'keyword', n);
  if (kw.length === 0) return 1;
  const vec = new Set(topIds(list, 'vector', n));
  return kw.filter((id) => vec.has(id)).length / Math.min(n, kw.length);
}

const cosines = (list: readonly SearchCandidate[]) => list.map((c) => Math.max(0, c.vector ?? 0));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : 0;
}

/** (1 − w)·K^e + w·cos, the kept form (e 2, R 0.5) and its relatives. */
const power = (w: number, e: number, r: number): Variant => ({
  label: `pow w${w} e${e} R${r}`,
  score: (list, basis) => {
    const { k } = evidence(list, basis, r);
    const cos = cosines(list);
    return list.map((_c, i) => (1 - w) * k[i]! ** e + w * cos[i]!);
  },
});

/**
 * Agreement: the vector weight shrinks where a strong keyword side and the vector side disagree
 * on their top n: wq = w × (1 − c × strength^a × (1 − overlap)).
 */
const agree = (w: number, e: number, r: number, n: number, c: number, a: number): Variant => ({
  label: `agree w${w} e${e} R${r} n${n} c${c} a${a}`,
  score: (list, basis) => {
    const { k, strength } = evidence(list, basis, r);
    const o = overlap(list, n);
    const wq = w * (1 - c * strength ** a * (1 - o));
    const cos = cosines(list);
    return list.map((_c, i) => (1 - wq) * k[i]! ** e + wq * cos[i]!);
  },
});

/** Agreement sets the weight: wq = w × (lo + (hi − lo) × overlap of the top n), capped at 1. */
const agreeLin = (w: number, e: number, r: number, n: number, lo: number, hi: number): Variant => ({
  label: `alin w${w} e${e} R${r} n${n} ${lo}->${hi}`,
  score: (list, basis) => {
    const { k } = evidence(list, basis, r);
    const wq = Math.min(1, w * (lo + (hi - lo) * overlap(list, n)));
    const cos = cosines(list);
    return list.map((_c, i) => (1 - wq) * k[i]! ** e + wq * cos[i]!);
  },
});

/** Agreement moves the exponent: e = eLo when the sides disagree, eHi when they agree. */
const agreeExp = (w: number, r: number, n: number, eLo: number, eHi: number): Variant => ({
  label: `agreeExp w${w} R${r} n${n} e${eLo}->${eHi}`,
  score: (list, basis) => {
    const { k } = evidence(list, basis, r);
    const o = overlap(list, n);
    const e = eLo + (eHi - eLo) * o;
    const cos = cosines(list);
    return list.map((_c, i) => (1 - w) * k[i]! ** e + w * cos[i]!);
  },
});

/** Strength decides the weight: wq = wLo at full strength, wHi with no match. */
const strengthWeight = (wLo: number, wHi: number, e: number, r: number, p: number): Variant => ({
  label: `sw ${wLo}->${wHi} e${e} R${r} p${p}`,
  score: (list, basis) => {
    const { k, strength } = evidence(list, basis, r);
    const wq = wHi + (wLo - wHi) * strength ** p;
    const cos = cosines(list);
    return list.map((_c, i) => (1 - wq) * k[i]! ** e + wq * cos[i]!);
  },
});

/** The cosine against the query's own distribution: (cos − median) / (top − median), 0–1. */
const relCos = (w: number, e: number, r: number, tau: number): Variant => ({
  label: `relcos w${w} e${e} R${r} tau${tau}`,
  score: (list, basis) => {
    const { k } = evidence(list, basis, r);
    const vecs = list.filter((c) => c.vector !== null).map((c) => c.vector!);
    const top = vecs.length ? Math.max(...vecs) : 0;
    const med = median(vecs);
    const spread = top - med;
    // tau 0: purely relative; else the vector side's weight also grows with its margin.
    const wq = tau === 0 ? w : w * clamp01(spread / tau);
    return list.map(
      (c, i) =>
        (1 - wq) * k[i]! ** e +
        wq * (spread > 0 && c.vector !== null ? clamp01((c.vector - med) / spread) : 0),
    );
  },
});

/** Agreement and strength both: vector weight from how much a strong keyword side is contradicted, then relcos. */
const agreeRel = (w: number, e: number, r: number, n: number, c: number): Variant => ({
  label: `agreeRel w${w} e${e} R${r} n${n} c${c}`,
  score: (list, basis) => {
    const { k, strength } = evidence(list, basis, r);
    const o = overlap(list, n);
    const wq = w * (1 - c * strength * (1 - o));
    const vecs = list.filter((x) => x.vector !== null).map((x) => x.vector!);
    const top = vecs.length ? Math.max(...vecs) : 0;
    const med = median(vecs);
    const spread = top - med;
    return list.map(
      (x, i) =>
        (1 - wq) * k[i]! ** e +
        wq * (spread > 0 && x.vector !== null ? clamp01((x.vector - med) / spread) : 0),
    );
  },
});

/**
 * Gated cosine: a strong keyword side lets the cosine reorder only what it matched. With
 * ρ = bm25 / best, the cosine counts g = 1 − t·(1 − ρ^b), t = strength^a (or, with agreement,
 * strength^a × (1 − overlap of the top n)): full match → keyword decides which rows, the cosine
 * their order; no or partial match → the cosine decides.
 */
const gate = (w: number, e: number, r: number, a: number, b: number, n: number): Variant => ({
  label: `gate w${w} e${e} R${r} a${a} b${b} n${n}`,
  score: (list, basis) => {
    const { k, strength } = evidence(list, basis, r);
    const t = strength ** a * (n > 0 ? 1 - overlap(list, n) : 1);
    const cos = cosines(list);
    return list.map((_c, i) => {
      const rho = strength > 0 ? k[i]! / strength : 0;
      return (1 - w) * k[i]! ** e + w * cos[i]! * (1 - t * (1 - rho ** b));
    });
  },
});

const rrf = (kk: number, wv: number): Variant => ({
  label: `rrf k${kk} wv${wv}`,
  score: (list) => {
    const kr = new Map(topIds(list, 'keyword', 1e9).map((id, i) => [id, i + 1]));
    const vr = new Map(topIds(list, 'vector', 1e9).map((id, i) => [id, i + 1]));
    return list.map((c) => {
      const a = kr.get(c.id);
      const b = vr.get(c.id);
      return (1 - wv) * (a ? 1 / (kk + a) : 0) + wv * (b ? 1 / (kk + b) : 0);
    });
  },
});

const grid = <T>(...axes: T[][]): T[][] =>
  axes.reduce<T[][]>((acc, axis) => acc.flatMap((p) => axis.map((x) => [...p, x])), [[]]);

export const FUSION_VARIANTS: Variant[] = [
  power(0.4, 2, 0.5),
  power(0.4, 1, 0.75),
  ...grid([0.3, 0.4, 0.5], [1, 1.5, 2], [0.5, 0.75, 1]).map(([w, e, r]) => power(w!, e!, r!)),
  ...grid([0.4, 0.5, 0.6], [1, 1.5, 2], [0.5, 0.75], [10, 20], [0.5, 0.75, 1], [1, 2]).map(
    ([w, e, r, n, c, a]) => agree(w!, e!, r!, n!, c!, a!),
  ),
  ...grid([0.4, 0.5, 0.6, 0.7], [1.5, 2], [0.5, 0.75], [5, 10], [0.5, 0.75, 1], [0]).map(
    ([w, e, r, n, c, a]) => agree(w!, e!, r!, n!, c!, a!),
  ),
  ...grid([0.4], [1.5, 2], [0.5, 0.75], [3, 5, 10], [0.25, 0.5], [1, 1.5, 2]).map(
    ([w, e, r, n, lo, hi]) => agreeLin(w!, e!, r!, n!, lo!, hi!),
  ),
  ...grid([0.3, 0.4, 0.5], [0.5, 0.75], [10], [1], [2, 3]).map(([w, r, n, lo, hi]) =>
    agreeExp(w!, r!, n!, lo!, hi!),
  ),
  ...grid([0.1, 0.2, 0.3], [0.5, 0.6, 0.8], [1, 2], [0.5, 0.75, 1], [1, 2]).map(
    ([lo, hi, e, r, p]) => strengthWeight(lo!, hi!, e!, r!, p!),
  ),
  ...grid([0.2, 0.3, 0.4, 0.5], [1, 2], [0.5, 0.75], [0, 0.1, 0.2]).map(([w, e, r, t]) =>
    relCos(w!, e!, r!, t!),
  ),
  ...grid([0.3, 0.4, 0.5], [1, 2], [0.5, 0.75], [10, 20], [0.5, 1]).map(([w, e, r, n, c]) =>
    agreeRel(w!, e!, r!, n!, c!),
  ),
  ...grid([0.4, 0.5, 0.6], [1, 2], [0.5, 0.75, 1], [1, 2], [0.5, 1], [0, 10]).map(
    ([w, e, r, a, b, n]) => gate(w!, e!, r!, a!, b!, n!),
  ),
  ...grid([10, 60], [0.3, 0.5]).map(([k, wv]) => rrf(k!, wv!)),
];
