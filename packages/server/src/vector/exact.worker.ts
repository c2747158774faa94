/**
 * One-off thread for the exact side of a recall measure (recall.ts): reads the indexed vectors
 * from the store in chunks, through the repository, and finds each sample query's true k
 * nearest by brute force. At 1M × 384 that is seconds of reading and scanning, kept off both
 * the event loop and the index's own thread.
 */
import Database from 'better-sqlite3';
import usearch from 'usearch';
import { SnippetRepository } from '../store/snippet.repository.js';

export interface ExactTask {
  dbFile: string;
  /** Every key in the index. */
  keys: Float64Array;
  /** The keys whose vectors are the queries. */
  sample: Float64Array;
  dimension: number;
  k: number;
  embedderId: string;
}

export interface ExactResult {
  /** The sample keys that had a stored vector, and those vectors (flat). */
  queryKeys: Float64Array;
  queries: Float32Array;
  /** k true neighbours per query, as keys (row i: truth[i*k .. i*k+k)). */
  truth: Float64Array;
  k: number;
}

const CHUNK = 20_000;

/** Vectors of `ids` in a fresh array (usearch ignores a view's offset: never pass a subarray). */
function readVectors(repo: SnippetRepository, ids: ArrayLike<number>, task: ExactTask) {
  const stored = repo.embeddings(Array.from(ids));
  const keys: number[] = [];
  const flat = new Float32Array(ids.length * task.dimension);
  for (let i = 0; i < ids.length; i++) {
    const e = stored.get(ids[i]!);
    if (!e?.embedding || e.embedder_id !== task.embedderId) continue;
    if (e.embedding.byteLength !== task.dimension * 4) continue;
    flat.set(
      new Float32Array(e.embedding.buffer, e.embedding.byteOffset, task.dimension).slice(),
      keys.length * task.dimension,
    );
    keys.push(ids[i]!);
  }
  return { keys, flat: flat.slice(0, keys.length * task.dimension) };
}

export function exactNeighbours(task: ExactTask): ExactResult {
  const db = new Database(task.dbFile, { readonly: true, fileMustExist: true });
  try {
    const repo = new SnippetRepository(db);
    const q = readVectors(repo, task.sample, task);
    const nq = q.keys.length;
    const k = task.k;
    // Best k per query so far: distances ascending, with their keys.
    const bestD = new Float64Array(nq * k).fill(Infinity);
    const bestK = new Float64Array(nq * k).fill(-1);
    for (let start = 0; start < task.keys.length && nq > 0; start += CHUNK) {
      const chunk = readVectors(repo, task.keys.subarray(start, start + CHUNK), task);
      if (chunk.keys.length === 0) continue;
      const kk = Math.min(k, chunk.keys.length);
      const m = usearch.exactSearch(
        chunk.flat,
        q.flat,
        task.dimension,
        kk,
        usearch.MetricKind.Cos,
        1,
      );
      for (let i = 0; i < nq; i++) {
        const one =
          nq === 1
            ? (m as InstanceType<typeof usearch.Matches>)
            : (m as InstanceType<typeof usearch.BatchMatches>).get(i);
        for (let j = 0; j < one.keys.length; j++) {
          const d = one.distances[j]!;
          const key = chunk.keys[Number(one.keys[j])]!;
          // Insert into the sorted best list of query i if it beats the worst.
          const base = i * k;
          if (d >= bestD[base + k - 1]!) break;
          let p = base + k - 1;
          while (p > base && bestD[p - 1]! > d) {
            bestD[p] = bestD[p - 1]!;
            bestK[p] = bestK[p - 1]!;
            p--;
          }
          bestD[p] = d;
          bestK[p] = key;
        }
      }
    }
    return { queryKeys: Float64Array.from(q.keys), queries: q.flat, truth: bestK, k };
  } finally {
    db.close();
  }
}

/** piscina's entry (a module needs a default export to be taken as a task module). */
export default exactNeighbours;
