import { matchTokens, STOPWORDS } from '../text.js';

const HASH_DIMS = 256;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Deterministic stand-in for a sentence embedder: content words (plural -s dropped) hashed into
 * 64 dimensions with a hashed sign, L2-normalised. Texts sharing vocabulary are similar, texts
 * on different topics nearly orthogonal.
 */
export function hashEmbedOne(text: string): Float32Array {
  const v = new Float32Array(HASH_DIMS);
  for (const raw of matchTokens(text)) {
    if (STOPWORDS.has(raw) || raw.length < 3) continue;
    const t = raw.slice(0, 5);
    const h = fnv1a(t);
    v[h % HASH_DIMS] = (v[h % HASH_DIMS] ?? 0) + ((h >>> 16) & 1 ? 1 : -1);
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

export interface RecordingEmbed {
  (texts: string[]): Promise<Float32Array[]>;
  /** Sizes of the batches it was called with. */
  calls: number[];
}

export function hashEmbed(): RecordingEmbed {
  const fn = (async (texts: string[]) => {
    fn.calls.push(texts.length);
    return texts.map(hashEmbedOne);
  }) as RecordingEmbed;
  fn.calls = [];
  return fn;
}
