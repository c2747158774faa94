import type { IndexOptions } from '../vector-index.js';

/**
 * A graph a narrow walk searches badly: sparse (4 links a node), searched at the smallest
 * expansion, over 3,000 random 32-d vectors (built at expansion 64, so a wide walk reaches its
 * nodes); the wide walk's tests compare both walks with the exact top 10 of 30 other random
 * vectors.
 */
export const SPARSE_GRAPH_DIM = 32;
export const SPARSE_GRAPH_OPTIONS: IndexOptions = {
  connectivity: 4,
  expansionAdd: 64,
  expansionSearch: 1,
};

function randomVector(seed: number): Float32Array {
  const v = new Float32Array(SPARSE_GRAPH_DIM);
  let x = seed;
  for (let i = 0; i < SPARSE_GRAPH_DIM; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    v[i] = x / 2147483648 - 0.5;
  }
  return v;
}

export const sparseGraphRows = Array.from({ length: 3000 }, (_, i) => ({
  key: i + 1,
  vector: randomVector(i + 1),
}));

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s / (Math.hypot(...a) * Math.hypot(...b));
}

/** Each query and its exact top 10 keys among the rows. */
export const sparseGraphQueries = Array.from({ length: 30 }, (_, q) => {
  const vector = randomVector(100_000 + q);
  const top = sparseGraphRows
    .map((r) => ({ key: r.key, s: cosine(vector, r.vector) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, 10);
  return { vector, exact: new Set(top.map((r) => r.key)) };
});
