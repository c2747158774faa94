/** What every embedder offers, the built-in one and the ONNX models alike. */
export interface Embedder {
  /** Stable name of the vector space: vectors of two embedders with another id do not compare. */
  readonly id: string;
  readonly dimension: number;
  /** One L2-normalised vector per text, in the same order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Frees threads or native memory; the embedder is unusable afterwards. */
  close?(): Promise<void>;
}

/** Embeds in slices of `batchSize` texts, one slice at a time, to bound the memory of a call. */
export async function embedInBatches(
  embedder: Embedder,
  texts: readonly string[],
  batchSize: number,
): Promise<Float32Array[]> {
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new RangeError(`batchSize must be a positive integer, got ${batchSize}`);
  }
  const out: Float32Array[] = [];
  for (let start = 0; start < texts.length; start += batchSize) {
    const vectors = await embedder.embed(texts.slice(start, start + batchSize));
    for (const v of vectors) out.push(v);
  }
  return out;
}

/** Scales `v` to unit length in place; a zero vector stays zero. Returns its former norm. */
export function normalizeInPlace(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return norm;
}

/** Dot product, which is the cosine for unit vectors. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
