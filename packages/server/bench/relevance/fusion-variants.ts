/**
 * Fusion methods compared by bench/relevance.bench.ts on the same completed candidate lists
 * (each candidate with both its bm25 relevance and its cosine). The one kept is
 * src/services/hybrid-search.ts's fuseScores; the others stay here as the measured alternatives.
 */
import { ftsMatch, fuseScores, type SearchCandidate } from '../../src/services/hybrid-search.js';

/** What a fusion may know besides the candidates: the query, and how many snippets are stored. */
export interface FusionContext {
  query: string;
  documents: number;
}
export type Fusion = (candidates: readonly SearchCandidate[], ctx: FusionContext) => number[];

const byScore = (candidates: readonly SearchCandidate[], score: (c: SearchCandidate) => number) =>
  candidates
    .map((c) => ({ id: c.id, s: score(c) }))
    .sort((a, b) => b.s - a.s || a.id - b.id)
    .map((r) => r.id);

/** The fusion before issue 25: both sides scaled by their best candidate, weighted sum. */
export function maxScaled(w: number): Fusion {
  return (cands) => {
    const km = Math.max(0, ...cands.map((c) => c.keyword ?? 0));
    const vm = Math.max(0, ...cands.map((c) => c.vector ?? 0));
    const ww = km === 0 ? 1 : vm === 0 ? 0 : w;
    return byScore(
      cands,
      (c) =>
        ww * (vm ? Math.max(0, c.vector ?? 0) / vm : 0) +
        (1 - ww) * (km ? (c.keyword ?? 0) / km : 0),
    );
  };
}

/** Reciprocal rank fusion over each side's ranking of the candidates. */
export function rrf(k: number, depth = Infinity): Fusion {
  return (cands) => {
    const rankOf = (side: 'keyword' | 'vector') => {
      const ranked = cands
        .filter((c) => c[side] !== null)
        .sort((a, b) => b[side]! - a[side]! || a.id - b.id);
      return new Map(ranked.slice(0, depth).map((c, i) => [c.id, i + 1]));
    };
    const kr = rankOf('keyword');
    const vr = rankOf('vector');
    return byScore(cands, (c) => {
      const a = kr.get(c.id);
      const b = vr.get(c.id);
      return (a ? 1 / (k + a) : 0) + (b ? 1 / (k + b) : 0);
    });
  };
}

/** z-scores of each side over the candidates (missing = the side's lowest), weighted sum. */
export function zScore(w: number): Fusion {
  return (cands) => {
    const z = (side: 'keyword' | 'vector') => {
      const vals = cands.map((c) => c[side]).filter((v): v is number => v !== null);
      const lo = vals.length ? Math.min(...vals) : 0;
      const all = cands.map((c) => c[side] ?? lo);
      const mean = all.reduce((s, v) => s + v, 0) / (all.length || 1);
      const sd = Math.sqrt(all.reduce((s, v) => s + (v - mean) ** 2, 0) / (all.length || 1)) || 1;
      return new Map(cands.map((c, i) => [c.id, (all[i]! - mean) / sd]));
    };
    const kz = z('keyword');
    const vz = z('vector');
    return byScore(cands, (c) => (1 - w) * kz.get(c.id)! + w * vz.get(c.id)!);
  };
}

/** Both sides scaled to 0–1 by their own candidates (min–max), weighted sum. */
export function minMax(w: number): Fusion {
  return (cands) => {
    const range = (side: 'keyword' | 'vector') => {
      const vals = cands.map((c) => c[side]).filter((v): v is number => v !== null);
      const lo = vals.length ? Math.min(...vals) : 0;
      const hi = vals.length ? Math.max(...vals) : 0;
      return (v: number | null) => (v === null || hi === lo ? 0 : (v - lo) / (hi - lo));
    };
    const k = range('keyword');
    const v = range('vector');
    return byScore(cands, (c) => (1 - w) * k(c.keyword) + w * v(c.vector));
  };
}

/**
 * The first cut of issue 25 (session 35): (1 − w) × strength × bm25 / best + w × cosine, the
 * keyword evidence linear and the strength's reference at 0.75 × terms × ln N — "before".
 */
export function firstCut(w: number): Fusion {
  return (cands, ctx) => {
    const match = ftsMatch(ctx.query, 'any');
    const terms = match ? match.split(' OR ').length : 0;
    const best = Math.max(0, ...cands.map((c) => c.keyword ?? 0));
    const strength = Math.min(
      1,
      best / (0.75 * Math.max(1, terms) * Math.log(Math.max(3, ctx.documents))),
    );
    return byScore(
      cands,
      (c) =>
        (best > 0 ? ((1 - w) * strength * Math.max(0, c.keyword ?? 0)) / best : 0) +
        w * Math.max(0, c.vector ?? 0),
    );
  };
}

/**
 * The second cut (session 36, fusion2): (1 − w) × (strength × bm25 / best)² + w × cosine with a
 * fixed w, the strength's reference at 0.5 × terms × ln N — what the agreement weight replaced.
 */
export function squaredFixed(w: number): Fusion {
  return (cands, ctx) => {
    const match = ftsMatch(ctx.query, 'any');
    const terms = match ? match.split(' OR ').length : 0;
    const best = Math.max(0, ...cands.map((c) => c.keyword ?? 0));
    const strength = Math.min(
      1,
      best / (0.5 * Math.max(1, terms) * Math.log(Math.max(3, ctx.documents))),
    );
    return byScore(cands, (c) => {
      const k = best > 0 ? (strength * Math.max(0, c.keyword ?? 0)) / best : 0;
      return (1 - w) * k * k + w * Math.max(0, c.vector ?? 0);
    });
  };
}

/** The kept method (fusion.ts fuseScores) with a given vector weight. */
export function kept(w: number): Fusion {
  return (cands, ctx) => {
    const match = ftsMatch(ctx.query, 'any');
    const basis = { terms: match ? match.split(' OR ').length : 0, documents: ctx.documents };
    return fuseScores(cands, w, basis).map((r) => r.candidate.id);
  };
}
