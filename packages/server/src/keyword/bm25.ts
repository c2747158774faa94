/**
 * FTS5's bm25() (fts5_aux.c, fts5Bm25Function), term by term, with its constants and its idf:
 * written in the same operation order so that a score here equals SQLite's to the last bit when
 * the terms are added in the query's phrase order.
 */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/** FTS5's idf: log((N − n + 0.5) / (n + 0.5)), and 1e-6 where that is not positive. */
export function bm25Idf(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/** One phrase's part of the score of a row of `length` terms where it occurs `tf` times. */
export function bm25Term(idf: number, tf: number, length: number, avgdl: number): number {
  return idf * ((tf * (BM25_K1 + 1.0)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl)));
}

/** bm25Term without its idf: idf · bm25Tf(…) is bm25Term(idf, …) to the bit (same operations). */
export function bm25Tf(tf: number, length: number, avgdl: number): number {
  return (tf * (BM25_K1 + 1.0)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl));
}
